package client

import (
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Saving an object saves the unsaved objects it points to first, children before parents, wherever they are (a
// field, an array, a nested map, a *User value), each create in a /batch with a client-chosen id; the parent is
// sent last with pointers to them.
func TestSaveSavesNestedObjectsFirst(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	grand := parse.NewObject("Grand")
	grand.Set("g", 1)
	child := parse.NewObject("Child")
	child.Set("grand", grand)
	inArray := parse.NewObject("Item")
	inMap := parse.NewObject("Item")
	user := NewUser()
	user.SetUsername("nested") // a user is created by the server (one by one, no chosen id)
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	parent.Set("items", []any{inArray, "x"})
	parent.Set("meta", map[string]any{"deep": map[string]any{"item": inMap}})
	parent.Set("owner", user)
	require.NoError(t, c.Objects.Save(context.Background(), parent))

	for _, o := range []*parse.Object{grand, child, inArray, inMap, user.Object, parent} {
		require.NotEmpty(t, o.ID(), "%s was saved", o.ClassName())
		assert.Empty(t, o.DirtyKeys(), "%s has no unsaved changes", o.ClassName())
	}
	pos := map[string]int{}
	for i, w := range m.writes {
		if _, ok := pos[w]; !ok {
			pos[w] = i
		}
	}
	assert.Less(t, pos["POST Grand"], pos["POST Child"], "the grandchild before the child: %v", m.writes)
	assert.Less(t, pos["POST Child"], pos["POST Parent"], "the child before the parent: %v", m.writes)
	assert.Less(t, pos["POST _User"], pos["POST Parent"], "%v", m.writes)
	assert.Equal(t, "POST Parent", m.writes[len(m.writes)-1], "the parent last")
	assert.Len(t, m.writes, 6, "one write each")

	row := m.rows["Parent"][parent.ID()]
	assert.Equal(t, ptr(child), row["child"])
	assert.Equal(t, []any{ptr(inArray), "x"}, row["items"])
	assert.Equal(t, map[string]any{"deep": map[string]any{"item": ptr(inMap)}}, row["meta"])
	assert.Equal(t, ptr(user.Object), row["owner"])
	assert.Equal(t, ptr(grand), m.rows["Child"][child.ID()]["grand"])
	// The creates of the nested objects carried ids the client chose, in /batch calls.
	var batches int
	for _, r := range srv.reqs {
		if r.Path == "batch" {
			batches++
		}
	}
	assert.Equal(t, 2, batches, "Grand and Items in the first round, Child in the second")
	assert.Equal(t, grand.ID(), m.rows["Grand"][grand.ID()]["objectId"])

	// Saving again sends nothing: everything is saved.
	n := len(srv.reqs)
	require.NoError(t, c.Objects.Save(context.Background(), parent))
	assert.Len(t, srv.reqs, n)
}

// A saved parent that is unchanged still saves the changed objects it points to (as the original's save of
// unsaved children does), and an object without an id that points to the saved parent is saved after it.
func TestSaveSendsChangedChildrenAndNeedsOfTheParent(t *testing.T) {
	m := &memServer{}
	c, _ := memClient(t, m)
	ctx := context.Background()
	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	require.NoError(t, c.Objects.Save(ctx, parent))
	m.writes = nil

	child.Set("name", "changed")
	require.NoError(t, c.Objects.Save(ctx, parent))
	assert.Equal(t, []string{"PUT Child " + child.ID()}, m.writes, "the parent has no changes: only the child is sent")

	// A new post pointing to a saved user whose change points back to the new post: the post goes first.
	m.writes = nil
	post := parse.NewObject("Post")
	post.Set("author", parent)
	parent.Set("lastPost", post)
	require.NoError(t, c.Objects.Save(ctx, post))
	assert.Equal(t, []string{"POST Post", "PUT Parent " + parent.ID()}, m.writes)
	assert.Equal(t, ptr(post), m.rows["Parent"][parent.ID()]["lastPost"])
}

// Cycles of unsaved objects, files never uploaded and values that hold themselves are refused before any
// request, with the original's texts.
func TestSaveRefusesBeforeAnyRequest(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	ctx := context.Background()

	a, b := parse.NewObject("A"), parse.NewObject("B")
	a.Set("b", b)
	b.Set("a", a)
	err := c.Objects.Save(ctx, a)
	require.ErrorIs(t, err, ErrSaveCycle)
	assert.EqualError(t, err, "Tried to save a batch with a cycle.")
	require.ErrorIs(t, c.Objects.SaveAll(ctx, []*parse.Object{b}), ErrSaveCycle)

	// A cycle through a saved object is not a cycle: only objects without ids need one another first.
	self := parse.NewObject("Self")
	self.Set("me", self)
	require.ErrorIs(t, c.Objects.Save(ctx, self), ErrSaveCycle, "an unsaved object pointing to itself")

	// A longer cycle, reached through an array and a map.
	x, y, z := parse.NewObject("X"), parse.NewObject("Y"), parse.NewObject("Z")
	x.Set("list", []any{y})
	y.Set("m", map[string]any{"z": z})
	z.Set("x", x)
	root := parse.NewObject("Root")
	root.Set("x", x)
	require.ErrorIs(t, c.Objects.Save(ctx, root), ErrSaveCycle)

	file := parse.NewObject("Doc")
	file.Set("file", parse.File{Name: "a.txt"})
	err = c.Objects.Save(ctx, file)
	require.ErrorIs(t, err, ErrUnsavedFile)
	assert.EqualError(t, err, "Tried to encode an unsaved file.")
	nestedFile := parse.NewObject("Doc")
	inner := parse.NewObject("Doc")
	inner.Set("files", []any{&parse.File{Name: "b.txt"}})
	nestedFile.Set("inner", inner)
	require.ErrorIs(t, c.Objects.SaveAll(ctx, []*parse.Object{nestedFile}), ErrUnsavedFile)

	loop := make([]any, 1)
	loop[0] = loop
	deep := parse.NewObject("Deep")
	deep.Set("loop", loop)
	require.ErrorIs(t, c.Objects.Save(ctx, deep), ErrNestingTooDeep)

	assert.Empty(t, srv.reqs, "nothing was sent")
	assert.Empty(t, a.ProposedID(), "no id was chosen")

	// An uploaded file is fine.
	ok := parse.NewObject("Doc")
	ok.Set("file", parse.File{Name: "a.txt", URL: "http://files/a.txt"})
	require.NoError(t, c.Objects.Save(ctx, ok))
}

// A parent whose child failed is not sent: its error says so (ErrNestedNotSaved), names the child's error, and
// does not match ErrWriteInDoubt (the parent was not sent). A child in doubt keeps the id it was sent with:
// saving the parent again sends it with that id, finds it stored, and then saves the parent, one row each.
func TestSaveHoldsTheParentBackWhenAChildFails(t *testing.T) {
	m := &memServer{failClass: "Child"}
	c, _ := memClient(t, m)
	ctx := context.Background()
	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	err := c.Objects.Save(ctx, parent)
	var ne *NestedError
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.NotSent)
	assert.ErrorIs(t, err, ErrNestedNotSaved)
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	assert.Equal(t, []*parse.Object{child}, ne.Nested)
	assert.ErrorIs(t, ne.Errors[0], &parse.Error{Code: 142})
	assert.Contains(t, err.Error(), "not sent, because 1 object(s) it points to could not be saved first; first: ")
	assert.Contains(t, err.Error(), "refused by the test")
	assert.Empty(t, m.rows["Parent"], "the parent was not sent")
	assert.Empty(t, parent.ID())

	// In doubt: the /batch of the child was applied but its answer lost, and it cannot be looked up.
	m.failClass, m.loseClass = "", "Child"
	err = c.Objects.Save(ctx, parent)
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.NotSent)
	assert.Equal(t, 1, ne.InDoubt())
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt, "the parent itself was not sent")
	assert.Contains(t, err.Error(), "(1 in doubt)")
	proposed := child.ProposedID()
	require.Len(t, proposed, 10)
	require.Contains(t, m.rows["Child"], proposed, "the child was stored")

	m.loseClass = ""
	require.NoError(t, c.Objects.Save(ctx, parent))
	assert.Equal(t, proposed, child.ID(), "the child kept the id it was first sent with")
	assert.Len(t, m.rows["Child"], 1, "one child row")
	assert.Len(t, m.rows["Parent"], 1)
	assert.Equal(t, ptr(child), m.rows["Parent"][parent.ID()]["child"])
}

