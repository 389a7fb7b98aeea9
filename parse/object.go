package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/internal/wirejson"
)

// Object is one backend object: a class name, an id once saved, server timestamps, its fields, and the changes
// not yet saved. Values read with Get are decoded Go values (time.Time, Pointer, File, GeoPoint, *Object, float64
// for numbers, []any, map[string]any): the last values the server sent with the unsaved changes applied. After a
// successful save they equal what the server stored (values the server computed, such as the result of Increment
// or Add, are taken from its answer). An Object is not safe for concurrent mutation: treat it like a map.
type Object struct {
	className string
	id        string
	localID   string
	proposed  string        // the id a create in doubt was sent with; the next create sends it again
	doubt     map[string]Op // the changes a create in doubt sent: a resend sends them again, and only them
	held      bool          // the create in doubt went without an id of the client's: not sent again until settled
	createdAt time.Time
	updatedAt time.Time
	server    map[string]any // the last values the server sent (or that a save stored)
	pending   map[string]Op  // one merged change per key
	est       map[string]any // for pending keys: the value after the change (absent: the field is deleted)
	// unconfirmed holds the array fields whose save answer was not trusted (see distrusted): the client reads
	// them back after the save (Confirm).
	unconfirmed map[string]bool
}

// Reserved field names that are not ordinary fields.
var reserved = map[string]bool{"objectId": true, "createdAt": true, "updatedAt": true, "className": true, "__type": true}

