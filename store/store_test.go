package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

type Obj = *parse.Object

// backends runs a test against a store in memory and one on disk.
func backends(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Run("memory", func(t *testing.T) {
		s := store.NewMemory(store.Config{})
		defer s.Close()
		fn(t, s)
	})
	t.Run("bbolt", func(t *testing.T) {
		s, err := store.Open(filepath.Join(t.TempDir(), "lds.db"), store.Config{AppID: "app"})
		require.NoError(t, err)
		defer s.Close()
		fn(t, s)
	})
}

func serverObject(t testing.TB, class, id string, fields map[string]any) *parse.Object {
	t.Helper()
	m := map[string]any{"objectId": id, "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	o := parse.NewObject(class)
	require.NoError(t, json.Unmarshal(b, o))
	return o
}

func ids(t *testing.T, objs []Obj) []string {
	t.Helper()
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.ID()
		if out[i] == "" {
			out[i] = o.LocalID()
		}
	}
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); sort.Strings(s); return s }

func TestKeys(t *testing.T) {
	assert.Equal(t, "Parse_LDS_GameScore_abc", store.ObjectKey("GameScore", "abc"))
	assert.Equal(t, "Parse_LDS__User_u1", store.ObjectKey("_User", "u1"))
	assert.Equal(t, "_default", store.PinKey(""))
	assert.Equal(t, "_default", store.PinKey("_default"))
	assert.Equal(t, "Parse_LDS_PIN_favs", store.PinKey("favs"))
	id := store.NewLocalID()
	assert.True(t, store.IsLocalID(id))
	assert.Len(t, id, len("local")+16)
	assert.NotEqual(t, id, store.NewLocalID())
}

func TestPinUnpin(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a := serverObject(t, "Game", "a1", map[string]any{"score": 1})
		b := serverObject(t, "Game", "b2", map[string]any{"score": 2})
		c := serverObject(t, "Other", "c3", map[string]any{"score": 3})
		require.NoError(t, s.Pin(ctx, a, b))
		require.NoError(t, s.PinWithName(ctx, "favs", b, c))

		keys, err := s.PinnedKeys(ctx, "")
		require.NoError(t, err)
		assert.Equal(t, []string{"Parse_LDS_Game_a1", "Parse_LDS_Game_b2"}, keys)
		keys, err = s.PinnedKeys(ctx, "favs")
		require.NoError(t, err)
		assert.Equal(t, []string{"Parse_LDS_Game_b2", "Parse_LDS_Other_c3"}, keys)
		names, err := s.PinNames(ctx)
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"_default", "favs"}, names)

		got, err := s.Get(ctx, "Game", "b2")
		require.NoError(t, err)
		assert.Equal(t, float64(2), got.Get("score"))
		assert.Equal(t, "Game", got.ClassName())

		// b is in two pins: unpinning it from one keeps it.
		require.NoError(t, s.Unpin(ctx, b))
		_, err = s.Get(ctx, "Game", "b2")
		require.NoError(t, err)
		require.NoError(t, s.UnpinWithName(ctx, "favs", b))
		_, err = s.Get(ctx, "Game", "b2")
		assert.ErrorIs(t, err, store.ErrNotFound)

		// Query by class sees only the class's objects, and FromPin only the pin's.
		all, err := query.New[Obj]("Game").Find(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, []string{"a1"}, ids(t, all))
		fav, err := query.New[Obj]("Other").Find(ctx, s.FromPin("favs"))
		require.NoError(t, err)
		assert.Equal(t, []string{"c3"}, ids(t, fav))
		none, err := query.New[Obj]("Game").Find(ctx, s.FromPin("favs"))
		require.NoError(t, err)
		assert.Empty(t, none)

		require.NoError(t, s.UnpinAllWithName(ctx, "favs"))
		_, err = s.Get(ctx, "Other", "c3")
		assert.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, s.UnpinAll(ctx))
		_, err = s.Get(ctx, "Game", "a1")
		assert.ErrorIs(t, err, store.ErrNotFound)
		names, err = s.PinNames(ctx)
		require.NoError(t, err)
		assert.Empty(t, names)

		require.NoError(t, s.PinWithName(ctx, "x", a, c))
		require.NoError(t, s.SaveLocal(ctx, parse.NewObject("Draft")))
		require.NoError(t, s.Clear(ctx))
		for _, cl := range []string{"Game", "Other", "Draft"} {
			n, err := query.New[Obj](cl).Count(ctx, s)
			require.NoError(t, err)
			assert.Zero(t, n, cl)
		}
		p, err := s.Pending(ctx)
		require.NoError(t, err)
		assert.Empty(t, p)
	})
}

