package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"
)

// Object is one backend object: a class name, an id once saved, server timestamps, its fields, and the changes
// not yet saved. Values read with Get are decoded Go values (time.Time, Pointer, File, GeoPoint, *Object, float64
// for numbers, []any, map[string]any). An Object is not safe for concurrent mutation: treat it like a map.
type Object struct {
	className string
	id        string
	localID   string
	createdAt time.Time
	updatedAt time.Time
	fields    map[string]any
	pending   map[string]any // key -> new value or Op
}

// Reserved field names that are not ordinary fields.
var reserved = map[string]bool{"objectId": true, "createdAt": true, "updatedAt": true, "className": true, "__type": true}

// NewObject returns an empty, unsaved object of a class.
func NewObject(className string) *Object {
	return &Object{className: className, fields: map[string]any{}, pending: map[string]any{}}
}

// NewObjectWithID returns a reference to an existing object; Fetch fills its fields.
func NewObjectWithID(className, id string) *Object {
	o := NewObject(className)
	o.id = id
	return o
}

// ClassName is the object's class.
func (o *Object) ClassName() string { return o.className }

// SetClassName sets the class of an object decoded without one.
func (o *Object) SetClassName(c string) { o.className = c }

// ID is the object's id ("" until saved).
func (o *Object) ID() string { return o.id }

// SetID sets the object's id (for references to existing objects).
func (o *Object) SetID(id string) { o.id = id }

// LocalID is the id the local store gave an object saved while offline ("" otherwise).
func (o *Object) LocalID() string { return o.localID }

// SetLocalID sets the local id (used by the store).
func (o *Object) SetLocalID(id string) { o.localID = id }

// CreatedAt is when the server created the object (zero until saved).
func (o *Object) CreatedAt() time.Time { return o.createdAt }

// UpdatedAt is when the server last changed the object.
func (o *Object) UpdatedAt() time.Time { return o.updatedAt }

// Pointer returns a pointer to this object.
func (o *Object) Pointer() Pointer { return Pointer{ClassName: o.className, ObjectID: o.id} }

// EncodeParse encodes the object as a value inside another: a Pointer. It must have been saved.
func (o *Object) EncodeParse() (any, error) {
	if o.id == "" {
		return nil, fmt.Errorf("wire: cannot reference an unsaved %s object; save it first", o.className)
	}
	return Encode(o.Pointer())
}

// Get returns a field's current value (including unsaved changes) or nil.
func (o *Object) Get(key string) any { return o.fields[key] }

// Has reports whether the field is set.
func (o *Object) Has(key string) bool { _, ok := o.fields[key]; return ok }

