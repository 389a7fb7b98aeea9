//go:build integration

package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Saving an object saves the unsaved objects it points to first (a field, an array, a nested map, and a
// grandchild), in /batch calls with client-chosen ids; the server stores the parent with pointers to them.
func TestDeepSaveAgainstTheServer(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	postCls, authorCls, tagCls := uniqueClass("DeepPost"), uniqueClass("DeepAuthor"), uniqueClass("DeepTag")
	avatar := parse.NewObject(tagCls)
	avatar.Set("name", "avatar")
	author := parse.NewObject(authorCls)
	author.Set("name", "Ann")
	author.Set("avatar", avatar) // a grandchild
	t1, t2 := parse.NewObject(tagCls), parse.NewObject(tagCls)
	t1.Set("name", "go")
	t2.Set("name", "parse")
	extra := parse.NewObject(tagCls)
	extra.Set("name", "nested")
	post := parse.NewObject(postCls)
	post.Set("title", "deep")
	post.Set("author", author)
	post.Set("tags", []any{t1, t2})
	post.Set("meta", map[string]any{"more": map[string]any{"tag": extra}})
	require.NoError(t, c.Objects.Save(ctx, post))
	for _, o := range []*parse.Object{avatar, author, t1, t2, extra, post} {
		require.NotEmpty(t, o.ID())
		assert.False(t, o.CreatedAt().IsZero())
		assert.Empty(t, o.DirtyKeys())
	}

	got := parse.NewObjectWithID(postCls, post.ID())
	require.NoError(t, c.Objects.FetchWithInclude(ctx, got, "author.avatar", "tags"))
	a, ok := got.Get("author").(*parse.Object)
	require.True(t, ok, "included: %T", got.Get("author"))
	assert.Equal(t, author.ID(), a.ID())
	assert.Equal(t, "Ann", a.String("name"))
	av, ok := a.Get("avatar").(*parse.Object)
	require.True(t, ok, "author.avatar included: %T", a.Get("avatar"))
	assert.Equal(t, "avatar", av.String("name"))
	tags := got.Get("tags").([]any)
	require.Len(t, tags, 2)
	assert.Equal(t, "go", tags[0].(*parse.Object).String("name"))
	meta := got.Get("meta").(map[string]any)["more"].(map[string]any)
	assert.Equal(t, parse.Pointer{ClassName: tagCls, ObjectID: extra.ID()}, meta["tag"])

	// Each nested object was stored once.
	n, err := query.New[*parse.Object](tagCls).Count(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, 4, n)

	// A change to a nested object is saved with the (unchanged) parent.
	author.Set("name", "Ann B.")
	require.NoError(t, c.Objects.Save(ctx, post))
	fresh, err := c.Objects.Get(ctx, authorCls, author.ID())
	require.NoError(t, err)
	assert.Equal(t, "Ann B.", fresh.String("name"))

	// SaveAll: two posts share one new author, saved once; an object given in the call and pointed to by
	// another is saved first.
	shared := parse.NewObject(authorCls)
	shared.Set("name", "shared")
	p1, p2 := parse.NewObject(postCls), parse.NewObject(postCls)
	p1.Set("author", shared)
	p2.Set("author", shared)
	listed := parse.NewObject(authorCls)
	p3 := parse.NewObject(postCls)
	p3.Set("author", listed)
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{p1, p2, p3, listed}))
	n, err = query.New[*parse.Object](authorCls).Count(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "Ann, shared, listed")
	g3, err := c.Objects.Get(ctx, postCls, p3.ID())
	require.NoError(t, err)
	assert.Equal(t, listed.Pointer(), g3.Get("author"))
}

// Cycles of unsaved objects and files never uploaded are refused before anything is stored; a parent whose
// child the server refuses is not sent.
func TestDeepSaveRefusalsAgainstTheServer(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	cls := uniqueClass("DeepCycle")
	a, b := parse.NewObject(cls), parse.NewObject(cls)
	a.Set("next", b)
	b.Set("next", a)
	require.ErrorIs(t, c.Objects.Save(ctx, a), client.ErrSaveCycle)
	withFile := parse.NewObject(cls)
	withFile.Set("f", parse.File{Name: "never-uploaded.txt"})
	require.ErrorIs(t, c.Objects.Save(ctx, withFile), client.ErrUnsavedFile)
	n, err := query.New[*parse.Object](cls).Count(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "nothing was stored")

	// The child's field has another type than the stored one: the server refuses it, and the parent is held.
	childCls := uniqueClass("DeepChild")
	first := parse.NewObject(childCls)
	first.Set("n", 1)
	require.NoError(t, c.Objects.Save(ctx, first))
	bad := parse.NewObject(childCls)
	bad.Set("n", "not a number")
	parent := parse.NewObject(cls)
	parent.Set("child", bad)
	err = c.Objects.Save(ctx, parent)
	require.ErrorIs(t, err, client.ErrNestedNotSaved)
	var ne *client.NestedError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, []*parse.Object{bad}, ne.Nested)
	require.ErrorIs(t, ne.Errors[0], parse.ErrIncorrectType, "the child's error is named")
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	assert.Empty(t, parent.ID())
	n, err = query.New[*parse.Object](cls).Count(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "the parent was not sent")
}

