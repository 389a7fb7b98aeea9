package parse

import (
	"testing"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// savedWith makes an object whose server state holds arr (when known), applies change, and records a save of it
// answered with answer.
func savedWith(t *testing.T, arr []any, known bool, change func(o *Object) error, answer any) (*Object, objstate.State) {
	t.Helper()
	o := NewObjectWithID("Thing", "t1")
	st := objstate.Of(o)
	if known {
		require.NoError(t, st.MergeServer(map[string]any{"objectId": "t1", "arr": arr}))
	}
	require.NoError(t, change(o))
	sent := st.Snapshot()
	require.NoError(t, st.ApplySaved(map[string]any{"updatedAt": "2026-01-01T00:00:01.000Z", "arr": answer}, sent))
	return o, st
}

// parse-server, with a beforeSave trigger on the class, answers an AddUnique that changed nothing with the op's
// items and a Remove that changed nothing with []: the local result stays and the field is to be read back.
func TestStandInArrayAnswersAreNotTaken(t *testing.T) {
	o, st := savedWith(t, []any{"a", "b"}, true, func(o *Object) error { return o.AddUnique("arr", "a") }, []any{"a"})
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"))
	assert.Equal(t, []string{"arr"}, st.Unconfirmed())
	assert.Empty(t, o.DirtyKeys())

	o, st = savedWith(t, []any{"a", "b"}, true, func(o *Object) error { return o.Remove("arr", "z") }, []any{})
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"))
	assert.Equal(t, []string{"arr"}, st.Unconfirmed())

	// The read back gives the stored array; a field the read back lacks has no value.
	require.NoError(t, st.Confirm(map[string]any{"objectId": "t1", "arr": []any{"a", "b", "c"}}))
	assert.Equal(t, []any{"a", "b", "c"}, o.Get("arr"))
	assert.Empty(t, st.Unconfirmed())
	o, st = savedWith(t, []any{"a", "b"}, true, func(o *Object) error { return o.AddUnique("arr", "a") }, []any{"a"})
	require.NoError(t, st.Confirm(map[string]any{"objectId": "t1", "arr": []any{"a", "b"}}))
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"))
	assert.Empty(t, st.Unconfirmed())
	o, st = savedWith(t, []any{"a"}, true, func(o *Object) error { return o.Remove("arr", "z") }, []any{})
	require.NoError(t, st.Confirm(map[string]any{"objectId": "t1"}))
	assert.False(t, o.Has("arr"))
}

// Answers that are the stored array are taken as they are: one that differs from the stand-in's shape, and one of
// that shape that equals the local result.
func TestTrueArrayAnswersAreTaken(t *testing.T) {
	cases := []struct {
		name   string
		arr    []any
		change func(o *Object) error
		answer []any
	}{
		{"AddUnique that added", []any{"a", "b"}, func(o *Object) error { return o.AddUnique("arr", "c") }, []any{"x", "a", "b", "c"}},
		{"Remove that removed", []any{"a", "b"}, func(o *Object) error { return o.Remove("arr", "a") }, []any{"b", "x"}},
		{"AddUnique to an empty array", []any{}, func(o *Object) error { return o.AddUnique("arr", "a") }, []any{"a"}},
		{"Remove of the last item", []any{"a"}, func(o *Object) error { return o.Remove("arr", "a") }, []any{}},
		{"Add", []any{"a"}, func(o *Object) error { return o.Add("arr", "a") }, []any{"a"}},
	}
	// An object that never had the field takes the answer (a new user's first AddUnique: no read back).
	o, st := savedWith(t, nil, false, func(o *Object) error { return o.AddUnique("arr", "a") }, []any{"a"})
	assert.Equal(t, []any{"a"}, o.Get("arr"))
	assert.Empty(t, st.Unconfirmed())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, st := savedWith(t, c.arr, true, c.change, c.answer)
			assert.Equal(t, c.answer, o.Get("arr"))
			assert.Empty(t, st.Unconfirmed())
		})
	}
}

// A fetch confirms every field.
func TestFetchClearsUnconfirmed(t *testing.T) {
	_, st := savedWith(t, []any{"a", "b"}, true, func(o *Object) error { return o.AddUnique("arr", "a") }, []any{"a"})
	require.NoError(t, st.MergeServer(map[string]any{"objectId": "t1", "arr": []any{"a", "b"}}))
	assert.Empty(t, st.Unconfirmed())
}
