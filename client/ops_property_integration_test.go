//go:build integration

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Property, against the real server: for thousands of random sequences of field changes (Set, Unset, Increment,
// Add, AddUnique, Remove on a number and an array field) applied to saved objects, after the save each object's
// local values equal what the server stores, byte for byte in wire JSON, or the change was refused at the call
// with the Parse JS SDK's text and nothing changed. Saves go through SaveAll (batched and one-by-one paths) and,
// for a share of the objects, through Save.
func TestPropertyLocalValuesEqualServerAfterSave(t *testing.T) {
	t.Parallel() // its own class; its time is one round trip after another, which overlaps with the fault tests
	c := newClient(t)
	ctx := context.Background()
	cls := uniqueClass("OpsProp")
	const n = 2000
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d", seed)

	objs := make([]*parse.Object, n)
	for i := range objs {
		o := parse.NewObject(cls)
		o.Set("i", i)
		if rng.IntN(4) > 0 {
			o.Set("num", float64(rng.IntN(20)))
		}
		if rng.IntN(4) > 0 {
			arr := []any{}
			for j := rng.IntN(4); j > 0; j-- {
				arr = append(arr, float64(rng.IntN(5)))
			}
			o.Set("arr", arr)
		}
		objs[i] = o
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))

	refused := 0
	for _, o := range objs {
		for j := rng.IntN(4) + 1; j > 0; j-- {
			before := fieldsJSON(t, o)
			dirty := o.DirtyKeys()
			var err error
			v := float64(rng.IntN(5))
			if rng.IntN(2) == 0 {
				switch rng.IntN(3) {
				case 0:
					err = o.Set("num", float64(rng.IntN(20)))
				case 1:
					o.Unset("num")
				case 2:
					err = o.Increment("num", float64(rng.IntN(7)-3))
				}
			} else {
				switch rng.IntN(5) {
				case 0:
					err = o.Set("arr", []any{v, float64(rng.IntN(5))})
				case 1:
					o.Unset("arr")
				case 2:
					err = o.Add("arr", v, float64(rng.IntN(5)))
				case 3:
					err = o.AddUnique("arr", v, float64(rng.IntN(5)))
				case 4:
					err = o.Remove("arr", v)
				}
			}
			if err != nil {
				refused++
				require.ErrorIs(t, err, parse.ErrCannotMerge)
				require.Equal(t, before, fieldsJSON(t, o), "a refused change leaves the object as it was")
				require.Equal(t, dirty, o.DirtyKeys())
			}
		}
	}
	viaSave := objs[:n/10]
	for _, o := range viaSave {
		require.NoError(t, c.Objects.Save(ctx, o))
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs[n/10:]))

	stored := map[string]map[string]any{}
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	for skip := 0; skip < n; skip += 1000 {
		resp.Results = nil
		require.NoError(t, c.Request(ctx, "GET", "classes/"+cls, map[string]any{"limit": 1000, "skip": skip, "order": "i"}, &resp))
		for _, r := range resp.Results {
			stored[r["objectId"].(string)] = r
		}
	}
	require.Len(t, stored, n)
	mismatches := 0
	for i, o := range objs {
		require.Empty(t, o.DirtyKeys(), "object %d saved", i)
		s := stored[o.ID()]
		for _, key := range []string{"num", "arr"} {
			local, lhas := o.Fields()[key]
			remote, rhas := s[key]
			lj, _ := json.Marshal(local)
			rj, _ := json.Marshal(remote)
			if lhas != rhas || string(lj) != string(rj) {
				mismatches++
				if mismatches < 10 {
					t.Errorf("object %d %s: local %s (has %v), server %s (has %v)", i, key, lj, lhas, rj, rhas)
				}
			}
		}
	}
	assert.Zero(t, mismatches)
	assert.Positive(t, refused, "some sequences met a refused merge")
	t.Logf("%d objects, %d refused changes, %d mismatches", n, refused, mismatches)
}

// Relation changes on one key before a save: the adds and removes are sent together ({"__op":"Batch"}), and the
// relation then holds exactly what the local model says.
func TestPropertyRelationChangesAgreeWithServer(t *testing.T) {
	t.Parallel() // its own class; its time is one round trip after another, which overlaps with the fault tests
	c := newClient(t)
	ctx := context.Background()
	cls := uniqueClass("RelProp")
	targets := make([]*parse.Object, 6)
	for i := range targets {
		targets[i] = parse.NewObject(cls + "T")
		targets[i].Set("i", i)
	}
	require.NoError(t, c.Objects.SaveAll(ctx, targets))
	rng := rand.New(rand.NewPCG(rand.Uint64(), 9))
	for round := 0; round < 60; round++ {
		o := parse.NewObject(cls)
		model := map[string]bool{}
		for _, k := range rng.Perm(6)[:rng.IntN(3)] {
			require.NoError(t, o.AddRelation("rel", targets[k].Pointer()))
			model[targets[k].ID()] = true
		}
		require.NoError(t, c.Objects.Save(ctx, o))
		for j := rng.IntN(4) + 1; j > 0; j-- {
			k := rng.IntN(6)
			p := targets[k].Pointer()
			var err error
			if rng.IntN(2) == 0 {
				err = o.AddRelation("rel", p)
				model[p.ObjectID] = true
			} else {
				err = o.RemoveRelation("rel", p)
				delete(model, p.ObjectID)
			}
			require.NoError(t, err)
		}
		require.NoError(t, c.Objects.Save(ctx, o))
		var resp struct {
			Results []map[string]any `json:"results"`
		}
		where := map[string]any{"$relatedTo": map[string]any{"object": map[string]any{"__type": "Pointer", "className": cls, "objectId": o.ID()}, "key": "rel"}}
		require.NoError(t, c.Request(ctx, "GET", "classes/"+cls+"T", map[string]any{"where": where, "limit": 100}, &resp))
		got := map[string]bool{}
		for _, r := range resp.Results {
			got[r["objectId"].(string)] = true
		}
		if len(model) == 0 && len(got) == 0 {
			continue
		}
		require.Equal(t, model, got, "round %d", round)
	}
}

func fieldsJSON(t *testing.T, o *parse.Object) string {
	t.Helper()
	b, err := json.Marshal(o.Fields())
	require.NoError(t, err)
	return string(b)
}

var _ = errors.Is
var _ = fmt.Sprint
