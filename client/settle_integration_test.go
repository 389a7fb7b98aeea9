//go:build integration

// The issue's three sequences (#37) as regression tests against the real stack (parse-server on PostgreSQL with
// moralis-go-server's txMark), each through a proxy that loses a request before the server sees it or an answer
// after the server applied it, at the default config.
package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func isBatch(path string) bool { return strings.HasSuffix(path, "/batch") }

func isTransaction(path string, body []byte) bool {
	return isBatch(path) && bytes.Contains(body, []byte(`"transaction":true`))
}

// issueObjects are n new objects of cls as the issue makes them: a=1, n=1, tag=A, and a key of their own.
func issueObjects(t *testing.T, cls string, n int) []*parse.Object {
	objs := make([]*parse.Object, n)
	run := rand.Uint32()
	for i := range objs {
		objs[i] = parse.NewObject(cls)
		require.NoError(t, objs[i].Set("key", fmt.Sprintf("%d-%d", run, i)))
		require.NoError(t, objs[i].Set("a", 1))
		require.NoError(t, objs[i].Set("tag", "A"))
		require.NoError(t, objs[i].Increment("n", 1))
	}
	return objs
}

// issueEdits are the issue's edits: tag=B, b=2, n+=2.
func issueEdits(t *testing.T, objs []*parse.Object) {
	for _, o := range objs {
		require.NoError(t, o.Set("tag", "B"))
		require.NoError(t, o.Set("b", 2))
		require.NoError(t, o.Increment("n", 2))
	}
}

// rowsByKey returns the stored rows of cls by their key.
func rowsByKey(t *testing.T, master *client.Client, cls string) map[string][]map[string]any {
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, master.WithMasterKey().Request(context.Background(), "GET", "classes/"+cls, map[string]any{"limit": 1000}, &resp))
	out := map[string][]map[string]any{}
	for _, r := range resp.Results {
		k, _ := r["key"].(string)
		out[k] = append(out[k], r)
	}
	return out
}

// rowIDByKey is what an app does to settle a held create: it looks the object's row up by the key it set (through
// reader), and returns the row's id, or "" when there is none. More than one row fails the test.
func rowIDByKey(t *testing.T, reader *client.Client, o *parse.Object, what string) string {
	t.Helper()
	var resp struct {
		Results []struct {
			ID string `json:"objectId"`
		} `json:"results"`
	}
	require.NoError(t, reader.Request(context.Background(), "GET", "classes/"+o.ClassName(),
		map[string]any{"where": map[string]any{"key": o.String("key")}, "keys": "objectId"}, &resp), what)
	require.LessOrEqual(t, len(resp.Results), 1, "%s: the create was stored twice", what)
	if len(resp.Results) == 0 {
		return ""
	}
	return resp.Results[0].ID
}

// settleByKey settles a held create with the id of its row, found by its key, or with "" when there is none.
func settleByKey(t *testing.T, c, master *client.Client, o *parse.Object) {
	require.NoError(t, c.Objects.Settle(context.Background(), o, rowIDByKey(t, master, o, "settle")))
}

// assertStoredAsMeant fails unless each object is stored once, with the issue's edited values, and has nothing
// pending.
func assertStoredAsMeant(t *testing.T, master *client.Client, objs []*parse.Object) {
	t.Helper()
	rows := rowsByKey(t, master, objs[0].ClassName())
	require.Len(t, rows, len(objs))
	for _, o := range objs {
		got := rows[o.String("key")]
		require.Len(t, got, 1, "one row for %s", o.String("key"))
		r := got[0]
		assert.Equal(t, o.ID(), r["objectId"])
		assert.EqualValues(t, 1, r["a"])
		assert.EqualValues(t, 2, r["b"])
		assert.EqualValues(t, 3, r["n"])
		assert.Equal(t, "B", r["tag"])
		assert.Empty(t, o.DirtyKeys())
	}
}

