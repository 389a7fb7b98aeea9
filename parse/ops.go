package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Op is a change to one field, recorded locally and sent by the next save: a plain value (Set), a deletion
// (Unset), or one of the server's field operations ({"__op": ...}). Make ops with the functions below. Two changes
// of one field before a save are merged into one as the Parse JS SDK's mergeWith does; where Parse cannot merge
// them, the second is refused with the SDK's text (see ErrCannotMerge) and nothing changes.
type Op struct {
	// Kind is one of Set, Delete, Increment, Add, AddUnique, Remove, AddRelation, RemoveRelation, Relation (adds
	// and removes of one relation field, sent as a "Batch" of the two).
	Kind string
	// Amount is Increment's amount.
	Amount float64
	// Objects are the values of Add, AddUnique and Remove, and the objects a relation op adds.
	Objects []any
	// Removed are the objects a relation op removes.
	Removed []any
	// Value is Set's value.
	Value any
}

// The op kinds.
const (
	opSet            = "Set"
	opDelete         = "Delete"
	opIncrement      = "Increment"
	opAdd            = "Add"
	opAddUnique      = "AddUnique"
	opRemove         = "Remove"
	opAddRelation    = "AddRelation"
	opRemoveRelation = "RemoveRelation"
	opRelation       = "Relation"
)

// SetOp sets a field to a plain value.
func SetOp(v any) Op { return Op{Kind: opSet, Value: v} }

// Increment adds amount (which may be negative) to a number field.
func Increment(amount float64) Op { return Op{Kind: opIncrement, Amount: amount} }

// Add appends values to an array field.
func Add(values ...any) Op { return Op{Kind: opAdd, Objects: values} }

// AddUnique appends the values not already in an array field; its own values are de-duplicated too.
func AddUnique(values ...any) Op { return Op{Kind: opAddUnique, Objects: unique(values)} }

// Remove removes every occurrence of values from an array field.
func Remove(values ...any) Op { return Op{Kind: opRemove, Objects: unique(values)} }

// Unset deletes a field.
func Unset() Op { return Op{Kind: opDelete} }

// AddRelation adds objects to a relation field.
func AddRelation(ptrs ...Pointer) Op {
	return Op{Kind: opAddRelation, Objects: unique(pointersToAny(ptrs))}
}

// RemoveRelation removes objects from a relation field.
func RemoveRelation(ptrs ...Pointer) Op {
	return Op{Kind: opRemoveRelation, Removed: unique(pointersToAny(ptrs))}
}

func pointersToAny(ptrs []Pointer) []any {
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		out[i] = p
	}
	return out
}

// MergeError is the refusal of a change that Parse cannot merge with the field's earlier unsaved change. Its
// text is the Parse JS SDK's ("Cannot merge Add Op with the previous Op", ...). errors.Is(err, ErrCannotMerge)
// matches every such refusal.
type MergeError struct {
	Key string
	Msg string
}

func (e *MergeError) Error() string { return e.Msg }

// Is matches ErrCannotMerge.
func (e *MergeError) Is(target error) bool { return target == ErrCannotMerge }

// ErrCannotMerge is matched by every *MergeError.
var ErrCannotMerge = errors.New("cannot merge the field operation with the previous one")

func refuse(msg string) error { return &MergeError{Msg: msg} }

// opName is the name the SDK's texts give an op kind.
func opName(kind string) string {
	switch kind {
	case opAddRelation, opRemoveRelation, opRelation:
		return "Relation"
	}
	return kind
}

// isRelation reports whether the op changes a relation field.
func (o Op) isRelation() bool {
	return o.Kind == opAddRelation || o.Kind == opRemoveRelation || o.Kind == opRelation
}

// Idempotent reports whether applying the op twice has the effect of applying it once (every op but Increment
// and Add).
func (o Op) Idempotent() bool { return o.Kind != opIncrement && o.Kind != opAdd }

// mergeWith returns the one op that has the effect of prev followed by o (prev may be nil), as the Parse JS SDK
// merges them, or a *MergeError where Parse refuses.
func (o Op) mergeWith(prev *Op) (Op, error) {
	if prev == nil {
		return o, nil
	}
	switch o.Kind {
	case opSet, opDelete:
		return o, nil
	case opIncrement:
		switch prev.Kind {
		case opSet:
			v, err := o.applyTo(prev.Value, true)
			return SetOp(v), err
		case opDelete:
			return SetOp(o.Amount), nil
		case opIncrement:
			return Increment(prev.Amount + o.Amount), nil
		}
	case opAdd, opAddUnique:
		switch prev.Kind {
		case opSet:
			v, err := o.applyTo(prev.Value, true)
			return SetOp(v), err
		case opDelete:
			return SetOp(append([]any{}, o.Objects...)), nil
		case o.Kind:
			v, err := o.applyTo(prev.Objects, true)
			arr, _ := v.([]any)
			return Op{Kind: o.Kind, Objects: arr}, err
		}
	case opRemove:
		switch prev.Kind {
		case opSet:
			v, err := o.applyTo(prev.Value, true)
			return SetOp(v), err
		case opDelete:
			return *prev, nil
		case opRemove:
			return Op{Kind: opRemove, Objects: unique(append(append([]any{}, prev.Objects...), o.Objects...))}, nil
		}
	case opAddRelation, opRemoveRelation, opRelation:
		switch prev.Kind {
		case opDelete:
			return Op{}, refuse("You cannot modify a relation after deleting it.")
		case opAddRelation, opRemoveRelation, opRelation:
			adds := append(without(prev.Objects, o.Removed), without(o.Objects, prev.Objects)...)
			removes := append(without(prev.Removed, o.Objects), without(o.Removed, prev.Removed)...)
			return relationOp(adds, removes), nil
		}
	}
	return Op{}, refuse(fmt.Sprintf("Cannot merge %s Op with the previous Op", opName(o.Kind)))
}

