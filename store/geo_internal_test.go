package store

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/parse"
)

// Known answers of ST_DistanceSphere(POINT(lng1, lat1)::geometry, POINT(lng2, lat2)::geometry), read from the dev
// stack's PostGIS 3.3. PostGIS rounds to 1e-8 m; its sine and cosine may differ from Go's in the last bit, which
// can move the rounding by one step.
func TestSphereDistanceMatchesPostGIS(t *testing.T) {
	for _, v := range []struct {
		lng1, lat1, lng2, lat2 float64
		want                   float64
	}{
		{0, 0, 1, 0, 111195.07973463},
		{10, 20, 30, -40, 6986703.46354486},
		{0, 0, 180, 0, 20015114.35223369},
		{13.405, 52.52, 2.3522, 48.8566, 877464.53398457},
		{179.9, -15, -171.7514, -13.8507, 908026.57770479},
		{0, 89.9, 15.6267, 78.2232, 1298817.12076224},
		{13.405, 52.52, 13.405001, 52.520001, 0.13016254},
		{5, 5, 5, 5, 0},
	} {
		got := sphereDistance(geoPoint{v.lat1, v.lng1}, geoPoint{v.lat2, v.lng2})
		assert.InDelta(t, v.want, got, 1.5e-8, "%+v", v)
	}
}

func TestInPolygon(t *testing.T) {
	square := []xy{{0, 0}, {10, 0}, {10, 10}, {0, 10}}
	closed := append(append([]xy{}, square...), xy{0, 0}) // as the server returns a Polygon: closed
	for _, c := range []struct {
		p    xy
		want bool
	}{
		{xy{5, 5}, true},
		{xy{10, 5}, true},              // on an edge
		{xy{10, 10}, true},             // on a corner
		{xy{10 + 5e-8, 5}, true},       // within PostgreSQL's tolerance of the edge (checked on PostgreSQL 15)
		{xy{10 + 5e-7, 5}, false},      // beyond it: the tolerance is on a cross product, so it scales with the edge
		{xy{-5e-8, 5}, true},           // within the tolerance of the left edge
		{xy{10 + 5e-7, 10}, true},      // near a corner: on the line of the top edge
		{xy{10.001, 5}, false},         // outside
		{xy{-5, 5}, false},             // left of it, the ray crosses two edges
		{xy{5, -1e-3}, false},          // below
		{xy{math.NaN(), 5}, false},     // nothing is inside for NaN
		{xy{0, 5 + 1e-12}, true},       // on the closing edge
		{xy{5, 10 - 1e-9}, true},       // just inside the top edge
		{xy{15, 10}, false},            // on the line of the top edge, beyond it
		{xy{-1e-3, -1e-3}, false},      // beyond a corner
		{xy{9.999999, 0.000001}, true}, // in a corner
	} {
		assert.Equal(t, c.want, inPolygon(square, c.p), "square %v", c.p)
		assert.Equal(t, c.want, inPolygon(closed, c.p), "closed square %v", c.p)
	}
	// A pentagram: the middle is wound twice, inside by the non-zero rule (an even-odd test says outside).
	var star []xy
	for k := 0; k < 5; k++ {
		a := (90 + 144*float64(k)) * math.Pi / 180
		star = append(star, xy{10 * math.Cos(a), 10 * math.Sin(a)})
	}
	assert.True(t, inPolygon(star, xy{0, 0}), "middle of the star")
	assert.True(t, inPolygon(star, xy{0, 7}), "a tip")
	assert.False(t, inPolygon(star, xy{7, 0.5}), "between two tips")
	// A concave L: the notch is outside.
	l := []xy{{0, 0}, {6, 0}, {6, 2}, {2, 2}, {2, 5}, {0, 5}}
	assert.True(t, inPolygon(l, xy{1, 4}))
	assert.True(t, inPolygon(l, xy{5, 1}))
	assert.False(t, inPolygon(l, xy{4, 4}))
	assert.False(t, inPolygon(nil, xy{0, 0}))
	assert.True(t, inPolygon([]xy{{1, 1}}, xy{1, 1}), "a one-point polygon holds its point")
}