func TestPinReplacesAndPinsChildren(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := serverObject(t, "Owner", "o1", map[string]any{"name": "own"})
		game := serverObject(t, "Game", "g1", map[string]any{"score": 5})
		game.Set("owner", owner)
		require.NoError(t, s.Pin(ctx, game))
		got, err := s.Get(ctx, "Owner", "o1")
		require.NoError(t, err, "the nested object is pinned too")
		assert.Equal(t, "own", got.String("name"))

		game.Set("score", 6)
		require.NoError(t, s.Pin(ctx, game))
		g, err := s.Get(ctx, "Game", "g1")
		require.NoError(t, err)
		assert.Equal(t, float64(6), g.Get("score"))
		n, err := query.New[Obj]("Game").Count(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, 1, n)

		// include resolves the pointer from the store.
		res, err := s.RunQuery(ctx, &parse.QueryRequest{ClassName: "Game", Params: map[string]any{"include": "owner"}})
		require.NoError(t, err)
		require.Len(t, res.Objects, 1)
		owner, ok := res.Objects[0].Get("owner").(*parse.Object)
		require.True(t, ok, "owner is %T", res.Objects[0].Get("owner"))
		assert.Equal(t, "own", owner.Get("name"))
	})
}

func TestLocalIDs(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		o := parse.NewObject("Draft")
		o.Set("title", "offline")
		require.NoError(t, s.Pin(ctx, o))
		require.True(t, store.IsLocalID(o.LocalID()), "pin gives an unsaved object a local id: %q", o.LocalID())
		got, err := s.Get(ctx, "Draft", o.LocalID())
		require.NoError(t, err)
		assert.Equal(t, o.LocalID(), got.LocalID())
		assert.Empty(t, got.ID())
		found, err := query.New[Obj]("Draft").EqualTo("title", "offline").Find(ctx, s)
		require.NoError(t, err)
		require.Len(t, found, 1)
		assert.Equal(t, o.LocalID(), found[0].LocalID())
		byID, err := query.New[Obj]("Draft").EqualTo("objectId", o.LocalID()).Find(ctx, s)
		require.NoError(t, err)
		assert.Len(t, byID, 1, "a local id is the object's id in local queries")

		// Saved elsewhere (it now has a server id): pinning again moves it, keeping its pins.
		require.NoError(t, s.PinWithName(ctx, "drafts", o))
		o.SetID("srv1")
		require.NoError(t, s.Pin(ctx, o))
		_, err = s.Get(ctx, "Draft", o.LocalID())
		assert.ErrorIs(t, err, store.ErrNotFound)
		keys, err := s.PinnedKeys(ctx, "drafts")
		require.NoError(t, err)
		assert.Equal(t, []string{"Parse_LDS_Draft_srv1"}, keys)
		n, err := query.New[Obj]("Draft").Count(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
	})
}

// dataset is shared by the operator tests (and mirrored on the server by the integration test).
func dataset(t testing.TB, class string) []*parse.Object {
	d := func(s string) map[string]any { return map[string]any{"__type": "Date", "iso": s} }
	rows := []map[string]any{
		{"objectId": "r1", "name": "apple", "score": 10, "tags": []any{"red", "fruit"}, "when": d("2026-01-01T00:00:00.000Z"), "ok": true, "meta": map[string]any{"lvl": 1}},
		{"objectId": "r2", "name": "Banana", "score": 20, "tags": []any{"yellow", "fruit"}, "when": d("2026-02-01T00:00:00.000Z"), "ok": false, "meta": map[string]any{"lvl": 2}},
		{"objectId": "r3", "name": "cherry pie", "score": 30, "tags": []any{"red"}, "when": d("2026-03-01T00:00:00.000Z"), "meta": map[string]any{"lvl": 3}},
		{"objectId": "r4", "name": "line1\nline2", "score": 40, "ok": true},
		{"objectId": "r5", "name": "a.b*c", "score": 20, "tags": []any{"blue"}},
		{"objectId": "r6", "score": 5},
	}
	out := make([]*parse.Object, len(rows))
	for i, r := range rows {
		id := r["objectId"].(string)
		delete(r, "objectId")
		out[i] = serverObject(t, class, id, r)
	}
	return out
}

