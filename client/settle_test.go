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

// newThings makes n new objects of class Thing, each with a=1, n=1, tag=A and its own key.
func newThings(t *testing.T, n int) []*parse.Object {
	objs := make([]*parse.Object, n)
	for i := range objs {
		objs[i] = parse.NewObject("Thing")
		require.NoError(t, objs[i].Set("key", fmt.Sprintf("k%d", i)))
		require.NoError(t, objs[i].Set("a", 1))
		require.NoError(t, objs[i].Set("tag", "A"))
		require.NoError(t, objs[i].Increment("n", 1))
	}
	return objs
}

// editThings makes the edits: tag=B, b=2, n+=2.
func editThings(t *testing.T, objs []*parse.Object) {
	for _, o := range objs {
		require.NoError(t, o.Set("tag", "B"))
		require.NoError(t, o.Set("b", 2))
		require.NoError(t, o.Increment("n", 2))
	}
}

// rowOf is the stored row whose key is o's.
func (m *memServer) rowOf(o *parse.Object) (string, map[string]any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, row := range m.rows[o.ClassName()] {
		if row["key"] == o.Get("key") {
			return id, row
		}
	}
	return "", nil
}

// assertIntended fails unless the server holds one row per object, with the edited values, and the
// objects have nothing pending.
func assertIntended(t *testing.T, m *memServer, objs []*parse.Object) {
	t.Helper()
	assert.Len(t, m.rows["Thing"], len(objs), "one row per object")
	for _, o := range objs {
		id, row := m.rowOf(o)
		require.NotNil(t, row, "a row for %v", o.Get("key"))
		assert.Equal(t, id, o.ID())
		assert.EqualValues(t, 1, row["a"])
		assert.EqualValues(t, 2, row["b"])
		assert.Equal(t, "B", row["tag"])
		assert.Empty(t, o.DirtyKeys())
	}
}

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

// The second sequence, offline, on a backend without txMark: an atomic SaveAll of 3 new objects whose
// answer is lost after the commit leaves every create in doubt and held; the next atomic SaveAll is refused before
// anything is sent (never 6 rows); settled with the stored ids, it saves the edits as updates.
func TestAtomicHoldsACreateInDoubt(t *testing.T) {
	m := &memServer{serverIDs: true, loseAtomic: true}
	c, srv := memClient(t, m)
	ctx := context.Background()
	objs := newThings(t, 3)
	err := c.Objects.SaveAll(ctx, objs, Atomic())
	require.ErrorIs(t, err, parse.ErrWriteInDoubt)
	var ade *AtomicDoubtError
	require.ErrorAs(t, err, &ade)
	assert.False(t, ade.Applied)
	assert.Contains(t, ade.Reason, "txMark")
	require.Len(t, m.rows["Thing"], 3)
	m.loseAtomic = false

	editThings(t, objs)
	before := len(srv.requests())
	err = c.Objects.SaveAll(ctx, objs, Atomic())
	require.ErrorIs(t, err, ErrCreateHeld)
	assert.Contains(t, err.Error(), "item 0")
	assert.Equal(t, before, len(srv.requests()), "nothing sent")
	for _, o := range objs {
		id, _ := m.rowOf(o)
		require.NoError(t, c.Objects.Settle(ctx, o, id))
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs, Atomic()))
	assertIntended(t, m, objs)
}

// With txMark, an atomic batch whose answer is lost after the commit is proven applied by its mark: the update is
// done (and read back: the object shows the stored Increment), and the new object, whose id only the lost answer
// held, is held with an AtomicDoubtError whose Applied is set.
func TestAtomicProvenAppliedByItsMark(t *testing.T) {
	m := &memServer{serverIDs: true, txMark: true}
	c, _ := memClient(t, m)
	ctx := context.Background()
	old := newThings(t, 1)[0]
	require.NoError(t, c.Objects.Save(ctx, old))
	require.NoError(t, old.Increment("n", 5))
	fresh := newThings(t, 2)[1]
	m.loseAtomic = true
	err := c.Objects.SaveAll(ctx, []*parse.Object{old, fresh}, Atomic())
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.NoError(t, be.Errors[0], "the update is proven applied")
	assert.EqualValues(t, 6, old.Get("n"), "read back after the lost answer")
	assert.Empty(t, old.DirtyKeys())
	var ade *AtomicDoubtError
	require.ErrorAs(t, be.Errors[1], &ade)
	assert.True(t, ade.Applied)
	assert.Equal(t, 1, ade.Item)
	require.ErrorIs(t, be.Errors[1], parse.ErrWriteInDoubt)
	require.ErrorIs(t, c.Objects.Save(ctx, fresh), ErrCreateHeld)
	assert.Len(t, m.rows["Thing"], 2)
	assert.Len(t, m.rows["MoralisGoTxMark"], 1, "one mark row, no fence")
}