// SaveAll saves the nested objects too, and reports each given object: saved, failed, or held back because an
// object it points to failed.
func TestSaveAllSavesNestedObjectsAndReportsEachItem(t *testing.T) {
	m := &memServer{failClass: "Bad"}
	c, _ := memClient(t, m)
	good := parse.NewObject("Post")
	good.Set("author", parse.NewObject("Author"))
	held := parse.NewObject("Post")
	held.Set("tags", []any{parse.NewObject("Bad")})
	plain := parse.NewObject("Post")
	listed := parse.NewObject("Author")
	pointing := parse.NewObject("Post")
	pointing.Set("author", listed) // points to an object given in the same call: it goes first
	err := c.Objects.SaveAll(context.Background(), []*parse.Object{good, held, plain, pointing, listed})
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, be.Failed)
	assert.Equal(t, 0, be.InDoubt)
	for _, i := range []int{0, 2, 3, 4} {
		assert.NoError(t, be.Errors[i], "item %d", i)
	}
	assert.ErrorIs(t, be.Errors[1], ErrNestedNotSaved)
	assert.Empty(t, held.ID())
	assert.NotEmpty(t, good.Get("author").(*parse.Object).ID())
	assert.Equal(t, ptr(listed), m.rows["Post"][pointing.ID()]["author"])
	assert.Len(t, m.rows["Post"], 3)
}

