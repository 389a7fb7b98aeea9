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

// WithinPolygon with [latitude, longitude] pairs finds what the same polygon of GeoPoints finds.
func TestWithinPolygonPairsOnTheServer(t *testing.T) {
	ctx := t.Context()
	m := newClient(t).WithMasterKey()
	class := fmt.Sprint("PolyPairs", rand.Uint32())
	dropClasses(t, m, class)
	var rows []*parse.Object
	for name, g := range map[string]parse.GeoPoint{"paris": paris, "london": london, "nyc": nyc} {
		o := parse.NewObject(class)
		o.Set("name", name)
		o.Set("loc", g)
		rows = append(rows, o)
	}
	require.NoError(t, m.Objects.SaveAll(ctx, rows))
	names := func(q *query.Query[*parse.Object]) []string {
		t.Helper()
		objs, err := q.Find(ctx, m)
		require.NoError(t, err)
		var out []string
		for _, o := range objs {
			out = append(out, o.String("name"))
		}
		slices.Sort(out)
		return out
	}
	base := query.New[*parse.Object](class)
	europe := [][2]float64{{45, -5}, {55, -5}, {55, 5}, {45, 5}}
	assert.Equal(t, []string{"london", "paris"}, names(base.WithinPolygon("loc", europe)))
	assert.Equal(t, []string{"london", "paris"}, names(base.WithinPolygon("loc",
		mustGeo(t, 45, -5), mustGeo(t, 55, -5), mustGeo(t, 55, 5), mustGeo(t, 45, 5))))
	// A polygon around New York only, as pairs one by one.
	assert.Equal(t, []string{"nyc"}, names(base.WithinPolygon("loc", []float64{40, -75}, []float64{41, -75}, []float64{41, -73}, []float64{40, -73})))
}
