//go:build integration

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
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the SDK at its DEFAULT config (server URL and keys, nothing else) through a proxy that injects
// faults into 30% of the requests: drop before forwarding, reset after the server applied the request, a cut
// answer, a delay, a 502 or 503 of its own. They count what the server stored: nothing may be lost (every save
// reported done is stored) and nothing doubled (a save is stored at most once; one whose outcome is unknown is
// reported with ErrWriteInDoubt, never guessed).
//
// Each works on its own class through its own proxy, so they run in parallel (make test gives -parallel 4): most of
// their time is the SDK's retry backoff after a fault, which overlaps. TestFaultsRetriesHonourDeadline, which
// times a call, runs alone.

// defaultFaultClient returns a client with the default config that reaches the real local server through a
// fault proxy, and a direct client to count with.
func defaultFaultClient(t *testing.T, rate float64, seed uint64, tweak func(*client.Config)) (*client.Client, *client.Client, *faultproxy.Proxy) {
	t.Helper()
	env := devstack.MustLoad(t)
	p, err := faultproxy.New(env.ServerURL, rate, seed)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	cfg := client.Config{ServerURL: p.URL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey}
	if tweak != nil {
		tweak(&cfg)
	}
	c, err := client.New(cfg)
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

// rowsByN counts the stored rows per value of field "n".
func rowsByN(t *testing.T, c *client.Client, cls string) map[int]int {
	t.Helper()
	out := map[int]int{}
	var resp struct {
		Results []struct {
			N float64 `json:"n"`
		} `json:"results"`
	}
	for skip := 0; ; skip += 1000 {
		resp.Results = nil
		require.NoError(t, c.Request(context.Background(), "GET", "classes/"+cls, map[string]any{"limit": 1000, "skip": skip, "keys": "n", "order": "objectId"}, &resp))
		for _, r := range resp.Results {
			out[int(r.N)]++
		}
		if len(resp.Results) < 1000 {
			return out
		}
	}
}

// tally counts outcomes of writes.
type tally struct {
	ok, doubt atomic.Int64
	mu        sync.Mutex
	failures  []error
}

func (tl *tally) add(err error) {
	switch {
	case err == nil:
		tl.ok.Add(1)
	case errors.Is(err, parse.ErrWriteInDoubt):
		tl.doubt.Add(1)
	default:
		tl.mu.Lock()
		tl.failures = append(tl.failures, err)
		tl.mu.Unlock()
	}
}

// 1,000 creates at the default config through 30% faults: every save succeeds or is reported in doubt; the
// stored rows are exactly the successes plus the in-doubt ones that landed; no value is stored twice.
func TestFaultsDefault1000Creates(t *testing.T) {
	t.Parallel()
	c, direct, p := defaultFaultClient(t, 0.30, 42, nil)
	cls := fmt.Sprintf("FaultCreate%d", rand.Uint32())
	ctx := context.Background()
	var tl tally
	done := make([]bool, 1000)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			o := parse.NewObject(cls)
			o.Set("n", i)
			err := c.Objects.Save(ctx, o)
			tl.add(err)
			done[i] = err == nil
			if err == nil && len(o.ID()) != 10 {
				t.Errorf("save %d succeeded without an id: %q", i, o.ID())
			}
		}(i)
	}
	wg.Wait()
	require.Empty(t, tl.failures, "a definite failure through faults that the SDK can retry safely")
	byN := rowsByN(t, direct, cls)
	for i := 0; i < 1000; i++ {
		assert.LessOrEqual(t, byN[i], 1, "value %d stored twice", i)
		if done[i] {
			assert.Equal(t, 1, byN[i], "save %d reported done but not stored", i)
		}
	}
	rows := countRows(t, direct, cls)
	assert.GreaterOrEqual(t, int64(rows), tl.ok.Load())
	assert.LessOrEqual(t, int64(rows), tl.ok.Load()+tl.doubt.Load())
	assert.Greater(t, p.Injected(), 250, "the proxy really injected faults")
	t.Logf("1,000 creates through %d faults (%v): %d saved, %d in doubt, %d rows", p.Injected(), p.Counts(), tl.ok.Load(), tl.doubt.Load(), rows)
}

