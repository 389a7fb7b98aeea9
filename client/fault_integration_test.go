package client_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/faultproxy"
	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultClient returns a client that reaches the real local server through a fault proxy. It allows 20 attempts: at
// a 30% fault rate one request in 170,000 meets 10 faults in a row, which over 1,000 creates fails about one run
// in 170; 20 attempts make that negligible (0.3^20).
func faultClient(t *testing.T, rate float64, seed uint64, idempotent bool) (*client.Client, *client.Client, *faultproxy.Proxy) {
	t.Helper()
	env := devstack.MustLoad(t)
	p, err := faultproxy.New(env.ServerURL, rate, seed)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	c, err := client.New(client.Config{ServerURL: p.URL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey,
		Idempotency: idempotent, MaxAttempts: 20, Retry: httpx.Policy{Base: 5 * time.Millisecond}})
	require.NoError(t, err)
	direct, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	return c, direct, p
}

func countRows(t *testing.T, c *client.Client, cls string) int {
	t.Helper()
	var resp struct {
		Count int `json:"count"`
	}
	require.NoError(t, c.Request(context.Background(), "GET", "classes/"+cls, map[string]any{"limit": 0, "count": 1}, &resp))
	return resp.Count
}

// Through 30% injected faults, 1,000 creates with idempotency on give exactly 1,000 rows. A create whose first
// attempt was applied but whose answer was lost comes back as an Applied duplicate error, never as a second row.
func TestFaults1000CreatesWithIdempotency(t *testing.T) {
	c, direct, p := faultClient(t, 0.30, 42, true)
	cls := fmt.Sprintf("Fault%d", rand.Uint32())
	ctx := context.Background()
	var ok, applied atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	var failures []error
	var mu sync.Mutex
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			o := client.NewObject(cls)
			o.Set("n", i)
			err := c.Save(ctx, o)
			var pe *client.Error
			switch {
			case err == nil:
				ok.Add(1)
			case errors.As(err, &pe) && pe.Applied:
				applied.Add(1)
			default:
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	require.Empty(t, failures)
	assert.Equal(t, int64(1000), ok.Load()+applied.Load())
	assert.Equal(t, 1000, countRows(t, direct, cls), "none lost, none doubled")
	counts := p.Counts()
	t.Logf("faults injected: %d of %d requests: %v; saves ok %d, applied-but-answer-lost %d", p.Injected(), p.Injected()+counts[faultproxy.None], counts, ok.Load(), applied.Load())
	assert.Greater(t, p.Injected(), 250, "the proxy really injected faults")
}

// Without idempotency a retried create whose first attempt was applied makes a second row: the risk the option
// removes. The test shows it happens.
func TestFaultsWithoutIdempotencyCanDuplicate(t *testing.T) {
	c, direct, p := faultClient(t, 0.30, 7, false)
	cls := fmt.Sprintf("FaultNoIdem%d", rand.Uint32())
	ctx := context.Background()
	saved := 0
	for i := 0; i < 300; i++ {
		o := client.NewObject(cls)
		o.Set("n", i)
		if err := c.Save(ctx, o); err == nil {
			saved++
		}
	}
	rows := countRows(t, direct, cls)
	t.Logf("without idempotency: %d saves reported, %d rows stored, faults %v", saved, rows, p.Counts())
	assert.Greater(t, rows, 300, "answers lost after the server applied a create lead to duplicates when retried")
}

// SaveAll reports each failed item and saves the rest.
func TestFaultsSaveAllReportsPerItem(t *testing.T) {
	c, direct, _ := faultClient(t, 0.5, 3, false)
	env := devstack.MustLoad(t)
	noRetry, err := client.New(client.Config{ServerURL: c.ServerURL(), AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MaxAttempts: 1, BatchSize: 10})
	require.NoError(t, err)
	cls := fmt.Sprintf("FaultBatch%d", rand.Uint32())
	objs := make([]*client.Object, 200)
	for i := range objs {
		objs[i] = client.NewObject(cls)
		objs[i].Set("n", i)
	}
	err = noRetry.SaveAll(context.Background(), objs)
	var be *client.BatchError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Errors, 200)
	failed, withID := 0, 0
	for i, e := range be.Errors {
		if e != nil {
			failed++
			assert.Empty(t, objs[i].ID(), "a failed create has no id")
			assert.Equal(t, []string{"n"}, objs[i].DirtyKeys(), "a failed item keeps its changes")
		} else {
			withID++
			assert.NotEmpty(t, objs[i].ID())
		}
	}
	assert.Equal(t, be.Failed, failed)
	assert.Greater(t, failed, 0)
	assert.Greater(t, withID, 0)
	// Every item reported saved is on the server.
	for i, e := range be.Errors {
		if e == nil {
			_, err := direct.Get(context.Background(), cls, objs[i].ID())
			require.NoError(t, err)
		}
	}
}

