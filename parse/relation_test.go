package parse

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestObjectRelation(t *testing.T) {
	// Known from the server's value.
	o := NewObjectWithID("Post", "p1")
	require.NoError(t, o.mergeServer(map[string]any{"likes": map[string]any{"__type": "Relation", "className": "_User"}, "title": "x"}))
	r, err := o.Relation("likes")
	require.NoError(t, err)
	assert.Equal(t, Relation{ClassName: "_User", Parent: Pointer{ClassName: "Post", ObjectID: "p1"}, Key: "likes"}, r)
	assert.Equal(t, Relation{ClassName: "_User"}, o.Get("likes"), "Get keeps the server's value")

	// Known from an unsaved change.
	n := NewObjectWithID("Post", "p2")
	require.NoError(t, n.RemoveRelation("fans", Pointer{ClassName: "Fan", ObjectID: "f1"}))
	r, err = n.Relation("fans")
	require.NoError(t, err)
	assert.Equal(t, "Fan", r.ClassName)

	// Not known.
	r, err = n.Relation("other")
	require.NoError(t, err)
	assert.Equal(t, Relation{Parent: Pointer{ClassName: "Post", ObjectID: "p2"}, Key: "other"}, r)

	// Not a relation, or not a field name.
	_, err = o.Relation("title")
	assert.ErrorIs(t, err, ErrNotRelation)
	assert.EqualError(t, err, "Called relation() on non-relation field title")
	_, err = o.Relation("$bad")
	assert.ErrorIs(t, err, ErrInvalidKey)

	// Only the class travels on the wire.
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"__type":"Relation","className":null}`, string(b), "no known target: className null, as moralis-v1")
	enc, err := Encode(r)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"__type": "Relation", "className": nil}, enc)
	var back Relation
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "", back.ClassName)
	assert.Equal(t, Relation{}, Decode(enc), "a null className decodes to an unknown target")
	enc, err = Encode(Relation{ClassName: "Fan", Parent: Pointer{ClassName: "Post", ObjectID: "p2"}, Key: "fans"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"__type": "Relation", "className": "Fan"}, enc)
}

func TestRelationQuery(t *testing.T) {
	parent := Pointer{ClassName: "Post", ObjectID: "p1"}
	where := map[string]any{"$relatedTo": map[string]any{
		"object": map[string]any{"__type": "Pointer", "className": "Post", "objectId": "p1"}, "key": "likes"}}

	req, err := Relation{ClassName: "_User", Parent: parent, Key: "likes"}.Query()
	require.NoError(t, err)
	assert.Equal(t, &QueryRequest{ClassName: "_User", Op: "find", Params: map[string]any{"where": where}}, req)

	// Target class unknown: the parent's class, and the server redirects.
	req, err = Relation{Parent: parent, Key: "likes"}.Query()
	require.NoError(t, err)
	assert.Equal(t, &QueryRequest{ClassName: "Post", Op: "find",
		Params: map[string]any{"where": where, "redirectClassNameForKey": "likes"}}, req)

	for name, r := range map[string]Relation{
		"decoded alone": {ClassName: "_User"},
		"no key":        {ClassName: "_User", Parent: parent},
		"unsaved":       {ClassName: "_User", Parent: Pointer{ClassName: "Post"}, Key: "likes"},
	} {
		_, err := r.Query()
		assert.ErrorIs(t, err, ErrRelationNoParent, name)
	}
	_, err = Relation{}.Query()
	assert.EqualError(t, err, "Cannot construct a query for a Relation without a parent")
	_, err = Relation{Parent: parent, Key: "a b"}.Query()
	assert.ErrorIs(t, err, ErrInvalidKey)
}

// A "className" in a server result names the object's class (the results of a redirected relation query carry
// the target class).
func TestObjectClassFromResult(t *testing.T) {
	o, err := ObjectFromServer("Post", map[string]any{"objectId": "u1", "className": "_User", "name": "ann"})
	require.NoError(t, err)
	assert.Equal(t, "_User", o.ClassName())
	o, err = ObjectFromServer("Post", map[string]any{"objectId": "p1"})
	require.NoError(t, err)
	assert.Equal(t, "Post", o.ClassName())

	u := NewObject("Post")
	require.NoError(t, u.UnmarshalJSON([]byte(`{"objectId":"u1","className":"_User"}`)))
	assert.Equal(t, "_User", u.ClassName())
	p := NewObject("Post")
	require.NoError(t, p.UnmarshalJSON([]byte(`{"objectId":"p1"}`)))
	assert.Equal(t, "Post", p.ClassName())
}

// ExampleRelation_Query asks for the objects in a relation field, as the original's relation.query() does. The
// request runs as it is through the backend client (c.RunQuery), or becomes a typed query with
// query.FromRequest.
func ExampleRelation_Query() {
	post := NewObjectWithID("Post", "p1")
	_ = post.mergeServer(map[string]any{"likes": map[string]any{"__type": "Relation", "className": "_User"}})
	likes, _ := post.Relation("likes")
	req, _ := likes.Query()
	b, _ := json.Marshal(req.Params)
	fmt.Println(req.Op, req.ClassName, string(b))

	// Before the server has told the target class, the server is asked to find it.
	draft := NewObjectWithID("Post", "p2")
	fans, _ := draft.Relation("fans")
	req, _ = fans.Query()
	b, _ = json.Marshal(req.Params)
	fmt.Println(req.Op, req.ClassName, string(b))
	// Output:
	// find _User {"where":{"$relatedTo":{"key":"likes","object":{"__type":"Pointer","className":"Post","objectId":"p1"}}}}
	// find Post {"redirectClassNameForKey":"fans","where":{"$relatedTo":{"key":"fans","object":{"__type":"Pointer","className":"Post","objectId":"p2"}}}}
}
