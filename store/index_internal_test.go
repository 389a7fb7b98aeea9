package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/parse"
)

// TestIndexedPlansEqualFullScans runs random where maps through the indexed path (RunQuery) and through a plain
// scan of every record, and requires the same ids.
func TestIndexedPlansEqualFullScans(t *testing.T) {
	ctx := context.Background()
	s := NewMemory(Config{})
	defer s.Close()
	rnd := rand.New(rand.NewPCG(1, 2))
	colors := []any{"red", "green", "blue"}
	var objs []*parse.Object
	for i := range 300 {
		o := parse.NewObjectWithID("Idx", fmt.Sprintf("o%03d", i))
		if rnd.IntN(5) > 0 {
			o.Set("n", rnd.IntN(10))
		}
		if rnd.IntN(4) > 0 {
			o.Set("color", colors[rnd.IntN(3)])
		}
		if rnd.IntN(3) > 0 {
			o.Set("tags", []any{colors[rnd.IntN(3)], colors[rnd.IntN(3)]})
		}
		o.Set("ok", rnd.IntN(2) == 0)
		objs = append(objs, o)
	}
	require.NoError(t, s.Pin(ctx, objs...))

	cond := func() map[string]any {
		switch rnd.IntN(7) {
		case 0:
			return map[string]any{"n": float64(rnd.IntN(10))}
		case 1:
			return map[string]any{"color": map[string]any{"$in": []any{colors[rnd.IntN(3)], colors[rnd.IntN(3)]}}}
		case 2:
			return map[string]any{"tags": colors[rnd.IntN(3)]}
		case 3:
			return map[string]any{"tags": map[string]any{"$all": []any{colors[rnd.IntN(3)], colors[rnd.IntN(3)]}}}
		case 4:
			return map[string]any{"ok": rnd.IntN(2) == 0, "n": map[string]any{"$gte": float64(rnd.IntN(10))}}
		case 5:
			return map[string]any{"objectId": map[string]any{"$in": []any{fmt.Sprintf("o%03d", rnd.IntN(300)), "nope"}}}
		default:
			return map[string]any{"n": map[string]any{"$eq": float64(rnd.IntN(10))}, "color": map[string]any{"$ne": "red"}}
		}
	}
	for i := range 400 {
		var where map[string]any
		switch i % 3 {
		case 0:
			where = cond()
		case 1:
			where = map[string]any{"$or": []any{cond(), cond()}}
		default:
			where = map[string]any{"$and": []any{cond(), cond()}, "ok": true}
		}
		resp, err := s.RunQuery(ctx, &parse.QueryRequest{ClassName: "Idx", Params: map[string]any{"where": where, "limit": 1000}})
		require.NoError(t, err)
		var got []string
		for _, o := range resp.Objects {
			got = append(got, o.ID())
		}
		all, arrays, err := s.snapshot("Idx", nil)
		require.NoError(t, err)
		match, err := compileWhere(where, arrays)
		require.NoError(t, err)
		var want []string
		for _, r := range all {
			if match(r) {
				want = append(want, r.id)
			}
		}
		require.Equal(t, want, got, "where %v", where)
	}
}
