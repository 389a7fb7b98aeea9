package query

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/parse"
)

func TestBadClassNameText(t *testing.T) {
	for _, cn := range []string{"", "1bad", "a/b"} {
		err := New[map[string]any](cn).Err()
		require.ErrorIs(t, err, ErrInvalidClassName, cn)
		assert.Contains(t, err.Error(), "A ParseQuery must be constructed with a ParseObject or class name.")
	}
	_, err := FromJSON[map[string]any]("", []byte(`{}`))
	assert.ErrorIs(t, err, ErrInvalidClassName)
}

func TestWithinPolygonTakesPointsAndPairs(t *testing.T) {
	// GeoPoints go out as GeoPoints; pairs go out as given, as moralis-v1 sends them (the server reads a bare pair
	// as [longitude, latitude]).
	const points = `{"loc":{"$geoWithin":{"$polygon":[{"__type":"GeoPoint","latitude":1,"longitude":2},{"__type":"GeoPoint","latitude":3,"longitude":4},{"__type":"GeoPoint","latitude":5,"longitude":6}]}}}`
	const pairs = `{"loc":{"$geoWithin":{"$polygon":[[1,2],[3,4],[5,6]]}}}`
	g := func(lat, lng float64) parse.GeoPoint { return parse.GeoPoint{Latitude: lat, Longitude: lng} }
	q := New[map[string]any]("Place")
	for name, c := range map[string]struct {
		built *Query[map[string]any]
		want  string
	}{
		"GeoPoints":                {q.WithinPolygon("loc", g(1, 2), g(3, 4), g(5, 6)), points},
		"[]GeoPoint":               {q.WithinPolygon("loc", []parse.GeoPoint{g(1, 2), g(3, 4), g(5, 6)}), points},
		"Polygon":                  {q.WithinPolygon("loc", parse.Polygon{Coordinates: []parse.GeoPoint{g(1, 2), g(3, 4), g(5, 6)}}), points},
		"decoded GeoPoints":        {q.WithinPolygon("loc", []any{map[string]any{"__type": "GeoPoint", "latitude": 1.0, "longitude": 2.0}, &parse.GeoPoint{Latitude: 3, Longitude: 4}, g(5, 6)}), points},
		"[][2]float64":             {q.WithinPolygon("loc", [][2]float64{{1, 2}, {3, 4}, {5, 6}}), pairs},
		"[][]float64":              {q.WithinPolygon("loc", [][]float64{{1, 2}, {3, 4}, {5, 6}}), pairs},
		"pairs one by one":         {q.WithinPolygon("loc", [2]float64{1, 2}, []float64{3, 4}, []any{5, 6}), pairs},
		"[]any of pairs from JSON": {q.WithinPolygon("loc", []any{[]any{1.0, 2.0}, []any{3.0, 4.0}, []any{json.Number("5"), uint8(6)}}), pairs},
		"mixed": {q.WithinPolygon("loc", g(1, 2), [2]int{3, 4}, &parse.GeoPoint{Latitude: 5, Longitude: 6}),
			`{"loc":{"$geoWithin":{"$polygon":[{"__type":"GeoPoint","latitude":1,"longitude":2},[3,4],{"__type":"GeoPoint","latitude":5,"longitude":6}]}}}`},
	} {
		p, err := c.built.Params()
		require.NoError(t, err, name)
		b, _ := json.Marshal(p["where"])
		assert.JSONEq(t, c.want, string(b), name)
	}
	for name, c := range map[string]struct {
		q    *Query[map[string]any]
		want error
		text string
	}{
		"two points": {q.WithinPolygon("loc", g(1, 2), g(3, 4)), parse.ErrPolygonTooSmall, "Polygon must have at least 3 GeoPoints or Points"},
		"none":       {q.WithinPolygon("loc"), parse.ErrPolygonTooSmall, "Polygon must have at least 3 GeoPoints or Points"},
		"empty list": {q.WithinPolygon("loc", [][2]float64{}), parse.ErrPolygonTooSmall, "Polygon must have at least 3 GeoPoints or Points"},
		"one point":  {q.WithinPolygon("loc", g(1, 2)), parse.ErrPolygonTooSmall, "Polygon must have at least 3 GeoPoints or Points"},
		"one triple": {q.WithinPolygon("loc", []any{1.0, 2.0, 3.0}), parse.ErrPolygonTooSmall, "Polygon must have at least 3 GeoPoints or Points"},
		"a string":   {q.WithinPolygon("loc", "a", "b", "c"), parse.ErrCoordinatesNotPoints, "Coordinates must be an Array of GeoPoints or Points"},
		"a triple":   {q.WithinPolygon("loc", [][]float64{{1, 2, 3}, {1, 2}, {1, 2}}), parse.ErrCoordinatesNotPoints, "Coordinates must be an Array of GeoPoints or Points"},
		// A pair is checked as the server checks it: [longitude, latitude].
		"out of range":        {q.WithinPolygon("loc", [][2]float64{{0, 91}, {1, 2}, {3, 4}}), parse.ErrLatitudeRange, "GeoPoint latitude out of bounds: 91 > 90.0."},
		"longitude range":     {q.WithinPolygon("loc", [][2]float64{{1, 2}, {-181, 0}, {3, 4}}), parse.ErrLongitudeRange, "GeoPoint longitude out of bounds: -181 < -180.0."},
		"latitude 91 ok as x": {q.WithinPolygon("loc", [][2]float64{{91, 0}, {1, 2}, {3, 4}}), nil, ""},
		"infinite pair":       {q.WithinPolygon("loc", [][2]float64{{0, math.Inf(1)}, {1, 2}, {3, 4}}), parse.ErrLatitudeRange, "GeoPoint latitude out of bounds: Infinity > 90.0."},
		"not numbers":         {q.WithinPolygon("loc", []any{"a", "b"}, []any{1, 2}, []any{3, 4}), parse.ErrGeoPointNotNumber, "GeoPoint latitude and longitude must be valid numbers"},
		"a map":               {q.WithinPolygon("loc", map[string]any{"x": 1}, []any{1, 2}, []any{3, 4}), parse.ErrCoordinatesNotPoints, "Coordinates must be an Array of GeoPoints or Points"},
		"nil Polygon":         {q.WithinPolygon("loc", (*parse.Polygon)(nil)), parse.ErrCoordinatesNotArray, "Coordinates must be an Array"},
		"bad point":           {q.WithinPolygon("loc", g(0, 0), g(0, -181), g(1, 1)), parse.ErrLongitudeRange, "GeoPoint longitude out of bounds: -181 < -180.0."},
		"nil":                 {q.WithinPolygon("loc", nil, nil, nil), parse.ErrCoordinatesNotPoints, "Coordinates must be an Array of GeoPoints or Points"},
		"bad key":             {q.WithinPolygon("$loc", g(1, 2), g(3, 4), g(5, 6)), ErrInvalidKey, "Invalid Key name for queries"},
	} {
		err := c.q.Err()
		if c.want == nil {
			assert.NoError(t, err, name)
			continue
		}
		assert.ErrorIs(t, err, c.want, name)
		if err != nil {
			assert.Contains(t, err.Error(), c.text, name)
		}
	}
}