// Keys lists the object's field names, sorted.
func (o *Object) Keys() []string {
	keys := make([]string, 0, len(o.fields))
	for k := range o.fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Fields returns a copy of the fields.
func (o *Object) Fields() map[string]any { return maps.Clone(o.fields) }

// String returns the string field, or "".
func (o *Object) String(key string) string { s, _ := o.fields[key].(string); return s }

// Float returns a number field as float64, or 0.
func (o *Object) Float(key string) float64 { f, _ := toFloat(o.fields[key]); return f }

// Int returns a number field as int64, or 0.
func (o *Object) Int(key string) int64 { f, _ := toFloat(o.fields[key]); return int64(f) }

// Bool returns a boolean field, or false.
func (o *Object) Bool(key string) bool { b, _ := o.fields[key].(bool); return b }

// Time returns a Date field, or the zero time.
func (o *Object) Time(key string) time.Time { t, _ := o.fields[key].(time.Time); return t }

// Strings returns an array field's string members.
func (o *Object) Strings(key string) []string {
	arr, _ := o.fields[key].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ACL returns the object's ACL, or nil when it has none.
func (o *Object) ACL() *ACL { a, _ := o.fields["ACL"].(*ACL); return a }

// SetACL sets the object's ACL.
func (o *Object) SetACL(a *ACL) { o.Set("ACL", a) }

// ErrInvalidKey is returned for a field name the server would refuse.
var ErrInvalidKey = errors.New("invalid field name")

// ValidKey reports whether key is an acceptable field name: letters, digits and underscores, starting with a letter
// (or one of the server's own ACL/authData keys).
func ValidKey(key string) bool {
	if key == "" {
		return false
	}
	for i, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case (r >= '0' && r <= '9' || r == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Set changes a field. v may be an Op (Increment, Add, ...). The change is sent by the next save.
func (o *Object) Set(key string, v any) {
	if op, ok := v.(Op); ok {
		o.applyOp(key, op)
		return
	}
	if o.pending == nil {
		o.pending = map[string]any{}
	}
	o.pending[key] = v
	o.fields[key] = v
}

func (o *Object) applyOp(key string, op Op) {
	if o.pending == nil {
		o.pending = map[string]any{}
	}
	if prev, ok := o.pending[key]; ok {
		if pop, isOp := prev.(Op); isOp {
			if merged, ok := pop.merge(op); ok {
				op = merged
			}
			o.pending[key] = op
		} else {
			// A plain value followed by an op: the result is again a plain value.
			nv, has := op.apply(prev, true)
			if has {
				o.pending[key] = nv
			} else {
				o.pending[key] = Op{Kind: "Delete"}
			}
		}
	} else {
		o.pending[key] = op
	}
	old, had := o.fields[key]
	nv, has := op.apply(old, had)
	if has {
		o.fields[key] = nv
	} else {
		delete(o.fields, key)
	}
}

// Increment adds n to a number field.
func (o *Object) Increment(key string, n float64) { o.applyOp(key, Increment(n)) }

// Add appends values to an array field.
func (o *Object) Add(key string, values ...any) { o.applyOp(key, Add(values...)) }

// AddUnique appends values not already in an array field.
func (o *Object) AddUnique(key string, values ...any) { o.applyOp(key, AddUnique(values...)) }

// Remove removes values from an array field.
func (o *Object) Remove(key string, values ...any) { o.applyOp(key, Remove(values...)) }

// Unset deletes a field.
func (o *Object) Unset(key string) { o.applyOp(key, Unset()) }

// AddRelation adds objects to a relation field.
func (o *Object) AddRelation(key string, ptrs ...Pointer) { o.applyOp(key, AddRelation(ptrs...)) }

// RemoveRelation removes objects from a relation field.
func (o *Object) RemoveRelation(key string, ptrs ...Pointer) { o.applyOp(key, RemoveRelation(ptrs...)) }

// Dirty reports whether the object has unsaved changes (or was never saved).
func (o *Object) Dirty() bool { return o.id == "" || len(o.pending) > 0 }

// DirtyKeys lists the fields with unsaved changes, sorted.
func (o *Object) DirtyKeys() []string {
	keys := make([]string, 0, len(o.pending))
	for k := range o.pending {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SaveBody is the wire body of the next save: only the changed fields.
func (o *Object) SaveBody() (map[string]any, error) {
	body := make(map[string]any, len(o.pending))
	for k, v := range o.pending {
		if reserved[k] {
			return nil, fmt.Errorf("%s: %w", k, ErrInvalidKey)
		}
		if !ValidKey(k) && !strings.HasPrefix(k, "_") && k != "ACL" {
			return nil, fmt.Errorf("%q: %w", k, ErrInvalidKey)
		}
		ev, err := Encode(v)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		body[k] = ev
	}
	return body, nil
}

// PendingSnapshot returns the pending changes, so a failed save can be restored (used by the client).
func (o *Object) PendingSnapshot() map[string]any { return maps.Clone(o.pending) }

// ApplySaved merges a save answer (objectId, createdAt, updatedAt and any fields the server computed) and clears
// the changes that were sent (sent is the snapshot taken before the save).
func (o *Object) ApplySaved(resp map[string]any, sent map[string]any) error {
	for k := range sent {
		if cur, ok := o.pending[k]; ok && Equal(cur, sent[k]) {
			delete(o.pending, k)
		}
	}
	return o.setFromServer(resp, false)
}

// MergeServer replaces the object's server state with a full server answer (a fetch), keeping unsaved changes on
// top of it.
func (o *Object) MergeServer(resp map[string]any) error {
	fresh := map[string]any{}
	pending := o.pending
	o.fields = fresh
	if err := o.setFromServer(resp, true); err != nil {
		return err
	}
	for k, v := range pending {
		if op, ok := v.(Op); ok {
			old, had := o.fields[k]
			if nv, has := op.apply(old, had); has {
				o.fields[k] = nv
			} else {
				delete(o.fields, k)
			}
		} else {
			o.fields[k] = v
		}
	}
	return nil
}

func (o *Object) setFromServer(m map[string]any, full bool) error {
	if o.fields == nil {
		o.fields = map[string]any{}
	}
	if o.pending == nil {
		o.pending = map[string]any{}
	}
	for k, v := range m {
		switch k {
		case "__type":
		case "className":
			if s, ok := v.(string); ok && o.className == "" {
				o.className = s
			}
		case "objectId":
			if s, ok := v.(string); ok {
				o.id = s
			}
		case "createdAt", "updatedAt":
			var t time.Time
			switch x := v.(type) {
			case string:
				pt, err := ParseDate(x)
				if err != nil {
					return err
				}
				t = pt
			case time.Time:
				t = x
			case map[string]any:
				if d, ok := Decode(x).(time.Time); ok {
					t = d
				}
			}
			if k == "createdAt" {
				o.createdAt = t
				if o.updatedAt.IsZero() {
					o.updatedAt = t
				}
			} else {
				o.updatedAt = t
			}
		case "ACL":
			switch a := v.(type) {
			case map[string]any:
				acl, err := ACLFromMap(a)
				if err != nil {
					return err
				}
				o.fields["ACL"] = acl
			case *ACL:
				o.fields["ACL"] = a
			}
		default:
			if _, isPending := o.pending[k]; isPending && !full {
				// The server echoed a computed field (e.g. after Increment): it wins.
				delete(o.pending, k)
			}
			o.fields[k] = Decode(v)
		}
	}
	return nil
}

// MarshalJSON writes the object's full JSON (fields in wire form plus objectId, createdAt, updatedAt, className
// and __type "Object"), as the server sends it; used by the local store and for logging.
func (o *Object) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(o.fields)+5)
	for k, v := range o.fields {
		ev, err := Encode(v)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		m[k] = ev
	}
	m["__type"] = "Object"
	m["className"] = o.className
	if o.id != "" {
		m["objectId"] = o.id
	}
	if o.localID != "" {
		m["_localId"] = o.localID
	}
	if !o.createdAt.IsZero() {
		m["createdAt"] = FormatDate(o.createdAt)
	}
	if !o.updatedAt.IsZero() {
		m["updatedAt"] = FormatDate(o.updatedAt)
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads an object in the server's JSON form. The class comes from "className" when present.
func (o *Object) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("wire: invalid object JSON: %w", err)
	}
	if m == nil {
		return ErrNotJSONObject
	}
	if o.fields == nil {
		o.fields = map[string]any{}
	}
	if o.pending == nil {
		o.pending = map[string]any{}
	}
	if lid, ok := m["_localId"].(string); ok {
		o.localID = lid
		delete(m, "_localId")
	}
	return o.setFromServer(m, true)
}

// Clone returns a deep-enough copy: its own field and change maps (values are shared).
func (o *Object) Clone() *Object {
	c := *o
	c.fields = maps.Clone(o.fields)
	c.pending = maps.Clone(o.pending)
	if a := o.ACL(); a != nil {
		c.fields["ACL"] = a.Clone()
	}
	return &c
}

// ParseObject returns the object itself; it lets *Object and the types that embed it (a client User, a Role) be
// saved by the same calls.
func (o *Object) ParseObject() *Object { return o }

// Forget drops a field locally, without recording a change (used to drop a password after sign-up).
func (o *Object) Forget(key string) {
	delete(o.fields, key)
	delete(o.pending, key)
}

// ObjectFromServer makes an object of className from a result the server sent, already decoded by encoding/json.
func ObjectFromServer(className string, m map[string]any) (*Object, error) {
	o := NewObject(className)
	if err := o.setFromServer(m, true); err != nil {
		return nil, err
	}
	return o, nil
}