func same(s string) string { return s }

type qcase struct {
	name string
	q    *query.Query[Obj]
	want []string // nil: compare as a set with wantSet
	set  []string
}

// cases are the queries run locally (and, in the integration test, on the server too); id maps the dataset's
// names (r1...) to object ids.
func cases(class string, id func(string) string) []qcase {
	q := func() *query.Query[Obj] { return query.New[Obj](class) }
	when := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	return []qcase{
		{name: "equal", q: q().EqualTo("name", "apple"), set: []string{"r1"}},
		{name: "equal number", q: q().EqualTo("score", 20), set: []string{"r2", "r5"}},
		{name: "equal bool", q: q().EqualTo("ok", true), set: []string{"r1", "r4"}},
		{name: "not equal (missing matches)", q: q().NotEqualTo("ok", true), set: []string{"r2", "r3", "r5", "r6"}},
		{name: "lt", q: q().LessThan("score", 20), set: []string{"r1", "r6"}},
		{name: "lte", q: q().LessThanOrEqualTo("score", 20), set: []string{"r1", "r2", "r5", "r6"}},
		{name: "gt gte", q: q().GreaterThan("score", 10).LessThanOrEqualTo("score", 30), set: []string{"r2", "r3", "r5"}},
		{name: "string range", q: q().GreaterThanOrEqualTo("name", "b"), set: []string{"r3", "r4"}},
		{name: "date", q: q().GreaterThan("when", when("2026-01-15T00:00:00Z")), set: []string{"r2", "r3"}},
		{name: "date equal", q: q().EqualTo("when", when("2026-02-01T00:00:00Z")), set: []string{"r2"}},
		{name: "in", q: q().ContainedIn("score", []int{5, 30, 99}), set: []string{"r3", "r6"}},
		{name: "nin (missing does not match)", q: q().NotContainedIn("name", []string{"apple"}), set: []string{"r2", "r3", "r4", "r5"}},
		{name: "exists", q: q().Exists("tags"), set: []string{"r1", "r2", "r3", "r5"}},
		{name: "does not exist", q: q().DoesNotExist("name"), set: []string{"r6"}},
		{name: "regex", q: q().Matches("name", "^[ab]", ""), set: []string{"r1", "r5"}},
		{name: "regex i", q: q().Matches("name", "^b", "i"), set: []string{"r2"}},
		{name: "regex x", q: q().Matches("name", "ch erry # a comment", "x"), set: []string{"r3"}},
		{name: "regex dot matches newline", q: q().Matches("name", "line1.line2", ""), set: []string{"r4"}},
		{name: "regex anchors whole string", q: q().Matches("name", "^line2", "m"), set: []string{}},
		{name: "starts with", q: q().StartsWith("name", "a.b"), set: []string{"r5"}},
		{name: "starts with is literal", q: q().StartsWith("name", "a."), set: []string{"r5"}},
		{name: "ends with", q: q().EndsWith("name", "pie"), set: []string{"r3"}},
		{name: "contains literal star", q: q().Contains("name", "b*c"), set: []string{"r5"}},
		{name: "all", q: q().ContainsAll("tags", []string{"red", "fruit"}), set: []string{"r1"}},
		{name: "all starting with", q: q().ContainsAllStartingWith("tags", "ye", "fr"), set: []string{"r2"}},
		{name: "or", q: query.Or(q().EqualTo("score", 10), q().EqualTo("score", 40)), set: []string{"r1", "r4"}},
		{name: "and", q: query.And(q().GreaterThan("score", 5), q().LessThan("score", 30)), set: []string{"r1", "r2", "r5"}},
		{name: "nor", q: query.Nor(q().EqualTo("score", 20), q().Exists("tags")), set: []string{"r4", "r6"}},
		{name: "dotted key", q: q().GreaterThanOrEqualTo("meta.lvl", 2), set: []string{"r2", "r3"}},
		{name: "order asc, byte order of strings", q: q().Ascending("score", "name").Limit(3), want: []string{"r6", "r1", "r2"}},
		{name: "order desc missing first", q: q().Descending("name").Limit(2), want: []string{"r6", "r4"}},
		{name: "order asc missing last", q: q().Ascending("ok", "score"), want: []string{"r2", "r1", "r4", "r6", "r5", "r3"}},
		{name: "multi key desc", q: q().Descending("score").AddAscending("name"), want: []string{"r4", "r3", "r2", "r5", "r1", "r6"}},
		{name: "skip limit", q: q().Ascending("score", "name").Skip(2).Limit(2), want: []string{"r2", "r5"}},
		{name: "objectId in", q: q().ContainedIn("objectId", []string{id("r2"), id("r4"), "zz"}), set: []string{"r2", "r4"}},
	}
}

