package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is one change made through the Object's methods.
type step struct {
	name string
	do   func(o *Object) error
}

var (
	pA = Pointer{ClassName: "Item", ObjectID: "a"}
	pB = Pointer{ClassName: "Item", ObjectID: "b"}
)

// The eight changes, each with values that suit a numeric field (Set, Increment) or an array field (the rest),
// as each pair below needs.
func changes(numeric bool) map[string]step {
	set := step{"Set", func(o *Object) error { return o.Set("k", []any{1.0, 2.0}) }}
	if numeric {
		set = step{"Set", func(o *Object) error { return o.Set("k", 10.0) }}
	}
	return map[string]step{
		"Set":            set,
		"Unset":          {"Unset", func(o *Object) error { o.Unset("k"); return nil }},
		"Increment":      {"Increment", func(o *Object) error { return o.Increment("k", 5) }},
		"Add":            {"Add", func(o *Object) error { return o.Add("k", 3.0) }},
		"AddUnique":      {"AddUnique", func(o *Object) error { return o.AddUnique("k", 2.0, 4.0, 4.0) }},
		"Remove":         {"Remove", func(o *Object) error { return o.Remove("k", 1.0) }},
		"AddRelation":    {"AddRelation", func(o *Object) error { return o.AddRelation("k", pA) }},
		"RemoveRelation": {"RemoveRelation", func(o *Object) error { return o.RemoveRelation("k", pB) }},
	}
}

func bodyJSON(t *testing.T, o *Object) string {
	t.Helper()
	b, err := o.saveBody()
	require.NoError(t, err)
	j, err := json.Marshal(b["k"])
	require.NoError(t, err)
	return string(j)
}

// Every ordered pair of the eight changes on one field before a save: the merged change sent, or the Parse JS
// SDK's refusal with nothing changed. The expectations are Parse's mergeWith rules.
func TestEveryPairOfChangesMergesAsParseDoes(t *testing.T) {
	const (
		incr  = "Cannot merge Increment Op with the previous Op"
		add   = "Cannot merge Add Op with the previous Op"
		uniq  = "Cannot merge AddUnique Op with the previous Op"
		rem   = "Cannot merge Remove Op with the previous Op"
		rel   = "Cannot merge Relation Op with the previous Op"
		unset = "You cannot modify a relation after deleting it."
	)
	relA := `{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Item","objectId":"a"}]}`
	relB := `{"__op":"RemoveRelation","objects":[{"__type":"Pointer","className":"Item","objectId":"b"}]}`
	both := `{"__op":"Batch","ops":[` + relA + `,` + relB + `]}`
	// want[first][second]: the JSON sent, or "!" + the refusal.
	want := map[string]map[string]string{
		"Set": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": `15`, "Add": `[1,2,3]`, "AddUnique": `[1,2,4]`,
			"Remove": `[2]`, "AddRelation": "!" + rel, "RemoveRelation": "!" + rel},
		"Unset": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": `5`, "Add": `[3]`, "AddUnique": `[2,4]`,
			"Remove": `{"__op":"Delete"}`, "AddRelation": "!" + unset, "RemoveRelation": "!" + unset},
		"Increment": {"Set": `10`, "Unset": `{"__op":"Delete"}`, "Increment": `{"__op":"Increment","amount":10}`,
			"Add": "!" + add, "AddUnique": "!" + uniq, "Remove": "!" + rem, "AddRelation": "!" + rel, "RemoveRelation": "!" + rel},
		"Add": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": "!" + incr, "Add": `{"__op":"Add","objects":[3,3]}`,
			"AddUnique": "!" + uniq, "Remove": "!" + rem, "AddRelation": "!" + rel, "RemoveRelation": "!" + rel},
		"AddUnique": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": "!" + incr, "Add": "!" + add,
			"AddUnique": `{"__op":"AddUnique","objects":[2,4]}`, "Remove": "!" + rem, "AddRelation": "!" + rel, "RemoveRelation": "!" + rel},
		"Remove": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": "!" + incr, "Add": "!" + add, "AddUnique": "!" + uniq,
			"Remove": `{"__op":"Remove","objects":[1]}`, "AddRelation": "!" + rel, "RemoveRelation": "!" + rel},
		"AddRelation": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": "!" + incr, "Add": "!" + add, "AddUnique": "!" + uniq,
			"Remove": "!" + rem, "AddRelation": relA, "RemoveRelation": both},
		"RemoveRelation": {"Set": `[1,2]`, "Unset": `{"__op":"Delete"}`, "Increment": "!" + incr, "Add": "!" + add, "AddUnique": "!" + uniq,
			"Remove": "!" + rem, "AddRelation": both, "RemoveRelation": relB},
	}
	for first, row := range want {
		for second, exp := range row {
			t.Run(first+"_then_"+second, func(t *testing.T) {
				numeric := second == "Increment" || (first == "Increment" && second == "Set") || (first == "Set" && second == "Increment")
				ch := changes(numeric)
				if first == "Set" && second == "Set" {
					ch = changes(false)
				}
				o := NewObjectWithID("Item", "x")
				require.NoError(t, ch[first].do(o))
				beforeBody := bodyJSON(t, o)
				beforeVal, beforeHas := o.value("k")
				err := ch[second].do(o)
				if exp[0] == '!' {
					require.Error(t, err)
					assert.Equal(t, exp[1:], err.Error())
					assert.True(t, errors.Is(err, ErrCannotMerge))
					assert.Equal(t, beforeBody, bodyJSON(t, o), "a refused change leaves the pending change as it was")
					v, has := o.value("k")
					assert.Equal(t, beforeHas, has)
					assert.True(t, Equal(beforeVal, v), "and the value")
					return
				}
				require.NoError(t, err)
				if first == "Remove" && second == "Remove" {
					exp = `{"__op":"Remove","objects":[1]}`
				}
				assert.JSONEq(t, exp, bodyJSON(t, o))
			})
		}
	}
}

