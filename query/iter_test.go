package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

func TestAllPagesByKeyset(t *testing.T) {
	tb := newTable(250)
	f := &fakeRunner{answer: tb.answer}
	q := New[*parse.Object]("GameScore").GreaterThan("n", -1).Include("owner").Select("n").WithCount(true)
	var got []string
	for o, err := range q.All(context.Background(), f) {
		if err != nil {
			t.Fatal(err)
		}
		if o.ClassName() != "GameScore" {
			t.Fatalf("class %q", o.ClassName())
		}
		got = append(got, o.ID())
	}
	if len(got) != 250 {
		t.Fatalf("walked %d objects, want 250", len(got))
	}
	for i, id := range got {
		if id != tb.ids[i] {
			t.Fatalf("object %d = %s, want %s", i, id, tb.ids[i])
		}
	}
	// A first page of 100, then pages of 1,000: the second (150 objects) is short, but longer than the largest
	// page served in full (100), so one more request makes sure the server did not cap it.
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (100 + 150 + 0)", len(reqs))
	}
	wantWhere := []string{
		`{"n":{"$gt":-1}}`,
		`{"n":{"$gt":-1},"objectId":{"$gt":"` + tb.ids[99] + `"}}`,
		`{"n":{"$gt":-1},"objectId":{"$gt":"` + tb.ids[249] + `"}}`,
	}
	for i, r := range reqs {
		w, _ := json.Marshal(r.Params["where"])
		if string(w) != wantWhere[i] {
			t.Errorf("request %d where %s, want %s", i, w, wantWhere[i])
		}
		wantLimit := 1000.0
		if i == 0 {
			wantLimit = 100
		}
		if r.Params["order"] != "objectId" || r.Params["limit"] != wantLimit || r.Op != OpFind {
			t.Errorf("request %d params %v", i, r.Params)
		}
		if r.Params["include"] != "owner" || r.Params["keys"] != "n" || r.Params["count"] != nil {
			t.Errorf("request %d lost include/keys or kept count: %v", i, r.Params)
		}
	}
	// The query itself is unchanged and can run again.
	if p, _ := q.Params(); p["order"] != nil || p["limit"] != nil {
		t.Errorf("All changed the query: %v", p)
	}
}

func TestAllPageSchedule(t *testing.T) {
	for _, tc := range []struct {
		rows   int
		limits []float64
	}{
		{0, []float64{100}},
		{99, []float64{100}},
		{100, []float64{100, 1000}},              // full first page, then an empty one
		{1100, []float64{100, 1000, 1000}},       // 100 + 1,000 + 0
		{2150, []float64{100, 1000, 1000, 1000}}, // the last page (50) is shorter than 1,000 served in full
		{2100, []float64{100, 1000, 1000, 1000}}, // exact: an empty page ends it
		{3000, []float64{100, 1000, 1000, 1000}}, // 100 + 1,000 + 1,000 + 900
	} {
		f := &fakeRunner{answer: newTable(tc.rows).answer}
		n := 0
		for _, err := range New[map[string]any]("T").All(context.Background(), f) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		var limits []float64
		for _, r := range f.requests() {
			limits = append(limits, r.Params["limit"].(float64))
		}
		if n != tc.rows || fmt.Sprint(limits) != fmt.Sprint(tc.limits) {
			t.Errorf("%d rows: walked %d with limits %v, want %v", tc.rows, n, limits, tc.limits)
		}
	}
}

// A server whose maxLimit is below All's page size answers shorter pages than asked for: the walk must go on to
// the real end, neither stopping early nor repeating an object.
func TestAllServerMaxLimitBelowPageSize(t *testing.T) {
	for _, maxLimit := range []int{100, 250, 999} {
		tb := newTable(2345)
		f := &fakeRunner{answer: func(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
			if l, _ := req.Params["limit"].(int); l > maxLimit {
				req.Params["limit"] = maxLimit // parse-server silently lowers the limit to maxLimit
			}
			return tb.answer(ctx, req)
		}}
		var got []string
		for o, err := range New[*parse.Object]("T").All(context.Background(), f) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, o.ID())
		}
		if len(got) != len(tb.ids) {
			t.Fatalf("maxLimit %d: walked %d objects, want %d", maxLimit, len(got), len(tb.ids))
		}
		for i := range got {
			if got[i] != tb.ids[i] {
				t.Fatalf("maxLimit %d: object %d = %s, want %s", maxLimit, i, got[i], tb.ids[i])
			}
		}
	}
}