// FetchAll loads many objects of one class in one query; FetchAllIfNeeded only those without data; an object
// the server does not have fails FetchAll with the original's text and changes nothing.
func TestFetchAllAgainstTheServer(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	cls, ownerCls := uniqueClass("FetchMany"), uniqueClass("FetchOwner")
	owner := parse.NewObject(ownerCls)
	owner.Set("name", "o")
	var saved []*parse.Object
	for i := range 3 {
		o := parse.NewObject(cls)
		o.Set("n", i)
		o.Set("owner", owner)
		saved = append(saved, o)
	}
	require.NoError(t, c.Objects.SaveAll(ctx, saved))

	refs := []*parse.Object{parse.NewObjectWithID(cls, saved[0].ID()), parse.NewObjectWithID(cls, saved[1].ID()), parse.NewObjectWithID(cls, saved[2].ID())}
	require.NoError(t, refs[1].Set("n", 99)) // an unsaved change stays on top
	require.NoError(t, c.Objects.FetchAll(ctx, refs, &client.FetchOptions{Include: []string{"owner"}}))
	assert.Equal(t, float64(0), refs[0].Get("n"))
	assert.EqualValues(t, 99, refs[1].Get("n"))
	assert.Equal(t, float64(2), refs[2].Get("n"))
	assert.Equal(t, "o", refs[0].Get("owner").(*parse.Object).String("name"), "owner included")

	// IfNeeded: only the reference without data is asked for.
	fresh := parse.NewObjectWithID(cls, saved[2].ID())
	refs[0].Set("n", 50) // local only: fetching it again would keep it anyway, but it has data
	require.NoError(t, c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{refs[0], fresh}, nil))
	assert.Equal(t, float64(2), fresh.Get("n"))
	assert.True(t, fresh.IsDataAvailable())
	_, isPtr := fresh.Get("owner").(parse.Pointer)
	assert.True(t, isPtr, "no include: a pointer")

	require.NoError(t, c.Objects.Destroy(ctx, saved[2]))
	gone := []*parse.Object{parse.NewObjectWithID(cls, saved[0].ID()), parse.NewObjectWithID(cls, saved[2].ID())}
	err := c.Objects.FetchAll(ctx, gone, nil)
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	assert.Contains(t, err.Error(), "All objects must exist on the server.")
	assert.False(t, gone[0].IsDataAvailable(), "nothing changed")
	require.NoError(t, c.Objects.FetchAllIfNeeded(ctx, gone, nil))
	assert.True(t, gone[0].IsDataAvailable())
	assert.False(t, gone[1].IsDataAvailable())

	err = c.Objects.FetchAll(ctx, []*parse.Object{gone[0], parse.NewObjectWithID(ownerCls, owner.ID())}, nil)
	require.ErrorIs(t, err, parse.ErrInvalidClassName)
	err = c.Objects.FetchWithInclude(ctx, parse.NewObjectWithID(cls, saved[2].ID()), "owner")
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	assert.Contains(t, err.Error(), "Object not found.")
}

// The call context reaches cloud code as request.context: an afterSave webhook of a class (saves one by one and
// in /batch) and a cloud-function webhook see it. The hooks are registered for this test's own class and
// function on the server that the client talks to, and removed at the end.
func TestCallContextReachesCloudCode(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	master := c.WithMasterKey()
	cls, fn := uniqueClass("CtxProbe"), uniqueClass("ctxEcho")
	var mu sync.Mutex
	seen := make(chan map[string]any, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if body["functionName"] != nil {
			_ = json.NewEncoder(w).Encode(map[string]any{"success": body["context"]})
			return
		}
		ctxv, _ := body["context"].(map[string]any)
		seen <- ctxv
		_, _ = io.WriteString(w, `{"success":{}}`)
	}))
	t.Cleanup(hook.Close)
	require.NoError(t, master.Request(ctx, "POST", "hooks/triggers", map[string]any{"className": cls, "triggerName": "afterSave", "url": hook.URL}, nil))
	t.Cleanup(func() {
		_ = master.Request(context.Background(), "PUT", "hooks/triggers/"+cls+"/afterSave", map[string]any{"__op": "Delete"}, nil)
	})
	require.NoError(t, master.Request(ctx, "POST", "hooks/functions", map[string]any{"functionName": fn, "url": hook.URL}, nil))
	t.Cleanup(func() {
		_ = master.Request(context.Background(), "PUT", "hooks/functions/"+fn, map[string]any{"__op": "Delete"}, nil)
	})

	want := map[string]any{"source": "import", "batch": float64(7)}
	cctx := client.WithCallContext(ctx, map[string]any{"source": "import", "batch": 7})
	next := func() map[string]any {
		select {
		case v := <-seen:
			return v
		case <-time.After(10 * time.Second):
			t.Fatal("the afterSave webhook was not called")
			return nil
		}
	}

	one := parse.NewObject(cls)
	one.Set("n", 1)
	require.NoError(t, c.Objects.Save(cctx, one))
	assert.Equal(t, want, next(), "a create")
	one.Set("n", 2)
	require.NoError(t, c.Objects.Save(cctx, one))
	assert.Equal(t, want, next(), "an update")
	require.NoError(t, c.Objects.SaveAll(cctx, []*parse.Object{parse.NewObject(cls), parse.NewObject(cls)}))
	assert.Equal(t, want, next(), "a /batch create")
	assert.Equal(t, want, next(), "a /batch create")
	plain := parse.NewObject(cls)
	require.NoError(t, c.Objects.Save(ctx, plain))
	assert.Empty(t, next(), "no call context: an empty request.context")

	var echoed map[string]any
	require.NoError(t, c.Cloud.Call(cctx, fn, map[string]any{"x": 1}, &echoed))
	assert.Equal(t, want, echoed, "a cloud function")
}