// SaveAll of 2,000 at the default config through 30% faults: one call; every object is saved once, or reported
// per object (failed or in doubt).
func TestFaultsDefaultSaveAll2000(t *testing.T) {
	t.Parallel()
	c, direct, p := defaultFaultClient(t, 0.30, 13, nil)
	cls := fmt.Sprintf("FaultSaveAll%d", rand.Uint32())
	const n = 2000
	objs := make([]*parse.Object, n)
	for i := range objs {
		objs[i] = parse.NewObject(cls)
		objs[i].Set("n", i)
	}
	err := c.Objects.SaveAll(context.Background(), objs)
	errs := make([]error, n)
	var be *client.BatchError
	if err != nil {
		require.ErrorAs(t, err, &be)
		errs = be.Errors
		assert.Equal(t, be.InDoubt, be.Failed, "through faults an item can only be in doubt, never a definite failure: %v", be)
	}
	byN := rowsByN(t, direct, cls)
	saved := 0
	for i, o := range objs {
		assert.LessOrEqual(t, byN[i], 1, "object %d stored twice", i)
		if errs[i] == nil {
			saved++
			assert.Equal(t, 1, byN[i], "object %d reported saved but not stored", i)
			assert.Len(t, o.ID(), 10)
			assert.Empty(t, o.DirtyKeys())
		}
	}
	counts := p.Counts()
	require.Positive(t, counts["reset"]+counts["truncate"], "some /batch answers were lost after the server applied them")
	t.Logf("SaveAll of %d through %d faults (%v): %d saved, in doubt %d, rows %d", n, p.Injected(), counts, saved, n-saved, countRows(t, direct, cls))
}

// SaveAll of 400 updates (Increment(1) each, three rounds) at the default config through 30% faults: the updates
// go in /batch calls of 20 that are never sent twice, so every object's counter ends between its increments
// reported done and those plus its in-doubt ones; a definite failure never happens through faults, and an
// in-doubt increment is not pending any more (the next round cannot send it twice).
func TestFaultsDefaultSaveAllUpdates(t *testing.T) {
	t.Parallel()
	c, direct, p := defaultFaultClient(t, 0.30, 17, nil)
	cls := fmt.Sprintf("FaultUpdates%d", rand.Uint32())
	ctx := context.Background()
	const n = 400
	seeds := make([]*parse.Object, n)
	for i := range seeds {
		seeds[i] = parse.NewObject(cls)
		seeds[i].Set("n", i)
		seeds[i].Set("count", 0)
	}
	require.NoError(t, direct.Objects.SaveAll(ctx, seeds))
	objs := make([]*parse.Object, n)
	for i := range objs {
		objs[i] = parse.NewObjectWithID(cls, seeds[i].ID())
	}
	done, doubt := make([]int, n), make([]int, n)
	for round := 0; round < 3; round++ {
		for _, o := range objs {
			require.NoError(t, o.Increment("count", 1))
		}
		err := c.Objects.SaveAll(ctx, objs)
		errs := make([]error, n)
		var be *client.BatchError
		if err != nil {
			require.ErrorAs(t, err, &be)
			errs = be.Errors
			assert.Equal(t, be.InDoubt, be.Failed, "through faults an update can only be in doubt: %v", be)
		}
		for i, e := range errs {
			if e == nil {
				done[i]++
			} else {
				doubt[i]++
				assert.Empty(t, objs[i].DirtyKeys(), "an in-doubt increment is not pending any more")
			}
		}
	}
	var resp struct {
		Results []struct {
			N     int `json:"n"`
			Count int `json:"count"`
		} `json:"results"`
	}
	require.NoError(t, direct.Request(ctx, "GET", "classes/"+cls, map[string]any{"limit": n, "keys": "n,count"}, &resp))
	require.Len(t, resp.Results, n)
	totalDone, totalDoubt, stored := 0, 0, 0
	for _, r := range resp.Results {
		assert.GreaterOrEqual(t, r.Count, done[r.N], "object %d: an increment reported done was lost", r.N)
		assert.LessOrEqual(t, r.Count, done[r.N]+doubt[r.N], "object %d: an increment was applied twice", r.N)
		totalDone += done[r.N]
		totalDoubt += doubt[r.N]
		stored += r.Count
	}
	require.Positive(t, p.Counts()["reset"]+p.Counts()["truncate"], "some answers were lost after the server applied them")
	t.Logf("3 × SaveAll of %d increments through %d faults (%v): %d done, %d in doubt, %d applied", n, p.Injected(), p.Counts(), totalDone, totalDoubt, stored)
}

