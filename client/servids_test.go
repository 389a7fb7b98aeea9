package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