// The object given to Save is sent only once the changed objects it points to are saved, ids or not (as the
// original saves its unsaved children first): a failed update of one holds it back. An object that needs the
// given one's id is saved after it and does not hold it back.
func TestSaveWaitsForChangedChildrenWithIDs(t *testing.T) {
	m := &memServer{}
	c, _ := memClient(t, m)
	ctx := context.Background()
	author := parse.NewObject("Author")
	other := parse.NewObject("Bad")
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{author, other}))
	m.writes, m.failClass = nil, "Bad"

	post := parse.NewObject("Post")
	post.Set("author", author)
	author.Set("lastPost", post) // needs the post's id: after it
	post.Set("other", other)
	other.Set("x", 1) // a changed object with an id: the post waits for it
	err := c.Objects.Save(ctx, post)
	require.ErrorIs(t, err, ErrNestedNotSaved)
	assert.Empty(t, m.rows["Post"], "the post was held back by the failed update: %v", m.writes)
	assert.Empty(t, m.writes)

	m.failClass = ""
	require.NoError(t, c.Objects.Save(ctx, post))
	assert.Equal(t, []string{"PUT Bad " + other.ID(), "POST Post", "PUT Author " + author.ID()}, m.writes)

	// The given object is saved, and an object that needed its id then fails: the error says the object was
	// sent (it does not match ErrNestedNotSaved) and names the other.
	reply := parse.NewObject("Reply")
	author.Set("lastReply", reply)
	reply.Set("author", author)
	m.failClass = "Author"
	err = c.Objects.Save(ctx, reply)
	var ne *NestedError
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.NotSent)
	assert.NoError(t, ne.Err)
	assert.NotErrorIs(t, err, ErrNestedNotSaved)
	assert.Equal(t, []*parse.Object{author}, ne.Nested)
	assert.NotEmpty(t, reply.ID(), "the reply was saved")
	assert.Contains(t, err.Error(), "moralis: save Reply "+reply.ID()+": 1 object(s) it points to were not saved; first: ")
}