// NewObject returns an empty, unsaved object of a class.
func NewObject(className string) *Object {
	return &Object{className: className, server: map[string]any{}}
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

// ProposedID is the object id a create whose outcome is unknown was sent with ("" otherwise); the next save of
// the object sends the same id, so it cannot make a second object. It is cleared once the object has its id.
func (o *Object) ProposedID() string {
	if o.id != "" {
		return ""
	}
	return o.proposed
}

// setProposedID records the id a create was sent with (the client, through internal/objstate).
func (o *Object) setProposedID(id string) { o.proposed = id }

// LocalID is the id the local store gave an object saved while offline ("" otherwise).
func (o *Object) LocalID() string { return o.localID }

// setLocalID sets the local id (the store, through internal/objstate).
func (o *Object) setLocalID(id string) { o.localID = id }

// CreatedAt is when the server created the object (zero until saved).
func (o *Object) CreatedAt() time.Time { return o.createdAt }

// UpdatedAt is when the server last changed the object.
func (o *Object) UpdatedAt() time.Time { return o.updatedAt }

// Pointer returns a pointer to this object.
func (o *Object) Pointer() Pointer { return Pointer{ClassName: o.className, ObjectID: o.id} }

// encodeRef encodes the object as a value inside another: a Pointer. It must have been saved.
func (o *Object) encodeRef() (any, error) {
	if o == nil {
		return nil, nil
	}
	if o.id == "" {
		return nil, fmt.Errorf("parse: cannot reference an unsaved %s object; save it first", o.className)
	}
	return Encode(o.Pointer())
}

// Get returns a field's current value (including unsaved changes) or nil.
func (o *Object) Get(key string) any { v, _ := o.value(key); return v }

// value is the field's current value: its unsaved change applied to its server value.
func (o *Object) value(key string) (any, bool) {
	if _, p := o.pending[key]; p {
		v, ok := o.est[key]
		return v, ok
	}
	v, ok := o.server[key]
	return v, ok
}

// Has reports whether the field is set.
func (o *Object) Has(key string) bool { _, ok := o.value(key); return ok }

// Keys lists the object's field names, sorted.
func (o *Object) Keys() []string {
	f := o.Fields()
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Fields returns a copy of the fields.
func (o *Object) Fields() map[string]any {
	f := make(map[string]any, len(o.server)+len(o.pending))
	for k, v := range o.server {
		f[k] = v
	}
	for k := range o.pending {
		if v, ok := o.est[k]; ok {
			f[k] = v
		} else {
			delete(f, k)
		}
	}
	return f
}

// String returns the string field, or "".
func (o *Object) String(key string) string { s, _ := o.Get(key).(string); return s }

// Float returns a number field as float64, or 0.
func (o *Object) Float(key string) float64 { f, _ := toFloat(o.Get(key)); return f }

// Int returns a number field as int64, or 0.
func (o *Object) Int(key string) int64 { f, _ := toFloat(o.Get(key)); return int64(f) }

// Bool returns a boolean field, or false.
func (o *Object) Bool(key string) bool { b, _ := o.Get(key).(bool); return b }

// Time returns a Date field, or the zero time.
func (o *Object) Time(key string) time.Time { t, _ := o.Get(key).(time.Time); return t }

// Strings returns an array field's string members.
func (o *Object) Strings(key string) []string {
	arr, _ := o.Get(key).([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ACL returns the object's ACL, or nil when it has none.
func (o *Object) ACL() *ACL { a, _ := o.Get("ACL").(*ACL); return a }

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

// Set changes a field to v, sent by the next save. v may be an Op (Increment, Add, ...): then Set applies it as
// the method of that name does, and may refuse it (see Increment). A plain value replaces any earlier unsaved
// change of the field and never fails.
func (o *Object) Set(key string, v any) error {
	if op, ok := v.(Op); ok {
		return o.applyOp(key, op)
	}
	return o.applyOp(key, SetOp(v))
}

// applyOp merges op into the field's unsaved change and updates the field's value; on a refusal nothing changes.
func (o *Object) applyOp(key string, op Op) error {
	o.ensure()
	var prev *Op
	if p, ok := o.pending[key]; ok {
		prev = &p
	}
	merged, err := op.mergeWith(prev)
	if err == nil {
		_, err = o.estimate(key, merged)
	}
	if err != nil {
		if me, ok := err.(*MergeError); ok {
			me.Key = key
		}
		return err
	}
	o.pending[key] = merged
	o.refresh(key)
	return nil
}

// estimate is the field's value after op is applied to its server value.
func (o *Object) estimate(key string, op Op) (any, error) {
	old, had := o.server[key]
	if op.isRelation() {
		return old, nil
	}
	return op.applyTo(old, had)
}

// refresh recomputes the field's value from its server value and its unsaved change. A change that no longer
// applies to a new server value (the field changed type) leaves the server value showing; the save will be
// refused by the server.
func (o *Object) refresh(key string) {
	op, ok := o.pending[key]
	if !ok {
		delete(o.est, key)
		return
	}
	if op.removesField() {
		delete(o.est, key)
		return
	}
	old, had := o.server[key]
	v, err := o.estimate(key, op)
	switch {
	case err == nil && (v != nil || op.Kind == opSet):
		o.est[key] = v
	case had:
		o.est[key] = old
	default:
		delete(o.est, key)
	}
}

func (o *Object) ensure() {
	if o.server == nil {
		o.server = map[string]any{}
	}
	if o.est == nil {
		o.est = map[string]any{}
	}
	if o.pending == nil {
		o.pending = map[string]Op{}
	}
}

// Increment adds n to a number field (a field without a value counts as 0). Merged with an earlier unsaved
// change of the field as Parse merges them: after a Set it becomes a Set of the sum, after Unset a Set of n, after
// another Increment one Increment of the sum. After Add, AddUnique, Remove or a relation change it is refused with
// "Cannot merge Increment Op with the previous Op" and nothing changes; on a non-numeric value, with "Cannot
// increment a non-numeric value.".
func (o *Object) Increment(key string, n float64) error { return o.applyOp(key, Increment(n)) }

// Add appends values to an array field. Merged with an earlier Set (becomes a Set of the new array), Unset
// (a Set of values) or Add (one Add of both); any other earlier change is refused with "Cannot merge Add Op
// with the previous Op".
func (o *Object) Add(key string, values ...any) error { return o.applyOp(key, Add(values...)) }

// AddUnique appends the values not already in an array field (values are de-duplicated too). Merged with an
// earlier Set, Unset or AddUnique; any other earlier change is refused with "Cannot merge AddUnique Op with the
// previous Op".
func (o *Object) AddUnique(key string, values ...any) error {
	return o.applyOp(key, AddUnique(values...))
}

// Remove removes values from an array field. Merged with an earlier Set, Unset (stays an Unset) or Remove; any
// other earlier change is refused with "Cannot merge Remove Op with the previous Op".
func (o *Object) Remove(key string, values ...any) error { return o.applyOp(key, Remove(values...)) }

// Unset deletes a field. It replaces any earlier unsaved change of the field and never fails.
func (o *Object) Unset(key string) { _ = o.applyOp(key, Unset()) }

// AddRelation adds objects to a relation field. Adds and removes of one field before a save are merged into one
// change (sent as a "Batch" of both); after Unset it is refused with "You cannot modify a relation after
// deleting it.", after any other change with "Cannot merge Relation Op with the previous Op".
func (o *Object) AddRelation(key string, ptrs ...Pointer) error {
	return o.applyOp(key, AddRelation(ptrs...))
}

// RemoveRelation removes objects from a relation field; merged as AddRelation is.
func (o *Object) RemoveRelation(key string, ptrs ...Pointer) error {
	return o.applyOp(key, RemoveRelation(ptrs...))
}

// IsDataAvailable reports whether the object holds data from the server (a fetch, a query or a save answered
// with its fields), as the original's isDataAvailable does: false for a reference made with NewObjectWithID
// until it is fetched, whatever unsaved changes it has.
func (o *Object) IsDataAvailable() bool {
	return len(o.server) > 0 || !o.createdAt.IsZero() || !o.updatedAt.IsZero()
}

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

// saveBody is the wire body of the next save: only the changed fields.
func (o *Object) saveBody() (map[string]any, error) {
	ops := o.pending
	if o.id == "" && o.doubt != nil {
		ops = o.doubt // a create in doubt is sent again as it was first sent
	}
	return bodyOf(ops)
}

// bodyOf is the wire body of the changes ops.
func bodyOf(ops map[string]Op) (map[string]any, error) {
	body := make(map[string]any, len(ops))
	for k, op := range ops {
		if reserved[k] {
			return nil, fmt.Errorf("%s: %w", k, ErrInvalidKey)
		}
		if !ValidKey(k) && !strings.HasPrefix(k, "_") && k != "ACL" {
			return nil, fmt.Errorf("%q: %w", k, ErrInvalidKey)
		}
		ev, err := op.encode()
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		body[k] = ev
	}
	return body, nil
}

// pendingSnapshot returns the unsaved changes, taken before a save and given back to applySaved or dropSent.
func (o *Object) pendingSnapshot() map[string]Op { return maps.Clone(o.pending) }

// createInDoubt records that a create which sent the changes in sent has an unknown outcome (sent with its
// proposed id, or without an id when the server chooses ids). Those changes leave pending and show as the
// object's values; changes made afterwards are pending on top of them. Until the create is settled, the next
// create sends exactly these changes again (saveBody), so whichever attempt the server applied, it stored the
// same row; the later changes go out as an update after it. A create sent without a proposed id is held (see
// held): its row, if stored, cannot be found by id, so it is not sent again until the app settles it. A resend
// of a create already in doubt changes nothing, except that it is held again when it went without an id.
func (o *Object) createInDoubt(sent map[string]Op) {
	if o.id != "" {
		return
	}
	o.held = o.proposed == ""
	if o.doubt != nil {
		return
	}
	o.ensure()
	o.doubt = maps.Clone(sent)
	if o.doubt == nil {
		o.doubt = map[string]Op{}
	}
	for k, op := range sent {
		o.takeSent(k, op)
		o.refresh(k)
	}
}

// doubtSent marks a snapshot of a create in doubt being sent again: settled, it takes the server's answer and
// leaves every pending change pending (they were made after the first attempt and were not sent).
type doubtSent map[string]Op

// takeSent makes a sent change part of the server's values, and no longer pending unless it changed since.
func (o *Object) takeSent(k string, op Op) {
	if !op.isRelation() {
		if op.removesField() {
			delete(o.server, k)
		} else if v, err := op.applyTo(o.server[k], true); err == nil {
			o.server[k] = v
		}
	}
	if cur, ok := o.pending[k]; ok && sameOp(cur, op) {
		delete(o.pending, k)
	}
}

// settled forgets a create in doubt once the object has its id.
func (o *Object) settled() {
	if o.id != "" {
		o.doubt = nil
		o.held = false
	}
}

// pendingValues lists the values the unsaved changes hold, by key order.
func (o *Object) pendingValues() []any {
	var out []any
	for _, k := range o.DirtyKeys() {
		op := o.pending[k]
		out = append(out, op.Value)
		out = append(out, op.Objects...)
		out = append(out, op.Removed...)
	}
	return out
}

// applySaved records a successful save: the changes that were sent (sent is the snapshot taken before the save)
// become the server's values, then the save answer (objectId, createdAt, updatedAt and the values the server
// computed, such as the result of Increment or Add) is merged over them.
//
// An answer to AddUnique or Remove that may be parse-server's stand-in rather than the stored array (see
// distrusted) does not replace the local result: the field is marked unconfirmed, for the client to read back.
func (o *Object) applySaved(resp map[string]any, sent map[string]Op) error {
	o.ensure()
	defer o.settled()
	known := map[string]bool{}
	for k, op := range sent {
		if op.Kind == opAddUnique || op.Kind == opRemove {
			_, known[k] = o.server[k]
		}
		o.takeSent(k, op)
	}
	local := make(map[string]any, len(known))
	for k := range known {
		local[k] = o.server[k]
	}
	if err := o.setFromServer(resp); err != nil {
		return err
	}
	for k, had := range known {
		if answer, ok := resp[k]; ok && distrusted(sent[k], Decode(answer), local[k], had) {
			o.server[k] = local[k]
			if o.unconfirmed == nil {
				o.unconfirmed = map[string]bool{}
			}
			o.unconfirmed[k] = true
		}
	}
	for k := range sent {
		o.refresh(k)
	}
	return nil
}

// distrusted reports whether answer, the server's answer for a field an AddUnique or Remove op was sent for, may
// not be the stored array. With a beforeSave trigger on the class, parse-server (9.10, PostgreSQL) answers such an
// op that changed nothing (AddUnique of items all present, Remove of items all absent) with the op applied to an
// empty array (the op's items; []) instead of the array it kept. An answer of that shape is distrusted when it
// differs from the local result (the op applied to the value the object last had from the server; known says
// whether it had one). An object that never had the field (a new user, NewObjectWithID) cannot tell the stand-in
// from the truth and takes the answer: reading every such field back would cost every sign-up a request.
func distrusted(op Op, answer, local any, known bool) bool {
	blank, err := op.applyTo(nil, false)
	if err != nil || !known || !sameValue(answer, blank) {
		return false
	}
	return !sameValue(answer, local)
}

// sameValue reports whether two field values have the same wire form (an empty array and none count as equal).
func sameValue(a, b any) bool {
	ja, err1 := wireJSON(a)
	jb, err2 := wireJSON(b)
	return err1 == nil && err2 == nil && ja == jb
}

func wireJSON(v any) (string, error) {
	if arr, ok := asArray(v); ok && len(arr) == 0 {
		return "[]", nil
	}
	e, err := Encode(v)
	if err != nil {
		return "", err
	}
	j, err := json.Marshal(e)
	return string(j), err
}

// unconfirmedKeys lists the fields to read back after a save, sorted.
func (o *Object) unconfirmedKeys() []string {
	keys := make([]string, 0, len(o.unconfirmed))
	for k := range o.unconfirmed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// confirm merges a read back of the unconfirmed fields (resp, from a GET with keys): each takes the value read, or
// none when the server has none.
func (o *Object) confirm(resp map[string]any) error {
	keys := o.unconfirmedKeys()
	o.unconfirmed = nil
	o.ensure()
	for _, k := range keys {
		if _, ok := resp[k]; !ok {
			delete(o.server, k)
			o.refresh(k)
		}
	}
	return o.setFromServer(resp)
}

// dropSent gives up the changes that were sent by a save whose outcome is unknown: they are no longer pending (so
// a later save cannot apply them a second time) and the fields show the last values the server sent. Fetch the
// object to learn what the server stored.
func (o *Object) dropSent(sent map[string]Op) {
	o.ensure()
	for k, op := range sent {
		if cur, ok := o.pending[k]; ok && sameOp(cur, op) {
			delete(o.pending, k)
		}
		o.refresh(k)
	}
}

func sameOp(a, b Op) bool {
	ea, err1 := a.encode()
	eb, err2 := b.encode()
	if err1 != nil || err2 != nil {
		return false
	}
	ja, err1 := json.Marshal(ea)
	jb, err2 := json.Marshal(eb)
	return err1 == nil && err2 == nil && string(ja) == string(jb) && a.Kind == b.Kind
}

// mergeServer replaces the object's server state with a full server answer (a fetch), keeping unsaved changes on
// top of it.
func (o *Object) mergeServer(resp map[string]any) error {
	defer o.settled()
	o.unconfirmed = nil
	o.server = make(map[string]any, len(resp))
	if err := o.setFromServer(resp); err != nil {
		return err
	}
	if len(o.pending) > 0 {
		o.ensure()
		for k := range o.pending {
			o.refresh(k)
		}
	}
	return nil
}

// setFromServer records values the server sent. Fields with an unsaved change keep it (applied over the new
// server value).
func (o *Object) setFromServer(m map[string]any) error {
	if o.server == nil {
		o.server = make(map[string]any, len(m))
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
				o.server["ACL"] = acl
			case *ACL:
				o.server["ACL"] = a
			}
			o.refreshIfPending("ACL")
		default:
			o.server[k] = Decode(v)
			o.refreshIfPending(k)
		}
	}
	return nil
}

func (o *Object) refreshIfPending(k string) {
	if _, p := o.pending[k]; p {
		o.ensure()
		o.refresh(k)
	}
}

// MarshalJSON writes the object's full JSON (fields in wire form plus objectId, createdAt, updatedAt, className
// and __type "Object"), as the server sends it; used by the local store and for logging.
func (o *Object) MarshalJSON() ([]byte, error) {
	f := o.Fields()
	m := make(map[string]any, len(f)+5)
	for k, v := range f {
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

// UnmarshalJSON reads an object in the server's JSON form. The class comes from "className" when present (the
// server sends it on the results of a query redirected to a relation's target class), else it is kept.
func (o *Object) UnmarshalJSON(b []byte) error {
	m, err := wirejson.DecodeObject(b)
	if err != nil {
		return fmt.Errorf("parse: invalid object JSON: %w", err)
	}
	if m == nil {
		return ErrNotJSONObject
	}
	if cn, ok := m["className"].(string); ok && cn != "" {
		o.className = cn
	}
	if lid, ok := m["_localId"].(string); ok {
		o.localID = lid
		delete(m, "_localId")
	}
	return o.setFromServer(m)
}

// Clone returns a deep-enough copy: its own field and change maps (values are shared).
func (o *Object) Clone() *Object {
	c := *o
	c.server = maps.Clone(o.server)
	c.pending = maps.Clone(o.pending)
	c.est = maps.Clone(o.est)
	c.doubt = maps.Clone(o.doubt)
	if a, ok := c.server["ACL"].(*ACL); ok {
		c.server["ACL"] = a.Clone()
	}
	if a, ok := c.est["ACL"].(*ACL); ok {
		c.est["ACL"] = a.Clone()
	}
	if op, ok := c.pending["ACL"]; ok {
		if a, ok := op.Value.(*ACL); ok {
			op.Value = a.Clone()
			c.pending["ACL"] = op
			c.est["ACL"] = op.Value
		}
	}
	return &c
}

// ParseObject returns the object itself; it lets *Object and the types that embed it (a client User, a Role) be
// saved by the same calls.
func (o *Object) ParseObject() *Object { return o }

// forget drops a field locally, without recording a change (used to drop a password after sign-up).
func (o *Object) forget(key string) {
	delete(o.server, key)
	delete(o.est, key)
	delete(o.pending, key)
}

// ObjectFromServer makes an object of className from a result the server sent, already decoded by encoding/json.
// A "className" in the result wins over className (the server sends one on the results of a query redirected to
// a relation's target class).
func ObjectFromServer(className string, m map[string]any) (*Object, error) {
	if cn, ok := m["className"].(string); ok && cn != "" {
		className = cn
	}
	o := NewObject(className)
	if err := o.setFromServer(m); err != nil {
		return nil, err
	}
	return o, nil
}
