package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With ClientObjectIDs, SaveAll settles the creates a retry made look failed: objects that exist under their chosen
// id are loaded and succeed, creates refused as a duplicate request that were never applied are sent once more, and
// a duplicate refused for another reason stays an error.
func TestSaveAllClientObjectIDsRecovers(t *testing.T) {
	var mu sync.Mutex
	idOf := map[float64]string{} // n -> the id the client chose
	stored := map[float64]bool{0: true, 1: true, 4: true}
	batches := 0
	var resent [][]float64
	srv := newIDServer(t, func(r idReq) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Path == "batch":
			var ns []float64
			reqs, _ := r.Body["requests"].([]any)
			for _, q := range reqs {
				body := q.(map[string]any)["body"].(map[string]any)
				n := body["n"].(float64)
				id, _ := body["objectId"].(string)
				if old, seen := idOf[n]; seen && old != id {
					return 400, fmt.Sprintf(`{"code":1,"error":"object %v sent with a new id %s (was %s)"}`, n, id, old)
				}
				idOf[n] = id
				ns = append(ns, n)
			}
			batches++
			if batches > 2 {
				resent = append(resent, ns)
				out := make([]map[string]any, len(ns))
				for i, n := range ns {
					out[i] = map[string]any{"success": map[string]any{"objectId": idOf[n], "createdAt": "2026-01-01T00:00:00.000Z"}}
				}
				b, _ := json.Marshal(out)
				return 200, string(b)
			}
			if ns[0] == 0 { // the first chunk: a retry of a call the server had seen
				return 400, `{"code":159,"error":"Duplicate request"}`
			}
			// The second chunk: 3 is created, 4 exists already, 5 collides on another unique field.
			return 200, fmt.Sprintf(`[{"success":{"objectId":%q,"createdAt":"2026-01-01T00:00:00.000Z"}},`+
				`{"error":{"code":137,"error":"A duplicate value for a field with unique values was provided"}},`+
				`{"error":{"code":137,"error":"A duplicate value for a field with unique values was provided"}}]`, idOf[3])
		case r.Path == "classes/Thing" && r.Body["_method"] == "GET":
			where := r.Body["where"]
			if s, ok := where.(string); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(s), &m); err != nil {
					return 400, `{"code":102,"error":"bad where"}`
				}
				where = m
			}
			in := where.(map[string]any)["objectId"].(map[string]any)["$in"].([]any)
			var results []map[string]any
			for n, id := range idOf {
				for _, want := range in {
					if want == id && stored[n] {
						results = append(results, map[string]any{"objectId": id, "n": n, "createdAt": "2025-12-31T00:00:00.000Z", "updatedAt": "2025-12-31T00:00:00.000Z"})
					}
				}
			}
			b, _ := json.Marshal(map[string]any{"results": results})
			return 200, string(b)
		}
		return 404, `{"code":1,"error":"unexpected request"}`
	})
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", ClientObjectIDs: true, BatchSize: 3, BatchConcurrency: 1})
	require.NoError(t, err)
	objs := make([]*Object, 6)
	for i := range objs {
		objs[i] = NewObject("Thing")
		objs[i].Set("n", i)
	}
	err = c.SaveAll(context.Background(), objs)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, be.Failed)
	assert.True(t, errors.Is(be.Errors[5], ErrDuplicateValue), "a duplicate of another unique field stays an error: %v", be.Errors[5])
	for i := 0; i < 5; i++ {
		assert.NoError(t, be.Errors[i], "object %d", i)
		assert.Equal(t, idOf[float64(i)], objs[i].ID(), "object %d has the id it was sent with", i)
		assert.Len(t, objs[i].ID(), 10)
		assert.Empty(t, objs[i].DirtyKeys(), "object %d is saved", i)
	}
	assert.Empty(t, objs[5].ID())
	assert.Equal(t, []string{"n"}, objs[5].DirtyKeys(), "the failed object keeps its change")
	assert.False(t, objs[0].CreatedAt().IsZero(), "a recovered object carries what the server stored")
	assert.Equal(t, [][]float64{{2}}, resent, "only the create the server never applied is sent again, once")
}

// Without ClientObjectIDs nothing is chosen, looked up or resent: a duplicate request stays the items' error.
func TestSaveAllWithoutClientObjectIDsKeepsDuplicateErrors(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		if r.Path == "batch" {
			reqs, _ := r.Body["requests"].([]any)
			for _, q := range reqs {
				if _, has := q.(map[string]any)["body"].(map[string]any)["objectId"]; has {
					return 400, `{"code":1,"error":"an id was chosen"}`
				}
			}
			return 400, `{"code":159,"error":"Duplicate request"}`
		}
		return 404, `{"code":1,"error":"unexpected request"}`
	})
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js"})
	require.NoError(t, err)
	objs := []*Object{NewObject("Thing"), NewObject("Thing")}
	err = c.SaveAll(context.Background(), objs)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 2, be.Failed)
	assert.True(t, errors.Is(be.Errors[0], ErrDuplicateRequest))
	assert.Equal(t, 1, srv.count(), "one call, nothing looked up")
}
