package query

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

type score struct {
	ID        string         `json:"objectId"`
	Player    string         `json:"playerName"`
	Score     int            `json:"score"`
	CreatedAt time.Time      `json:"createdAt"`
	When      time.Time      `json:"when"`
	Owner     parse.Pointer  `json:"owner"`
	Where     parse.GeoPoint `json:"where"`
	Extra     map[string]any `json:"extra"`
}

var sample = map[string]any{
	"objectId": "abc", "playerName": "Sean", "score": 1337,
	"createdAt": "2026-11-21T22:36:39.296Z", "updatedAt": "2026-11-21T22:36:40.000Z",
	"when":  map[string]any{"__type": "Date", "iso": "2026-01-02T03:04:05.000Z"},
	"owner": map[string]any{"__type": "Pointer", "className": "Owner", "objectId": "o1"},
	"where": map[string]any{"__type": "GeoPoint", "latitude": 1.5, "longitude": 2.5},
	"extra": map[string]any{"k": "v"},
}

func TestFindDecodesIntoEveryKindOfT(t *testing.T) {
	f := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Results: rawResults(sample)}, nil
	}}
	ctx := context.Background()

	objs, err := New[*parse.Object]("GameScore").EqualTo("playerName", "Sean").Find(ctx, f)
	if err != nil || len(objs) != 1 {
		t.Fatalf("Find objects: %v, %v", objs, err)
	}
	o := objs[0]
	if o.ClassName() != "GameScore" || o.ID() != "abc" || o.Int("score") != 1337 || o.String("playerName") != "Sean" {
		t.Errorf("object = %s %s %v", o.ClassName(), o.ID(), o.Fields())
	}
	if !o.Time("when").Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || o.CreatedAt().IsZero() {
		t.Errorf("dates: when=%v createdAt=%v", o.Time("when"), o.CreatedAt())
	}
	if p, ok := o.Get("owner").(parse.Pointer); !ok || p.ObjectID != "o1" {
		t.Errorf("owner = %#v", o.Get("owner"))
	}
	if o.Dirty() {
		t.Error("decoded object is dirty")
	}

	vals, err := New[parse.Object]("GameScore").Find(ctx, f)
	if err != nil || vals[0].ClassName() != "GameScore" || vals[0].ID() != "abc" {
		t.Errorf("Find values: %v", err)
	}

	scores, err := New[score]("GameScore").Find(ctx, f)
	if err != nil || len(scores) != 1 {
		t.Fatalf("Find structs: %v, %v", scores, err)
	}
	s := scores[0]
	want := score{ID: "abc", Player: "Sean", Score: 1337,
		CreatedAt: time.Date(2026, 11, 21, 22, 36, 39, 296e6, time.UTC),
		When:      time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Owner:     parse.Pointer{ClassName: "Owner", ObjectID: "o1"},
		Where:     parse.GeoPoint{Latitude: 1.5, Longitude: 2.5},
		Extra:     map[string]any{"k": "v"}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("struct\n got %+v\nwant %+v", s, want)
	}

	maps, err := New[map[string]any]("GameScore").Find(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := maps[0]["when"].(time.Time); !ok || maps[0]["score"] != 1337.0 {
		t.Errorf("map = %#v", maps[0])
	}

	anys, err := New[any]("GameScore").Find(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := anys[0].(map[string]any); !ok || m["playerName"] != "Sean" {
		t.Errorf("any = %#v", anys[0])
	}

	// A result that does not fit T is an error, not a panic.
	bad := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Results: []json.RawMessage{json.RawMessage(`"not an object"`)}}, nil
	}}
	if _, err := New[*parse.Object]("GameScore").Find(ctx, bad); err == nil {
		t.Error("string result decoded into an object")
	}
	if _, err := New[score]("GameScore").Find(ctx, bad); err == nil {
		t.Error("string result decoded into a struct")
	}
	if _, err := New[map[string]any]("GameScore").Find(ctx, bad); err == nil {
		t.Error("string result decoded into a map")
	}
	for _, r := range f.requests() {
		if r.Op != OpFind || r.ClassName != "GameScore" || r.UseMasterKey {
			t.Errorf("request %+v", r)
		}
	}
}

