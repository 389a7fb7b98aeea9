//go:build integration

package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

func newClient(t *testing.T) *client.Client {
	t.Helper()
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	return c
}

func uniqueClass(prefix string) string { return fmt.Sprintf("%s%d", prefix, rand.Uint32()) }

// seed saves the dataset on the server (same fields, server ids) and returns the objects and a map from the
// dataset's names (r1...) to the server's ids.
func seed(t *testing.T, ctx context.Context, c *client.Client, class string) ([]*parse.Object, map[string]string) {
	t.Helper()
	local := dataset(t, class)
	objs := make([]*parse.Object, len(local))
	for i, l := range local {
		o := parse.NewObject(class)
		for _, k := range l.Keys() {
			o.Set(k, l.Get(k))
		}
		objs[i] = o
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	names := map[string]string{}
	for i, l := range local {
		names[l.ID()] = objs[i].ID()
	}
	return objs, names
}

func TestIntegrationSameAnswersLocallyAndOnServer(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	class := uniqueClass("StoreFruit")
	_, names := seed(t, ctx, c, class)
	back := map[string]string{}
	for n, id := range names {
		back[id] = n
	}

	// Pin what the server answers, as an app would.
	fromServer, err := query.New[Obj](class).Limit(1000).Find(ctx, c)
	require.NoError(t, err)
	require.Len(t, fromServer, len(names))
	s, err := store.Open(filepath.Join(t.TempDir(), "lds.db"), store.Config{AppID: c.AppID()})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Pin(ctx, fromServer...))

	id := func(n string) string { return names[n] }
	for _, tc := range cases(class, id) {
		t.Run(tc.name, func(t *testing.T) {
			remote, rn, err := tc.q.FindWithCount(ctx, c)
			require.NoError(t, err, "server: %s", tc.q)
			local, ln, err := tc.q.FindWithCount(ctx, s)
			require.NoError(t, err, "store: %s", tc.q)
			assert.Equal(t, rn, ln, "count: %s", tc.q)
			rid, lid := ids(t, remote), ids(t, local)
			if tc.want != nil {
				assert.Equal(t, rid, lid, "order: %s", tc.q)
			} else {
				assert.ElementsMatch(t, rid, lid, tc.q.String())
			}
			// and both equal the expected answer
			exp := tc.want
			if exp == nil {
				exp = tc.set
			}
			var gotNames []string
			for _, x := range lid {
				gotNames = append(gotNames, back[x])
			}
			if tc.want != nil {
				assert.Equal(t, exp, gotNames)
			} else {
				assert.ElementsMatch(t, exp, gotNames)
			}
		})
	}

	// Fields come back the same way from both.
	r, err := query.New[Obj](class).EqualTo("objectId", id("r1")).First(ctx, c)
	require.NoError(t, err)
	l, err := query.New[Obj](class).EqualTo("objectId", id("r1")).First(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, r.Fields(), l.Fields())
	assert.True(t, r.UpdatedAt().Equal(l.UpdatedAt()))
}

func TestIntegrationSyncSeesChangesAndDeletes(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	class := uniqueClass("StoreSync")
	objs, names := seed(t, ctx, c, class)
	s := store.NewMemory(store.Config{AppID: c.AppID()})
	defer s.Close()
	require.NoError(t, s.Pin(ctx, objs...))
	draft := parse.NewObject(class)
	draft.Set("name", "draft")
	require.NoError(t, s.Pin(ctx, draft))

	// Change one object and delete another on the server.
	changed := parse.NewObjectWithID(class, names["r1"])
	changed.Set("score", 1234)
	require.NoError(t, c.Objects.Save(ctx, changed))
	require.NoError(t, c.Objects.Destroy(ctx, parse.NewObjectWithID(class, names["r2"])))

	before, err := s.Get(ctx, class, names["r1"])
	require.NoError(t, err)
	assert.Equal(t, float64(10), before.Get("score"), "not synced yet")

	res, err := s.Sync(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, store.SyncResult{Updated: len(objs) - 1, NotReturned: []string{store.ObjectKey(class, names["r2"])}, Skipped: 1}, res)

	after, err := s.Get(ctx, class, names["r1"])
	require.NoError(t, err)
	assert.Equal(t, float64(1234), after.Get("score"))
	assert.True(t, after.UpdatedAt().After(before.UpdatedAt()))
	_, err = s.Get(ctx, class, names["r2"])
	assert.NoError(t, err, "not returned (deleted on the server): kept, and reported")
	keys, err := s.PinnedKeys(ctx, "")
	require.NoError(t, err)
	assert.Contains(t, keys, store.ObjectKey(class, names["r2"]))
	_, err = s.Get(ctx, class, draft.LocalID())
	assert.NoError(t, err, "local objects are skipped, not dropped")

	got, err := query.New[Obj](class).GreaterThan("score", 1000).Find(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, []string{names["r1"]}, ids(t, got))
}

