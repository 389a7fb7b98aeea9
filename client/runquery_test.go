package client

import (
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunQuery tells Request.Arrived the number of results and the last one's id before it decodes a find's answer;
// aggregate and distinct answers are not pages of objects and say nothing.
func TestRunQueryArrived(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		if r.Path == "aggregate/Thing" || r.Body["distinct"] != nil {
			return 200, `{"results":[{"objectId":"x"}]}`
		}
		return 200, `{"results":[{"objectId":"a1","n":1},{"objectId":"a2","owner":{"__type":"Pointer","className":"U","objectId":"u9"}}]}`
	})
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", MasterKey: "mk"})
	require.NoError(t, err)
	for _, prefer := range []bool{true, false} {
		calls := 0
		req := &parse.QueryRequest{ClassName: "Thing", Op: "find", Params: map[string]any{"limit": 2}, PreferObjects: prefer,
			Arrived: func(n int, last string) {
				calls++
				assert.Equal(t, 2, n)
				assert.Equal(t, "a2", last, "the last result's own id, not a pointer's inside it")
			}}
		resp, err := c.RunQuery(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, 1, calls, "prefer objects %v", prefer)
		assert.Equal(t, 2, len(resp.Objects)+len(resp.Results))
	}
	for _, req := range []*parse.QueryRequest{
		{ClassName: "Thing", Op: "aggregate", Params: map[string]any{"pipeline": []any{}}, UseMasterKey: true},
		{ClassName: "Thing", Op: "find", Params: map[string]any{"distinct": "n"}},
	} {
		req.Arrived = func(int, string) { t.Errorf("Arrived called for %v", req.Params) }
		_, err := c.WithMasterKey().RunQuery(context.Background(), req)
		require.NoError(t, err)
	}
}