// Retries honour the context's deadline.
func TestFaultsRetriesHonourDeadline(t *testing.T) {
	c, _, _ := faultClient(t, 1.0, 9, true)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Save(ctx, client.NewObject("Whatever"))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
}

// chosenIDsClient reaches the real server through a proxy faulting 30% of requests, with Config.ClientObjectIDs.
func chosenIDsClient(t *testing.T, seed uint64, idempotent bool) (*client.Client, *faultproxy.Proxy) {
	t.Helper()
	env := devstack.MustLoad(t)
	p, err := faultproxy.New(env.ServerURL, 0.30, seed)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	c, err := client.New(client.Config{ServerURL: p.URL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		Idempotency: idempotent, ClientObjectIDs: true, MaxAttempts: 20, Retry: httpx.Policy{Base: 5 * time.Millisecond}})
	require.NoError(t, err)
	return c, p
}

// With client-chosen object ids, a create whose answer was lost is recovered: every one of 1,000 saves through 30%
// faults succeeds with its id, exactly 1,000 rows exist, and without idempotency there are still no duplicates.
func TestFaultsClientObjectIDsRecoverLostAnswers(t *testing.T) {
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprintf("idempotency=%v", idem), func(t *testing.T) {
			c, p := chosenIDsClient(t, 11, idem)
			direct := newClient(t)
			cls := fmt.Sprintf("FaultIDs%d", rand.Uint32())
			n := 1000
			if !idem {
				n = 300
			}
			ids := make([]string, n)
			var wg sync.WaitGroup
			sem := make(chan struct{}, 8)
			errs := make(chan error, n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				sem <- struct{}{}
				go func(i int) {
					defer wg.Done()
					defer func() { <-sem }()
					o := client.NewObject(cls)
					o.Set("n", i)
					if err := c.Save(context.Background(), o); err != nil {
						errs <- err
						return
					}
					ids[i] = o.ID()
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("save failed: %v", err)
			}
			seen := map[string]bool{}
			for i, id := range ids {
				require.Len(t, id, 10, "save %d has an id", i)
				require.False(t, seen[id], "ids are unique")
				seen[id] = true
			}
			assert.Equal(t, n, countRows(t, direct, cls), "exactly one row per save")
			got, err := direct.Get(context.Background(), cls, ids[n/2])
			require.NoError(t, err)
			assert.Equal(t, float64(n/2), got.Get("n"))
			t.Logf("idempotency=%v: %d saves through %d faults (%v), all recovered with their ids", idem, n, p.Injected(), p.Counts())
		})
	}
}

// SaveAll with client-chosen ids through 30% faults: one call saves every object with its id and stores exactly
// one row each, with or without idempotency (a retried /batch whose first answer was lost is settled per item).
func TestFaultsSaveAllClientObjectIDs(t *testing.T) {
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprintf("idempotency=%v", idem), func(t *testing.T) {
			c, p := chosenIDsClient(t, 13, idem)
			direct := newClient(t)
			cls := fmt.Sprintf("FaultBatchIDs%d", rand.Uint32())
			const n = 1000
			objs := make([]*client.Object, n)
			for i := range objs {
				objs[i] = client.NewObject(cls)
				objs[i].Set("n", i)
			}
			require.NoError(t, c.SaveAll(context.Background(), objs))
			seen := map[string]bool{}
			for i, o := range objs {
				require.Len(t, o.ID(), 10, "object %d has an id", i)
				require.False(t, seen[o.ID()], "ids are unique")
				seen[o.ID()] = true
				require.Empty(t, o.DirtyKeys(), "object %d is saved", i)
			}
			counts := p.Counts()
			require.Positive(t, counts["reset"]+counts["truncate"], "some /batch answers were lost after the server applied them")
			assert.Equal(t, n, countRows(t, direct, cls), "exactly one row per object (without client ids: 1,160)")
			got, err := direct.Get(context.Background(), cls, objs[n/3].ID())
			require.NoError(t, err)
			assert.Equal(t, float64(n/3), got.Get("n"))
			t.Logf("idempotency=%v: SaveAll of %d through %d faults (%v)", idem, n, p.Injected(), p.Counts())
		})
	}
}
