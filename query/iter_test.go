package query

import (
	"context"
	"encoding/json"
	"errors"
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
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (100 + 100 + 50)", len(reqs))
	}
	wantWhere := []string{
		`{"n":{"$gt":-1}}`,
		`{"n":{"$gt":-1},"objectId":{"$gt":"` + tb.ids[99] + `"}}`,
		`{"n":{"$gt":-1},"objectId":{"$gt":"` + tb.ids[199] + `"}}`,
	}
	for i, r := range reqs {
		w, _ := json.Marshal(r.Params["where"])
		if string(w) != wantWhere[i] {
			t.Errorf("request %d where %s, want %s", i, w, wantWhere[i])
		}
		if r.Params["order"] != "objectId" || r.Params["limit"] != 100.0 || r.Op != OpFind {
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

func TestAllBatchSizeAndExactMultiple(t *testing.T) {
	tb := newTable(60)
	f := &fakeRunner{answer: tb.answer}
	n := 0
	for _, err := range New[map[string]any]("T").All(context.Background(), f, WithBatchSize(20)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	// 60 rows in pages of 20: three full pages, then an empty one ends the walk.
	if n != 60 || len(f.requests()) != 4 {
		t.Errorf("%d objects in %d requests; want 60 in 4", n, len(f.requests()))
	}
	if f.requests()[0].Params["limit"] != 20.0 {
		t.Errorf("batch size not sent: %v", f.requests()[0].Params)
	}
	// Out-of-range sizes.
	c := iterConfig{}
	WithBatchSize(0)(&c)
	if c.batchSize != DefaultBatchSize {
		t.Errorf("WithBatchSize(0) = %d", c.batchSize)
	}
	WithBatchSize(1 << 30)(&c)
	if c.batchSize != MaxBatchSize {
		t.Errorf("WithBatchSize(huge) = %d", c.batchSize)
	}
}

func TestAllMergesOwnObjectIDConstraint(t *testing.T) {
	if got, _ := json.Marshal(keysetCondition("abc", "x")); string(got) != `{"$eq":"abc","$gt":"x"}` {
		t.Errorf("equality: %s", got)
	}
	if got, _ := json.Marshal(keysetCondition(map[string]any{"$in": []any{"a"}}, "x")); string(got) != `{"$gt":"x","$in":["a"]}` {
		t.Errorf("$in: %s", got)
	}
	if got, _ := json.Marshal(keysetCondition(map[string]any{"$gt": "z"}, "x")); string(got) != `{"$gt":"z"}` {
		t.Errorf("own larger $gt: %s", got)
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
	tb := newTable(500)
	boom := errors.New("boom")
	var calls atomic.Int32
	f := &fakeRunner{answer: func(ctx context.Context, req *Request) (*Response, error) {
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
	if n != 200 || nErr != 1 || len(f.requests()) != 3 {
		t.Errorf("%d objects, %d errors, %d requests; want 200, 1, 3", n, nErr, len(f.requests()))
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

func (b *blockingRunner) RunQuery(ctx context.Context, req *Request) (*Response, error) {
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