func TestQueryOperators(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		require.NoError(t, s.Pin(ctx, dataset(t, "Fruit")...))
		for _, c := range cases("Fruit", same) {
			t.Run(c.name, func(t *testing.T) {
				got, err := c.q.Find(ctx, s)
				require.NoError(t, err, c.q.String())
				if c.want != nil {
					assert.Equal(t, c.want, ids(t, got), c.q.String())
				} else {
					assert.Equal(t, sorted(c.set), sorted(ids(t, got)), c.q.String())
				}
			})
		}
	})
}

func TestCountKeysLimit(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		require.NoError(t, s.Pin(ctx, dataset(t, "Fruit")...))
		got, n, err := query.New[Obj]("Fruit").GreaterThan("score", 5).Ascending("score").Limit(2).FindWithCount(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, 5, n)
		assert.Equal(t, []string{"r1", "r2"}, ids(t, got))

		cnt, err := query.New[Obj]("Fruit").Count(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, 6, cnt)

		res, err := s.RunQuery(ctx, &parse.QueryRequest{ClassName: "Fruit", Params: map[string]any{
			"where": map[string]any{"objectId": "r1"}, "keys": "score"}})
		require.NoError(t, err)
		require.Len(t, res.Objects, 1)
		raw, err := json.Marshal(res.Objects[0])
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		delete(m, "__type")
		delete(m, "className")
		assert.ElementsMatch(t, []string{"objectId", "createdAt", "updatedAt", "score"}, slices.Collect(mapsKeys(m)))

		// The server's default limit is 100: so is the store's.
		var many []*parse.Object
		for i := range 150 {
			many = append(many, serverObject(t, "Many", fmt.Sprintf("m%03d", i), map[string]any{"i": i}))
		}
		require.NoError(t, s.Pin(ctx, many...))
		all, err := query.New[Obj]("Many").Find(ctx, s)
		require.NoError(t, err)
		assert.Len(t, all, 100)
		all, err = query.New[Obj]("Many").Limit(1000).Find(ctx, s)
		require.NoError(t, err)
		assert.Len(t, all, 150)
	})
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestUnsupportedOperatorsAreErrors(t *testing.T) {
	s := store.NewMemory(store.Config{})
	defer s.Close()
	ctx := context.Background()
	for name, q := range map[string]*query.Query[Obj]{
		"fulltext":  query.New[Obj]("X").FullText("name", "hello"),
		"inQuery":   query.New[Obj]("X").MatchesQuery("p", query.New[Obj]("Y")),
		"relatedTo": query.New[Obj]("X").RelatedTo(parse.Pointer{ClassName: "Y", ObjectID: "y"}, "rel"),
	} {
		_, err := q.Find(ctx, s)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, store.ErrUnsupportedQuery, name)
	}
	_, err := s.RunQuery(ctx, &parse.QueryRequest{ClassName: "X", Params: map[string]any{"where": map[string]any{"a": map[string]any{"$bogus": 1}}}})
	require.ErrorIs(t, err, store.ErrUnsupportedQuery)
	assert.Contains(t, err.Error(), "$bogus")
	_, err = s.RunQuery(ctx, &parse.QueryRequest{ClassName: "X", Op: query.OpAggregate})
	assert.ErrorIs(t, err, store.ErrUnsupportedQuery)
	_, err = s.RunQuery(ctx, &parse.QueryRequest{ClassName: "X", Params: map[string]any{"where": map[string]any{"a": map[string]any{"$regex": "("}}}})
	assert.ErrorContains(t, err, "bad $regex")
}

func TestRestartKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lds.db")
	s, err := store.Open(path, store.Config{AppID: "app"})
	require.NoError(t, err)
	require.NoError(t, s.Pin(ctx, dataset(t, "Fruit")...))
	require.NoError(t, s.PinWithName(ctx, "favs", serverObject(t, "Fruit", "r3", map[string]any{"name": "cherry pie", "score": 30, "tags": []any{"red"}})))
	local := parse.NewObject("Draft")
	local.Set("n", 1)
	require.NoError(t, s.SaveLocal(ctx, local))

	answers := func(s *store.Store) []string {
		var out []string
		for _, c := range cases("Fruit", same) {
			got, err := c.q.Find(ctx, s)
			require.NoError(t, err)
			out = append(out, fmt.Sprint(ids(t, got)))
		}
		keys, err := s.PinnedKeys(ctx, "favs")
		require.NoError(t, err)
		pending, err := s.Pending(ctx)
		require.NoError(t, err)
		return append(out, fmt.Sprint(keys), fmt.Sprint(pending))
	}
	before := answers(s)
	require.NoError(t, s.Close())
	_, err = s.Get(ctx, "Fruit", "r1")
	require.ErrorIs(t, err, store.ErrNotEnabled)

	s2, err := store.Open(path, store.Config{AppID: "app"})
	require.NoError(t, err)
	defer s2.Close()
	assert.Equal(t, before, answers(s2))
	assert.Contains(t, before[len(before)-1], "Parse_LDS_Draft_local")
}

func fileSum(t *testing.T, path string) [32]byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