// 200 saves of Increment(1) on one counter at the default config through 30% faults: the counter ends between
// the saves reported done and those plus the in-doubt ones; a save in doubt never goes out again with the next.
func TestFaultsDefault200Increments(t *testing.T) {
	t.Parallel()
	c, direct, p := defaultFaultClient(t, 0.30, 5, nil)
	cls := fmt.Sprintf("FaultCounter%d", rand.Uint32())
	ctx := context.Background()
	seed := parse.NewObject(cls)
	seed.Set("count", 0)
	require.NoError(t, direct.Objects.Save(ctx, seed))
	o := parse.NewObjectWithID(cls, seed.ID())
	var tl tally
	for i := 0; i < 200; i++ {
		require.NoError(t, o.Increment("count", 1))
		err := c.Objects.Save(ctx, o)
		tl.add(err)
		if err != nil {
			assert.Empty(t, o.DirtyKeys(), "an in-doubt increment is not pending any more")
		}
	}
	require.Empty(t, tl.failures)
	got, err := direct.Objects.Get(ctx, cls, seed.ID())
	require.NoError(t, err)
	count := int64(got.Int("count"))
	assert.GreaterOrEqual(t, count, tl.ok.Load(), "an increment reported done was lost")
	assert.LessOrEqual(t, count, tl.ok.Load()+tl.doubt.Load(), "an increment was applied twice")
	t.Logf("200 increments through %d faults (%v): %d done, %d in doubt, counter %d", p.Injected(), p.Counts(), tl.ok.Load(), tl.doubt.Load(), count)
}

// 100 cloud function calls at the default config through 30% faults: no call runs twice.
func TestFaultsDefault100FunctionCalls(t *testing.T) {
	t.Parallel()
	c, direct, p := defaultFaultClient(t, 0.30, 21, nil)
	cls := fmt.Sprintf("CallLog%d", rand.Uint32())
	var tl tally
	done := map[string]bool{}
	for i := 0; i < 100; i++ {
		key := fmt.Sprintf("k%d", i)
		err := c.Cloud.Call(context.Background(), "recordCall", map[string]any{"className": cls, "key": key}, nil)
		tl.add(err)
		done[key] = err == nil
	}
	require.Empty(t, tl.failures)
	var resp struct {
		Results []struct {
			Key string `json:"key"`
		} `json:"results"`
	}
	require.NoError(t, direct.WithMasterKey().Request(context.Background(), "GET", "classes/"+cls, map[string]any{"limit": 1000}, &resp))
	runs := map[string]int{}
	for _, r := range resp.Results {
		runs[r.Key]++
	}
	for key, ok := range done {
		assert.LessOrEqual(t, runs[key], 1, "call %s ran twice", key)
		if ok {
			assert.Equal(t, 1, runs[key], "call %s reported done but did not run", key)
		}
	}
	t.Logf("100 calls through %d faults (%v): %d done, %d in doubt, %d runs", p.Injected(), p.Counts(), tl.ok.Load(), tl.doubt.Load(), len(resp.Results))
}

