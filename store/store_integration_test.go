package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
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
func seed(t *testing.T, ctx context.Context, c *client.Client, class string) ([]*client.Object, map[string]string) {
	t.Helper()
	local := dataset(t, class)
	objs := make([]*client.Object, len(local))
	for i, l := range local {
		o := client.NewObject(class)
		for _, k := range l.Keys() {
			o.Set(k, l.Get(k))
		}
		objs[i] = o
	}
	require.NoError(t, c.SaveAll(ctx, objs))
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
	s, err := store.Open(filepath.Join(t.TempDir(), "lds.db"), &store.Options{AppID: c.AppID()})
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
	s := store.NewMemory(&store.Options{AppID: c.AppID()})
	defer s.Close()
	require.NoError(t, s.Pin(ctx, objs...))
	draft := client.NewObject(class)
	draft.Set("name", "draft")
	require.NoError(t, s.Pin(ctx, draft))

	// Change one object and delete another on the server.
	changed := client.NewObjectWithID(class, names["r1"])
	changed.Set("score", 1234)
	require.NoError(t, c.Save(ctx, changed))
	require.NoError(t, c.Destroy(ctx, client.NewObjectWithID(class, names["r2"])))

	before, err := s.Get(ctx, class, names["r1"])
	require.NoError(t, err)
	assert.Equal(t, float64(10), before.Get("score"), "not synced yet")

	res, err := s.Sync(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, store.SyncResult{Updated: len(objs) - 1, Dropped: 1, Skipped: 1}, res)

	after, err := s.Get(ctx, class, names["r1"])
	require.NoError(t, err)
	assert.Equal(t, float64(1234), after.Get("score"))
	assert.True(t, after.UpdatedAt().After(before.UpdatedAt()))
	_, err = s.Get(ctx, class, names["r2"])
	assert.ErrorIs(t, err, store.ErrNotFound, "deleted on the server: dropped")
	keys, err := s.PinnedKeys(ctx, "")
	require.NoError(t, err)
	assert.NotContains(t, keys, store.ObjectKey(class, names["r2"]))
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
	s, err := store.Open(filepath.Join(t.TempDir(), "lds.db"), &store.Options{AppID: c.AppID()})
	require.NoError(t, err)
	defer s.Close()

	// One object saved on the server, then changed offline; one made offline.
	existing := client.NewObject(class)
	existing.Set("title", "first")
	existing.Set("n", 1)
	require.NoError(t, c.Save(ctx, existing))
	require.NoError(t, s.Pin(ctx, existing))
	existing.Set("title", "changed offline")
	require.NoError(t, s.SaveLocal(ctx, existing))

	fresh := client.NewObject(class)
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
	got, err := c.Get(ctx, class, serverID)
	require.NoError(t, err)
	assert.Equal(t, "made offline", got.String("title"))
	assert.True(t, got.Time("when").Equal(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)))
	got, err = c.Get(ctx, class, existing.ID())
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
	s := store.NewMemory(nil)
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
		req := &query.Request{ClassName: class, Params: map[string]any{"where": w, "count": 1}}
		rr, rerr := c.RunQuery(ctx, req)
		lr, lerr := s.RunQuery(ctx, req)
		if rerr != nil {
			assert.Error(t, lerr, "server refused %v (%v): the store must too", w, rerr)
			continue
		}
		require.NoError(t, lerr, "%v", w)
		assert.ElementsMatch(t, rawIDs(t, rr.Results), objectIDs(lr.Objects), "where %v", w)
		assert.Equal(t, rr.Count, lr.Count, "count for %v", w)
	}
}

func objectIDs(objs []*client.Object) []string {
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
