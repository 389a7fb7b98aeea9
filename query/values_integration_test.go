//go:build integration

package query_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// dropClasses removes the classes a test made.
func dropClasses(t *testing.T, m *client.Client, classes ...string) {
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		for _, c := range classes {
			_ = m.Schemas.Purge(ctx, c)
			_ = m.Schemas.Delete(ctx, c)
		}
	})
}

func objectIDs[T interface{ ID() string }](objs []T) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.ID())
	}
	slices.Sort(out)
	return out
}

// Relation.Query, as the original's relation.query(): objects added through a relation op come back, and only
// they, both when the target class is known ($relatedTo on it) and when it is not (redirectClassNameForKey on
// the parent's class, which parse-server redirects).
func TestRelationQueryOnTheServer(t *testing.T) {
	ctx := t.Context()
	m := newClient(t).WithMasterKey()
	suffix := fmt.Sprint(rand.Uint32())
	posts, fans := "RelPost"+suffix, "RelFan"+suffix
	dropClasses(t, m, posts, fans)

	var all []*parse.Object
	for _, n := range []string{"a", "b", "c", "outsider"} {
		o := parse.NewObject(fans)
		o.Set("name", n)
		all = append(all, o)
	}
	require.NoError(t, m.Objects.SaveAll(ctx, all))
	a, b, c, outsider := all[0], all[1], all[2], all[3]
	other := parse.NewObject(posts)
	require.NoError(t, other.AddRelation("likes", outsider.Pointer()))
	require.NoError(t, m.Objects.Save(ctx, other))

	post := parse.NewObject(posts)
	post.Set("title", "hello")
	require.NoError(t, post.AddRelation("likes", a.Pointer(), b.Pointer(), c.Pointer()))
	beforeSave, err := post.Relation("likes")
	require.NoError(t, err)
	assert.Equal(t, fans, beforeSave.ClassName, "the target class comes from the unsaved AddRelation")
	require.NoError(t, m.Objects.Save(ctx, post))
	want := objectIDs([]*parse.Object{a, b, c})

	check := func(t *testing.T, rel parse.Relation, redirected bool) {
		t.Helper()
		req, err := rel.Query()
		require.NoError(t, err)
		_, hasRedirect := req.Params["redirectClassNameForKey"]
		assert.Equal(t, redirected, hasRedirect)

		// Run as it is through the client.
		resp, err := m.RunQuery(ctx, req)
		require.NoError(t, err)
		assert.Len(t, resp.Results, 3)

		// As a typed query: Find, Count, All, refined with a constraint.
		q, err := query.FromRequest[*parse.Object](req)
		require.NoError(t, err)
		got, err := q.Find(ctx, m)
		require.NoError(t, err)
		assert.Equal(t, want, objectIDs(got))
		for _, o := range got {
			assert.Equal(t, fans, o.ClassName(), "objects take the target class")
		}
		n, err := q.Count(ctx, m)
		require.NoError(t, err)
		assert.Equal(t, 3, n)
		var walked, paged []*parse.Object
		for o, err := range q.All(ctx, m) {
			require.NoError(t, err)
			walked = append(walked, o)
		}
		assert.Equal(t, want, objectIDs(walked))
		for page, err := range q.Batches(ctx, m, &query.BatchOptions{Size: 2}) {
			require.NoError(t, err)
			paged = append(paged, page...)
		}
		assert.Equal(t, want, objectIDs(paged))
		one, err := q.EqualTo("name", "b").Find(ctx, m)
		require.NoError(t, err)
		assert.Equal(t, []string{b.ID()}, objectIDs(one))

		type fan struct {
			ID   string `json:"objectId"`
			Name string `json:"name"`
		}
		sq, err := query.FromRequest[fan](req)
		require.NoError(t, err)
		fs, err := sq.Ascending("name").Find(ctx, m)
		require.NoError(t, err)
		require.Len(t, fs, 3)
		assert.Equal(t, []string{"a", "b", "c"}, []string{fs[0].Name, fs[1].Name, fs[2].Name})
	}

	t.Run("target class unknown: redirected", func(t *testing.T) {
		rel, err := post.Relation("likes")
		require.NoError(t, err)
		assert.Empty(t, rel.ClassName, "after the save nothing tells the target class")
		check(t, rel, true)
	})
	t.Run("target class from the server", func(t *testing.T) {
		fetched, err := m.Objects.Get(ctx, posts, post.ID())
		require.NoError(t, err)
		rel, err := fetched.Relation("likes")
		require.NoError(t, err)
		assert.Equal(t, fans, rel.ClassName)
		check(t, rel, false)
	})
	t.Run("after a remove", func(t *testing.T) {
		require.NoError(t, post.RemoveRelation("likes", b.Pointer()))
		require.NoError(t, m.Objects.Save(ctx, post))
		rel, err := post.Relation("likes")
		require.NoError(t, err)
		req, err := rel.Query()
		require.NoError(t, err)
		q, err := query.FromRequest[*parse.Object](req)
		require.NoError(t, err)
		got, err := q.Find(ctx, m)
		require.NoError(t, err)
		assert.Equal(t, objectIDs([]*parse.Object{a, c}), objectIDs(got))
	})
}

