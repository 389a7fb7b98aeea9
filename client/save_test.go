package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// At the default config creates carry no objectId (cloud code sees a create): Save and a deep save's single
// creates as one POST each with a request id, SaveAll's several creates as one /batch (sent once).
func TestDefaultCreatesCarryNoObjectID(t *testing.T) {
	m := &memServer{serverIDs: true}
	c, srv := memClient(t, m)
	ctx := context.Background()
	one := parse.NewObject("Thing")
	one.Set("n", 1)
	require.NoError(t, c.Objects.Save(ctx, one))
	many := []*parse.Object{parse.NewObject("Thing"), parse.NewObject("Thing"), parse.NewObject("Thing")}
	require.NoError(t, c.Objects.SaveAll(ctx, many))
	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	require.NoError(t, c.Objects.Save(ctx, parent))
	posts, batches := 0, 0
	for _, r := range srv.requests() {
		if r.Path == "batch" {
			batches++
			reqs, _ := r.Body["requests"].([]any)
			for _, q := range reqs {
				body, _ := q.(map[string]any)["body"].(map[string]any)
				_, has := body["objectId"]
				assert.False(t, has, "a create in /batch at the default config carries no objectId")
				posts++
			}
			continue
		}
		if r.Body["_method"] != nil {
			continue
		}
		posts++
		_, has := r.Body["objectId"]
		assert.False(t, has, "a create at the default config carries no objectId: %s", r.Path)
		assert.NotEmpty(t, r.Header.Get("X-Parse-Request-Id"), "it carries a request id")
	}
	assert.Equal(t, 1, batches, "SaveAll's three creates in one /batch")
	assert.Equal(t, 6, posts)
	for _, o := range append(many, one, child, parent) {
		assert.NotEmpty(t, o.ID())
		assert.Empty(t, o.ProposedID())
	}
	assert.Equal(t, ptr(child), m.rows["Parent"][parent.ID()]["child"])
}

// SaveAll sends several new objects in a /batch that is never sent twice (parse-server does not deduplicate
// /batch): when its answer is lost, every create of the call is in doubt and held, each stored once, and settling
// them with the stored ids leaves exactly the intended rows.
func TestSaveAllCreatesInABatchSentOnceAreHeldInDoubt(t *testing.T) {
	m := &memServer{serverIDs: true, loseClass: "Thing"}
	c, srv := memClient(t, m)
	ctx := context.Background()
	objs := []*parse.Object{parse.NewObject("Thing"), parse.NewObject("Thing"), parse.NewObject("Thing")}
	for i, o := range objs {
		require.NoError(t, o.Set("n", i))
	}
	err := c.Objects.SaveAll(ctx, objs)
	require.ErrorIs(t, err, parse.ErrWriteInDoubt)
	require.Len(t, m.rows["Thing"], 3, "the lost call was applied once, not sent again")
	batches := 0
	for _, r := range srv.requests() {
		if r.Path == "batch" {
			batches++
		}
	}
	assert.Equal(t, 1, batches, "one /batch call: %v", srv.requests())
	m.loseClass = ""
	before := len(m.rows["Thing"])
	err = c.Objects.SaveAll(ctx, objs)
	require.ErrorIs(t, err, ErrCreateHeld, "held creates are refused, nothing sent")
	assert.Len(t, m.rows["Thing"], before)
	for id, row := range m.rows["Thing"] {
		for _, o := range objs {
			if fmt.Sprint(row["n"]) == fmt.Sprint(o.Int("n")) {
				require.NoError(t, c.Objects.Settle(ctx, o, id))
			}
		}
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	assert.Len(t, m.rows["Thing"], 3)
	for _, o := range objs {
		assert.NotEmpty(t, o.ID())
	}
}

// Updates go through /batch in chunks of BatchSize, as the original's saveAll sends them, never with a request id
// (parse-server ignores it on /batch); an object listed twice is saved once; the server's computed values are
// merged; an item the server refuses keeps its changes pending.
func TestSaveAllSendsUpdatesInBatches(t *testing.T) {
	var mu sync.Mutex
	var calls []idReq
	srv := newIDServer(t, func(r idReq) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if r.Path != "batch" {
			return 404, `{"code":1,"error":"unexpected"}`
		}
		calls = append(calls, r)
		reqs, _ := r.Body["requests"].([]any)
		out := make([]map[string]any, len(reqs))
		for i, q := range reqs {
			q := q.(map[string]any)
			switch q["path"] {
			case "/parse/classes/Thing/a":
				out[i] = map[string]any{"success": map[string]any{"updatedAt": "2026-01-01T00:00:00.000Z", "score": 11}}
			case "/parse/classes/Thing/refused":
				out[i] = map[string]any{"error": map[string]any{"code": 101, "error": "Object not found."}}
			default:
				out[i] = map[string]any{"success": map[string]any{"updatedAt": "2026-01-01T00:00:00.000Z"}}
			}
		}
		b, _ := json.Marshal(out)
		return 200, string(b)
	})
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", BatchSize: 3})
	require.NoError(t, err)
	a := parse.NewObjectWithID("Thing", "a")
	require.NoError(t, a.Increment("score", 1))
	b := parse.NewObjectWithID("Thing", "b")
	b.Set("name", "x")
	require.NoError(t, b.AddUnique("tags", "t"))
	refused := parse.NewObjectWithID("Thing", "refused")
	refused.Set("name", "y")
	objs := []*parse.Object{a, b, a, refused}
	for i := range 4 {
		o := parse.NewObjectWithID("Thing", fmt.Sprintf("o%d", i))
		o.Set("n", i)
		objs = append(objs, o)
	}
	err = c.Objects.SaveAll(context.Background(), objs)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, be.Failed)
	assert.ErrorIs(t, be.Errors[3], parse.ErrObjectNotFound)
	assert.Equal(t, []string{"name"}, refused.DirtyKeys(), "a refused update keeps its changes pending")
	require.Len(t, calls, 3, "7 updates in /batch calls of 3")
	subs := 0
	for _, r := range calls {
		assert.Empty(t, r.Header.Get("X-Parse-Request-Id"))
		for _, q := range r.Body["requests"].([]any) {
			assert.Equal(t, "PUT", q.(map[string]any)["method"])
			subs++
		}
	}
	assert.Equal(t, 7, subs, "a listed twice is saved once")
	assert.Equal(t, float64(11), a.Get("score"), "the server's computed value")
	assert.False(t, a.Dirty())
	assert.False(t, b.Dirty())
}

