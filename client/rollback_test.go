package client

import (
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