// AddUnique de-duplicates its own values, and two relation changes that cancel out keep the last one.
func TestAddUniqueDeduplicatesItsValues(t *testing.T) {
	o := NewObjectWithID("Item", "x")
	require.NoError(t, o.AddUnique("k", 1, 1, 2, 1))
	assert.Equal(t, `{"__op":"AddUnique","objects":[1,2]}`, bodyJSON(t, o))
	assert.Equal(t, []any{1, 2}, o.Get("k"))
	r := NewObjectWithID("Item", "y")
	require.NoError(t, r.AddRelation("k", pA))
	require.NoError(t, r.RemoveRelation("k", pA))
	b, _ := r.saveBody()
	j, _ := json.Marshal(b["k"])
	assert.JSONEq(t, `{"__op":"RemoveRelation","objects":[{"__type":"Pointer","className":"Item","objectId":"a"}]}`, string(j))
}

// Increment then Increment: the object shows the sum once (last round's bug showed 14 for 10+1+2).
func TestTwoIncrementsShowTheSumOnce(t *testing.T) {
	o, err := ObjectFromServer("Item", map[string]any{"objectId": "x", "k": 10.0})
	require.NoError(t, err)
	require.NoError(t, o.Increment("k", 1))
	require.NoError(t, o.Increment("k", 2))
	assert.Equal(t, 13.0, o.Get("k"))
	assert.Equal(t, `{"__op":"Increment","amount":3}`, bodyJSON(t, o))
	// The save answer carries the server's value; the object then shows exactly that.
	require.NoError(t, o.applySaved(map[string]any{"k": 13.0, "updatedAt": "2026-01-01T00:00:00.000Z"}, o.pendingSnapshot()))
	assert.Equal(t, 13.0, o.Get("k"))
	assert.Empty(t, o.DirtyKeys())
}

// Random sequences of changes: the local value always equals a simple model of Parse's semantics applied to the
// server value, and a refused change never changes anything.
func TestRandomSequencesMatchTheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		var start []any
		for j := rng.IntN(4); j > 0; j-- {
			start = append(start, float64(rng.IntN(4)))
		}
		o, err := ObjectFromServer("Item", map[string]any{"objectId": "x", "a": start})
		require.NoError(t, err)
		model := append([]any(nil), start...)
		modelHas := true
		for j := rng.IntN(5) + 1; j > 0; j-- {
			v := float64(rng.IntN(4))
			before := fmt.Sprint(o.Fields())
			var err error
			var next []any
			switch rng.IntN(5) {
			case 0:
				arr := []any{v, float64(rng.IntN(4))}
				err = o.Set("a", arr)
				next = arr
			case 1:
				o.Unset("a")
				next = nil
			case 2:
				err = o.Add("a", v)
				next = append(append([]any{}, model...), v)
			case 3:
				err = o.AddUnique("a", v)
				next = append([]any{}, model...)
				if !containsValue(next, v) {
					next = append(next, v)
				}
			case 4:
				err = o.Remove("a", v)
				if modelHas {
					next = without(model, []any{v})
				} // after an unsaved Unset, Remove stays an Unset
			}
			if err != nil {
				assert.ErrorIs(t, err, ErrCannotMerge)
				assert.Equal(t, before, fmt.Sprint(o.Fields()), "a refusal changes nothing")
				continue
			}
			if next == nil && !o.Has("a") {
				modelHas = false
				model = nil
				continue
			}
			model, modelHas = next, true
			if model == nil {
				model = []any{}
			}
			got, _ := o.Get("a").([]any)
			require.True(t, o.Has("a") == modelHas, "sequence %d", i)
			require.True(t, Equal(model, got), "sequence %d: local %v, model %v", i, got, model)
		}
	}
}
