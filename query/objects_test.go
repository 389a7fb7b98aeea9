package query

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// objectRunner answers like inner, but hands the results over as objects (Response.Objects), as the local store
// does; count is how many objects it handed over.
type objectRunner struct {
	inner parse.QueryRunner
	count int
}

func (o *objectRunner) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	resp, err := o.inner.RunQuery(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &parse.QueryResponse{Count: resp.Count, HasCount: resp.HasCount, Objects: []*parse.Object{}}
	for _, raw := range resp.Results {
		obj := parse.NewObject(req.ClassName)
		if err := obj.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		out.Objects = append(out.Objects, obj)
	}
	o.count += len(out.Objects)
	return out, nil
}

type row struct {
	ID        string    `json:"objectId"`
	N         int       `json:"n"`
	CreatedAt time.Time `json:"createdAt"`
}

// Results handed over as objects decode to the same values as the same results in JSON, whatever T is.
func TestObjectsDecodeLikeResults(t *testing.T) {
	ctx := context.Background()
	tb := newTable(30)
	// An object read from JSON with createdAt only also reports it as updatedAt (and writes it back so): the
	// server always sends both, and so does this runner.
	dated := func(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
		resp, err := tb.answer(ctx, req)
		if err != nil {
			return nil, err
		}
		for i, raw := range resp.Results {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
			m["updatedAt"] = m["createdAt"]
			resp.Results[i] = rawResults(m)[0]
		}
		return resp, nil
	}
	plain := &fakeRunner{answer: dated}
	objs := &objectRunner{inner: &fakeRunner{answer: dated}}

	check := func(name string, want, got any, wantErr, gotErr error) {
		t.Helper()
		if wantErr != nil || gotErr != nil {
			t.Fatalf("%s: errors %v / %v", name, wantErr, gotErr)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s: from objects %#v, from JSON %#v", name, got, want)
		}
	}

	w1, e1 := New[*parse.Object]("Item").Find(ctx, plain)
	g1, e2 := New[*parse.Object]("Item").Find(ctx, objs)
	check("*Object", w1, g1, e1, e2)
	if len(g1) != 30 || g1[0].ClassName() != "Item" || g1[3].Float("n") != 3 {
		t.Fatalf("unexpected objects %v", g1)
	}

	w2, e1 := New[parse.Object]("Item").Find(ctx, plain)
	g2, e2 := New[parse.Object]("Item").Find(ctx, objs)
	check("Object", w2, g2, e1, e2)

	w3, e1 := New[map[string]any]("Item").Find(ctx, plain)
	g3, e2 := New[map[string]any]("Item").Find(ctx, objs)
	check("map", w3, g3, e1, e2)
	if _, has := g3[0]["className"]; has {
		t.Fatalf("a map result must not gain a className: %v", g3[0])
	}

	w4, e1 := New[row]("Item").Find(ctx, plain)
	g4, e2 := New[row]("Item").Find(ctx, objs)
	check("struct", w4, g4, e1, e2)
	if g4[7].N != 7 || g4[7].ID != tb.ids[7] || g4[7].CreatedAt.IsZero() {
		t.Fatalf("struct decoded as %+v", g4[7])
	}

	w5, e1 := New[row]("Item").First(ctx, plain)
	g5, e2 := New[row]("Item").First(ctx, objs)
	check("First", w5, g5, e1, e2)

	var walked, paged []string
	for o, err := range New[*parse.Object]("Item").All(ctx, objs) {
		if err != nil {
			t.Fatal(err)
		}
		walked = append(walked, o.ID())
	}
	if !reflect.DeepEqual(tb.ids, walked) {
		t.Fatalf("All over objects walked %v", walked)
	}
	for page, err := range New[*parse.Object]("Item").Batches(ctx, objs, &BatchOptions{Size: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 7 {
			t.Fatalf("a page of %d", len(page))
		}
		for _, o := range page {
			paged = append(paged, o.ID())
		}
	}
	if !reflect.DeepEqual(tb.ids, paged) {
		t.Fatalf("Batches over objects walked %v", paged)
	}
	if objs.count == 0 {
		t.Fatal("the runner handed over no objects")
	}
}

func TestNilObjectIsAnError(t *testing.T) {
	r := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{Objects: []*parse.Object{nil}}, nil
	}}
	if _, err := New[*parse.Object]("Item").Find(context.Background(), r); err == nil {
		t.Fatal("a nil object must be an error")
	}
}