// An Aggregate pipeline given as one object of several stages runs them in the order written; both stage-name
// forms and the moralis-v1 group form (objectId) run on parse-server 9.10.
func TestAggregateStagesOnTheServer(t *testing.T) {
	ctx := t.Context()
	m := newClient(t).WithMasterKey()
	class := fmt.Sprint("AggStage", rand.Uint32())
	dropClasses(t, m, class)
	var rows []*parse.Object
	for i, r := range []struct {
		team  string
		score float64
	}{{"red", 5}, {"red", 20}, {"blue", 30}, {"blue", 40}, {"green", 1}} {
		o := parse.NewObject(class)
		o.Set("team", r.team)
		o.Set("score", r.score)
		o.Set("n", float64(i))
		rows = append(rows, o)
	}
	require.NoError(t, m.Objects.SaveAll(ctx, rows))

	type total struct {
		Team  string  `json:"objectId"`
		Total float64 `json:"total"`
	}
	q := query.New[map[string]any](class)
	got, err := query.AggregateInto[total](ctx, m, q, json.RawMessage(
		`{"match":{"score":{"$gte":10}},"group":{"objectId":"$team","total":{"$sum":"$score"}},"$sort":{"total":-1}}`))
	require.NoError(t, err)
	assert.Equal(t, []total{{"blue", 70}, {"red", 20}}, got)

	got, err = query.AggregateInto[total](ctx, m, q, []map[string]any{
		{"$match": map[string]any{"score": map[string]any{"$lt": 25}}},
		{"group": map[string]any{"_id": "$team", "total": map[string]any{"$sum": "$score"}}},
		{"sort": map[string]any{"total": 1}},
	})
	require.NoError(t, err)
	assert.Equal(t, []total{{"green", 1}, {"red", 25}}, got)

	_, err = q.Aggregate(ctx, m, map[string]any{"match": map[string]any{}, "limit": 1})
	assert.ErrorIs(t, err, query.ErrPipelineOrder)
}

