package wire

import (
	"encoding/json"
)

// Op is a field operation applied by the server ({"__op": ...}). Make ops with the functions below.
type Op struct {
	Kind    string // Increment, Add, AddUnique, Remove, Delete, AddRelation, RemoveRelation
	Amount  float64
	Objects []any
}

// Increment adds amount (which may be negative) to a number field.
func Increment(amount float64) Op { return Op{Kind: "Increment", Amount: amount} }

// Add appends values to an array field.
func Add(values ...any) Op { return Op{Kind: "Add", Objects: values} }

// AddUnique appends values to an array field, skipping those already present.
func AddUnique(values ...any) Op { return Op{Kind: "AddUnique", Objects: values} }

// Remove removes every occurrence of values from an array field.
func Remove(values ...any) Op { return Op{Kind: "Remove", Objects: values} }

// Unset deletes a field.
func Unset() Op { return Op{Kind: "Delete"} }

// AddRelation adds objects to a relation field.
func AddRelation(ptrs ...Pointer) Op { return Op{Kind: "AddRelation", Objects: pointersToAny(ptrs)} }

// RemoveRelation removes objects from a relation field.
func RemoveRelation(ptrs ...Pointer) Op {
	return Op{Kind: "RemoveRelation", Objects: pointersToAny(ptrs)}
}

func pointersToAny(ptrs []Pointer) []any {
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		out[i] = p
	}
	return out
}

// MarshalJSON writes the wire form of the operation.
func (o Op) MarshalJSON() ([]byte, error) {
	enc, err := o.encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(enc)
}

func (o Op) encode() (map[string]any, error) {
	m := map[string]any{"__op": o.Kind}
	switch o.Kind {
	case "Increment":
		m["amount"] = o.Amount
	case "Delete":
	default:
		objs, err := Encode(o.Objects)
		if err != nil {
			return nil, err
		}
		m["objects"] = objs
	}
	return m, nil
}

// merge folds next into o where Parse allows it (two increments add, two Adds append, ...); ok is false when the
// two cannot be combined, and then next simply replaces o.
func (o Op) merge(next Op) (Op, bool) {
	if o.Kind != next.Kind {
		return next, false
	}
	switch o.Kind {
	case "Increment":
		return Op{Kind: "Increment", Amount: o.Amount + next.Amount}, true
	case "Add", "Remove", "AddRelation", "RemoveRelation":
		return Op{Kind: o.Kind, Objects: append(append([]any{}, o.Objects...), next.Objects...)}, true
	case "AddUnique":
		objs := append([]any{}, o.Objects...)
		for _, v := range next.Objects {
			if !containsValue(objs, v) {
				objs = append(objs, v)
			}
		}
		return Op{Kind: "AddUnique", Objects: objs}, true
	case "Delete":
		return next, true
	}
	return next, false
}

// apply estimates the field's value after the operation, as the server will compute it.
func (o Op) apply(old any, had bool) (any, bool) {
	switch o.Kind {
	case "Delete":
		return nil, false
	case "Increment":
		n, _ := toFloat(old)
		return n + o.Amount, true
	case "Add":
		arr, _ := old.([]any)
		return append(append([]any{}, arr...), o.Objects...), true
	case "AddUnique":
		arr, _ := old.([]any)
		out := append([]any{}, arr...)
		for _, v := range o.Objects {
			if !containsValue(out, v) {
				out = append(out, v)
			}
		}
		return out, true
	case "Remove":
		arr, _ := old.([]any)
		out := make([]any, 0, len(arr))
		for _, v := range arr {
			if !containsValue(o.Objects, v) {
				out = append(out, v)
			}
		}
		return out, true
	}
	return old, had
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