func TestFirstGetCount(t *testing.T) {
	var results []json.RawMessage
	f := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Results: results, Count: 42, HasCount: true}, nil
	}}
	ctx := context.Background()
	q := New[*parse.Object]("GameScore").GreaterThan("score", 10).Descending("score")

	_, err := q.First(ctx, f)
	if !errors.Is(err, ErrObjectNotFound) {
		t.Errorf("First with no results: %v", err)
	}
	results = rawResults(sample)
	o, err := q.First(ctx, f)
	if err != nil || o.ID() != "abc" {
		t.Errorf("First = %v, %v", o, err)
	}
	reqs := f.requests()
	if p := reqs[1].Params; p["limit"] != 1.0 || p["order"] != "-score" {
		t.Errorf("First params = %v", p)
	}

	if _, err := q.Get(ctx, f, "abc"); err != nil {
		t.Errorf("Get: %v", err)
	}
	p := f.requests()[2].Params
	if w, _ := json.Marshal(p["where"]); string(w) != `{"objectId":"abc","score":{"$gt":10}}` || p["limit"] != 1.0 {
		t.Errorf("Get params = %v", p)
	}
	results = nil
	_, err = q.Get(ctx, f, "nope")
	var pe *parse.Error
	if !errors.As(err, &pe) || pe.Code != parse.CodeObjectNotFound || pe.Message != "Object not found." {
		t.Errorf("Get of a missing id: %v", err)
	}
	if _, err := q.Get(ctx, f, ""); err == nil {
		t.Error("Get with an empty id: no error")
	}

	n, err := q.Limit(5).Skip(2).Count(ctx, f)
	if err != nil || n != 42 {
		t.Errorf("Count = %d, %v", n, err)
	}
	p = f.requests()[len(f.requests())-1].Params
	if p["limit"] != 0.0 || p["count"] != 1.0 {
		t.Errorf("Count params = %v", p)
	}

	results = rawResults(sample, sample)
	objs, total, err := q.FindWithCount(ctx, f)
	if err != nil || len(objs) != 2 || total != 42 {
		t.Errorf("FindWithCount = %d objects, %d, %v", len(objs), total, err)
	}
	noCount := &fakeRunner{}
	if _, err := q.Count(ctx, noCount); err == nil {
		t.Error("Count without a count in the answer: no error")
	}
}

