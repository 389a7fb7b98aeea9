//go:build integration

package client_test

import (
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TriggerProbe has a beforeSave trigger in the local stack (internal/devstack/app/cloud/triggers.js). With it,
// parse-server answers an AddUnique or Remove that changed nothing with the op applied to an empty array (the
// op's items; []) instead of the stored array; the SDK reads such a field back, so after Save, SaveAll (flat,
// nested, atomic) an object that had the array from the server shows the stored array.
func TestArrayOpsUnderABeforeSaveTriggerShowTheStoredArray(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	o := parse.NewObject("TriggerProbe")
	require.NoError(t, o.Set("arr", []any{"a", "b"}))
	require.NoError(t, c.Objects.Save(ctx, o))
	stored := func() any {
		t.Helper()
		f := parse.NewObjectWithID("TriggerProbe", o.ID())
		require.NoError(t, c.Objects.Fetch(ctx, f))
		return f.Get("arr")
	}

	// The server's own answer, for the record: the stand-in, not the stored array.
	var answer map[string]any
	require.NoError(t, c.Request(ctx, "PUT", "classes/TriggerProbe/"+o.ID(),
		map[string]any{"arr": map[string]any{"__op": "AddUnique", "objects": []any{"a"}}}, &answer))
	require.Equal(t, []any{"a"}, answer["arr"], "parse-server no longer answers with the op's items: see README, Cloud code triggers")

	require.NoError(t, o.AddUnique("arr", "a"))
	require.NoError(t, c.Objects.Save(ctx, o))
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"), "Save of an AddUnique that changed nothing")

	require.NoError(t, o.Remove("arr", "z"))
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{o}))
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"), "SaveAll of a Remove that changed nothing")

	ref := parse.NewObjectWithID("TriggerProbe", o.ID())
	require.NoError(t, c.Objects.Fetch(ctx, ref))
	require.NoError(t, ref.AddUnique("arr", "b"))
	require.NoError(t, c.Objects.Save(ctx, ref))
	assert.Equal(t, []any{"a", "b"}, ref.Get("arr"), "Save of a fetched reference")

	parent := parse.NewObject("TriggerProbe")
	require.NoError(t, parent.Set("child", o))
	require.NoError(t, o.AddUnique("arr", "b"))
	require.NoError(t, c.Objects.Save(ctx, parent))
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"), "a nested object saved by a deep save")

	require.NoError(t, o.Remove("arr", "z"))
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{o}, client.Atomic()))
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"), "atomic SaveAll")

	require.NoError(t, o.AddUnique("arr", "c"))
	require.NoError(t, c.Objects.Save(ctx, o))
	assert.Equal(t, stored(), o.Get("arr"), "an AddUnique that added: the answer is taken")
	assert.ElementsMatch(t, []any{"a", "b", "c"}, o.Get("arr"))
}
