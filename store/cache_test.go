package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// The records kept from writes (a class first written by Pin is held in memory from then on, new objects are
// merged into it) must answer exactly as the records a reopened store reads back from its file.
func TestWrittenRecordsAnswerAsReadBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pins.db")
	s, err := store.Open(path, nil)
	require.NoError(t, err)
	mk := func(i int) *parse.Object {
		o := parse.NewObjectWithID("Thing", fmt.Sprintf("t%d", i))
		o.Set("n", i)
		o.Set("tag", []string{"even", "odd"}[i%2])
		if i%10 == 3 {
			o.Set("list", []any{i, "x"}) // a full record among compact ones
		}
		return o
	}
	queries := []*query.Query[*parse.Object]{
		query.New[*parse.Object]("Thing").Limit(1000),
		query.New[*parse.Object]("Thing").EqualTo("tag", "odd").GreaterThan("n", 40).Limit(1000),
		query.New[*parse.Object]("Thing").EqualTo("list", "x").Limit(1000),
		query.New[*parse.Object]("Thing").Descending("n").Limit(7),
	}
	answers := func(s *store.Store) [][]*parse.Object {
		var out [][]*parse.Object
		for _, q := range queries {
			got, err := q.Find(ctx, s)
			require.NoError(t, err)
			out = append(out, got)
		}
		return out
	}
	var batch []*parse.Object
	for i := range 50 {
		batch = append(batch, mk(i))
	}
	require.NoError(t, s.Pin(ctx, batch...))
	first := answers(s)
	require.Len(t, first[0], 50)
	// More objects (merged into the loaded list), a changed one, a removed one, in a few writes.
	for i := 50; i < 120; i += 10 {
		batch = batch[:0]
		for j := i; j < i+10; j++ {
			batch = append(batch, mk(j))
		}
		require.NoError(t, s.Pin(ctx, batch...))
		if i == 80 {
			_ = answers(s) // a query between writes
		}
	}
	changed := mk(5)
	changed.Set("tag", "odd")
	changed.Set("n", 1000)
	require.NoError(t, s.Pin(ctx, changed))
	require.NoError(t, s.Unpin(ctx, mk(7)))
	live := answers(s)
	require.Len(t, live[0], 119)
	assert.Equal(t, 1000.0, live[3][0].Get("n"), "the changed object sorts first")
	require.NoError(t, s.Close())

	again, err := store.Open(path, nil)
	require.NoError(t, err)
	defer again.Close()
	assert.Equal(t, answers(again), live)
}

// Sync also takes its answers from a runner that hands over objects (here another store).
func TestSyncFromARunnerOfObjects(t *testing.T) {
	ctx := context.Background()
	source := store.NewMemory(nil)
	local := store.NewMemory(nil)
	defer source.Close()
	defer local.Close()
	mk := func(id string, n int) *parse.Object {
		o := parse.NewObjectWithID("Thing", id)
		o.Set("n", n)
		o.Set("when", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)) // a full record too
		return o
	}
	require.NoError(t, local.Pin(ctx, mk("a", 1), mk("b", 2), mk("gone", 3)))
	require.NoError(t, source.Pin(ctx, mk("a", 10), mk("b", 20)))
	res, err := local.Sync(ctx, source)
	require.NoError(t, err)
	assert.Equal(t, store.SyncResult{Updated: 2, NotReturned: []string{store.ObjectKey("Thing", "gone")}}, res)
	got, err := query.New[*parse.Object]("Thing").Ascending("objectId").Find(ctx, local)
	require.NoError(t, err)
	require.Len(t, got, 3, "the copy the source did not return is kept")
	assert.Equal(t, []any{10.0, 20.0, 3.0}, []any{got[0].Get("n"), got[1].Get("n"), got[2].Get("n")})
	assert.Equal(t, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), got[1].Time("when"))
}