// A rollback is proven, with the mark, or without it after parse-server's own 500 by the unchanged updatedAt of an
// updated object or a deleted object still there; nothing was applied, so every object keeps its changes and no
// create is held: the next save, the refusal fixed, stores everything once.
func TestAtomicRollbackIsProvenNotInDoubt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		txMark bool
		proof  string
		update bool
	}{
		{"mark", true, "mark is not stored", false},
		{"updatedAt", false, "updatedAt of Thing", true},
		{"delete", false, "which it deletes, is still there", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memServer{serverIDs: true, txMark: tc.txMark}
			c, _ := memClient(t, m)
			ctx := context.Background()
			old := newThings(t, 1)[0]
			require.NoError(t, c.Objects.Save(ctx, old))
			if tc.update {
				require.NoError(t, old.Increment("n", 5))
			}
			objs := []*parse.Object{old, newThings(t, 2)[1]}
			m.failClass = "Thing"
			var err error
			if tc.name == "delete" {
				victim := newThings(t, 3)[2]
				m.failClass = ""
				require.NoError(t, c.Objects.Save(ctx, victim))
				m.failClass = "Thing"
				err = c.Objects.DestroyAll(ctx, []*parse.Object{victim, victim}, Atomic())
			} else {
				err = c.Objects.SaveAll(ctx, objs, Atomic())
			}
			require.ErrorIs(t, err, ErrRolledBack)
			require.NotErrorIs(t, err, parse.ErrWriteInDoubt)
			var rb *RolledBackError
			require.ErrorAs(t, err, &rb)
			assert.Contains(t, rb.Proof, tc.proof)
			assert.Equal(t, -1, rb.Refused, "a trigger's refusal is not named")
			assert.Contains(t, rb.Error(), "does not say which item")
			m.failClass = ""
			if tc.name == "delete" {
				return
			}
			for _, o := range objs {
				if o.ID() == "" || tc.update {
					assert.NotEmpty(t, o.DirtyKeys(), "changes stay pending")
				}
			}
			require.NoError(t, c.Objects.SaveAll(ctx, objs, Atomic()))
			assert.Len(t, m.rows["Thing"], 2)
			_, row := m.rowOf(old)
			if tc.update {
				assert.EqualValues(t, 6, row["n"], "the increment applied once")
			}
		})
	}
}

// An atomic batch with a create released by Settle(ctx, obj, "") sends its first attempt in the transaction and
// the changes made since in one more atomic batch: the server ends with the edits, one row.
func TestAtomicSendsTheChangesMadeSinceAReleasedCreate(t *testing.T) {
	m := &memServer{serverIDs: true, loseOne: true, failClass: "Thing"}
	c, srv := memClient(t, m)
	ctx := context.Background()
	o := newThings(t, 1)[0]
	require.ErrorIs(t, c.Objects.Save(ctx, o), parse.ErrWriteInDoubt, "refused, but its answer lost: in doubt")
	m.loseOne, m.failClass = false, ""
	editThings(t, []*parse.Object{o})
	require.NoError(t, c.Objects.Settle(ctx, o, ""))
	before := len(srv.requests())
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{o}, Atomic()))
	assertIntended(t, m, []*parse.Object{o})
	batches := 0
	for _, r := range srv.requests()[before:] {
		if r.Path == "batch" && r.Body["transaction"] == true {
			batches++
		}
	}
	assert.Equal(t, 2, batches, "the first attempt, then the changes since")
	assert.Equal(t, []string{"POST Thing", "PUT Thing " + o.ID()}, m.writes)
}

// DestroyAll: "object not found" after a retried call is in doubt (an earlier attempt may have deleted it), a
// first "object not found" is a refusal: write.settle decides both, as it does for Destroy.
func TestDeleteNotFoundIsInDoubtOnlyAfterARetry(t *testing.T) {
	m := &memServer{serverIDs: true}
	c, _ := memClient(t, m)
	ctx := context.Background()
	o := parse.NewObjectWithID("Thing", "nothere")
	err := c.Objects.DestroyAll(ctx, []*parse.Object{o})
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	require.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	w := deleteWrite(o)
	ierr, _ := w.settle(nil, &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", MaybeAppliedBefore: true})
	require.ErrorIs(t, ierr, parse.ErrWriteInDoubt)
	require.True(t, errors.Is(c.Objects.Destroy(ctx, o), parse.ErrObjectNotFound))
}