func TestGeoInputRefused(t *testing.T) {
	gp := map[string]any{"__type": "GeoPoint", "latitude": 1.0, "longitude": 2.0}
	loc := func(op string, v any) map[string]any { return map[string]any{"loc": map[string]any{op: v}} }
	for _, c := range []struct {
		where       map[string]any
		unsupported bool // the server accepts it, the store cannot evaluate it
	}{
		{loc("$nearSphere", nil), false},
		{loc("$nearSphere", false), false},
		{loc("$nearSphere", 0), false},
		{loc("$nearSphere", ""), false},
		{loc("$maxDistance", 1), false},
		{loc("$maxDistanceInMiles", 1), false},
		{map[string]any{"loc": map[string]any{"$nearSphere": gp, "$maxDistance": "0.1"}}, true},
		{map[string]any{"loc": map[string]any{"$nearSphere": gp, "$maxDistance": []any{1}}}, true},
		{loc("$nearSphere", map[string]any{"latitude": "1", "longitude": 2.0}), true},
		{loc("$nearSphere", map[string]any{"__type": "GeoPoint", "latitude": 100.0, "longitude": 2.0}), true},
		{map[string]any{"loc.x": map[string]any{"$nearSphere": gp}}, true},
		{loc("$within", nil), false},
		{loc("$within", "box"), false},
		{loc("$within", map[string]any{}), false},
		{loc("$within", map[string]any{"$box": nil}), false},
		{loc("$within", map[string]any{"$box": []any{gp}}), false},
		{loc("$within", map[string]any{"$box": []any{gp, 3}}), false},
		{loc("$within", map[string]any{"$box": []any{gp, map[string]any{"latitude": nil, "longitude": 1.0}}}), false},
		{loc("$within", map[string]any{"$box": []any{gp, map[string]any{"latitude": "1", "longitude": 1.0}}}), true},
		{loc("$within", map[string]any{"$box": []any{gp, gp, gp}}), true},
		{loc("$within", map[string]any{"$box": []any{gp, gp}, "$polygon": []any{}}), true},
		{loc("$geoWithin", nil), false},
		{loc("$geoWithin", map[string]any{}), false},
		{loc("$geoWithin", map[string]any{"$box": []any{gp, gp}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": 7}), false},
		{loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "GeoPoint"}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "Polygon"}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "Polygon", "coordinates": "abc"}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, []any{1.0}}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, []any{1.0, 2.0, 3.0}}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, []any{nil, 2.0}}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, []any{2.0, 91.0}}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, map[string]any{"latitude": 1.0, "longitude": 2.0}}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, map[string]any{"__type": "GeoPoint", "latitude": 1.0, "longitude": 181.0}}}), false},
		{loc("$geoWithin", map[string]any{"$polygon": []any{gp, gp, gp}, "$foo": 1}), true},
		{loc("$geoWithin", map[string]any{"$centerSphere": "x"}), false},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{gp}}), false},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{gp, -0.5}}), false},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{1.0}, 0.5}}), false},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{1.0, 95.0}, 0.5}}), false},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{"x", 0.5}}), false},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{gp, "0.5"}}), true},
		{loc("$geoWithin", map[string]any{"$centerSphere": []any{gp, 0.5, 1.0}}), true},
		{loc("$geoIntersects", nil), false},
		{loc("$geoIntersects", map[string]any{}), false},
		{loc("$geoIntersects", map[string]any{"$point": []any{1.0, 2.0}}), false},
		{loc("$geoIntersects", map[string]any{"$point": map[string]any{"latitude": 1.0, "longitude": 2.0}}), false},
		{loc("$geoIntersects", map[string]any{"$point": map[string]any{"__type": "GeoPoint", "latitude": -91.0, "longitude": 2.0}}), false},
		{loc("$geoIntersects", map[string]any{"$point": map[string]any{"__type": "GeoPoint", "latitude": true, "longitude": 2.0}}), false},
		{loc("$geoIntersects", map[string]any{"$point": gp, "$box": 1}), true},
	} {
		_, err := compileWhere(c.where, nil)
		require.Error(t, err, "%v", c.where)
		assert.Equal(t, c.unsupported, errors.Is(err, ErrUnsupportedQuery), "%v: %v", c.where, err)
		assert.Contains(t, err.Error(), "store: ", "errors name the package")
	}
}

