//go:build integration

package client_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The local stack's cloud code (internal/devstack/app/cloud/atomicbatch.js) refuses saves of AtomicBatch objects
// with reject = true and deletes of ones with keep = true. Each test marks its rows with its own "run" value.
const atomicClass = "AtomicBatch"

func atomicRows(t *testing.T, c *client.Client, run string) map[int]float64 {
	t.Helper()
	var resp struct {
		Results []struct {
			I     int     `json:"i"`
			Score float64 `json:"score"`
		} `json:"results"`
	}
	require.NoError(t, c.Request(context.Background(), "GET", "classes/"+atomicClass,
		map[string]any{"where": map[string]any{"run": run}, "limit": 1000}, &resp))
	out := map[int]float64{}
	for _, r := range resp.Results {
		out[r.I] = r.Score
	}
	return out
}

// atomicSchema makes sure the class has every field the tests write, with a plain save of one object that is then
// deleted: parse-server adds a new field outside the transaction and waits for the transaction, which waits for
// the field, forever (see Atomic's limits).
func atomicSchema(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	o := parse.NewObject(atomicClass)
	for k, v := range map[string]any{"run": "schema", "i": 0, "score": 0, "reject": false, "keep": false} {
		o.Set(k, v)
	}
	require.NoError(t, c.Objects.Save(ctx, o))
	require.NoError(t, c.Objects.Destroy(ctx, o))
}

// atomicSetup is a client, the class's fields made, and a fresh run marker starting with prefix.
func atomicSetup(t *testing.T, prefix string) (*client.Client, context.Context, string) {
	c := newClient(t)
	atomicSchema(t, c)
	return c, context.Background(), fmt.Sprintf("%s%d", prefix, rand.Uint32())
}

func atomicObjects(run string, n int) []*parse.Object {
	objs := make([]*parse.Object, n)
	for i := range objs {
		objs[i] = parse.NewObject(atomicClass)
		objs[i].Set("run", run)
		objs[i].Set("i", i)
	}
	return objs
}

// A beforeSave that refuses the 3rd of 5 new objects rolls the whole atomic SaveAll back: zero rows, proven by the
// batch's mark (the stack runs moralis-go-server with txMark), so every item is a definite refusal, not in doubt,
// and no create is held; the trigger's refusal is not told by the server, and the error says so. The same objects
// without Atomic store the other 4 (so the trigger refuses only the 3rd); once it is fixed, the atomic SaveAll
// stores all 5.
func TestAtomicSaveAllAllOrNothing(t *testing.T) {
	c, ctx, run := atomicSetup(t, "r")
	objs := atomicObjects(run, 5)
	objs[2].Set("reject", true)

	err := c.Objects.SaveAll(ctx, objs, client.Atomic())
	var be *client.BatchError
	require.ErrorAs(t, err, &be)
	t.Logf("atomic SaveAll with a refused 3rd object: %v", err)
	assert.Empty(t, atomicRows(t, c, run), "a rolled-back atomic SaveAll stores nothing")
	assert.Equal(t, 5, be.Failed)
	assert.Zero(t, be.InDoubt, "the rollback is proven")
	require.ErrorIs(t, err, client.ErrRolledBack)
	var rb *client.RolledBackError
	require.ErrorAs(t, be.Errors[4], &rb)
	assert.Equal(t, 4, rb.Item)
	assert.Equal(t, -1, rb.Refused, "a trigger's refusal is not named by the server")
	assert.Contains(t, rb.Proof, "mark")
	for i, o := range objs {
		assert.Empty(t, o.ID(), "item %d has no id", i)
		assert.True(t, o.Dirty(), "item %d keeps its changes", i)
	}

	plain := atomicObjects(run+"p", 5)
	plain[2].Set("reject", true)
	perr := c.Objects.SaveAll(ctx, plain)
	t.Logf("plain: %v", perr)
	require.Error(t, perr)
	assert.Len(t, atomicRows(t, c, run+"p"), 4, "without Atomic the trigger refuses the 3rd only")

	objs[2].Set("reject", false)
	require.NoError(t, c.Objects.SaveAll(ctx, objs, client.Atomic()))
	assert.Len(t, atomicRows(t, c, run), 5)
	for _, o := range objs {
		assert.NotEmpty(t, o.ID())
		assert.False(t, o.Dirty())
	}
}

// Updates: a refused one rolls back the others, Increment included; then all are applied together once.
func TestAtomicSaveAllUpdates(t *testing.T) {
	c, ctx, run := atomicSetup(t, "u")
	objs := atomicObjects(run, 4)
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	for _, o := range objs {
		require.NoError(t, o.Increment("score", 5))
	}
	objs[3].Set("reject", true)
	err := c.Objects.SaveAll(ctx, objs, client.Atomic())
	require.ErrorIs(t, err, client.ErrRolledBack, "a rolled-back transaction is proven rolled back")
	require.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	for i, score := range atomicRows(t, c, run) {
		assert.Zero(t, score, "row %d unchanged", i)
	}
	// Nothing was applied, so the increments stay pending: fixed, the next save applies each once.
	for _, o := range objs {
		assert.Contains(t, o.DirtyKeys(), "score")
	}
	objs[3].Set("reject", false)
	require.NoError(t, c.Objects.SaveAll(ctx, objs, client.Atomic()))
	for i, score := range atomicRows(t, c, run) {
		assert.Equal(t, 5.0, score, "row %d", i)
	}
	for _, o := range objs {
		assert.Equal(t, 5.0, o.Float("score"))
	}
}

// DestroyAll with Atomic: a refused delete keeps every object.
func TestAtomicDestroyAll(t *testing.T) {
	c, ctx, run := atomicSetup(t, "d")
	objs := atomicObjects(run, 3)
	objs[1].Set("keep", true)
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	require.ErrorIs(t, c.Objects.DestroyAll(ctx, objs, client.Atomic()), client.ErrRolledBack)
	assert.Len(t, atomicRows(t, c, run), 3, "a rolled-back atomic DestroyAll deletes nothing")
	objs[1].Set("keep", false)
	require.NoError(t, c.Objects.Save(ctx, objs[1]))
	require.NoError(t, c.Objects.DestroyAll(ctx, append(objs, objs[0]), client.Atomic()))
	assert.Empty(t, atomicRows(t, c, run))
}

// The limits, refused before anything is sent: more writes than one /batch call holds, and objects that point to
// unsaved objects.
func TestAtomicLimits(t *testing.T) {
	c, ctx, run := atomicSetup(t, "l")
	objs := atomicObjects(run, 21)
	err := c.Objects.SaveAll(ctx, objs, client.Atomic())
	var le *client.AtomicLimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, client.AtomicLimitError{Writes: 21, Limit: 20}, *le)
	assert.Empty(t, atomicRows(t, c, run), "nothing sent")
	child := parse.NewObject(atomicClass)
	objs[0].Set("child", child)
	require.ErrorIs(t, c.Objects.SaveAll(ctx, objs[:2], client.Atomic()), client.ErrAtomicNested)
	require.NoError(t, c.Objects.DestroyAll(ctx, nil, client.Atomic()), "no objects: nothing to do")
}