// WithinPolygon selects the rows moralis-v1's withinPolygon request selects, with an asymmetric polygon (a
// rectangle 20° wide in longitude and 10° high in latitude, and points placed so that reading its pairs the other
// way round selects other rows): pairs go out as given and the server reads them as [longitude, latitude];
// GeoPoints and a parse.Polygon go out as GeoPoints, by name. The local store answers the same for each.
func TestWithinPolygonAsymmetricLikeMoralisV1(t *testing.T) {
	ctx := t.Context()
	m := newClient(t).WithMasterKey()
	class := fmt.Sprint("PolyPairs", rand.Uint32())
	dropClasses(t, m, class)
	// The rectangle: longitude 30..50, latitude 5..15. "inside" lies in it; "transposed" lies in its mirror image
	// (latitude 30..50, longitude 5..15), which a [latitude, longitude] reading of the pairs would select; "corner"
	// is on an edge (edges count); "outside" is in neither.
	places := map[string]parse.GeoPoint{
		"inside":     {Latitude: 10, Longitude: 40},
		"inside2":    {Latitude: 6, Longitude: 31},
		"corner":     {Latitude: 15, Longitude: 50},
		"transposed": {Latitude: 40, Longitude: 10},
		"outside":    {Latitude: -10, Longitude: 40},
	}
	var rows []*parse.Object
	for name, g := range places {
		o := parse.NewObject(class)
		o.Set("name", name)
		o.Set("loc", g)
		rows = append(rows, o)
	}
	require.NoError(t, m.Objects.SaveAll(ctx, rows))
	byID := map[string]string{}
	for _, o := range rows {
		byID[o.ID()] = o.String("name")
	}
	names := func(objs []*parse.Object) []string {
		out := []string{}
		for _, o := range objs {
			out = append(out, o.String("name"))
		}
		slices.Sort(out)
		return out
	}
	local := store.NewMemory(store.Config{})
	defer local.Close()
	require.NoError(t, local.Pin(ctx, rows...))

	pairs := [][2]float64{{30, 5}, {50, 5}, {50, 15}, {30, 15}}
	// moralis-v1 1.13.0: query.withinPolygon("loc", pairs) is _addCondition(key, "$geoWithin", {$polygon: points}),
	// and encode() leaves arrays of numbers as they are: this is its request's where, byte for byte.
	const v1Where = `{"loc":{"$geoWithin":{"$polygon":[[30,5],[50,5],[50,15],[30,15]]}}}`
	var v1 struct {
		Results []map[string]any `json:"results"`
	}
	var where map[string]any
	require.NoError(t, json.Unmarshal([]byte(v1Where), &where))
	require.NoError(t, m.Request(ctx, "GET", "classes/"+class, map[string]any{"where": where}, &v1))
	var v1Names []string
	for _, r := range v1.Results {
		v1Names = append(v1Names, byID[r["objectId"].(string)])
	}
	slices.Sort(v1Names)
	// Which rows lie in the rectangle follows from the coordinates above (the server reads x as longitude).
	var want []string
	for name, g := range places {
		if g.Longitude >= 30 && g.Longitude <= 50 && g.Latitude >= 5 && g.Latitude <= 15 {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	require.Equal(t, want, v1Names, "moralis-v1's request reads the pairs as [longitude, latitude]")
	assert.NotContains(t, v1Names, "transposed")

	corners := func(lngLat [][2]float64) []parse.GeoPoint {
		var out []parse.GeoPoint
		for _, p := range lngLat {
			out = append(out, mustGeo(t, p[1], p[0]))
		}
		return out
	}
	base := query.New[*parse.Object](class)
	for name, q := range map[string]*query.Query[*parse.Object]{
		"pairs as a list":  base.WithinPolygon("loc", pairs),
		"pairs one by one": base.WithinPolygon("loc", []float64{30, 5}, []float64{50, 5}, []any{50, 15}, [2]int{30, 15}),
		"GeoPoints":        base.WithinPolygon("loc", corners(pairs)),
		"a parse.Polygon":  base.WithinPolygon("loc", parse.Polygon{Coordinates: corners(pairs)}),
	} {
		p, err := q.Params()
		require.NoError(t, err, name)
		if name == "pairs as a list" {
			b, _ := json.Marshal(p["where"])
			assert.JSONEq(t, v1Where, string(b), "Go sends moralis-v1's request")
		}
		got, err := q.Find(ctx, m)
		require.NoError(t, err, name)
		assert.Equal(t, v1Names, names(got), "%s: the rows moralis-v1's request selects", name)
		inStore, err := q.Find(ctx, local)
		require.NoError(t, err, name)
		assert.Equal(t, v1Names, names(inStore), "%s: the local store agrees with the server", name)
	}
	// The same pairs as a Polygon value, sent raw: the server reads a Polygon's coordinates as [longitude,
	// latitude] too (what moralis-v1 sends for withinPolygon(key, new Parse.Polygon(pairs))).
	var raw struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, m.Request(ctx, "GET", "classes/"+class, map[string]any{"where": map[string]any{"loc": map[string]any{
		"$geoWithin": map[string]any{"$polygon": map[string]any{"__type": "Polygon", "coordinates": pairs}}}}}, &raw))
	assert.Len(t, raw.Results, len(v1Names))
}
