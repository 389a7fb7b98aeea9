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

// After a SaveAll whose create stayed in doubt, saving the object again with SaveAll sends the same id. Any answer
// to that resend is settled by reading the object by its id (internal/settle): found, the first attempt is what is
// stored, and the save succeeds with one row, even when the resend itself is refused; not found after a refusal,
// it stays in doubt with its id kept (an ACL could hide it from its creator).
func TestSaveAllResendsACreateInDoubtWithItsID(t *testing.T) {
	for _, stored := range []bool{true, false} {
		t.Run(fmt.Sprintf("first attempt stored %v", stored), func(t *testing.T) {
			m := &memServer{loseClass: "Thing"}
			c, _ := memClient(t, m)
			o := parse.NewObject("Thing")
			o.Set("n", 1)
			err := c.Objects.SaveAll(context.Background(), []*parse.Object{o})
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			id := o.ProposedID()
			require.Contains(t, m.rows["Thing"], id)
			if !stored {
				delete(m.rows["Thing"], id) // as if the lost call never reached the database
			}

			m.loseClass, m.failClass = "", "Thing"
			err = c.Objects.SaveAll(context.Background(), []*parse.Object{o})
			if stored {
				require.NoError(t, err, "the read back found the first attempt's row")
				assert.Equal(t, id, o.ID())
				assert.Len(t, m.rows["Thing"], 1)
				return
			}
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			assert.Equal(t, id, o.ProposedID())

			m.failClass = ""
			require.NoError(t, c.Objects.SaveAll(context.Background(), []*parse.Object{o}))
			assert.Equal(t, id, o.ID())
			assert.Len(t, m.rows["Thing"], 1)
		})
	}
}