func TestCorruptAndForeignFilesAreRefusedUntouched(t *testing.T) {
	dir := t.TempDir()

	garbage := filepath.Join(dir, "garbage.db")
	require.NoError(t, os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 1000), 0o600))
	// A file with bbolt's magic number in place but garbage after it.
	fake := filepath.Join(dir, "fake.db")
	hdr := make([]byte, 8192)
	copy(hdr[16:], []byte{0xED, 0xDA, 0x0C, 0xED})
	require.NoError(t, os.WriteFile(fake, hdr, 0o600))

	foreign := filepath.Join(dir, "foreign.db")
	db, err := bolt.Open(foreign, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("settings"))
		if err != nil {
			return err
		}
		return b.Put([]byte("theme"), []byte("dark"))
	}))
	require.NoError(t, db.Close())

	otherApp := filepath.Join(dir, "other.db")
	s, err := store.Open(otherApp, store.Config{AppID: "appA"})
	require.NoError(t, err)
	require.NoError(t, s.Pin(context.Background(), serverObject(t, "Game", "g1", map[string]any{"score": 1})))
	require.NoError(t, s.Close())

	for _, tc := range []struct{ name, path, msg string }{
		{"garbage", garbage, "not a bbolt file"},
		{"fake header", fake, "not a moralis-go store"},
		{"bbolt of another program", foreign, "another program"},
		{"store of another app", otherApp, `belongs to application "appA"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fileSum(t, tc.path)
			st, err := store.Open(tc.path, store.Config{AppID: "appB"})
			require.Error(t, err)
			assert.Nil(t, st)
			assert.ErrorIs(t, err, store.ErrForeignFile)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, before, fileSum(t, tc.path), "the file is unchanged")
		})
	}

	// The other app's store still opens for its own app, with its data.
	s, err = store.Open(otherApp, store.Config{AppID: "appA"})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Get(context.Background(), "Game", "g1")
	assert.NoError(t, err)

	_, err = store.Open(dir, store.Config{})
	assert.ErrorContains(t, err, "is a directory")
	_, err = store.Open("", store.Config{})
	assert.Error(t, err)
}

func TestSecondProcessLockTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lds.db")
	s, err := store.Open(path, store.Config{})
	require.NoError(t, err)
	defer s.Close()
	start := time.Now()
	_, err = store.Open(path, store.Config{LockTimeout: 200 * time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in use by another process")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestNotEnabled(t *testing.T) {
	ctx := context.Background()
	var nilStore *store.Store
	err := nilStore.Pin(ctx, serverObject(t, "A", "a", nil))
	require.ErrorIs(t, err, store.ErrNotEnabled)
	assert.Contains(t, err.Error(), "Parse.enableLocalDatastore() must be called first")
	_, err = nilStore.Sync(ctx, fakeRunner{})
	assert.ErrorIs(t, err, store.ErrNotEnabled)
	_, err = nilStore.RunQuery(ctx, &parse.QueryRequest{ClassName: "A"})
	assert.ErrorIs(t, err, store.ErrNotEnabled)

	var logs bytes.Buffer
	s := store.NewMemory(store.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, err = s.Sync(ctx, fakeRunner{})
	assert.ErrorIs(t, err, store.ErrNotEnabled)
	_, err = s.RunQuery(ctx, &parse.QueryRequest{ClassName: "A"})
	assert.ErrorIs(t, err, store.ErrNotEnabled)
	assert.Contains(t, logs.String(), "local datastore is not enabled", "the spec's warning is logged")
}

type fakeRunner struct {
	fn func(*parse.QueryRequest) (*parse.QueryResponse, error)
}

func (f fakeRunner) RunQuery(_ context.Context, r *parse.QueryRequest) (*parse.QueryResponse, error) {
	if f.fn == nil {
		return &parse.QueryResponse{}, nil
	}
	return f.fn(r)
}

func TestSyncQueriesByIDsUpdatesAndKeepsTheRest(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		require.NoError(t, s.Pin(ctx,
			serverObject(t, "Game", "keep", map[string]any{"score": 1}),
			serverObject(t, "Game", "gone", map[string]any{"score": 2}),
			serverObject(t, "Card", "c1", map[string]any{"v": "x"})))
		draft := parse.NewObject("Game")
		draft.Set("score", 99)
		require.NoError(t, s.Pin(ctx, draft))

		var reqs []*parse.QueryRequest
		var mu sync.Mutex
		runner := fakeRunner{fn: func(r *parse.QueryRequest) (*parse.QueryResponse, error) {
			mu.Lock()
			reqs = append(reqs, r)
			mu.Unlock()
			var res []json.RawMessage
			switch r.ClassName {
			case "Game":
				res = append(res, json.RawMessage(`{"objectId":"keep","score":100,"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-05-01T00:00:00.000Z"}`))
			case "Card":
				res = append(res, json.RawMessage(`{"objectId":"c1","v":"y","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-05-01T00:00:00.000Z"}`))
			}
			return &parse.QueryResponse{Results: res}, nil
		}}
		res, err := s.Sync(ctx, runner)
		require.NoError(t, err)
		assert.Equal(t, store.SyncResult{Updated: 2, NotReturned: []string{store.ObjectKey("Game", "gone")}, Skipped: 1}, res)

		require.Len(t, reqs, 2)
		for _, r := range reqs {
			in := r.Params["where"].(map[string]any)["objectId"].(map[string]any)["$in"].([]any)
			assert.Equal(t, len(in), r.Params["limit"], "limit equals the number of ids")
			for _, id := range in {
				assert.False(t, store.IsLocalID(id.(string)), "local ids are not sent")
			}
			if r.ClassName == "Game" {
				assert.ElementsMatch(t, []any{"keep", "gone"}, in)
			}
		}
		got, err := s.Get(ctx, "Game", "keep")
		require.NoError(t, err)
		assert.Equal(t, float64(100), got.Get("score"))
		gone, err := s.Get(ctx, "Game", "gone")
		require.NoError(t, err, "a copy the server did not return is never dropped")
		assert.Equal(t, float64(2), gone.Get("score"), "and is left as it was")
		_, err = s.Get(ctx, "Game", draft.LocalID())
		assert.NoError(t, err, "the local object is kept")
		n, err := query.New[Obj]("Game").GreaterThan("score", 50).Count(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, 2, n, "queries see the synced values")

		// A failing query changes nothing.
		_, err = s.Sync(ctx, fakeRunner{fn: func(*parse.QueryRequest) (*parse.QueryResponse, error) { return nil, errors.New("offline") }})
		require.ErrorContains(t, err, "offline")
		_, err = s.Get(ctx, "Game", "keep")
		assert.NoError(t, err)
	})
}

func TestSecondConcurrentSyncIsRefused(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory(store.Config{})
	defer s.Close()
	require.NoError(t, s.Pin(ctx, serverObject(t, "Game", "a", nil)))
	entered, release := make(chan struct{}), make(chan struct{})
	slow := fakeRunner{fn: func(r *parse.QueryRequest) (*parse.QueryResponse, error) {
		close(entered)
		<-release
		return &parse.QueryResponse{Results: []json.RawMessage{json.RawMessage(`{"objectId":"a"}`)}}, nil
	}}
	done := make(chan error)
	go func() { _, err := s.Sync(ctx, slow); done <- err }()
	<-entered
	_, err := s.Sync(ctx, fakeRunner{})
	require.ErrorIs(t, err, store.ErrSyncRunning)
	assert.Contains(t, err.Error(), "a sync is already running")
	close(release)
	require.NoError(t, <-done)
	_, err = s.Sync(ctx, fakeRunner{fn: func(*parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Results: []json.RawMessage{json.RawMessage(`{"objectId":"a"}`)}}, nil
	}})
	assert.NoError(t, err, "a sync may run again once the first is done")
}

func TestConcurrentUse(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					o := serverObject(t, "Con", fmt.Sprintf("w%di%d", w, i), map[string]any{"w": w, "i": i})
					if err := s.PinWithName(ctx, fmt.Sprintf("p%d", w), o); err != nil {
						errs <- err
						return
					}
					if _, err := query.New[Obj]("Con").EqualTo("w", w).Count(ctx, s); err != nil {
						errs <- err
						return
					}
					if i%10 == 9 {
						if err := s.UnpinWithName(ctx, fmt.Sprintf("p%d", w), o); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		for w := range 8 {
			n, err := query.New[Obj]("Con").EqualTo("w", w).Count(ctx, s)
			require.NoError(t, err)
			assert.Equal(t, 45, n)
		}
	})
}

func TestSaveLocalMarksPending(t *testing.T) {
	backends(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		o := parse.NewObject("Note")
		o.Set("text", "hi")
		require.NoError(t, s.SaveLocal(ctx, o))
		saved := serverObject(t, "Note", "n1", map[string]any{"text": "old"})
		saved.Set("text", "new")
		require.NoError(t, s.SaveLocal(ctx, saved))
		p, err := s.Pending(ctx)
		require.NoError(t, err)
		assert.Equal(t, sorted([]string{store.ObjectKey("Note", o.LocalID()), "Parse_LDS_Note_n1"}), p)
	})
}

func TestSyncChunks(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory(store.Config{SyncChunk: 2})
	defer s.Close()
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		require.NoError(t, s.Pin(ctx, serverObject(t, "Game", id, nil)))
	}
	var limits []any
	var asked []any
	res, err := s.Sync(ctx, fakeRunner{fn: func(r *parse.QueryRequest) (*parse.QueryResponse, error) {
		limits = append(limits, r.Params["limit"])
		in := r.Params["where"].(map[string]any)["objectId"].(map[string]any)["$in"].([]any)
		asked = append(asked, in...)
		var out []json.RawMessage
		for _, id := range in {
			out = append(out, json.RawMessage(fmt.Sprintf(`{"objectId":%q}`, id)))
		}
		return &parse.QueryResponse{Results: out}, nil
	}})
	require.NoError(t, err)
	assert.Equal(t, []any{2, 2, 1}, limits)
	assert.ElementsMatch(t, []any{"a", "b", "c", "d", "e"}, asked)
	assert.Equal(t, 5, res.Updated)
}