func TestBatchesSizes(t *testing.T) {
	tb := newTable(60)
	for _, tc := range []struct {
		opts  *BatchOptions
		limit float64
		pages []int
	}{
		{nil, 100, []int{60}},                            // the spec's 100
		{&BatchOptions{}, 100, []int{60}},                // zero value: the same
		{&BatchOptions{Size: 20}, 20, []int{20, 20, 20}}, // then an empty page ends the walk
		{&BatchOptions{Size: 25}, 25, []int{25, 25, 10}},
		{&BatchOptions{Size: -3}, 100, []int{60}},
		{&BatchOptions{Size: 1 << 30}, MaxBatchSize, []int{60}},
	} {
		f := &fakeRunner{answer: tb.answer}
		var pages []int
		for objs, err := range New[*parse.Object]("T").Batches(context.Background(), f, tc.opts) {
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, len(objs))
		}
		reqs := f.requests()
		if fmt.Sprint(pages) != fmt.Sprint(tc.pages) || reqs[0].Params["limit"] != tc.limit {
			t.Errorf("%+v: pages %v, limit %v; want %v, %v", tc.opts, pages, reqs[0].Params["limit"], tc.pages, tc.limit)
		}
		for _, r := range reqs {
			if r.Params["limit"] != tc.limit {
				t.Errorf("%+v: limit changed to %v", tc.opts, r.Params["limit"])
			}
		}
	}
	// Errors end the walk, with a nil page.
	for objs, err := range New[*parse.Object]("T").Skip(1).Batches(context.Background(), &fakeRunner{}, nil) {
		if objs != nil || !errors.Is(err, ErrCannotIterate) {
			t.Errorf("Batches on a query with skip: %v, %v", objs, err)
		}
	}
}

func TestAllMergesOwnObjectIDConstraint(t *testing.T) {
	if got, _ := json.Marshal(keysetCondition("abc", "x")); string(got) != `{"$eq":"abc","$gt":"x"}` {
		t.Errorf("equality: %s", got)
	}
	if got, _ := json.Marshal(keysetCondition(map[string]any{"$in": []any{"a"}}, "x")); string(got) != `{"$gt":"x","$in":["a"]}` {
		t.Errorf("$in: %s", got)
	}
	// The server returned "C" as above the own bound "b" (a case-insensitive collation): the next page starts after
	// "C", though Go's byte order puts "C" below "b". Keeping "b" would fetch "C" and what follows it again.
	if got, _ := json.Marshal(keysetCondition(map[string]any{"$gt": "b"}, "C")); string(got) != `{"$gt":"C"}` {
		t.Errorf("own $gt above after in byte order: %s", got)
	}
	if got, _ := json.Marshal(keysetCondition(map[string]any{"$gt": "a"}, "x")); string(got) != `{"$gt":"x"}` {
		t.Errorf("own smaller $gt: %s", got)
	}
}

func TestAllRefusesOrderSkipLimit(t *testing.T) {
	for name, q := range map[string]*Query[*parse.Object]{
		"order":  New[*parse.Object]("T").Ascending("n"),
		"skip":   New[*parse.Object]("T").Skip(1),
		"limit":  New[*parse.Object]("T").Limit(10),
		"limit0": New[*parse.Object]("T").Limit(0),
	} {
		f := &fakeRunner{}
		var errs []error
		for o, err := range q.All(context.Background(), f) {
			if o != nil {
				t.Errorf("%s: got an object", name)
			}
			errs = append(errs, err)
		}
		if len(errs) != 1 || !errors.Is(errs[0], ErrCannotIterate) || len(f.requests()) != 0 {
			t.Errorf("%s: errors %v, %d requests", name, errs, len(f.requests()))
		}
		if !errors.Is(errs[0], ErrCannotIterate) || ErrCannotIterate.Error() != "Cannot iterate on a query with sort, skip, or limit." {
			t.Errorf("%s: %v", name, errs[0])
		}
	}
	// Build errors are yielded too.
	for _, err := range New[*parse.Object]("T").EqualTo("$bad", 1).All(context.Background(), &fakeRunner{}) {
		if !errors.Is(err, ErrInvalidKey) {
			t.Errorf("build error: %v", err)
		}
	}
}