func TestAggregatePipelineStages(t *testing.T) {
	f := &fakeRunner{}
	ctx := context.Background()
	q := New[map[string]any]("GameScore")
	sent := func(t *testing.T, pipeline any) string {
		t.Helper()
		_, err := q.Aggregate(ctx, f, pipeline)
		require.NoError(t, err)
		b, _ := json.Marshal(f.requests()[len(f.requests())-1].Params["pipeline"])
		return string(b)
	}
	// An object of several stages in JSON text: one stage per key, in the order of the text, with "$" added.
	assert.Equal(t, `[{"$match":{"score":{"$gt":1}}},{"$group":{"_id":"$team"}},{"$sort":{"_id":1}}]`,
		sent(t, json.RawMessage(`{"match":{"score":{"$gt":1}},"group":{"_id":"$team"},"$sort":{"_id":1}}`)))
	assert.Equal(t, `[{"$sort":{"_id":1}},{"$group":{"_id":"$team"}}]`,
		sent(t, json.RawMessage(` {"$sort":{"_id":1}, "group":{"_id":"$team"}} `)), "the order of the text is kept")
	assert.Equal(t, `[{"$limit":2},{"$skip":1}]`, sent(t, json.RawMessage(`[{"limit":2},{"$skip":1}]`)))
	// Both stage-name forms in a list; the moralis-v1 group form sends objectId as _id.
	assert.Equal(t, `[{"$match":{"a":1}},{"$group":{"_id":"$team","n":{"$sum":1}}},{"$group":{"_id":null}}]`,
		sent(t, []any{
			map[string]any{"match": map[string]any{"a": 1}},
			map[string]any{"group": map[string]any{"objectId": "$team", "n": map[string]any{"$sum": 1}}},
			map[string]any{"$group": map[string]any{"_id": nil}},
		}))
	assert.Equal(t, `[{"$group":{"_id":"$a","objectId":"$b"}}]`,
		sent(t, map[string]any{"group": map[string]any{"_id": "$a", "objectId": "$b"}}), "an explicit _id is kept")
	assert.Equal(t, `[{"$project":{"score":1}}]`, sent(t, map[string]any{"project": map[string]any{"score": 1}}))
	// The query's constraints come first, as $match.
	_, err := q.EqualTo("team", "red").Aggregate(ctx, f, json.RawMessage(`{"group":{"_id":null},"limit":1}`))
	require.NoError(t, err)
	b, _ := json.Marshal(f.requests()[len(f.requests())-1].Params["pipeline"])
	assert.Equal(t, `[{"$match":{"team":"red"}},{"$group":{"_id":null}},{"$limit":1}]`, string(b))

	before := len(f.requests())
	for name, c := range map[string]struct {
		pipeline any
		want     error
	}{
		"map of several stages":   {map[string]any{"match": map[string]any{}, "group": map[string]any{"_id": nil}}, ErrPipelineOrder},
		"stage of several keys":   {[]any{map[string]any{"$match": map[string]any{}, "$limit": 1}}, ErrPipelineStage},
		"stage not an object":     {[]any{"$limit"}, ErrPipelineStage},
		"empty stage":             {[]any{map[string]any{}}, ErrPipelineStage},
		"empty stage name":        {map[string]any{"$": 1}, ErrPipelineStage},
		"double dollar":           {map[string]any{"$$match": 1}, ErrPipelineStage},
		"duplicate stage in text": {json.RawMessage(`{"limit":1,"limit":2}`), ErrPipelineStage},
		"text of a string":        {json.RawMessage(`"x"`), ErrPipeline},
		"text null":               {json.RawMessage(`null`), ErrPipeline},
		"nil":                     {nil, ErrPipeline},
		"a number":                {3, ErrPipeline},
	} {
		_, err := q.Aggregate(ctx, f, c.pipeline)
		assert.ErrorIs(t, err, c.want, name)
	}
	for name, bad := range map[string]json.RawMessage{
		"trailing": json.RawMessage(`{"limit":1} {}`), "cut": json.RawMessage(`{"limit":`), "empty": json.RawMessage(``),
		"trailing after list": json.RawMessage(`[] []`),
	} {
		_, err := q.Aggregate(ctx, f, bad)
		assert.Error(t, err, name)
	}
	assert.Equal(t, before, len(f.requests()), "refused pipelines are not sent")
	_, err = q.Aggregate(ctx, f, map[string]any{"match": 1, "group": 2})
	assert.Contains(t, err.Error(), "stages group, match")
}

