//go:build integration

package client_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/faultproxy"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/require"
)

// settleProp is one run of the cross-path property test: a few objects of one class, saved along random paths
// through a fault proxy that loses requests before the server sees them or answers after it applied them.
type settleProp struct {
	t       *testing.T
	rng     *rand.Rand
	cls     string
	c       *client.Client // through the fault proxy, at the default config
	healthy *client.Client // straight to the server: the app's settling reads
	master  *client.Client // the checks
	objs    []*parse.Object
	// released marks objects settled with "" (nothing stored) and edited since, until they are saved.
	released map[*parse.Object]bool
	stats    map[string]int
}

// paths are the save paths the test takes.
var propPaths = []string{"Save", "SaveAll", "SaveAll(Atomic)", "SaveAll(mixed)"}

// pick returns n distinct objects chosen at random (n at most len(objs)).
func (p *settleProp) pick(n int) []*parse.Object {
	idx := p.rng.Perm(len(p.objs))[:n]
	out := make([]*parse.Object, n)
	for i, k := range idx {
		out[i] = p.objs[k]
	}
	return out
}

// check fails unless the server holds o in exactly one row, equal to o field by field, and o has nothing pending:
// what a reported success promises.
func (p *settleProp) check(o *parse.Object, what string) {
	t := p.t
	t.Helper()
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, p.master.Request(context.Background(), "GET", "classes/"+p.cls,
		map[string]any{"where": map[string]any{"key": o.String("key")}, "limit": 10}, &resp), what)
	require.Len(t, resp.Results, 1, "%s: one row for key %s", what, o.String("key"))
	row := resp.Results[0]
	require.Equal(t, o.ID(), row["objectId"], what)
	requireStored(t, o, row, what)
}

// settle does what an app does after an outcome it must settle: a held create is looked up by its key and settled
// with the row's id or "" (then remembered as released), an update in doubt is fetched.
func (p *settleProp) settle(o *parse.Object, what string) {
	t := p.t
	t.Helper()
	ctx := context.Background()
	if o.ID() != "" {
		require.NoError(t, p.healthy.Objects.Fetch(ctx, o), what)
		p.stats["updates fetched"]++
		return
	}
	id := rowIDByKey(t, p.master, o, what)
	require.NoError(t, p.healthy.Objects.Settle(ctx, o, id), what)
	if id == "" {
		p.stats["creates released"]++
		p.released[o] = true
		randomEdit(t, p.rng, o) // the app goes on editing: those changes go out after the first attempt's
	} else {
		p.stats["creates settled by id"]++
	}
}

// outcome handles one object's result of a save along path.
func (p *settleProp) outcome(o *parse.Object, path string, err error, what string) {
	t := p.t
	t.Helper()
	switch {
	case err == nil:
		p.stats["successes checked"]++
		if p.released[o] {
			p.stats["released creates saved by "+path]++
			delete(p.released, o)
		}
		p.check(o, what)
	case errors.Is(err, client.ErrCreateHeld):
		p.stats["held creates refused"]++
		p.settle(o, what)
	case errors.Is(err, parse.ErrWriteInDoubt):
		p.stats["in doubt"]++
		if o.ID() == "" {
			p.stats["creates in doubt"]++
		}
		if o.ID() != "" || p.rng.IntN(2) == 0 {
			p.settle(o, what) // a held create is sometimes edited and saved again first: that save must be refused
		}
	case errors.Is(err, client.ErrRolledBack):
		p.stats["atomic rollbacks proven"]++
		require.True(t, o.Dirty(), "%s: a rolled-back item keeps its changes", what)
	default:
		p.stats["refused"]++
	}
}

// add makes a new object with a key of its own.
func (p *settleProp) add(seed uint64) {
	o := parse.NewObject(p.cls)
	require.NoError(p.t, o.Set("key", fmt.Sprintf("s%d-%d-%d", seed, len(p.objs), rand.Uint32())))
	p.objs = append(p.objs, o)
}

// step edits a few objects (now and then a new one joins), then saves some along one path, and handles each
// outcome as an app does.
func (p *settleProp) step(n int, seed uint64) {
	t := p.t
	ctx := context.Background()
	if len(p.objs) < 12 && p.rng.IntN(2) == 0 {
		p.add(seed)
		p.add(seed)
	}
	for _, o := range p.pick(1 + p.rng.IntN(3)) {
		randomEdit(t, p.rng, o)
	}
	path := propPaths[p.rng.IntN(len(propPaths))]
	var objs []*parse.Object
	switch path {
	case "Save":
		objs = p.pick(1)
	case "SaveAll(mixed)":
		objs = p.objs // new, held, released and stored objects together
	default:
		objs = p.pick(2 + p.rng.IntN(len(p.objs)-1))
	}
	what := fmt.Sprintf("step %d %s of %d", n, path, len(objs))
	p.stats[path]++
	var err error
	switch path {
	case "Save":
		err = p.c.Objects.Save(ctx, objs[0])
	case "SaveAll(Atomic)":
		err = p.c.Objects.SaveAll(ctx, objs, client.Atomic())
	default:
		err = p.c.Objects.SaveAll(ctx, objs)
	}
	var be *client.BatchError
	switch {
	case path == "Save":
		p.outcome(objs[0], path, err, what)
	case err == nil || errors.As(err, &be):
		for i, o := range objs {
			var ierr error
			if be != nil {
				ierr = be.Errors[i]
			}
			p.outcome(o, path, ierr, fmt.Sprintf("%s, item %d (%s)", what, i, o.String("key")))
		}
	case errors.Is(err, client.ErrCreateHeld):
		// An atomic batch holding a held create is refused before anything is sent: settle the held ones.
		p.stats["held creates refused"]++
		for _, o := range objs {
			if p.isHeld(o) {
				p.settle(o, what)
			}
		}
	default:
		t.Fatalf("%s: unexpected error of the whole call: %v", what, err)
	}
}

