package query

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/c13f5054/moralis-go/parse"
)

// fakeRunner records every request and answers with answer (or, when nil, with nothing).
type fakeRunner struct {
	mu     sync.Mutex
	reqs   []*parse.QueryRequest
	answer func(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error)
}

func (f *fakeRunner) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	// Keep a deep copy: the test must see what was sent, whatever happens to req later.
	b, _ := json.Marshal(req.Params)
	var p map[string]any
	_ = json.Unmarshal(b, &p)
	f.mu.Lock()
	f.reqs = append(f.reqs, &parse.QueryRequest{ClassName: req.ClassName, Op: req.Op, Params: p, UseMasterKey: req.UseMasterKey})
	f.mu.Unlock()
	if f.answer == nil {
		return &parse.QueryResponse{}, nil
	}
	return f.answer(ctx, req)
}

func (f *fakeRunner) requests() []*parse.QueryRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*parse.QueryRequest(nil), f.reqs...)
}

func rawResults(objs ...map[string]any) []json.RawMessage {
	out := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

// table is a sorted list of object ids that answers keyset page requests like the server does: it honours
// where.objectId.$gt, order "objectId" and limit.
type table struct {
	ids []string
}

func newTable(n int) *table {
	t := &table{ids: make([]string, n)}
	for i := range n {
		t.ids[i] = fmt.Sprintf("id%07d", i)
	}
	sort.Strings(t.ids)
	return t
}

func (t *table) answer(_ context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	where, _ := req.Params["where"].(map[string]any)
	after := ""
	if c, ok := where["objectId"].(map[string]any); ok {
		after, _ = c["$gt"].(string)
	}
	limit := 100
	switch l := req.Params["limit"].(type) {
	case int:
		limit = l
	case float64:
		limit = int(l)
	}
	start := sort.SearchStrings(t.ids, after)
	if start < len(t.ids) && t.ids[start] == after {
		start++
	}
	end := min(start+limit, len(t.ids))
	res := make([]json.RawMessage, 0, end-start)
	for i := start; i < end; i++ {
		res = append(res, json.RawMessage(`{"objectId":"`+t.ids[i]+`","n":`+fmt.Sprint(i)+`,"createdAt":"2026-11-22T00:00:00.000Z"}`))
	}
	return &parse.QueryResponse{Results: res}, nil
}