func TestFromRequestAndRedirect(t *testing.T) {
	rel := parse.Relation{Parent: parse.Pointer{ClassName: "Post", ObjectID: "p1"}, Key: "likes"}
	req, err := rel.Query()
	require.NoError(t, err)
	q, err := FromRequest[*parse.Object](req)
	require.NoError(t, err)
	assert.Equal(t, "Post", q.ClassName())
	p, err := q.Ascending("name").Params()
	require.NoError(t, err)
	b, _ := json.Marshal(p)
	assert.JSONEq(t, `{"order":"name","redirectClassNameForKey":"likes",
		"where":{"$relatedTo":{"key":"likes","object":{"__type":"Pointer","className":"Post","objectId":"p1"}}}}`, string(b))

	// The same through FromJSON, and back through MarshalJSON.
	j, err := q.MarshalJSON()
	require.NoError(t, err)
	back, err := FromJSON[*parse.Object]("Post", j)
	require.NoError(t, err)
	j2, _ := back.MarshalJSON()
	assert.JSONEq(t, string(j), string(j2))

	// A run sends it, and objects take the class each result names.
	f := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Results: rawResults(map[string]any{"objectId": "u1", "className": "_User", "name": "ann"})}, nil
	}}
	objs, err := q.Find(context.Background(), f)
	require.NoError(t, err)
	require.Len(t, objs, 1)
	assert.Equal(t, "_User", objs[0].ClassName())
	assert.Equal(t, "likes", f.requests()[0].Params["redirectClassNameForKey"])
	assert.Equal(t, "Post", f.requests()[0].ClassName)
	// Iteration keeps it too.
	for _, err := range q.All(context.Background(), f) {
		require.NoError(t, err)
	}
	assert.Equal(t, "likes", f.requests()[1].Params["redirectClassNameForKey"])

	// The request is not changed or kept.
	req.Params["where"] = "changed"
	p2, _ := q.Params()
	assert.NotEqual(t, "changed", p2["where"])

	for name, c := range map[string]struct {
		req  *parse.QueryRequest
		want string
	}{
		"nil":           {nil, "nil request"},
		"aggregate":     {&parse.QueryRequest{ClassName: "A", Op: OpAggregate}, "only a find request"},
		"no class":      {&parse.QueryRequest{Op: OpFind}, "A ParseQuery must be constructed"},
		"className":     {&parse.QueryRequest{ClassName: "A", Params: map[string]any{"className": "B"}}, "className belongs"},
		"bad redirect":  {&parse.QueryRequest{ClassName: "A", Params: map[string]any{"redirectClassNameForKey": 5}}, "Invalid Key name for queries"},
		"bad redirect2": {&parse.QueryRequest{ClassName: "A", Params: map[string]any{"redirectClassNameForKey": "a b"}}, "Invalid Key name for queries"},
		"bad where":     {&parse.QueryRequest{ClassName: "A", Params: map[string]any{"where": map[string]any{"$bad": 1}}}, "Invalid Key name"},
		"unencodable":   {&parse.QueryRequest{ClassName: "A", Params: map[string]any{"where": map[string]any{"a": make(chan int)}}}, "FromRequest"},
	} {
		_, err := FromRequest[map[string]any](c.req)
		require.Error(t, err, name)
		assert.True(t, strings.Contains(err.Error(), c.want), "%s: %v", name, err)
	}
	q2, err := FromRequest[map[string]any](&parse.QueryRequest{ClassName: "A"})
	require.NoError(t, err)
	assert.NoError(t, q2.Err())
	if _, err := FromJSON[map[string]any]("A", []byte(`{"redirectClassNameForKey":["x"]}`)); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("a list as redirectClassNameForKey: %v", err)
	}
}