// relationOp is the op that adds adds and removes removes.
func relationOp(adds, removes []any) Op {
	switch {
	case len(removes) == 0:
		return Op{Kind: opAddRelation, Objects: adds}
	case len(adds) == 0:
		return Op{Kind: opRemoveRelation, Removed: removes}
	}
	return Op{Kind: opRelation, Objects: adds, Removed: removes}
}

// applyTo returns the field's value after the op, from its value before (had says whether it had one), as the
// server computes it. Increment needs a number (or nothing), Add, AddUnique and Remove an array (or nothing).
// Relation ops leave the local value as it is.
func (o Op) applyTo(old any, had bool) (any, error) {
	if !had {
		old = nil
	}
	switch o.Kind {
	case opSet:
		return o.Value, nil
	case opDelete:
		return nil, nil
	case opIncrement:
		if old == nil {
			return o.Amount, nil
		}
		n, ok := toFloat(old)
		if !ok {
			return nil, refuse("Cannot increment a non-numeric value.")
		}
		return n + o.Amount, nil
	case opAdd, opAddUnique, opRemove:
		arr, isArr := asArray(old)
		switch {
		case old == nil:
		case isArr:
		default:
			if o.Kind != opRemove {
				return nil, refuse("Cannot add elements to a non-array value")
			}
			return nil, refuse("Cannot remove elements from a non-array value")
		}
		switch o.Kind {
		case opAdd:
			return append(append([]any{}, arr...), o.Objects...), nil
		case opAddUnique:
			out := append([]any{}, arr...)
			for _, v := range o.Objects {
				if !containsValue(out, v) {
					out = append(out, v)
				}
			}
			return out, nil
		}
		return without(arr, o.Objects), nil
	}
	return old, nil
}

// removesField reports whether the field has no value after the op.
func (o Op) removesField() bool { return o.Kind == opDelete }

// MarshalJSON writes the wire form of the operation.
func (o Op) MarshalJSON() ([]byte, error) {
	enc, err := o.encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(enc)
}

func (o Op) encode() (any, error) {
	switch o.Kind {
	case opSet:
		return Encode(o.Value)
	case opDelete:
		return map[string]any{"__op": opDelete}, nil
	case opIncrement:
		return map[string]any{"__op": opIncrement, "amount": o.Amount}, nil
	case opRelation:
		add, err := Op{Kind: opAddRelation, Objects: o.Objects}.encode()
		if err != nil {
			return nil, err
		}
		rem, err := Op{Kind: opRemoveRelation, Removed: o.Removed}.encode()
		if err != nil {
			return nil, err
		}
		return map[string]any{"__op": "Batch", "ops": []any{add, rem}}, nil
	}
	list := o.Objects
	if o.Kind == opRemoveRelation {
		list = o.Removed
	}
	objs, err := Encode(list)
	if err != nil {
		return nil, err
	}
	if objs == nil {
		objs = []any{}
	}
	return map[string]any{"__op": o.Kind, "objects": objs}, nil
}

// unique returns list without repeated values (the first of each kept).
func unique(list []any) []any {
	out := make([]any, 0, len(list))
	for _, v := range list {
		if !containsValue(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// without returns the members of list that are not in drop.
func without(list, drop []any) []any {
	out := make([]any, 0, len(list))
	for _, v := range list {
		if !containsValue(drop, v) {
			out = append(out, v)
		}
	}
	return out
}

// asArray returns v's members when v is a slice or array of any element type.
func asArray(v any) ([]any, bool) {
	if a, ok := v.([]any); ok {
		return a, true
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
		return nil, false
	}
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false // []byte is Bytes, not an array
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if Equal(x, v) {
			return true
		}
	}
	return false
}

// Equal compares two decoded or Go values the way Parse compares array members: numbers by value, everything
// else by its wire JSON.
func Equal(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			return fa == fb
		}
	}
	ea, err1 := Encode(a)
	eb, err2 := Encode(b)
	if err1 != nil || err2 != nil {
		return false
	}
	ja, err1 := json.Marshal(ea)
	jb, err2 := json.Marshal(eb)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
