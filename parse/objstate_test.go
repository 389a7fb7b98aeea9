package parse

import (
	"reflect"
	"testing"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The save machinery is not in Object's public method set: user code cannot put an object out of step with the
// server. Only internal/objstate reaches it.
func TestObjectMethodSetHasNoSaveMachinery(t *testing.T) {
	typ := reflect.TypeOf(&Object{})
	for _, name := range []string{"ApplySaved", "DropSent", "PendingSnapshot", "SaveBody", "MergeServer",
		"SetProposedID", "Forget", "EncodeParse", "SetLocalID", "PendingValues", "Snapshot", "Unconfirmed", "Confirm"} {
		_, ok := typ.MethodByName(name)
		assert.False(t, ok, "(*parse.Object).%s is public", name)
	}
}

// An object is encoded as a Pointer, and so is a type that embeds one (client.User and client.Role do).
func TestEncodeObjectAndEmbedding(t *testing.T) {
	type user struct{ *Object }
	o := NewObjectWithID("_User", "u1")
	want := map[string]any{"__type": "Pointer", "className": "_User", "objectId": "u1"}
	for _, v := range []any{o, user{o}, &user{o}} {
		got, err := Encode(v)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	got, err := Encode((*user)(nil))
	require.NoError(t, err)
	assert.Nil(t, got)
	_, err = Encode(NewObject("Post"))
	assert.ErrorContains(t, err, "cannot reference an unsaved Post object")
}

// objstate.Of reaches an object's save state, through a type that embeds it too.
func TestObjstateOf(t *testing.T) {
	type user struct{ *Object }
	o := NewObject("Item")
	require.NoError(t, o.Set("a", 1.0))
	st := objstate.Of(user{o})
	sent := st.Snapshot()
	require.NoError(t, o.Set("b", 2.0))
	require.NoError(t, st.ApplySaved(map[string]any{"objectId": "x1"}, sent))
	assert.Equal(t, "x1", o.ID())
	assert.Equal(t, []string{"b"}, o.DirtyKeys(), "a change made after the snapshot stays pending")
	st.Forget("b")
	assert.False(t, o.Has("b"))
}
