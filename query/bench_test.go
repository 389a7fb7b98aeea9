package query

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

// benchRows is the table size of BenchmarkIterate100k: 100,000 rows when MORALIS_BENCH_100K=1, else 5,000 so
// that `go test -bench .` stays quick.
func benchRows() int {
	if os.Getenv("MORALIS_BENCH_100K") == "1" {
		return 100_000
	}
	return 5_000
}

// pageRunner makes keyset pages on the fly, the way the server answers All's requests, without holding the table in
// memory; it samples the heap every few pages so the benchmark can report the peak.
type pageRunner struct {
	rows     int
	pages    atomic.Int64
	peakHeap atomic.Uint64
}

func (p *pageRunner) RunQuery(_ context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	where, _ := req.Params["where"].(map[string]any)
	start := 0
	if c, ok := where["objectId"].(map[string]any); ok {
		last, _ := c["$gt"].(string)
		n, err := strconv.Atoi(last[2:])
		if err != nil {
			return nil, err
		}
		start = n + 1
	}
	limit := req.Params["limit"].(int)
	end := min(start+limit, p.rows)
	res := make([]json.RawMessage, 0, end-start)
	for i := start; i < end; i++ {
		// ids sort in numeric order: fixed width.
		id := "id" + leftPad(i)
		res = append(res, json.RawMessage(`{"objectId":"`+id+`","score":`+strconv.Itoa(i)+
			`,"playerName":"player `+strconv.Itoa(i%97)+`","createdAt":"2026-11-22T00:00:00.000Z","updatedAt":"2026-11-22T00:00:00.000Z"}`))
	}
	if p.pages.Add(1)%16 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		for {
			old := p.peakHeap.Load()
			if ms.HeapInuse <= old || p.peakHeap.CompareAndSwap(old, ms.HeapInuse) {
				break
			}
		}
	}
	return &parse.QueryResponse{Results: res}, nil
}

func leftPad(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 8 {
		s = "0" + s
	}
	return s
}

// BenchmarkIterate100k walks a whole table with All (pages of 100, prefetching) and decodes every row into
// *parse.Object. It reports ns and allocations per walk and per row, and the peak heap seen during the walks, which
// stays flat however many rows there are. Run the full size with MORALIS_BENCH_100K=1.
func BenchmarkIterate100k(b *testing.B) {
	rows := benchRows()
	r := &pageRunner{rows: rows}
	q := New[*parse.Object]("GameScore")
	ctx := context.Background()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		var sum int64
		for o, err := range q.All(ctx, r) {
			if err != nil {
				b.Fatal(err)
			}
			sum += o.Int("score")
			n++
		}
		if n != rows || sum != int64(rows)*int64(rows-1)/2 {
			b.Fatalf("walked %d rows (sum %d), want %d", n, sum, rows)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	b.ReportMetric(float64(rows), "rows")
	b.ReportMetric(float64(r.peakHeap.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(base.HeapInuse)/(1<<20), "start-heap-MB")
}