// Issue #37, sequence 1: SaveAll of 3 new objects whose /batch is lost before the server sees it (0 rows, all 3
// in doubt); the app edits, SaveAll is refused as held, it finds no row and settles each with ""; the next SaveAll
// reports success, and now the server holds the edits (before: the first snapshot only).
func TestSaveAllReleasedCreatesSendTheirLaterEdits(t *testing.T) {
	cls := fmt.Sprintf("Issue37A%d", rand.Uint32())
	var dropped atomic.Bool
	c, _, master, _ := rtClients(t, &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if isBatch(path) && dropped.CompareAndSwap(false, true) {
			return bad502, nil // never forwarded
		}
		return pass, nil
	}})
	ctx := context.Background()
	objs := issueObjects(t, cls, 3)
	err := c.Objects.SaveAll(ctx, objs)
	var be *client.BatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 3, be.InDoubt)
	issueEdits(t, objs)
	require.ErrorIs(t, c.Objects.SaveAll(ctx, objs), client.ErrCreateHeld)
	for _, o := range objs {
		settleByKey(t, c, master, o)
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	assertStoredAsMeant(t, master, objs)
}

// Issue #37, sequence 2: an atomic SaveAll of 3 new objects whose answer is lost after the commit (3 rows). The
// batch's mark proves it applied, but the new ids were in the lost answer: every create is held; the next atomic
// SaveAll is refused before anything is sent (before: it returned nil and stored 6 rows); settled, it stores the
// edits in the same 3 rows.
func TestAtomicCreatesInDoubtAreHeldNotStoredTwice(t *testing.T) {
	cls := fmt.Sprintf("Issue37B%d", rand.Uint32())
	c, _, master, _ := rtClients(t, &hookProxy{})
	ctx := context.Background()
	// The class and its fields first: a transaction never adds a field (see client.Atomic).
	schema := issueObjects(t, cls, 1)[0]
	require.NoError(t, schema.Set("b", 0))
	require.NoError(t, c.Objects.Save(ctx, schema))
	require.NoError(t, c.Objects.Destroy(ctx, schema))

	var lost atomic.Bool
	c, _, _, _ = rtClients(t, &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if isTransaction(path, body) && lost.CompareAndSwap(false, true) {
			return reset, nil // applied, the answer lost
		}
		return pass, nil
	}})
	objs := issueObjects(t, cls, 3)
	err := c.Objects.SaveAll(ctx, objs, client.Atomic())
	require.ErrorIs(t, err, parse.ErrWriteInDoubt)
	var ade *client.AtomicDoubtError
	require.ErrorAs(t, err, &ade)
	assert.True(t, ade.Applied, "the mark proves the batch applied: %v", err)
	require.Len(t, rowsByKey(t, master, cls), 3)

	issueEdits(t, objs)
	err = c.Objects.SaveAll(ctx, objs, client.Atomic())
	require.ErrorIs(t, err, client.ErrCreateHeld)
	require.Len(t, rowsByKey(t, master, cls), 3, "nothing sent")
	for _, o := range objs {
		settleByKey(t, c, master, o)
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs, client.Atomic()))
	assertStoredAsMeant(t, master, objs)
}

// Issue #37, sequence 3: an atomic SaveAll of 30 where item 17 has a wrong type for an existing column. The server
// rolls it back (0 rows) and answers a bare 500; the SDK proves the rollback (every item ErrRolledBack, none in
// doubt) and names item 17 with parse-server's own refusal, the same text the plain SaveAll of the same objects
// gets for item 17 (it saves the other 29): read from the schema with the master key, or through
// moralisGoCheckWrites with the JavaScript key only. Fixed, the atomic SaveAll stores all 30.
func TestAtomicRollbackNamesTheRefusedItem(t *testing.T) {
	for _, withMaster := range []bool{true, false} {
		t.Run(fmt.Sprintf("master key %v", withMaster), func(t *testing.T) {
			env := devstack.MustLoad(t)
			cfg := client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, BatchSize: 30}
			if withMaster {
				cfg.MasterKey = env.MasterKey
			}
			c, err := client.New(cfg)
			require.NoError(t, err)
			atomicSchema(t, newClient(t))
			ctx := context.Background()
			run := fmt.Sprintf("n%d", rand.Uint32())
			objs := atomicObjects(run, 30)
			require.NoError(t, objs[17].Set("i", "seventeen"))

			err = c.Objects.SaveAll(ctx, objs, client.Atomic())
			t.Logf("atomic: %v", err)
			var be *client.BatchError
			require.ErrorAs(t, err, &be)
			assert.Empty(t, atomicRows(t, c, run), "rolled back")
			assert.Equal(t, 30, be.Failed)
			assert.Zero(t, be.InDoubt)
			for i, e := range be.Errors {
				require.ErrorIs(t, e, client.ErrRolledBack, "item %d", i)
				var rb *client.RolledBackError
				require.ErrorAs(t, e, &rb)
				assert.Equal(t, 17, rb.Refused, "item %d names item 17", i)
				assert.Equal(t, i == 17, errors.Is(e, parse.ErrIncorrectType), "only item 17 is the refusal")
			}
			var pe *parse.Error
			require.ErrorAs(t, be.Errors[17], &pe)
			assert.Equal(t, "schema mismatch for AtomicBatch.i; expected Number but got String", pe.Message)

			plain := atomicObjects(run+"p", 30)
			require.NoError(t, plain[17].Set("i", "seventeen"))
			perr := c.Objects.SaveAll(ctx, plain)
			var pbe *client.BatchError
			require.ErrorAs(t, perr, &pbe)
			assert.Len(t, atomicRows(t, c, run+"p"), 29, "without Atomic the other 29 are saved")
			var plainRefusal *parse.Error
			require.ErrorAs(t, pbe.Errors[17], &plainRefusal)
			assert.Equal(t, plainRefusal.Code, pe.Code, "the refusal the server gives outside a transaction")
			assert.Equal(t, plainRefusal.Message, pe.Message)

			require.NoError(t, objs[17].Set("i", 17))
			require.NoError(t, c.Objects.SaveAll(ctx, objs, client.Atomic()))
			assert.Len(t, atomicRows(t, c, run), 30)
		})
	}
}

