//go:build integration

package query_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// BenchmarkIterateLive walks a class of the local Parse Server with All, page by page over HTTP, and reports the
// time per row and the peak heap. It runs only with MORALIS_BENCH_LIVE=1 (it needs the stack, and seeds its class
// once: 100,000 rows with MORALIS_BENCH_100K=1, else 2,000; the class is kept for later runs).
func BenchmarkIterateLive(b *testing.B) {
	if os.Getenv("MORALIS_BENCH_LIVE") != "1" {
		b.Skip("set MORALIS_BENCH_LIVE=1 to walk a class of the local stack")
	}
	rows := 2_000
	if os.Getenv("MORALIS_BENCH_100K") == "1" {
		rows = 100_000
	}
	ctx := context.Background()
	c := newClient(b)
	class := fmt.Sprintf("QBenchIter%d", rows)
	have, err := query.New[*parse.Object](class).Count(ctx, c)
	if err != nil {
		have = 0 // the class does not exist yet
	}
	if have < rows {
		m := c.WithMasterKey()
		first := parse.NewObject(class)
		first.Set("i", have)
		if err := m.Objects.Save(ctx, first); err != nil {
			b.Fatal(err)
		}
		for start := have + 1; start < rows; start += 1000 {
			objs := make([]*parse.Object, 0, 1000)
			for i := start; i < min(start+1000, rows); i++ {
				o := parse.NewObject(class)
				o.Set("i", i)
				o.Set("name", fmt.Sprintf("row %d", i))
				objs = append(objs, o)
			}
			if err := m.Objects.SaveAll(ctx, objs); err != nil {
				b.Fatal(err)
			}
		}
	}
	var peak uint64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range query.New[*parse.Object](class).All(ctx, c) {
			if err != nil {
				b.Fatal(err)
			}
			n++
			if n%1000 == 0 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		if n < rows {
			b.Fatalf("walked %d rows, want %d", n, rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
