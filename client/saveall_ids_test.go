package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeStore is a scripted server holding one class's rows, for SaveAll's settle logic. Its /batch creates rows
// (a repeated objectId is refused with 137, as parse-server does) and can lose the answer of chosen calls.
type fakeStore struct {
	mu       sync.Mutex
	rows     map[string]map[string]any
	unique   map[float64]bool // "n" values refused as duplicates of another unique field
	loseCall map[int]bool     // 1-based /batch calls whose answer is replaced by a 502 after applying them
	calls    int
	customID bool // the server allows custom object ids
	single   []idReq
}

func (f *fakeStore) reply(r idReq) (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Path == "batch":
		f.calls++
		reqs, _ := r.Body["requests"].([]any)
		out := make([]map[string]any, len(reqs))
		for i, q := range reqs {
			body := q.(map[string]any)["body"].(map[string]any)
			out[i] = f.create(body)
		}
		if f.loseCall[f.calls] {
			return 502, `bad gateway`
		}
		b, _ := json.Marshal(out)
		return 200, string(b)
	case r.Path == "classes/Thing" && r.Body["_method"] == "GET":
		var where map[string]any
		switch w := r.Body["where"].(type) {
		case string:
			_ = json.Unmarshal([]byte(w), &where)
		case map[string]any:
			where = w
		}
		in := where["objectId"].(map[string]any)["$in"].([]any)
		var results []map[string]any
		for _, id := range in {
			if row, ok := f.rows[id.(string)]; ok {
				results = append(results, row)
			}
		}
		b, _ := json.Marshal(map[string]any{"results": results})
		return 200, string(b)
	case r.Path == "classes/Thing" && r.Body["_method"] == nil:
		f.single = append(f.single, r)
		a := f.create(r.Body)
		if e, ok := a["error"]; ok {
			b, _ := json.Marshal(e)
			return 400, string(b)
		}
		b, _ := json.Marshal(a["success"])
		return 201, string(b)
	}
	return 404, `{"code":1,"error":"unexpected request"}`
}

func (f *fakeStore) create(body map[string]any) map[string]any {
	id, has := body["objectId"].(string)
	if has && !f.customID {
		return map[string]any{"error": map[string]any{"code": 105, "error": "objectId is an invalid field name."}}
	}
	if !has {
		id = fmt.Sprintf("srv%07d", len(f.rows))
	}
	if _, dup := f.rows[id]; dup || f.unique[body["n"].(float64)] {
		return map[string]any{"error": map[string]any{"code": 137, "error": "A duplicate value for a field with unique values was provided"}}
	}
	f.rows[id] = map[string]any{"objectId": id, "n": body["n"], "createdAt": "2026-01-01T00:00:00.000Z"}
	return map[string]any{"success": map[string]any{"objectId": id, "createdAt": "2026-01-01T00:00:00.000Z"}}
}

func fakeClient(t *testing.T, f *fakeStore) (*Client, *idServer) {
	t.Helper()
	if f.rows == nil {
		f.rows = map[string]map[string]any{}
	}
	srv := newIDServer(t, f.reply)
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", BatchSize: 3, BatchConcurrency: 1,
		Retry: RetryPolicy{Base: time.Millisecond}, ClientObjectIDs: true})
	require.NoError(t, err)
	return c, srv
}

func things(n int) []*parse.Object {
	objs := make([]*parse.Object, n)
	for i := range objs {
		objs[i] = parse.NewObject("Thing")
		objs[i].Set("n", i)
	}
	return objs
}

// At the default config a /batch whose answer was lost after the server applied it is sent again; the creates the
// server refuses as duplicate ids are looked up, found, and succeed with their ids: one row each. An item refused
// as a duplicate that the look-up cannot find is in doubt (it may be stored where its ACL hides it from the
// caller), never a definite failure.
func TestSaveAllSettlesCreatesOfALostAnswer(t *testing.T) {
	f := &fakeStore{customID: true, loseCall: map[int]bool{1: true}, unique: map[float64]bool{2: true}}
	c, _ := fakeClient(t, f)
	objs := things(6)
	err := c.Objects.SaveAll(context.Background(), objs)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, be.Failed)
	assert.Equal(t, 1, be.InDoubt)
	assert.True(t, errors.Is(be.Errors[2], parse.ErrWriteInDoubt), "%v", be.Errors[2])
	assert.Equal(t, []int{2}, be.InDoubtItems())
	for i, o := range objs {
		if i == 2 {
			assert.Empty(t, o.ID())
			assert.Len(t, o.ProposedID(), 10, "saved again, it is sent with the same id")
			assert.True(t, o.Dirty(), "the create is still to be settled")
			assert.Empty(t, o.DirtyKeys(), "its change is kept for the resend, not as a later change")
			assert.EqualValues(t, 2, o.Int("n"), "the object shows its change")
			continue
		}
		require.NoError(t, be.Errors[i], "object %d", i)
		require.Contains(t, f.rows, o.ID(), "object %d is stored under its id", i)
		assert.Equal(t, float64(i), f.rows[o.ID()]["n"])
		assert.Empty(t, o.DirtyKeys())
		assert.False(t, o.CreatedAt().IsZero())
	}
	assert.Len(t, f.rows, 5, "exactly one row per saved object")
}

// A server that does not allow custom ids is detected: the refused creates are sent one by one without an id
// (with request ids), and later saves do not try custom ids again.
func TestSaveAllFallsBackToServerIDs(t *testing.T) {
	f := &fakeStore{customID: false}
	c, _ := fakeClient(t, f)
	objs := things(4)
	require.NoError(t, c.Objects.SaveAll(context.Background(), objs))
	for i, o := range objs {
		require.Contains(t, f.rows, o.ID(), "object %d", i)
	}
	assert.Len(t, f.rows, 4)
	calls := f.calls
	more := things(2)
	require.NoError(t, c.Objects.SaveAll(context.Background(), more))
	assert.Equal(t, calls+1, f.calls, "once the server is known to assign ids, one /batch of creates without ids")
	for _, r := range f.single {
		assert.NotEmpty(t, r.Header.Get("X-Parse-Request-Id"), "a create without a chosen id carries a request id")
		_, has := r.Body["objectId"]
		assert.False(t, has)
	}
	one := parse.NewObject("Thing")
	one.Set("n", 99)
	require.NoError(t, c.Objects.Save(context.Background(), one))
	assert.Len(t, f.rows, 7)
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