func TestDistinctAndAggregate(t *testing.T) {
	var answer []json.RawMessage
	f := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Results: answer}, nil
	}}
	ctx := context.Background()
	q := New[*parse.Object]("GameScore").GreaterThan("score", 1).Hint("idx")

	answer = []json.RawMessage{json.RawMessage(`"Ann"`), json.RawMessage(`"Sean"`)}
	names, err := Distinct[string](ctx, f, q, "playerName")
	if err != nil || !reflect.DeepEqual(names, []string{"Ann", "Sean"}) {
		t.Errorf("Distinct = %v, %v", names, err)
	}
	r := f.requests()[0]
	if b, _ := json.Marshal(r.Params); r.Op != OpAggregate || !r.UseMasterKey || string(b) != `{"distinct":"playerName","hint":"idx","where":{"score":{"$gt":1}}}` {
		t.Errorf("Distinct request %s %v %s", r.Op, r.UseMasterKey, b)
	}
	answer = []json.RawMessage{json.RawMessage(`{"__type":"Pointer","className":"Owner","objectId":"o1"}`)}
	ptrs, err := Distinct[parse.Pointer](ctx, f, q, "owner")
	if err != nil || ptrs[0].ObjectID != "o1" {
		t.Errorf("Distinct pointers = %v, %v", ptrs, err)
	}
	asMaps, err := Distinct[map[string]any](ctx, f, q, "owner")
	if err != nil || asMaps[0]["objectId"] != "o1" {
		t.Errorf("Distinct pointers as maps = %v, %v", asMaps, err)
	}
	if _, err := Distinct[string](ctx, f, q, "bad key"); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("Distinct bad key: %v", err)
	}

	answer = []json.RawMessage{json.RawMessage(`{"objectId":null,"total":1586}`)}
	res, err := q.Explain(true).ReadPreference(Primary, "", "").Aggregate(ctx, f, []map[string]any{{"$group": map[string]any{"_id": nil, "total": map[string]any{"$sum": "$score"}}}})
	if err != nil || len(res) != 1 || res[0]["total"] != 1586.0 {
		t.Errorf("Aggregate = %v, %v", res, err)
	}
	r = f.requests()[len(f.requests())-1]
	b, _ := json.Marshal(r.Params)
	if r.Op != OpAggregate || !r.UseMasterKey || string(b) != `{"explain":true,"hint":"idx","pipeline":[{"$match":{"score":{"$gt":1}}},{"$group":{"_id":null,"total":{"$sum":"$score"}}}],"readPreference":"PRIMARY"}` {
		t.Errorf("Aggregate request %s %v %s", r.Op, r.UseMasterKey, b)
	}
	// One stage as a map, no where: no $match.
	if _, err := New[any]("GameScore").Aggregate(ctx, f, map[string]any{"$limit": 2}); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(f.requests()[len(f.requests())-1].Params)
	if string(b) != `{"pipeline":[{"$limit":2}]}` {
		t.Errorf("single-stage params %s", b)
	}
	type total struct {
		Total int `json:"total"`
	}
	answer = []json.RawMessage{json.RawMessage(`{"objectId":null,"total":7}`)}
	ts, err := AggregateInto[total](ctx, f, q, []any{map[string]any{"$count": "total"}})
	if err != nil || ts[0].Total != 7 {
		t.Errorf("AggregateInto = %v, %v", ts, err)
	}
	for _, bad := range []any{nil, "x", 3, []int{1}} {
		_, err := q.Aggregate(ctx, f, bad)
		if err == nil {
			t.Errorf("pipeline %#v accepted", bad)
		}
		if _, isList := bad.([]int); !isList && !errors.Is(err, ErrPipeline) {
			t.Errorf("pipeline %#v: %v", bad, err)
		}
	}
}

func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	q := New[*parse.Object]("GameScore")
	if _, err := q.Find(ctx, nil); !errors.Is(err, ErrNilRunner) {
		t.Errorf("nil runner: %v", err)
	}
	var nilFake *fakeRunner
	if _, err := q.Find(ctx, nilFake); !errors.Is(err, ErrNilRunner) {
		t.Errorf("typed nil runner: %v", err)
	}
	serverErr := &parse.Error{Code: 1, Message: "invalid input syntax for type json"}
	f := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) { return nil, serverErr }}
	if _, err := q.Find(ctx, f); !errors.Is(err, serverErr) {
		t.Errorf("runner error lost: %v", err)
	}
	if _, err := q.Count(ctx, f); !errors.Is(err, serverErr) {
		t.Errorf("runner error lost: %v", err)
	}
	nilResp := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) { return nil, nil }}
	if _, err := q.Find(ctx, nilResp); err == nil {
		t.Error("nil response accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	f2 := &fakeRunner{}
	if _, err := q.Find(cctx, f2); !errors.Is(err, context.Canceled) || len(f2.requests()) != 0 {
		t.Errorf("cancelled context: %v, %d requests", err, len(f2.requests()))
	}
	// A query with build errors never reaches the runner.
	if _, err := q.Skip(-1).Find(ctx, f2); !errors.Is(err, ErrSkip) || len(f2.requests()) != 0 {
		t.Errorf("bad query: %v, %d requests", err, len(f2.requests()))
	}
}
