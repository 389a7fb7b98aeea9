package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// benchSize is the number of pinned objects: 2,000 by default so `go test -bench .` stays quick;
// MORALIS_STORE_BENCH_N=100000 runs the full size.
func benchSize(b *testing.B) int {
	if v := os.Getenv("MORALIS_STORE_BENCH_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("MORALIS_STORE_BENCH_N=%q: need a positive number", v)
		}
		return n
	}
	return 2000
}

// BenchmarkLocalQuery pins N objects in a bbolt file (in batches of 5,000 per transaction) and measures local
// queries over them.
func BenchmarkLocalQuery(b *testing.B) {
	ctx := context.Background()
	n := benchSize(b)
	dir := b.TempDir()
	s, err := store.Open(filepath.Join(dir, "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	batch := make([]*parse.Object, 0, 5000)
	for i := 0; i < n; i++ {
		o := parse.NewObjectWithID("Bench", fmt.Sprintf("id%07d", i))
		o.Set("i", i)
		o.Set("group", i%100)
		o.Set("name", fmt.Sprintf("player-%d", i))
		o.Set("tags", []any{fmt.Sprintf("t%d", i%7), "all"})
		batch = append(batch, o)
		if len(batch) == cap(batch) || i == n-1 {
			if err := s.Pin(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	pinTime := time.Since(start)
	// The first query decodes the class into memory once.
	start = time.Now()
	if _, err := query.New[*parse.Object]("Bench").Limit(1).Find(ctx, s); err != nil {
		b.Fatal(err)
	}
	warm := time.Since(start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fi, _ := os.Stat(filepath.Join(dir, "bench.db"))
	b.Logf("pinned %d objects in %v (%.0f objects/s); first query (loads the class) %v; heap %d MB (%d B/object); file %d MB",
		n, pinTime, float64(n)/pinTime.Seconds(), warm, ms.HeapAlloc>>20, ms.HeapAlloc/uint64(n), fi.Size()>>20)

	q := query.New[*parse.Object]("Bench")
	for _, bc := range []struct {
		name string
		q    *query.Query[*parse.Object]
	}{
		{"equal", q.EqualTo("group", 42)},
		{"range+order+limit", q.GreaterThanOrEqualTo("i", n/2).Descending("i").Limit(10)},
		{"regex", q.StartsWith("name", "player-99")},
		{"in+count", q.ContainedIn("group", []int{1, 2, 3}).WithCount(true).Limit(0)},
		{"or", query.Or(q.EqualTo("group", 1), q.ContainsAll("tags", []string{"t3"}))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.q.Find(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "pinned")
		})
	}
}