// isHeld reports whether o's create is held: Fetch refuses exactly those with ErrCreateHeld, sending nothing.
func (p *settleProp) isHeld(o *parse.Object) bool {
	return o.ID() == "" && errors.Is(p.healthy.Objects.Fetch(context.Background(), o), client.ErrCreateHeld)
}

// Random sequences over every save path, through a fault proxy that loses requests before the server sees them
// and answers after it applied them (30% of requests; retries, proofs and the app's settling included), at the
// default config, against the real stack: after every reported success the server holds each saved object in one
// row, equal to the object (what the app meant) field by field. After an outcome in doubt, or a refusal of a held
// create, the test does what an app does: it fetches an update, and looks a create up by its key and settles it
// (Settle(id), or Settle("") when nothing was stored), sometimes only after editing and saving it again. The
// paths: Save of one object, SaveAll of several, SaveAll with Atomic, and SaveAll of all (new, held, released and
// stored together). Two fixed seeds and a random one run (each logged, and named by its subtest);
// MORALIS_PROPERTY_SEED runs one chosen seed. At the end, with the faults off, every object is settled and saved
// and checked once more.
func TestPropertyEverySavePathSettlesTheSameWay(t *testing.T) {
	env := devstack.MustLoad(t)
	// Seeds 11 and 13 resend released creates with later edits along Save, SaveAll and SaveAll(Atomic): each fails
	// when that path skips the changes made since (tried); the third seed is new every run.
	seeds := []uint64{11, 13, rand.Uint64N(1 << 32)}
	if s := os.Getenv("MORALIS_PROPERTY_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seeds = []uint64{v}
	}
	healthy, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	require.NoError(t, err)
	master, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	master = master.WithMasterKey()
	cls := fmt.Sprintf("SettleProp%d", rand.Uint32())
	// Every field first: an atomic batch never adds one (see client.Atomic).
	schema := parse.NewObject(cls)
	for k, v := range map[string]any{"key": "schema", "a": "x", "b": "x", "n": 0, "list": []any{0}} {
		require.NoError(t, schema.Set(k, v))
	}
	require.NoError(t, healthy.Objects.Save(context.Background(), schema))
	require.NoError(t, healthy.Objects.Destroy(context.Background(), schema))
	total := map[string]int{}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Logf("seed %d (MORALIS_PROPERTY_SEED=%d runs it alone)", seed, seed)
			proxy, err := faultproxy.New(env.ServerURL, 0.4, seed)
			require.NoError(t, err)
			defer proxy.Close()
			proxy.Only(faultproxy.Drop, faultproxy.Reset)
			// The default config, with a 1 ms back-off base to keep the test cheap: the base only sets how long a
			// retry waits, never which requests are retried.
			c, err := client.New(client.Config{ServerURL: proxy.URL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
				Retry: client.RetryPolicy{Base: time.Millisecond}})
			require.NoError(t, err)
			p := &settleProp{t: t, rng: rand.New(rand.NewPCG(seed, 0x5e771e)), cls: cls, c: c, healthy: healthy, master: master,
				released: map[*parse.Object]bool{}, stats: map[string]int{}}
			for i := 0; i < 3; i++ {
				p.add(seed)
			}
			for n := 0; n < 40; n++ {
				p.step(n, seed)
			}
			proxy.SetEnabled(false)
			for _, o := range p.objs {
				err := healthy.Objects.Save(context.Background(), o)
				if errors.Is(err, client.ErrCreateHeld) {
					p.settle(o, "before the last save")
					err = healthy.Objects.Save(context.Background(), o)
				}
				require.NoError(t, err, "the last save")
				p.check(o, "final")
			}
			t.Logf("seed %d: %v; faults %v", seed, p.stats, proxy.Counts())
			for k, v := range p.stats {
				total[k] += v
			}
		})
	}
	t.Logf("all seeds: %v", total)
	if len(seeds) == 3 {
		for _, path := range []string{"SaveAll", "SaveAll(Atomic)", "SaveAll(mixed)"} {
			require.Positive(t, total["released creates saved by "+path], "the fixed seeds resend released creates with later edits by %s", path)
		}
		require.Positive(t, total["atomic rollbacks proven"], "the fixed seeds prove atomic rollbacks")
		require.Positive(t, total["creates settled by id"], "the fixed seeds settle creates by the id of the row found")
	}
}