func TestIntegrationSaveLocalThenFlush(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	class := uniqueClass("StoreOffline")
	s, err := store.Open(filepath.Join(t.TempDir(), "lds.db"), store.Config{AppID: c.AppID()})
	require.NoError(t, err)
	defer s.Close()

	// One object saved on the server, then changed offline; one made offline.
	existing := parse.NewObject(class)
	existing.Set("title", "first")
	existing.Set("n", 1)
	require.NoError(t, c.Objects.Save(ctx, existing))
	require.NoError(t, s.Pin(ctx, existing))
	existing.Set("title", "changed offline")
	require.NoError(t, s.SaveLocal(ctx, existing))

	fresh := parse.NewObject(class)
	fresh.Set("title", "made offline")
	fresh.Set("when", time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	fresh.Set("n", 2)
	require.NoError(t, s.SaveLocal(ctx, fresh))
	localID := fresh.LocalID()
	require.True(t, store.IsLocalID(localID))

	// Offline: the local query sees both.
	n, err := query.New[Obj](class).Count(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	res, err := s.Flush(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Saved)
	serverID := res.IDs[localID]
	require.NotEmpty(t, serverID)
	assert.False(t, store.IsLocalID(serverID))

	// The server has both.
	got, err := c.Objects.Get(ctx, class, serverID)
	require.NoError(t, err)
	assert.Equal(t, "made offline", got.String("title"))
	assert.True(t, got.Time("when").Equal(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)))
	got, err = c.Objects.Get(ctx, class, existing.ID())
	require.NoError(t, err)
	assert.Equal(t, "changed offline", got.String("title"))
	assert.Equal(t, float64(1), got.Get("n"))

	// The store moved the object to its server id; nothing is pending.
	_, err = s.Get(ctx, class, localID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	moved, err := s.Get(ctx, class, serverID)
	require.NoError(t, err)
	assert.Equal(t, "made offline", moved.String("title"))
	assert.Empty(t, moved.LocalID())
	pending, err := s.Pending(ctx)
	require.NoError(t, err)
	assert.Empty(t, pending)
	keys, err := s.PinnedKeys(ctx, "")
	require.NoError(t, err)
	assert.Contains(t, keys, store.ObjectKey(class, serverID))

	// And the same query gives the same answer on both sides now.
	remote, err := query.New[Obj](class).Ascending("n").Find(ctx, c)
	require.NoError(t, err)
	local, err := query.New[Obj](class).Ascending("n").Find(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, ids(t, remote), ids(t, local))

	// The caller's copy still has only its local id; pinning it again gives it its server id, no duplicate.
	assert.Empty(t, fresh.ID())
	fresh.Set("title", "edited after flush")
	require.NoError(t, s.Pin(ctx, fresh))
	assert.Equal(t, serverID, fresh.ID())
	n, err = query.New[Obj](class).Count(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	// Sync after flush keeps them (and brings back the server's title).
	sr, err := s.Sync(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, 2, sr.Updated)
}

// TestIntegrationRawWhereParity runs where maps written by hand (the corners of PostgreSQL's semantics: missing
// values, empty lists, array columns) on the server and locally, and requires the same ids, or an error on both.
func TestIntegrationRawWhereParity(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	class := uniqueClass("StoreRaw")
	seed(t, ctx, c, class)
	fromServer, err := query.New[Obj](class).Limit(1000).Find(ctx, c)
	require.NoError(t, err)
	s := store.NewMemory(store.Config{})
	defer s.Close()
	require.NoError(t, s.Pin(ctx, fromServer...))

	for _, w := range []map[string]any{
		{"name": map[string]any{"$in": []any{}}},
		{"name": map[string]any{"$nin": []any{}}},
		{"name": map[string]any{"$nin": []any{"apple", nil}}},
		{"tags": map[string]any{"$in": []any{"red", "blue"}}},
		{"tags": map[string]any{"$nin": []any{"red"}}},
		{"tags": map[string]any{"$ne": "red"}},
		{"tags": map[string]any{"$containedBy": []any{"red", "fruit"}}},
		{"tags": map[string]any{"$all": []any{"red"}}},
		{"name": map[string]any{"$ne": nil}},
		{"name": map[string]any{"$eq": "apple"}},
		{"name": nil},
		{"meta.lvl": 2},
		{"meta.lvl": map[string]any{"$lt": 3}},
		{"ok": map[string]any{"$ne": false}},
		{"score": map[string]any{"$gte": 10, "$lt": 40, "$ne": 20}},
		{"name": map[string]any{"$regex": "^A", "$options": "i"}},
		{"name": map[string]any{"$regex": "E$", "$options": "i"}},
		{"name": map[string]any{"$regex": "^line2$", "$options": "m"}},
		{"name": map[string]any{"$regex": "line1.line2", "$options": "s"}},
		{"when": map[string]any{"$exists": false}},
		{"score": map[string]any{"$in": []any{20}}, "$or": []any{map[string]any{"ok": false}, map[string]any{"ok": map[string]any{"$exists": false}}}},
		{"$and": []any{map[string]any{"score": map[string]any{"$gt": 5}}}, "$nor": []any{map[string]any{"name": "apple"}}},
		{"meta": map[string]any{"lvl": 1}}, // the server refuses equality with an object: so does the store
	} {
		assertRawParity(t, ctx, c, s, class, w)
	}
}

// assertRawParity runs the where map w on the server and on the store and requires the same ids and count, or
// an error on both. It reports whether the answers agreed.
func assertRawParity(t *testing.T, ctx context.Context, c *client.Client, s *store.Store, class string, w map[string]any) bool {
	t.Helper()
	b, err := json.Marshal(w)
	if !assert.NoError(t, err) { // assert, not require: TestIntegrationNorNullParity calls it from an errgroup's goroutines
		return false
	}
	req := &parse.QueryRequest{ClassName: class, Params: map[string]any{"where": w, "count": 1, "limit": 1000}}
	rr, rerr := c.RunQuery(ctx, req)
	lr, lerr := s.RunQuery(ctx, req)
	if rerr != nil {
		return assert.Error(t, lerr, "server refused %s (%v): the store must too", b, rerr)
	}
	if !assert.NoError(t, lerr, "%s", b) {
		return false
	}
	ok := assert.ElementsMatch(t, rawIDs(t, rr.Results), objectIDs(lr.Objects), "where %s", b)
	return assert.Equal(t, rr.Count, lr.Count, "count for %s", b) && ok
}

// TestIntegrationNorNullParity checks SQL's three-valued logic: a condition on a missing or null value is NULL on
// PostgreSQL for most operators, NOT NULL stays NULL, so $nor (NOT of an OR) leaves such objects out, while the
// operators the adapter writes as IS [NOT] NULL (or with "OR col IS NULL") are never NULL. Each condition runs
// alone, under $nor, and nested in $or/$and/$nor, over objects where its field is present, null and missing; the
// server and the store must give the same ids and count (or both an error).
func TestIntegrationNorNullParity(t *testing.T) {
	t.Parallel() // its own class; 530 round trips, four at a time
	ctx := context.Background()
	c := newClient(t)
	class := uniqueClass("StoreNor")
	d := func(s string) map[string]any { return map[string]any{"__type": "Date", "iso": s} }
	rows := []map[string]any{
		{"kind": "full", "name": "apple", "score": 10, "tags": []any{"red", "fruit"}, "meta": map[string]any{"lvl": 1, "tag": "x"}, "ok": true, "when": d("2026-01-01T00:00:00.000Z")},
		{"kind": "full2", "name": "cherry", "score": 30, "tags": []any{"blue"}, "meta": map[string]any{"lvl": 3, "tag": "yx"}, "ok": false, "when": d("2026-03-01T00:00:00.000Z")},
		{"kind": "partial", "name": "banana", "score": 20, "tags": []any{}, "meta": map[string]any{"other": 1}, "ok": true},
		{"kind": "nulls", "name": nil, "score": nil, "tags": nil, "meta": nil, "ok": nil, "when": nil},
		{"kind": "missing"},
		{"kind": "inner null", "meta": map[string]any{"lvl": nil, "tag": nil}, "tags": []any{"red", nil}},
	}
	objs := make([]*parse.Object, len(rows))
	for i, r := range rows {
		objs[i] = parse.NewObject(class)
		for k, v := range r {
			objs[i].Set(k, v)
		}
	}
	require.NoError(t, c.Objects.Save(ctx, objs[0]), "the first object types every field")
	require.NoError(t, c.Objects.SaveAll(ctx, objs[1:]))
	fromServer, err := query.New[Obj](class).Limit(1000).Find(ctx, c)
	require.NoError(t, err)
	require.Len(t, fromServer, len(rows))
	s := store.NewMemory(store.Config{})
	defer s.Close()
	require.NoError(t, s.Pin(ctx, fromServer...))

	type m = map[string]any
	type a = []any
	conds := []m{
		// comparisons: NULL on a NULL value
		{"name": m{"$gt": "b"}},
		{"score": m{"$lte": 20}},
		{"score": m{"$gte": 10, "$lt": 30}},
		{"when": m{"$lt": d("2026-02-01T00:00:00.000Z")}},
		{"meta.lvl": m{"$lt": 3}},
		{"meta.tag": m{"$gte": "x"}},
		// $eq
		{"name": m{"$eq": "apple"}},
		{"name": m{"$eq": nil}},
		{"score": m{"$eq": 10}},
		{"meta.lvl": m{"$eq": 1}},
		// $ne: "(col <> v OR col IS NULL)", IS NOT NULL, or NOT array_contains on arrays
		{"name": m{"$ne": "apple"}},
		{"name": m{"$ne": nil}},
		{"ok": m{"$ne": true}},
		{"tags": m{"$ne": "red"}},
		{"meta.lvl": m{"$ne": 1}},
		{"score": m{"$gte": 10, "$ne": 20}},
		// $in / $nin on scalar and array columns, empty lists
		{"name": m{"$in": a{"apple", "cherry"}}},
		{"score": m{"$in": a{10, 20}}},
		{"name": m{"$in": a{}}},
		{"tags": m{"$in": a{"red"}}},
		{"tags": m{"$in": a{}}},
		{"name": m{"$nin": a{"apple"}}},
		{"name": m{"$nin": a{}}},
		{"name": m{"$nin": a{"apple", nil}}},
		{"tags": m{"$nin": a{"red"}}},
		{"tags": m{"$nin": a{}}},
		// $regex
		{"name": m{"$regex": "^[ab]"}},
		{"name": m{"$regex": "E", "$options": "i"}},
		{"meta.tag": m{"$regex": "x"}},
		// $exists: IS [NOT] NULL
		{"name": m{"$exists": true}},
		{"name": m{"$exists": false}},
		{"tags": m{"$exists": true}},
		// arrays
		{"tags": m{"$all": a{"red"}}},
		{"tags": m{"$all": a{"red", "fruit"}}},
		{"tags": m{"$all": a{m{"$regex": `^\Qre\E`}}}},
		{"tags": m{"$containedBy": a{"red", "fruit"}}},
		{"tags": m{"$containedBy": a{}}},
		// plain equality, dotted keys, equality with null
		{"name": "apple"},
		{"score": 20},
		{"ok": true},
		{"ok": false},
		{"name": m{"$in": a{"apple", nil}}},
		{"name": m{"$in": a{nil}}},
		{"tags": m{"$in": a{"blue", nil}}},
		{"tags": m{"$nin": a{"blue", nil}}},
		{"when": d("2026-01-01T00:00:00.000Z")},
		{"meta.lvl": 1},
		{"meta.tag": "x"},
		{"meta.lvl": nil},
		{"name": nil},
		{"tags": nil},
		{"meta": nil},
	}
	other := m{"kind": "partial"}
	var failed atomic.Int32
	var g errgroup.Group
	g.SetLimit(4)
	for _, cond := range conds {
		for _, w := range []m{
			cond,
			{"$nor": a{cond}},
			{"$nor": a{cond, other}},
			{"$nor": a{m{"$or": a{cond, other}}}},
			{"$nor": a{m{"$and": a{cond, m{"kind": m{"$ne": "full"}}}}}},
			{"$nor": a{m{"$nor": a{cond}}}},
			{"$or": a{m{"$nor": a{cond}}, other}},
			{"$and": a{m{"$nor": a{cond}}, m{"kind": m{"$exists": true}}}},
			{"$or": a{cond, m{"$nor": a{cond}}}}, // TRUE or FALSE, but not NULL
			{"$and": a{m{"$or": a{m{"$nor": a{cond}}, m{"$nor": a{other}}}}, m{"$nor": a{m{"$and": a{cond, other}}}}}},
		} {
			g.Go(func() error {
				if !assertRawParity(t, ctx, c, s, class, w) {
					failed.Add(1)
				}
				return nil
			})
		}
	}
	_ = g.Wait() // the goroutines report through t and return nil
	t.Logf("%d where maps disagreed", failed.Load())
}

func objectIDs(objs []*parse.Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.ID())
	}
	return out
}

func rawIDs(t *testing.T, res []json.RawMessage) []string {
	out := make([]string, 0, len(res))
	for _, b := range res {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		id, _ := m["objectId"].(string)
		out = append(out, id)
	}
	return out
}

// geoPlace is one seeded object of the geo parity test: a GeoPoint (loc) and/or a Polygon (area, [lat, lng] pairs).
type geoPlace struct {
	name     string
	lat, lng float64
	hasLoc   bool
	area     [][2]float64
}

// star returns the five points of a pentagram (a self-crossing polygon whose middle has winding number 2) around
// (cx, cy) with radius r, as (x, y) pairs.
func star(cx, cy, r float64) [][2]float64 {
	out := make([][2]float64, 5)
	for k := range out {
		a := (90 + 144*float64(k)) * math.Pi / 180
		out[k] = [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return out
}

// centralAngle is the great-circle angle, in radians, between two points given in degrees.
func centralAngle(lat1, lng1, lat2, lng2 float64) float64 {
	rad := func(d float64) float64 { return d * math.Pi / 180 }
	dLat, dLng := rad(lat2-lat1), rad(lng2-lng1)
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(rad(lat1))*math.Cos(rad(lat2))*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * math.Atan2(math.Sqrt(h), math.Sqrt(1-h))
}

func geoPlaces() []geoPlace {
	city := func(name string, lat, lng float64) geoPlace {
		return geoPlace{name: name, lat: lat, lng: lng, hasLoc: true}
	}
	places := []geoPlace{
		city("berlin", 52.52, 13.405), city("paris", 48.8566, 2.3522), city("london", 51.5074, -0.1278),
		city("madrid", 40.4168, -3.7038), city("rome", 41.9028, 12.4964), city("vienna", 48.2082, 16.3738),
		city("warsaw", 52.2297, 21.0122), city("oslo", 59.9139, 10.7522), city("reykjavik", 64.1466, -21.9426),
		city("cairo", 30.0444, 31.2357), city("nairobi", -1.2921, 36.8219), city("capetown", -33.9249, 18.4241),
		city("newyork", 40.7128, -74.006), city("saopaulo", -23.5505, -46.6333), city("tokyo", 35.6762, 139.6503),
		city("sydney", -33.8688, 151.2093), city("auckland", -36.8485, 174.7633), city("suva", -18.1416, 178.4419),
		city("apia", -13.8507, -171.7514), city("anchorage", 61.2181, -149.9003), city("quito", -0.1807, -78.4678),
		city("longyearbyen", 78.2232, 15.6267), city("mcmurdo", -77.8419, 166.6863), city("singapore", 1.3521, 103.8198),
		{name: "nowhere"},
		{name: "alps", area: [][2]float64{{46, 6}, {46, 14}, {48, 14}, {48, 6}}},
		{name: "bigbox", area: [][2]float64{{-10, -10}, {-10, 10}, {10, 10}, {10, -10}}},
	}
	// A pentagram around lat 10, lng 20 (pairs are [lat, lng]: x is the latitude here).
	places = append(places, geoPlace{name: "starfield", area: star(10, 20, 10)})
	// Berlin also holds a concave L: lat 50..52 for lng 10..16, and lat 52..55 for lng 10..12 only.
	places[0].area = [][2]float64{{50, 10}, {50, 16}, {52, 16}, {52, 12}, {55, 12}, {55, 10}}
	return places
}

// TestIntegrationGeoParity seeds GeoPoints around the world (and Polygons) on the server, pins what the server
// returns, and requires the same answers locally for every geo where map: the same ids, in the same order for a
// top-level $nearSphere, the same count, or an error on both.
func TestIntegrationGeoParity(t *testing.T) {
	t.Parallel() // its own class; its cases run in parallel too (each a round trip to the server)
	ctx := context.Background()
	c := newClient(t)
	class := uniqueClass("StoreGeo")
	places := geoPlaces()
	objs := make([]*parse.Object, len(places))
	for i, p := range places {
		o := parse.NewObject(class)
		o.Set("name", p.name)
		if p.hasLoc {
			gp, err := parse.NewGeoPoint(p.lat, p.lng)
			require.NoError(t, err)
			o.Set("loc", gp)
		}
		if p.area != nil {
			poly := parse.Polygon{}
			for _, pt := range p.area {
				poly.Coordinates = append(poly.Coordinates, parse.GeoPoint{Latitude: pt[0], Longitude: pt[1]})
			}
			o.Set("area", poly)
		}
		objs[i] = o
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	names := map[string]string{}
	for i, p := range places {
		names[objs[i].ID()] = p.name
	}
	fromServer, err := query.New[Obj](class).Limit(1000).Find(ctx, c)
	require.NoError(t, err)
	require.Len(t, fromServer, len(places))
	s := store.NewMemory(store.Config{})
	t.Cleanup(func() { assert.NoError(t, s.Close()) }) // after the parallel cases, which run once this function has returned
	require.NoError(t, s.Pin(ctx, fromServer...))

	gp := func(lat, lng float64) map[string]any {
		return map[string]any{"__type": "GeoPoint", "latitude": lat, "longitude": lng}
	}
	near := func(lat, lng float64, more ...any) map[string]any {
		cond := map[string]any{"$nearSphere": gp(lat, lng)}
		for i := 0; i+1 < len(more); i += 2 {
			cond[more[i].(string)] = more[i+1]
		}
		return map[string]any{"loc": cond}
	}
	loc := func(op string, v any) map[string]any { return map[string]any{"loc": map[string]any{op: v}} }
	pairs := func(ps [][2]float64) []any {
		out := make([]any, len(ps))
		for i, p := range ps {
			out[i] = []any{p[0], p[1]}
		}
		return out
	}
	box := func(swLat, swLng, neLat, neLng float64) map[string]any {
		return loc("$within", map[string]any{"$box": []any{gp(swLat, swLng), gp(neLat, neLng)}})
	}
	intersects := func(lat, lng float64) map[string]any {
		return map[string]any{"area": map[string]any{"$geoIntersects": map[string]any{"$point": gp(lat, lng)}}}
	}
	// The server limits ST_DistanceSphere, measured on PostGIS's sphere (6,371,008.77 m), by radians × 6371 km:
	// a limit a few metres on either side of Berlin's distance from Paris tells the two radii apart.
	angle := centralAngle(48.8566, 2.3522, 52.52, 13.405)
	justShort, justOver := angle*6371004/6371000, angle*6371013/6371000
	const (
		some    = iota // the same ids as a set, at least one
		ordered        // the same ids in the same order, at least two
		none           // no ids on both
		refused        // an error on both
	)
	type geoCase struct {
		name  string
		where map[string]any
		extra map[string]any // order, limit, skip
		want  int
	}
	cases := []geoCase{
		// $nearSphere: nearest first, with and without limits.
		{"near berlin", near(52.52, 13.405), nil, ordered},
		{"near tokyo within 1 rad", near(35.6762, 139.6503, "$maxDistance", 1.0), nil, ordered},
		{"near sydney, skip 1, limit 3", near(-33.8688, 151.2093), map[string]any{"skip": 1, "limit": 3}, ordered},
		{"near the antimeridian", near(-15, 179.9, "$maxDistance", 0.2), nil, ordered},
		{"near the north pole", near(89.9, 0), map[string]any{"limit": 5}, ordered},
		{"near the south pole within 1 rad", near(-89.9, 120, "$maxDistance", 1), nil, some},
		{"near with an explicit order: distance wins", near(48.8566, 2.3522), map[string]any{"order": "name"}, ordered},
		{"near with a descending order: distance wins", near(48.8566, 2.3522, "$maxDistance", 0.3), map[string]any{"order": "-name,objectId"}, ordered},
		{"near and another constraint", map[string]any{"loc": map[string]any{"$nearSphere": gp(40, -70)}, "name": map[string]any{"$nin": []any{"newyork", "quito"}}}, nil, ordered},
		{"$maxDistanceInKilometers is ignored", near(52.52, 13.405, "$maxDistanceInKilometers", 100), nil, ordered},
		{"$maxDistanceInMiles is ignored", near(52.52, 13.405, "$maxDistanceInMiles", 1), nil, ordered},
		{"$maxDistanceInRadians is ignored", near(52.52, 13.405, "$maxDistanceInRadians", 0.0001), nil, ordered},
		{"$maxDistance and $maxDistanceInKilometers", near(52.52, 13.405, "$maxDistance", 0.1, "$maxDistanceInKilometers", 10000), nil, ordered},
		{"$maxDistance a few metres short of Berlin", near(48.8566, 2.3522, "$maxDistance", justShort), nil, ordered},
		{"$maxDistance a few metres beyond Berlin", near(48.8566, 2.3522, "$maxDistance", justOver), nil, ordered},
		{"$centerSphere a few metres short of Berlin", loc("$geoWithin", map[string]any{"$centerSphere": []any{gp(48.8566, 2.3522), justShort}}), nil, some},
		{"$centerSphere a few metres beyond Berlin", loc("$geoWithin", map[string]any{"$centerSphere": []any{gp(48.8566, 2.3522), justOver}}), nil, some},
		{"$maxDistance 0 at a city", near(48.8566, 2.3522, "$maxDistance", 0), nil, some},
		{"$maxDistance null is 0", near(48.8566, 2.3522, "$maxDistance", nil), nil, some},
		{"$maxDistance negative", near(48.8566, 2.3522, "$maxDistance", -1), nil, none},
		{"near inside $and only filters", map[string]any{"$and": []any{near(52.52, 13.405, "$maxDistance", 0.2)}}, map[string]any{"order": "name"}, ordered},
		{"near inside $or only filters", map[string]any{"$or": []any{near(35.6762, 139.6503, "$maxDistance", 1), map[string]any{"name": "oslo"}}}, map[string]any{"order": "-name"}, ordered},
		{"near inside $or, no order", map[string]any{"$or": []any{near(35.6762, 139.6503, "$maxDistance", 1)}}, nil, some},
		{"near inside $nor", map[string]any{"$nor": []any{near(52.52, 13.405, "$maxDistance", 0.5)}}, nil, some},
		{"near an empty object matches nothing", loc("$nearSphere", map[string]any{}), nil, none},
		{"near a string matches nothing", loc("$nearSphere", "x"), nil, none},
		{"near a [lng, lat] pair matches nothing", loc("$nearSphere", []any{13.405, 52.52}), nil, none},
		{"near a point without __type", loc("$nearSphere", map[string]any{"latitude": 1.0, "longitude": 2.0}), nil, ordered},
		// $within $box
		{"box over Europe", box(35, -10, 60, 25), nil, some},
		{"box with swapped corners", box(60, 25, 35, -10), nil, some},
		{"box 'across' the antimeridian is the band between", box(-40, 170, -10, -170), nil, some},
		{"box beyond the range", box(-100, -200, 100, 200), nil, some},
		{"box of GeoPoints without __type", loc("$within", map[string]any{"$box": []any{map[string]any{"latitude": -40.0, "longitude": 100.0}, map[string]any{"latitude": 0.0, "longitude": 180.0}}}), nil, some},
		{"box and $exists", map[string]any{"loc": map[string]any{"$within": map[string]any{"$box": []any{gp(35, -10), gp(60, 25)}}, "$exists": true}}, nil, some},
		{"$nor box: a missing GeoPoint is NULL, and NOT NULL matches nothing", map[string]any{"$nor": []any{box(35, -10, 60, 25)}}, nil, some},
		{"$nor box and $exists: FALSE, not NULL", map[string]any{"$nor": []any{map[string]any{"loc": map[string]any{"$within": map[string]any{"$box": []any{gp(35, -10), gp(60, 25)}}, "$exists": true}}}}, nil, some},
		{"$nor of box or a name", map[string]any{"$nor": []any{map[string]any{"$or": []any{box(35, -10, 60, 25), map[string]any{"name": "tokyo"}}}}}, nil, some},
		{"$nor of $nor", map[string]any{"$nor": []any{map[string]any{"$nor": []any{box(35, -10, 60, 25)}}}}, nil, some},
		// $geoWithin $polygon
		{"polygon of GeoPoints", loc("$geoWithin", map[string]any{"$polygon": []any{gp(30, -20), gp(70, -20), gp(45, 40)}}), nil, some},
		{"polygon of [lng, lat] pairs", loc("$geoWithin", map[string]any{"$polygon": []any{[]any{-80.0, -10.0}, []any{-30.0, -10.0}, []any{-30.0, 5.0}, []any{-80.0, 5.0}}}), nil, some},
		{"polygon as a Polygon, read as [lng, lat]", loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "Polygon", "coordinates": []any{[]any{100.0, -40.0}, []any{180.0, -40.0}, []any{180.0, 0.0}, []any{100.0, 0.0}}}}), nil, some},
		{"polygon as a Polygon of [lat, lng] pairs is read the server's way", loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "Polygon", "coordinates": []any{[]any{30.0, -20.0}, []any{70.0, -20.0}, []any{45.0, 40.0}}}}), nil, some},
		{"star polygon: the middle is inside (non-zero winding)", loc("$geoWithin", map[string]any{"$polygon": pairs(star(13.405, 52.52, 3))}), nil, some},
		{"concave polygon", loc("$geoWithin", map[string]any{"$polygon": pairs([][2]float64{{-30, 30}, {40, 30}, {40, 70}, {15, 70}, {15, 45}, {-30, 45}})}), nil, some},
		// $geoWithin $centerSphere
		{"centerSphere of a pair", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{13.405, 52.52}, 0.1}}), nil, some},
		{"centerSphere of a GeoPoint", loc("$geoWithin", map[string]any{"$centerSphere": []any{gp(48.8566, 2.3522), 0.2}}), nil, some},
		{"centerSphere radius null is 0", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{2.3522, 48.8566}, nil}}), nil, some},
		{"centerSphere across the antimeridian", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{-179.5, -16.0}, 0.15}}), nil, some},
		{"centerSphere and polygon", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{13.405, 52.52}, 0.2}, "$polygon": []any{gp(45, 0), gp(60, 0), gp(60, 15), gp(45, 15)}}), nil, some},
		{"$or of box and centerSphere", map[string]any{"$or": []any{box(-40, 100, 0, 180), loc("$geoWithin", map[string]any{"$centerSphere": []any{gp(40, -74), 0.1}})}}, nil, some},
		// $geoIntersects on the Polygon field
		{"intersects the alps", intersects(47, 10), nil, some},
		{"intersects the middle of the star", intersects(10, 20), nil, some},
		{"intersects a star's tip", intersects(10, 27), nil, some},
		{"misses between two tips", intersects(19, 20), nil, none},
		{"intersects the L", intersects(51, 14), nil, some},
		{"misses the L's notch", intersects(53, 14), nil, none},
		{"intersects the big box", intersects(0, 0), nil, some},
		{"intersects nothing", intersects(80, 80), nil, none},
		{"intersects and near", map[string]any{"area": map[string]any{"$geoIntersects": map[string]any{"$point": gp(51, 14)}}, "loc": map[string]any{"$nearSphere": gp(0, 0)}}, nil, some},
		// What the server refuses.
		{"near null", loc("$nearSphere", nil), nil, refused},
		{"$maxDistance alone", loc("$maxDistance", 1), nil, refused},
		{"$maxDistanceInKilometers alone", loc("$maxDistanceInKilometers", 1), nil, refused},
		{"near on a String field", map[string]any{"name": map[string]any{"$nearSphere": gp(1, 2)}}, nil, refused},
		{"near on a Date field", map[string]any{"createdAt": map[string]any{"$nearSphere": gp(1, 2)}}, nil, refused},
		{"$within without $box", loc("$within", map[string]any{}), nil, refused},
		{"$box of one point", loc("$within", map[string]any{"$box": []any{gp(1, 2)}}), nil, refused},
		{"$box not an array", loc("$within", map[string]any{"$box": map[string]any{"a": 1}}), nil, refused},
		{"$box corner without coordinates", loc("$within", map[string]any{"$box": []any{map[string]any{}, gp(1, 2)}}), nil, refused},
		{"$box with a text coordinate", loc("$within", map[string]any{"$box": []any{map[string]any{"latitude": "x", "longitude": 1.0}, gp(1, 2)}}), nil, refused},
		{"$box on a String field", map[string]any{"name": map[string]any{"$within": map[string]any{"$box": []any{gp(0, 0), gp(1, 1)}}}}, nil, refused},
		{"$geoWithin without an operator", loc("$geoWithin", map[string]any{}), nil, refused},
		{"$geoWithin $box", loc("$geoWithin", map[string]any{"$box": []any{gp(0, 0), gp(1, 1)}}), nil, refused},
		{"$polygon of two points", loc("$geoWithin", map[string]any{"$polygon": []any{gp(0, 0), gp(1, 1)}}), nil, refused},
		{"$polygon with a short pair", loc("$geoWithin", map[string]any{"$polygon": []any{[]any{0.0, 0.0}, []any{30.0, 0.0}, []any{30.0}}}), nil, refused},
		{"$polygon with a GeoPoint without __type", loc("$geoWithin", map[string]any{"$polygon": []any{[]any{0.0, 0.0}, []any{30.0, 0.0}, map[string]any{"latitude": 1.0, "longitude": 2.0}}}), nil, refused},
		{"$polygon with a text coordinate", loc("$geoWithin", map[string]any{"$polygon": []any{[]any{0.0, 0.0}, []any{30.0, 0.0}, []any{"30", 15.0}}}), nil, refused},
		{"$polygon a string", loc("$geoWithin", map[string]any{"$polygon": "abc"}), nil, refused},
		{"$polygon a Polygon of two pairs", loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "Polygon", "coordinates": []any{[]any{0.0, 0.0}, []any{1.0, 1.0}}}}), nil, refused},
		{"$polygon a Polygon out of range", loc("$geoWithin", map[string]any{"$polygon": map[string]any{"__type": "Polygon", "coordinates": []any{[]any{0.0, 0.0}, []any{0.0, 100.0}, []any{15.0, 30.0}}}}), nil, refused},
		{"$centerSphere negative", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{20.0, 10.0}, -1.0}}), nil, refused},
		{"$centerSphere without the distance", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{20.0, 10.0}}}), nil, refused},
		{"$centerSphere text distance", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{20.0, 10.0}, "x"}}), nil, refused},
		{"$centerSphere GeoPoint without __type", loc("$geoWithin", map[string]any{"$centerSphere": []any{map[string]any{"latitude": 10.0, "longitude": 20.0}, 0.1}}), nil, refused},
		{"$centerSphere point out of range", loc("$geoWithin", map[string]any{"$centerSphere": []any{[]any{20.0, 100.0}, 0.1}}), nil, refused},
		{"$centerSphere not an array", loc("$geoWithin", map[string]any{"$centerSphere": map[string]any{"a": 1}}), nil, refused},
		{"$geoIntersects without $point", map[string]any{"area": map[string]any{"$geoIntersects": map[string]any{}}}, nil, refused},
		{"$geoIntersects point without __type", map[string]any{"area": map[string]any{"$geoIntersects": map[string]any{"$point": map[string]any{"latitude": 5.0, "longitude": 3.0}}}}, nil, refused},
		{"$geoIntersects point out of range", intersects(95, 3), nil, refused},
		{"$geoIntersects on the GeoPoint field", loc("$geoIntersects", map[string]any{"$point": gp(5, 3)}), nil, refused},
		{"$geoIntersects on a String field", map[string]any{"name": map[string]any{"$geoIntersects": map[string]any{"$point": gp(5, 3)}}}, nil, refused},
	}
	// Names both answers must hold, and names neither may hold ("" for none), for the cases that test a point.
	marks := map[string][2]string{
		"$maxDistance a few metres short of Berlin":             {"paris", "berlin"},
		"$maxDistance a few metres beyond Berlin":               {"berlin", ""},
		"$centerSphere a few metres short of Berlin":            {"paris", "berlin"},
		"$centerSphere a few metres beyond Berlin":              {"berlin", ""},
		"box 'across' the antimeridian is the band between":     {"sydney", "suva"},
		"star polygon: the middle is inside (non-zero winding)": {"berlin", ""},
		"intersects the middle of the star":                     {"starfield", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			params := map[string]any{"where": tc.where, "count": 1}
			for k, v := range tc.extra {
				params[k] = v
			}
			req := &parse.QueryRequest{ClassName: class, Params: params}
			rr, rerr := c.RunQuery(ctx, req)
			lr, lerr := s.RunQuery(ctx, req)
			if tc.want == refused {
				require.Error(t, rerr, "the server accepted %v", tc.where)
				assert.Error(t, lerr, "server refused %v (%v): the store must too", tc.where, rerr)
				return
			}
			require.NoError(t, rerr, "server: %v", tc.where)
			require.NoError(t, lerr, "store: %v", tc.where)
			remote, local := rawIDs(t, rr.Results), objectIDs(lr.Objects)
			named := func(ids []string) []string {
				out := make([]string, len(ids))
				for i, id := range ids {
					out[i] = names[id]
				}
				return out
			}
			assert.Equal(t, rr.Count, lr.Count, "count for %v", tc.where)
			switch tc.want {
			case ordered:
				require.GreaterOrEqual(t, len(remote), 2, "an ordered case needs two results at least")
				assert.Equal(t, named(remote), named(local), "order for %v", tc.where)
			case none:
				assert.Empty(t, remote, "server")
				assert.Empty(t, local, "store")
			default:
				require.NotEmpty(t, remote, "the case should match something")
				assert.ElementsMatch(t, named(remote), named(local), "where %v", tc.where)
			}
			if in := marks[tc.name][0]; in != "" {
				assert.Contains(t, named(remote), in, "server")
				assert.Contains(t, named(local), in, "store")
			}
			if out := marks[tc.name][1]; out != "" {
				assert.NotContains(t, named(remote), out, "server")
				assert.NotContains(t, named(local), out, "store")
			}
		})
	}

	// The query package's geo builders, run on both.
	berlin, _ := parse.NewGeoPoint(52.52, 13.405)
	q := func() *query.Query[Obj] { return query.New[Obj](class) }
	sw, _ := parse.NewGeoPoint(35, -10)
	ne, _ := parse.NewGeoPoint(60, 25)
	p1, _ := parse.NewGeoPoint(30, -20)
	p2, _ := parse.NewGeoPoint(70, -20)
	p3, _ := parse.NewGeoPoint(45, 40)
	inL, _ := parse.NewGeoPoint(51, 14)
	for name, bq := range map[string]struct {
		q       *query.Query[Obj]
		ordered bool
	}{
		"Near":                        {q().Near("loc", berlin).Limit(10), true},
		"WithinKilometers sorted":     {q().WithinKilometers("loc", berlin, 1500, true), true},
		"WithinKilometers not sorted": {q().WithinKilometers("loc", berlin, 1500, false), false},
		"WithinMiles sorted":          {q().WithinMiles("loc", berlin, 2000, true).Descending("name"), true},
		"WithinRadians not sorted":    {q().WithinRadians("loc", berlin, 0.3, false).Ascending("name"), true},
		"WithinGeoBox":                {q().WithinGeoBox("loc", sw, ne).Ascending("name"), true},
		"WithinPolygon":               {q().WithinPolygon("loc", p1, p2, p3), false},
		"PolygonContains":             {q().PolygonContains("area", inL), false},
	} {
		t.Run("builder "+name, func(t *testing.T) {
			t.Parallel()
			remote, rn, err := bq.q.FindWithCount(ctx, c)
			require.NoError(t, err, "server")
			local, ln, err := bq.q.FindWithCount(ctx, s)
			require.NoError(t, err, "store")
			require.NotEmpty(t, remote)
			assert.Equal(t, rn, ln)
			if bq.ordered {
				assert.Equal(t, ids(t, remote), ids(t, local))
			} else {
				assert.ElementsMatch(t, ids(t, remote), ids(t, local))
			}
		})
	}
}
