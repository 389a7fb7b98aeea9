package query

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// arrivingRunner answers from a table like the server and, like the client, tells Request.Arrived about each
// answer before handing it back. lie makes it report the first result's id instead of the last one's.
type arrivingRunner struct {
	tb       *table
	lie      bool
	delay    time.Duration // the time an answer takes to "decode" after it arrived
	inFlight atomic.Int32
	maxIn    atomic.Int32
	started  atomic.Int32
	mu       sync.Mutex
	overlap  int // requests started while an earlier one had not returned yet
}

func (a *arrivingRunner) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	a.started.Add(1)
	n := a.inFlight.Add(1)
	defer a.inFlight.Add(-1)
	if n > 1 {
		a.mu.Lock()
		a.overlap++
		a.mu.Unlock()
	}
	for {
		m := a.maxIn.Load()
		if n <= m || a.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	resp, err := a.tb.answer(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.Arrived != nil {
		n, last, ok := parse.ScanResults(append(append([]byte(`{"results":[`), joinRaw(resp)...), ']', '}'))
		if !ok {
			panic("test table answer does not scan")
		}
		if a.lie && n > 0 {
			_, last, _ = parse.ScanResults(append(append([]byte(`{"results":[`), resp.Results[0]...), ']', '}'))
		}
		req.Arrived(n, last)
	}
	select {
	case <-time.After(a.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return resp, nil
}

func joinRaw(resp *parse.QueryResponse) []byte {
	var b []byte
	for i, r := range resp.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return b
}

// walkIDs walks r with Batches in pages of the spec's 100 (All walks the same way, with larger pages).
func walkIDs(t *testing.T, r parse.QueryRunner, each func()) []string {
	t.Helper()
	var got []string
	for page, err := range New[*parse.Object]("T").Batches(context.Background(), r, nil) {
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page {
			got = append(got, o.ID())
			if each != nil {
				each()
			}
		}
	}
	return got
}

func sameIDs(t *testing.T, tb *table, got []string) {
	t.Helper()
	if len(got) != len(tb.ids) {
		t.Fatalf("walked %d objects, want %d", len(got), len(tb.ids))
	}
	for i := range got {
		if got[i] != tb.ids[i] {
			t.Fatalf("object %d = %s, want %s", i, got[i], tb.ids[i])
		}
	}
}

// When the caller is waiting, the next page is asked for as soon as an answer arrives, before it is decoded.
func TestAllAsksForTheNextPageWhenAnAnswerArrives(t *testing.T) {
	a := &arrivingRunner{tb: newTable(1000), delay: 20 * time.Millisecond}
	sameIDs(t, a.tb, walkIDs(t, a, nil))
	if a.overlap == 0 {
		t.Errorf("no request started while the previous answer was being decoded (%d requests)", a.started.Load())
	}
	if m := a.maxIn.Load(); m > 2 {
		t.Errorf("%d requests in flight at once, want at most 2", m)
	}
	if s := a.started.Load(); s != 11 {
		t.Errorf("%d requests for 1000 objects in pages of 100, want 11 (the last one empty)", s)
	}
}

// All asks early too, through its growing pages.
func TestAllAsksEarlyWithGrowingPages(t *testing.T) {
	a := &arrivingRunner{tb: newTable(5000), delay: 20 * time.Millisecond}
	var got []string
	for o, err := range New[*parse.Object]("T").All(context.Background(), a) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.ID())
	}
	sameIDs(t, a.tb, got)
	if a.overlap == 0 {
		t.Errorf("no request started while the previous answer was being decoded (%d requests)", a.started.Load())
	}
	if m := a.maxIn.Load(); m > 2 {
		t.Errorf("%d requests in flight at once, want at most 2", m)
	}
	// 100 + 1,000 x 4 + 900: the short last page is below the 1,000 served in full, so it ends the walk.
	if s := a.started.Load(); s != 6 {
		t.Errorf("%d requests for 5000 objects, want 6", s)
	}
}

// A slow caller holds back the early requests: never more than two pages ahead of what it has taken.
func TestAllEarlyRequestsWaitForTheCaller(t *testing.T) {
	a := &arrivingRunner{tb: newTable(1000)}
	taken := 0
	maxAhead := int32(0)
	got := walkIDs(t, a, func() {
		taken++
		if taken%100 == 0 {
			time.Sleep(30 * time.Millisecond) // a slow caller: the fetches must not run away
			if ahead := a.started.Load() - int32(taken/100); ahead > maxAhead {
				maxAhead = ahead
			}
		}
	})
	sameIDs(t, a.tb, got)
	if maxAhead > 2 {
		t.Errorf("requests ran %d pages ahead of the caller, want at most 2", maxAhead)
	}
}

// Should a runner's early look disagree with the decoded page, the walk still neither skips nor repeats objects.
func TestAllIgnoresAWrongEarlyLook(t *testing.T) {
	a := &arrivingRunner{tb: newTable(450), lie: true, delay: 5 * time.Millisecond}
	sameIDs(t, a.tb, walkIDs(t, a, nil))
}
