package client

import (
	"context"
	"errors"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first sequence, offline: SaveAll of 3 new objects whose /batch is lost before the server sees it
// (in doubt, held); the app edits, SaveAll is refused as held, it finds no row and settles each with ""; the next
// SaveAll sends the first attempt again and then the changes made since, so the server holds the edits.
func TestSaveAllSendsTheChangesMadeSinceAReleasedCreate(t *testing.T) {
	m := &memServer{serverIDs: true, dropClass: "Thing"}
	c, _ := memClient(t, m)
	ctx := context.Background()
	objs := newThings(t, 3)
	err := c.Objects.SaveAll(ctx, objs)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 3, be.InDoubt)
	require.Empty(t, m.rows["Thing"])
	m.dropClass = ""
	editThings(t, objs)
	require.ErrorIs(t, c.Objects.SaveAll(ctx, objs), ErrCreateHeld)
	for _, o := range objs {
		require.NoError(t, c.Objects.Settle(ctx, o, ""))
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	assertIntended(t, m, objs)
	for _, o := range objs {
		_, row := m.rowOf(o)
		assert.EqualValues(t, 3, row["n"], "the first attempt's n=1 and the later Increment(2)")
	}
}

// Edits made after a create in doubt are never lost (issue #30): the resend sends the first attempt's changes
// under the same id, which the server refuses as a duplicate (the first attempt was stored); settled, the object
// takes the stored row, and the later changes go out as an update in the same SaveAll, so the server agrees with
// the object once it reports success. Fetch settles a create in doubt through its proposed id.
func TestEditsAfterACreateInDoubtAreSaved(t *testing.T) {
	for _, via := range []string{"saveall", "fetch", "save"} {
		t.Run(via, func(t *testing.T) {
			m := &memServer{loseClass: "Thing", loseOne: via == "save"}
			c, _ := memClient(t, m)
			ctx := context.Background()
			save := saverVia(ctx, c, via)
			o := parse.NewObject("Thing")
			require.NoError(t, o.Set("tag", "A"))
			require.NoError(t, o.Increment("k", 1))
			err := save(o)
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			assert.Contains(t, err.Error(), "Fetch it")
			id := o.ProposedID()
			require.Contains(t, m.rows["Thing"], id, "the first attempt was applied")
			m.loseClass, m.loseOne = "", false

			require.NoError(t, o.Set("tag", "B"))
			require.NoError(t, o.Set("b", 2))
			require.NoError(t, o.Increment("k", 1)) // the same op as the first attempt's: still a later change
			if via == "fetch" {
				require.NoError(t, c.Objects.Fetch(ctx, o))
				assert.Equal(t, id, o.ID(), "Fetch settled the create")
				assert.Equal(t, []string{"b", "k", "tag"}, o.DirtyKeys(), "the later changes stay pending")
			}
			require.NoError(t, save(o))
			assert.Equal(t, id, o.ID())
			assert.Empty(t, o.DirtyKeys())
			row := m.rows["Thing"][id]
			assert.Equal(t, "B", row["tag"])
			assert.EqualValues(t, 2, row["b"])
			assert.Len(t, m.rows["Thing"], 1)
			assert.Equal(t, "B", o.String("tag"))
		})
	}
}

// saverVia saves one object through Save when via is "save", else through SaveAll.
func saverVia(ctx context.Context, c *Client, via string) func(*parse.Object) error {
	return func(o *parse.Object) error {
		if via == "save" {
			return c.Objects.Save(ctx, o)
		}
		return c.Objects.SaveAll(ctx, []*parse.Object{o})
	}
}

// A create whose answer is lost after the server applied it is sent again under its request id; the server
// refuses it as a "Duplicate request", so it was stored under an id the client never learnt: in doubt, and the
// object is held. Save, SaveAll, Fetch and a parent pointing to it refuse it without sending anything (never a
// second row). Settle with the stored id takes the row, and the next Save sends the changes made since as an
// update; Settle with "" (nothing stored) lets the next Save create it again.
func TestCreateInDoubtWithoutIDIsHeldUntilSettled(t *testing.T) {
	for _, via := range []string{"save", "saveall"} {
		t.Run(via, func(t *testing.T) {
			m := &memServer{serverIDs: true, loseOne: true}
			c, srv := memClient(t, m)
			ctx := context.Background()
			save := saverVia(ctx, c, via)
			o := parse.NewObject("Thing")
			require.NoError(t, o.Set("tag", "A"))
			err := save(o)
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			assert.Contains(t, err.Error(), "Objects.Settle(ctx, obj, id)")
			require.Len(t, m.rows["Thing"], 1, "the first attempt was applied, once")
			var storedID string
			for id := range m.rows["Thing"] {
				storedID = id
			}
			assert.Empty(t, o.ID())
			assert.Empty(t, o.ProposedID())
			m.loseOne = false

			require.NoError(t, o.Set("tag", "B"))
			require.NoError(t, o.Set("b", 2))
			before := len(srv.requests())
			err = save(o)
			require.ErrorIs(t, err, ErrCreateHeld)
			assert.NotErrorIs(t, err, parse.ErrWriteInDoubt, "nothing was sent this time")
			assert.Contains(t, err.Error(), "Objects.Settle")
			require.ErrorIs(t, c.Objects.Fetch(ctx, o), ErrCreateHeld)
			parent := parse.NewObject("Parent")
			parent.Set("thing", o)
			require.ErrorIs(t, c.Objects.Save(ctx, parent), ErrNestedNotSaved)
			assert.Equal(t, before, len(srv.requests()), "a held create sends nothing")
			assert.Len(t, m.rows["Thing"], 1)

			require.Error(t, c.Objects.Settle(ctx, parse.NewObject("Thing"), "x"), "nothing to settle")
			require.NoError(t, c.Objects.Settle(ctx, o, storedID))
			assert.Equal(t, storedID, o.ID())
			assert.Equal(t, []string{"b", "tag"}, o.DirtyKeys(), "the later changes stay pending")
			require.NoError(t, save(o))
			assert.Empty(t, o.DirtyKeys())
			assert.Len(t, m.rows["Thing"], 1, "no second row")
			assert.Equal(t, "B", m.rows["Thing"][storedID]["tag"])
			assert.EqualValues(t, 2, m.rows["Thing"][storedID]["b"])
		})
	}
}

// Settle(obj, "") says nothing was stored: the next Save sends the first attempt again as a create, then the
// later changes as an update, and the object is not held any more.
func TestSettleWithoutIDCreatesAgain(t *testing.T) {
	m := &memServer{serverIDs: true, failClass: "Thing"}
	c, _ := memClient(t, m)
	ctx := context.Background()
	o := parse.NewObject("Thing")
	require.NoError(t, o.Set("tag", "A"))
	// A lost answer of an attempt the server refused: the client cannot tell, so it is in doubt.
	m.failClass, m.loseOne = "Thing", true
	err := c.Objects.Save(ctx, o)
	require.ErrorIs(t, err, parse.ErrWriteInDoubt)
	require.Empty(t, m.rows["Thing"], "nothing was stored")
	m.failClass, m.loseOne = "", false
	require.NoError(t, o.Set("b", 2))
	require.ErrorIs(t, c.Objects.Save(ctx, o), ErrCreateHeld)
	require.NoError(t, c.Objects.Settle(ctx, o, ""))
	require.NoError(t, c.Objects.Save(ctx, o))
	require.NotEmpty(t, o.ID())
	assert.Empty(t, o.DirtyKeys())
	require.Len(t, m.rows["Thing"], 1)
	assert.Equal(t, "A", m.rows["Thing"][o.ID()]["tag"])
	assert.EqualValues(t, 2, m.rows["Thing"][o.ID()]["b"])
	assert.Equal(t, []string{"POST Thing", "PUT Thing " + o.ID()}, m.writes)
	err = c.Objects.Settle(ctx, o, "")
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrCreateHeld))
}