// The price of the proof, measured against the real stack through a counting proxy: an atomic batch that
// succeeds costs no request beyond its /batch (moralisGoServerInfo once per client) and one MoralisGoTxMark row;
// one rolled back costs one moralisGoTxApplied call, plus the naming (one schema read per class with the master
// key).
func TestAtomicProofPrice(t *testing.T) {
	var batches, functions, other atomic.Int32
	count := func(n int, path string, body []byte) (act, func()) {
		switch {
		case isBatch(path):
			batches.Add(1)
		case strings.Contains(path, "/functions/"):
			functions.Add(1)
		default:
			other.Add(1)
		}
		return pass, nil
	}
	_, _, master, env := rtClients(t, &hookProxy{})
	atomicSchema(t, newClient(t))
	purl := newHookProxy(t, env.ServerURL, &hookProxy{hook: count})
	c, err := client.New(client.Config{ServerURL: purl, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	ctx := context.Background()
	marksBefore := countMarks(t, master)
	const rounds = 10
	for r := 0; r < rounds; r++ {
		run := fmt.Sprintf("price%d-%d", rand.Uint32(), r)
		require.NoError(t, c.Objects.SaveAll(ctx, atomicObjects(run, 20), client.Atomic()))
	}
	t.Logf("%d atomic SaveAll of 20 creates: %d /batch calls, %d function calls (moralisGoServerInfo), %d other requests, %d MoralisGoTxMark rows",
		rounds, batches.Load(), functions.Load(), other.Load(), countMarks(t, master)-marksBefore)
	assert.EqualValues(t, rounds, batches.Load())
	assert.EqualValues(t, 1, functions.Load(), "the backend's features are learned once")
	assert.Zero(t, other.Load())
	assert.Equal(t, rounds, countMarks(t, master)-marksBefore, "one mark row per batch")

	batches.Store(0)
	functions.Store(0)
	other.Store(0)
	objs := atomicObjects(fmt.Sprintf("price%d", rand.Uint32()), 20)
	objs[5].Set("reject", true)
	require.ErrorIs(t, c.Objects.SaveAll(ctx, objs, client.Atomic()), client.ErrRolledBack)
	t.Logf("one rolled back: %d /batch calls, %d function calls (moralisGoTxApplied), %d other requests (schema reads)",
		batches.Load(), functions.Load(), other.Load())
	assert.EqualValues(t, 1, batches.Load())
	assert.EqualValues(t, 1, functions.Load())
	assert.EqualValues(t, 1, other.Load(), "one schema read of the class")
}

// countMarks is the number of MoralisGoTxMark rows (with a where clause: parse-server on PostgreSQL answers a
// count without one with the table statistics' estimate).
func countMarks(t *testing.T, master *client.Client) int {
	var resp struct {
		Count int `json:"count"`
	}
	require.NoError(t, master.WithMasterKey().Request(context.Background(), "GET", "classes/MoralisGoTxMark",
		map[string]any{"where": map[string]any{"mark": map[string]any{"$exists": true}}, "count": 1, "limit": 0}, &resp))
	return resp.Count
}