// With request ids turned off (and client ids off, as by default), nothing is ever doubled either: ambiguous
// failures are reported in doubt instead of being sent again.
func TestFaultsOptionsOffNeverDouble(t *testing.T) {
	t.Parallel()
	c, direct, p := defaultFaultClient(t, 0.30, 7, func(cfg *client.Config) {
		cfg.DisableIdempotency = true
	})
	cls := fmt.Sprintf("FaultNoIdem%d", rand.Uint32())
	var tl tally
	for i := 0; i < 300; i++ {
		o := parse.NewObject(cls)
		o.Set("n", i)
		tl.add(c.Objects.Save(context.Background(), o))
	}
	require.Empty(t, tl.failures)
	rows := countRows(t, direct, cls)
	assert.GreaterOrEqual(t, int64(rows), tl.ok.Load())
	assert.LessOrEqual(t, int64(rows), tl.ok.Load()+tl.doubt.Load())
	assert.Positive(t, tl.doubt.Load(), "some creates were in doubt")
	t.Logf("without ids: %d saves done, %d in doubt, %d rows, faults %v", tl.ok.Load(), tl.doubt.Load(), rows, p.Counts())
}

// SaveAll reports each item that was not saved and saves the rest.
func TestFaultsSaveAllReportsPerItem(t *testing.T) {
	t.Parallel()
	c, direct, _ := defaultFaultClient(t, 0.5, 3, func(cfg *client.Config) { cfg.MaxAttempts = 1; cfg.BatchSize = 10 })
	cls := fmt.Sprintf("FaultBatch%d", rand.Uint32())
	objs := make([]*parse.Object, 200)
	for i := range objs {
		objs[i] = parse.NewObject(cls)
		objs[i].Set("n", i)
	}
	err := c.Objects.SaveAll(context.Background(), objs)
	var be *client.BatchError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Errors, 200)
	failed := 0
	for i, e := range be.Errors {
		if e != nil {
			failed++
			assert.Empty(t, objs[i].ID(), "a create not reported saved has no id")
			assert.EqualValues(t, i, objs[i].Int("n"), "it keeps its value")
			assert.True(t, objs[i].Dirty(), "it is still to be saved")
			if errors.Is(e, parse.ErrWriteInDoubt) {
				// The in-doubt attempt is kept as sent (resent as the same create, never merged with later edits).
				assert.Empty(t, objs[i].DirtyKeys(), "an in-doubt create's changes belong to that attempt")
			} else {
				assert.Equal(t, []string{"n"}, objs[i].DirtyKeys(), "a refused create keeps its changes pending")
			}
		} else {
			_, err := direct.Objects.Get(context.Background(), cls, objs[i].ID())
			require.NoError(t, err, "every item reported saved is on the server")
		}
	}
	assert.Equal(t, be.Failed, failed)
	assert.Greater(t, failed, 0)
	assert.Less(t, failed, 200)
	// What the app does next, through a healthy connection: a create in doubt is held (the server chose its id
	// and never told it), so the app settles each one by its own key (field n): with the stored row's id when
	// there is one, else with "". Then it saves the same objects again: every one is saved, exactly once.
	byN := rowsByN(t, direct, cls)
	for i, e := range be.Errors {
		if !errors.Is(e, parse.ErrWriteInDoubt) {
			continue
		}
		require.ErrorIs(t, direct.Objects.Save(context.Background(), objs[i]), client.ErrCreateHeld, "a held create is refused")
		id := ""
		if byN[i] == 1 {
			var resp struct {
				Results []struct {
					ID string `json:"objectId"`
				} `json:"results"`
			}
			require.NoError(t, direct.Request(context.Background(), "GET", "classes/"+cls, map[string]any{"where": map[string]any{"n": i}}, &resp))
			require.Len(t, resp.Results, 1)
			id = resp.Results[0].ID
		}
		require.NoError(t, direct.Objects.Settle(context.Background(), objs[i], id))
	}
	require.NoError(t, direct.Objects.SaveAll(context.Background(), objs))
	assert.Equal(t, 200, countRows(t, direct, cls), "no create applied twice, none lost")
}

// Retries honour the context's deadline.
func TestFaultsRetriesHonourDeadline(t *testing.T) {
	c, _, _ := defaultFaultClient(t, 1.0, 9, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Objects.Save(ctx, parse.NewObject("Whatever"))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
}
