package parse

import (
	"errors"
	"fmt"
)

// ErrRelationNoParent is returned by Relation.Query for a relation that does not know the object holding it, or
// whose parent is not saved yet (the original client's text).
var ErrRelationNoParent = errors.New("Cannot construct a query for a Relation without a parent")

// ErrNotRelation is returned (wrapped, with the field name) by Object.Relation for a field that holds something
// other than a relation (the original client's text, "Called relation() on non-relation field {key}").
var ErrNotRelation = errors.New("Called relation() on non-relation field")

// Relation returns the relation field key of the object, with its Parent (this object) and Key set, like the
// original's object.relation(key). The target class comes from the value the server sent for the field or, before
// the first save, from the objects an unsaved AddRelation or RemoveRelation of the field names; it stays ""
// when neither tells it (Query then lets the server find it). A field holding another kind of value gives an
// error wrapping ErrNotRelation; an invalid field name, one wrapping ErrInvalidKey.
func (o *Object) Relation(key string) (Relation, error) {
	if !ValidKey(key) {
		return Relation{}, fmt.Errorf("parse: Relation(%q): %w", key, ErrInvalidKey)
	}
	var r Relation
	switch v := o.Get(key).(type) {
	case nil:
	case Relation:
		r = v
	default:
		return Relation{}, fmt.Errorf("%w %s", ErrNotRelation, key)
	}
	if r.ClassName == "" {
		if op, ok := o.pending[key]; ok && op.isRelation() {
			for _, v := range append(append([]any{}, op.Objects...), op.Removed...) {
				if p, ok := v.(Pointer); ok && p.ClassName != "" {
					r.ClassName = p.ClassName
					break
				}
			}
		}
	}
	r.Parent, r.Key = o.Pointer(), key
	return r, nil
}

// Query returns the find request for the objects in the relation, as the original's relation.query() builds it:
// a query on the target class constrained with {"$relatedTo":{"object":<Parent as a Pointer>,"key":Key}}. When
// the target class is not known (ClassName ""), the query is on the parent's class with
// "redirectClassNameForKey": Key, and the server runs it on the relation's target class instead (its results
// then carry their className).
//
// The request runs as it is through any query runner (c.RunQuery(ctx, req) on the backend client), or becomes a
// typed, refinable query with query.FromRequest. The parent must be saved (ErrRelationNoParent otherwise). The
// request is fresh on every call: the caller may change it.
func (r Relation) Query() (*QueryRequest, error) {
	if r.Parent.ClassName == "" || r.Key == "" {
		return nil, ErrRelationNoParent
	}
	if r.Parent.ObjectID == "" {
		return nil, fmt.Errorf("parse: Relation.Query: the parent %s is not saved yet: %w", r.Parent.ClassName, ErrRelationNoParent)
	}
	if !ValidKey(r.Key) {
		return nil, fmt.Errorf("parse: Relation.Query(%q): %w", r.Key, ErrInvalidKey)
	}
	params := map[string]any{"where": map[string]any{"$relatedTo": map[string]any{
		"object": map[string]any{"__type": "Pointer", "className": r.Parent.ClassName, "objectId": r.Parent.ObjectID},
		"key":    r.Key,
	}}}
	className := r.ClassName
	if className == "" {
		className = r.Parent.ClassName
		params["redirectClassNameForKey"] = r.Key
	}
	return &QueryRequest{ClassName: className, Op: "find", Params: params}, nil
}