// A geo constraint on a field holding something else fails, as the server's cast does; a point constraint on a
// Polygon is unsupported; missing and null values never match.
func TestGeoValueKinds(t *testing.T) {
	ctx := context.Background()
	s := NewMemory(Config{})
	defer s.Close()
	gp, err := parse.NewGeoPoint(10, 20)
	require.NoError(t, err)
	poly := parse.Polygon{Coordinates: []parse.GeoPoint{{Latitude: 0, Longitude: 0}, {Latitude: 0, Longitude: 30}, {Latitude: 30, Longitude: 30}}}
	objs := []map[string]any{
		{"loc": gp, "area": poly, "name": "a"},
		{"loc": nil, "name": "null loc"},
		{"name": "no loc"},
	}
	for i, f := range objs {
		o := parse.NewObjectWithID("Geo", string(rune('a'+i)))
		for k, v := range f {
			o.Set(k, v)
		}
		require.NoError(t, s.Pin(ctx, o))
	}
	run := func(where map[string]any) ([]string, error) {
		resp, err := s.RunQuery(ctx, &parse.QueryRequest{ClassName: "Geo", Params: map[string]any{"where": where}})
		if err != nil {
			return nil, err
		}
		var got []string
		for _, o := range resp.Objects {
			got = append(got, o.ID())
		}
		return got, nil
	}
	near := map[string]any{"$nearSphere": map[string]any{"__type": "GeoPoint", "latitude": 0.0, "longitude": 0.0}}
	got, err := run(map[string]any{"loc": near})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, got, "missing and null GeoPoints never match")
	got, err = run(map[string]any{"$nor": []any{map[string]any{"loc": near}}})
	require.NoError(t, err)
	assert.Empty(t, got, "NOT of a NULL distance is NULL")
	got, err = run(map[string]any{"loc": map[string]any{"$nearSphere": map[string]any{}}})
	require.NoError(t, err)
	assert.Empty(t, got, "a NULL point matches nothing")

	_, err = run(map[string]any{"name": near})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs GeoPoint values")
	assert.False(t, errors.Is(err, ErrUnsupportedQuery))
	_, err = run(map[string]any{"area": near})
	assert.ErrorIs(t, err, ErrUnsupportedQuery, "a point constraint on a Polygon")
	_, err = run(map[string]any{"loc": map[string]any{"$geoIntersects": map[string]any{"$point": map[string]any{"__type": "GeoPoint", "latitude": 1.0, "longitude": 1.0}}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs Polygon values")
	_, err = run(map[string]any{"$or": []any{map[string]any{"name": map[string]any{"$within": map[string]any{"$box": []any{map[string]any{"latitude": 0.0, "longitude": 0.0}, map[string]any{"latitude": 1.0, "longitude": 1.0}}}}}}})
	assert.Error(t, err, "inside $or too")
	got, err = run(map[string]any{"area": map[string]any{"$geoIntersects": map[string]any{"$point": map[string]any{"__type": "GeoPoint", "latitude": 5.0, "longitude": 20.0}}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, got)
}

// FuzzGeoWhere compiles and runs arbitrary geo where maps over records of every kind: an error or an answer, never
// a panic.
func FuzzGeoWhere(f *testing.F) {
	for _, seed := range []string{
		`{"loc":{"$nearSphere":{"__type":"GeoPoint","latitude":1,"longitude":2},"$maxDistance":0.5}}`,
		`{"loc":{"$nearSphere":{"latitude":1}}}`,
		`{"loc":{"$within":{"$box":[{"latitude":1,"longitude":2},{"latitude":3,"longitude":4}]}}}`,
		`{"loc":{"$within":{"$box":[1,2]}}}`,
		`{"loc":{"$geoWithin":{"$polygon":[[1,2],[3,4],[5,6]]}}}`,
		`{"loc":{"$geoWithin":{"$polygon":{"__type":"Polygon","coordinates":[[1,2],[3],[5,6]]}}}}`,
		`{"loc":{"$geoWithin":{"$centerSphere":[[1,2],null]}}}`,
		`{"loc":{"$geoWithin":{"$centerSphere":[{"__type":"GeoPoint"},1]}}}`,
		`{"area":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":1,"longitude":2}}}}`,
		`{"$nor":[{"loc":{"$nearSphere":[]}}],"$or":[{"area":{"$geoIntersects":{"$point":{}}}}]}`,
	} {
		f.Add(seed)
	}
	in := &interner{m: map[string]any{}}
	var recs []*record
	for i, raw := range []string{
		`{"loc":{"__type":"GeoPoint","latitude":1.5,"longitude":2.5},"area":{"__type":"Polygon","coordinates":[[0,0],[0,5],[5,5],[0,0]]}}`,
		`{"loc":{"__type":"GeoPoint","latitude":"x"},"area":{"__type":"Polygon","coordinates":[[0],[1,2,3],"x"]}}`,
		`{"loc":{"__type":"GeoPoint"},"area":{"__type":"Polygon","coordinates":"x"}}`,
		`{"loc":null,"area":[1,2]}`,
		`{"name":"x"}`,
	} {
		var data map[string]any
		if err := json.Unmarshal([]byte(raw), &data); err != nil {
			f.Fatal(err)
		}
		r, err := newRecord(in, "Geo", string(rune('a'+i)), data, []byte(raw))
		if err != nil {
			f.Fatal(err)
		}
		recs = append(recs, r)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var where map[string]any
		if json.Unmarshal([]byte(raw), &where) != nil {
			return
		}
		match, err := compileWhere(where, nil)
		if err != nil {
			return
		}
		_ = checkGeoValues(where, recs)
		var hits []*record
		for _, r := range recs {
			if match(r) {
				hits = append(hits, r)
			}
		}
		if near := nearOrder(where); len(near) > 0 {
			sortByDistance(hits, near)
		}
	})
}
