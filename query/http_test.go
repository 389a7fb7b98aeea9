package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// fakeServer plays parse-server's classes and aggregate routes for one class of n objects, answering keyset
// pages, and records every request body. Any other path fails the test.
type fakeServer struct {
	t      *testing.T
	ids    []string
	mu     sync.Mutex
	bodies []map[string]any
	paths  []string
}

func newFakeServer(t *testing.T, n int) (*fakeServer, *client.Client) {
	f := &fakeServer{t: t}
	for i := range n {
		f.ids = append(f.ids, fmt.Sprintf("obj%05d", i))
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", MasterKey: "mk", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("body is not JSON: %s", raw)
		w.WriteHeader(400)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	if r.Method != http.MethodPost || body["_method"] != "GET" || body["_ApplicationId"] != "app" {
		f.t.Errorf("request %s %s %v", r.Method, r.URL.Path, body)
	}
	switch r.URL.Path {
	case "/parse/classes/GameScore":
		where, _ := body["where"].(map[string]any)
		if cond, ok := where["score"].(map[string]any); ok && cond["$lt"] == -999.0 {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"code":119,"error":"Postgres doesn't support this query type yet {\"$bogus\":1}"}`)
			return
		}
		after := ""
		if c, ok := where["objectId"].(map[string]any); ok {
			after, _ = c["$gt"].(string)
		}
		limit := 100
		if l, ok := body["limit"].(float64); ok {
			limit = int(l)
		}
		start := sort.SearchStrings(f.ids, after)
		if start < len(f.ids) && f.ids[start] == after {
			start++
		}
		end := min(start+limit, len(f.ids))
		res := make([]map[string]any, 0, end-start)
		for i := start; i < end; i++ {
			res = append(res, map[string]any{"objectId": f.ids[i], "score": i, "createdAt": "2026-11-22T00:00:00.000Z"})
		}
		out := map[string]any{"results": res}
		if body["count"] == 1.0 {
			out["count"] = len(f.ids)
		}
		_ = json.NewEncoder(w).Encode(out)
	case "/parse/aggregate/GameScore":
		if body["_MasterKey"] != "mk" {
			w.WriteHeader(403)
			_, _ = io.WriteString(w, `{"error":"unauthorized: master key is required"}`)
			return
		}
		_, _ = io.WriteString(w, `{"results":["a","b"]}`)
	default:
		f.t.Errorf("unexpected path %s", r.URL.Path)
		w.WriteHeader(404)
	}
}

func TestThroughClientOverHTTP(t *testing.T) {
	f, c := newFakeServer(t, 230)
	ctx := context.Background()

	// The iterator's pages, as the client sends them.
	n := 0
	for o, err := range query.New[*parse.Object]("GameScore").GreaterThan("score", -1).All(ctx, c) {
		if err != nil {
			t.Fatal(err)
		}
		if o.ClassName() != "GameScore" || o.ID() != f.ids[n] {
			t.Fatalf("object %d = %s/%s", n, o.ClassName(), o.ID())
		}
		n++
	}
	// A first page of 100, then 1,000 (130 come back: more than the 100 served in full, so one more request).
	if n != 230 || len(f.bodies) != 3 {
		t.Fatalf("%d objects in %d requests; want 230 in 3", n, len(f.bodies))
	}
	for i, want := range []string{``, f.ids[99], f.ids[229]} {
		wantLimit := 1000.0
		if i == 0 {
			wantLimit = 100
		}
		b := f.bodies[i]
		where := b["where"].(map[string]any)
		got, _ := where["objectId"].(map[string]any)
		if (want == "" && got != nil) || (want != "" && (got == nil || got["$gt"] != want)) {
			t.Errorf("page %d: where %v, want objectId > %q", i, where, want)
		}
		if b["order"] != "objectId" || b["limit"] != wantLimit || where["score"] == nil {
			t.Errorf("page %d body %v", i, b)
		}
		if _, hasMaster := b["_MasterKey"]; hasMaster {
			t.Errorf("page %d sent the master key", i)
		}
	}

	// Count and the other parameters.
	cnt, err := query.New[*parse.Object]("GameScore").Count(ctx, c)
	if err != nil || cnt != 230 {
		t.Errorf("Count = %d, %v", cnt, err)
	}
	last := f.bodies[len(f.bodies)-1]
	if last["count"] != 1.0 || last["limit"] != 0.0 {
		t.Errorf("count body %v", last)
	}

	// Distinct needs a master view, and goes to aggregate/ with the master key.
	if _, err := query.Distinct[string](ctx, c, query.New[*parse.Object]("GameScore"), "name"); !errors.Is(err, client.ErrMasterKeyRequired) {
		t.Errorf("Distinct on a view without the master key: %v", err)
	}
	vals, err := query.Distinct[string](ctx, c.WithMasterKey(), query.New[*parse.Object]("GameScore"), "name")
	if err != nil || strings.Join(vals, ",") != "a,b" {
		t.Errorf("Distinct = %v, %v", vals, err)
	}
	last = f.bodies[len(f.bodies)-1]
	if last["distinct"] != "name" || last["_MasterKey"] != "mk" || f.paths[len(f.paths)-1] != "/parse/aggregate/GameScore" {
		t.Errorf("distinct body %v", last)
	}

	// A server error reaches the caller with its code, through Find and through All.
	bad := query.New[*parse.Object]("GameScore").LessThan("score", -999)
	_, err = bad.Find(ctx, c)
	var pc interface{ ParseCode() int }
	if !errors.As(err, &pc) || pc.ParseCode() != 119 {
		t.Errorf("server error through Find: %v", err)
	}
	var ce *parse.Error
	if !errors.As(err, &ce) || ce.Status != 400 {
		t.Errorf("not a *client.Error with status 400: %v", err)
	}
	for _, err := range bad.All(ctx, c) {
		if !errors.As(err, &pc) || pc.ParseCode() != 119 {
			t.Errorf("server error through All: %v", err)
		}
	}
}