// A /batch of updates whose answer is lost (the server applied it, a proxy answered 502) is never sent again,
// whatever the retry settings: each of its updates is in doubt, its changes no longer pending (a later save
// cannot apply them twice). The other calls' updates are saved.
func TestSaveAllUpdatesOfALostAnswerAreInDoubtNotResent(t *testing.T) {
	var mu sync.Mutex
	applied := map[string]int{}
	call := 0
	srv := newIDServer(t, func(r idReq) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		call++
		reqs, _ := r.Body["requests"].([]any)
		out := make([]map[string]any, len(reqs))
		lose := false
		for i, q := range reqs {
			path := q.(map[string]any)["path"].(string)
			applied[path]++
			lose = lose || path == "/parse/classes/Thing/o4"
			out[i] = map[string]any{"success": map[string]any{"updatedAt": "2026-01-01T00:00:00.000Z"}}
		}
		if lose {
			return 502, `bad gateway`
		}
		b, _ := json.Marshal(out)
		return 200, string(b)
	})
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", BatchSize: 3, BatchConcurrency: 1, Retry: RetryPolicy{Base: time.Millisecond}})
	require.NoError(t, err)
	var objs []*parse.Object
	for i := range 7 {
		o := parse.NewObjectWithID("Thing", fmt.Sprintf("o%d", i))
		require.NoError(t, o.Increment("n", 1))
		objs = append(objs, o)
	}
	err = c.Objects.SaveAll(context.Background(), objs)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, []int{3, 4, 5}, be.InDoubtItems(), "the three updates of the lost call")
	assert.Equal(t, 3, be.Failed)
	for path, n := range applied {
		assert.Equal(t, 1, n, "%s sent once", path)
	}
	assert.Len(t, applied, 7)
	for i, o := range objs {
		assert.False(t, o.Dirty(), "item %d: nothing left to send", i)
	}
	assert.Contains(t, be.Errors[4].Error(), "Thing o4")
}
