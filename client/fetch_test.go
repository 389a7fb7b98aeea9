package client

import (
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FetchAll refuses mixed classes and objects without ids before any request, with the original's texts and
// codes; an object the server does not return fails the whole call (nothing changes).
func TestFetchAllChecksAndNotFound(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	ctx := context.Background()
	err := c.Objects.FetchAll(ctx, []*parse.Object{parse.NewObjectWithID("A", "1"), parse.NewObjectWithID("B", "2")}, nil)
	require.ErrorIs(t, err, parse.ErrInvalidClassName)
	assert.Contains(t, err.Error(), "All objects should be of the same class")
	err = c.Objects.FetchAll(ctx, []*parse.Object{parse.NewObjectWithID("A", "1"), parse.NewObject("A")}, nil)
	require.ErrorIs(t, err, &parse.Error{Code: parse.CodeMissingObjectID})
	assert.Contains(t, err.Error(), "All objects must have an ID")
	err = c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{parse.NewObject("A")}, nil)
	assert.Contains(t, err.Error(), "All objects must have an ID")
	require.NoError(t, c.Objects.FetchAll(ctx, nil, nil))
	err = c.Objects.Fetch(ctx, parse.NewObject("A"))
	require.ErrorIs(t, err, &parse.Error{Code: parse.CodeMissingObjectID})
	assert.Contains(t, err.Error(), "Object does not have an ID")
	assert.Empty(t, srv.reqs, "nothing was sent")

	m.rows["A"] = map[string]map[string]any{"1": {"objectId": "1", "v": 1.0}, "2": {"objectId": "2", "v": 2.0}}
	one, two, gone := parse.NewObjectWithID("A", "1"), parse.NewObjectWithID("A", "2"), parse.NewObjectWithID("A", "3")
	err = c.Objects.FetchAll(ctx, []*parse.Object{one, two, gone}, nil)
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	assert.Contains(t, err.Error(), "All objects must exist on the server.")
	assert.False(t, one.IsDataAvailable(), "nothing changed")

	require.NoError(t, c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{one, gone}, nil), "IfNeeded leaves missing objects alone")
	assert.Equal(t, 1.0, one.Get("v"))
	assert.False(t, gone.IsDataAvailable())
	n := len(srv.reqs)
	require.NoError(t, c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{one}, nil))
	assert.Len(t, srv.reqs, n, "nothing to fetch: nothing sent")
	require.NoError(t, c.Objects.FetchAll(ctx, []*parse.Object{one, two, one}, &FetchOptions{Include: []string{"a", "b.c"}}))
	last := srv.reqs[len(srv.reqs)-1]
	assert.Equal(t, "a,b.c", last.Body["include"])
	assert.Equal(t, float64(2), last.Body["limit"], "an object listed twice is asked for once")
	assert.Equal(t, 2.0, two.Get("v"))
}

// FetchWithInclude asks for the included keys.
func TestFetchWithIncludeSendsInclude(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	srv.reply = func(r idReq) (int, string) { return 200, `{"objectId":"p1","title":"t"}` }
	p := parse.NewObjectWithID("Post", "p1")
	require.NoError(t, c.Objects.FetchWithInclude(context.Background(), p, "author", "tags.owner"))
	require.Len(t, srv.reqs, 1)
	assert.Equal(t, "classes/Post/p1", srv.reqs[0].Path)
	assert.Equal(t, "author,tags.owner", srv.reqs[0].Body["include"])
	assert.Equal(t, "t", p.String("title"))
	require.NoError(t, c.Objects.Fetch(context.Background(), p))
	_, has := srv.reqs[1].Body["include"]
	assert.False(t, has)
}