func TestAllStopsOnRunnerError(t *testing.T) {
	tb := newTable(5000)
	boom := errors.New("boom")
	var calls atomic.Int32
	f := &fakeRunner{answer: func(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
		if calls.Add(1) == 3 {
			return nil, boom
		}
		return tb.answer(ctx, req)
	}}
	n, nErr := 0, 0
	for _, err := range New[*parse.Object]("T").All(context.Background(), f) {
		if err != nil {
			nErr++
			if !errors.Is(err, boom) {
				t.Errorf("error %v", err)
			}
			continue
		}
		n++
	}
	if n != 1100 || nErr != 1 || len(f.requests()) != 3 {
		t.Errorf("%d objects, %d errors, %d requests; want 1100, 1, 3", n, nErr, len(f.requests()))
	}
}

// blockingRunner answers the first page at once and then blocks every further request until its context ends,
// counting requests in flight.
type blockingRunner struct {
	tb        *table
	calls     atomic.Int32
	inFlight  atomic.Int32
	cancelled atomic.Int32
	started   chan struct{}
}

func (b *blockingRunner) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	if b.calls.Add(1) == 1 {
		return b.tb.answer(ctx, req)
	}
	b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	close(b.started)
	<-ctx.Done()
	b.cancelled.Add(1)
	return nil, ctx.Err()
}

func TestAllBreakStopsPrefetch(t *testing.T) {
	before := runtime.NumGoroutine()
	b := &blockingRunner{tb: newTable(1000), started: make(chan struct{})}
	n := 0
	for o, err := range New[*parse.Object]("T").All(context.Background(), b) {
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			// The second page is requested while the caller still holds the first object.
			select {
			case <-b.started:
			case <-time.After(5 * time.Second):
				t.Fatal("the next page was not prefetched")
			}
		}
		_ = o
		n++
		if n == 10 {
			break
		}
	}
	// All has returned: the prefetch must have been cancelled and its goroutine ended.
	if b.inFlight.Load() != 0 || b.cancelled.Load() != 1 {
		t.Errorf("after break: %d in flight, %d cancelled", b.inFlight.Load(), b.cancelled.Load())
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("goroutines: %d before, %d after", before, g)
	}
}

func TestAllContextCancelledMidWalk(t *testing.T) {
	b := &blockingRunner{tb: newTable(1000), started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var gotErr error
	for _, err := range New[*parse.Object]("T").All(ctx, b) {
		if err != nil {
			gotErr = err
			continue
		}
		n++
		if n == 1 {
			cancel()
		}
	}
	if n != 100 || !errors.Is(gotErr, context.Canceled) {
		t.Errorf("%d objects, error %v; want 100 then context.Canceled", n, gotErr)
	}
	if b.inFlight.Load() != 0 {
		t.Errorf("%d requests still in flight", b.inFlight.Load())
	}
}

func TestAllNilArguments(t *testing.T) {
	var q *Query[*parse.Object]
	for _, err := range q.All(context.Background(), &fakeRunner{}) {
		if !errors.Is(err, ErrNilQuery) {
			t.Errorf("nil query: %v", err)
		}
	}
	for _, err := range New[*parse.Object]("T").All(context.Background(), nil) {
		if !errors.Is(err, ErrNilRunner) {
			t.Errorf("nil runner: %v", err)
		}
	}
	//lint:ignore SA1012 checking that a nil context is refused, not a panic
	for _, err := range New[*parse.Object]("T").All(nil, &fakeRunner{}) { //nolint:staticcheck
		if err == nil {
			t.Error("nil context accepted")
		}
	}
}
