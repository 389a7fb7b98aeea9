package client

import (
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The call context set with WithCallContext travels as _context on every backend call made with it: a save, a
// /batch, a cloud function, a find. It is copied when set, and nil removes it.
func TestCallContextIsSentAsContext(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	meta := map[string]any{"source": "import", "n": 1}
	ctx := WithCallContext(context.Background(), meta)
	meta["source"] = "changed after" // not seen
	assert.Equal(t, map[string]any{"source": "import", "n": float64(1)}, CallContext(ctx))
	want := map[string]any{"source": "import", "n": float64(1)}

	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	require.NoError(t, c.Objects.Save(ctx, parent))
	require.NoError(t, c.Objects.FetchAll(ctx, []*parse.Object{parent}, nil))
	_ = c.Cloud.Call(ctx, "hello", nil, nil)
	require.Len(t, srv.reqs, 4)
	for _, r := range srv.reqs {
		assert.Equal(t, want, r.Body["_context"], "%s", r.Path)
	}

	srv.reqs = nil
	require.NoError(t, c.Objects.FetchAll(WithCallContext(ctx, nil), []*parse.Object{parent}, nil))
	require.NoError(t, c.Objects.FetchAll(context.Background(), []*parse.Object{parent}, nil))
	for _, r := range srv.reqs {
		_, has := r.Body["_context"]
		assert.False(t, has, "no call context: no _context")
	}
	assert.Nil(t, CallContext(context.Background()))

	srv.reqs = nil
	bad := WithCallContext(context.Background(), map[string]any{"f": func() {}})
	err := c.Objects.Save(bad, parse.NewObject("Thing"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the call context cannot be encoded as JSON")
	assert.Empty(t, srv.reqs, "nothing was sent")
	err = c.Objects.SaveAll(bad, []*parse.Object{parse.NewObject("Thing")})
	require.Error(t, err)
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt, "nothing was sent: a definite failure")
	assert.Empty(t, srv.reqs, "nothing was sent")
}
