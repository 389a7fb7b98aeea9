package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package's offline harness: three fake backends, from the strictest to the most complete.
//   - setup(t), after go-github's: a server mounted at /parse/ whose mux answers only the routes a test registers;
//     any other call fails the test.
//   - newIDServer(t, reply): a server that records every call (idReq: method, path, headers, body) and answers each
//     with reply.
//   - memServer: a small parse-server in memory (rows, /batch, transactions, lost answers on demand) on top of an
//     idServer, for the save paths and the settle flow.

// wireCall is one call as the server reads it: every call travels as a POST whose body carries the real method
// (_method, absent for a POST), the keys (_ApplicationId, _JavaScriptKey or _MasterKey, _SessionToken) and the
// parameters.
type wireCall struct {
	Method string         // the real method: _method, or POST
	Params map[string]any // the body without its underscore keys
	Keys   map[string]any // the underscore keys
}

// setup starts the server and returns a client of it (master key "mk1", one attempt per request) and its mux.
func setup(t *testing.T) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request: %s %s", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":1,"error":"unexpected request"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := New(Config{
		ServerURL: srv.URL + "/parse", AppID: "app1", JavaScriptKey: "js1", MasterKey: "mk1", InstallationID: "inst-1",
		MaxAttempts: 1, Retry: RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, mux
}

// readCall decodes r's body into a wireCall, failing the test on a body that is not a JSON object.
func readCall(t *testing.T, r *http.Request) wireCall {
	t.Helper()
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		t.Errorf("%s: body is not a JSON object: %v", r.URL.Path, err)
		return wireCall{}
	}
	call := wireCall{Method: r.Method, Params: map[string]any{}, Keys: map[string]any{}}
	for k, v := range m {
		if len(k) > 0 && k[0] == '_' {
			call.Keys[k] = v
		} else {
			call.Params[k] = v
		}
	}
	if s, ok := m["_method"].(string); ok {
		call.Method = s
	}
	return call
}

// expect reads the call and fails the test unless its real method is method.
func expect(t *testing.T, r *http.Request, method string) wireCall {
	t.Helper()
	call := readCall(t, r)
	if call.Method != method {
		t.Errorf("%s: method %s, want %s", r.URL.Path, call.Method, method)
	}
	return call
}

// reply writes a JSON answer.
func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// idReq is one request seen by idServer.
type idReq struct {
	Method string         // the real HTTP method
	Path   string         // the path after /parse/
	Header http.Header    // request headers
	Raw    []byte         // raw body
	Body   map[string]any // the JSON body, when it is one
}

// idServer is an httptest server mounted at /parse that records every request and answers with reply.
type idServer struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []idReq
	reply func(r idReq) (int, string)
}

func newIDServer(t *testing.T, reply func(r idReq) (int, string)) *idServer {
	t.Helper()
	s := &idServer{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rq := idReq{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, "/parse/"), Header: r.Header.Clone(), Raw: raw}
		if r.URL.RawPath != "" {
			rq.Path = strings.TrimPrefix(r.URL.RawPath, "/parse/")
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			rq.Body = m
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rq)
		s.mu.Unlock()
		status, body := 200, "{}"
		if s.reply != nil {
			status, body = s.reply(rq)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *idServer) requests() []idReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]idReq(nil), s.reqs...)
}

func (s *idServer) count() int { return len(s.requests()) }

// last returns the only request, failing when there is not exactly one.
func (s *idServer) only(t *testing.T) idReq {
	t.Helper()
	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("want exactly 1 request, got %d: %+v", len(reqs), reqs)
	}
	return reqs[0]
}

// client returns a client of the server; master adds a master key.
func (s *idServer) client(t *testing.T, master bool) *Client {
	t.Helper()
	cfg := Config{
		ServerURL:      s.URL + "/parse",
		AppID:          "app1",
		JavaScriptKey:  "js1",
		InstallationID: "inst-1",
		MaxAttempts:    1,
		Retry:          RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
	}
	if master {
		cfg.MasterKey = "mk1"
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// jsonEq fails unless got (any JSON-encodable value) encodes to the same JSON as want.
func jsonEq(t *testing.T, got any, want string) {
	t.Helper()
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var g, w any
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %s: %v", want, err)
	}
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Fatalf("JSON mismatch\n got: %s\nwant: %s", gj, wj)
	}
}

func wantPath(t *testing.T, r idReq, method, path string) {
	t.Helper()
	if r.Path != path {
		t.Fatalf("path = %q, want %q", r.Path, path)
	}
	if r.Method != http.MethodPost {
		t.Fatalf("HTTP method = %s, want POST (the real method travels in _method)", r.Method)
	}
	got, _ := r.Body["_method"].(string)
	if method == http.MethodPost {
		if _, has := r.Body["_method"]; has {
			t.Fatalf("_method = %v, want none for a POST", r.Body["_method"])
		}
	} else if got != method {
		t.Fatalf("_method = %q, want %q", got, method)
	}
	if r.Body["_ApplicationId"] != "app1" || r.Body["_InstallationId"] != "inst-1" {
		t.Fatalf("missing app or installation id: %v", r.Body)
	}
}

// memServer is a small parse-server in memory: creates (with client-chosen ids, refusing a repeated one with
// 137, or ids of its own), updates, deletes and finds by id, alone or in /batch, and transactional /batch calls
// (all or nothing; a rollback answered as parse-server answers it, a bare 500). failClass refuses every write of a
// class; loseClass applies a /batch holding a create of the class and then answers 502 (and refuses finds of it),
// so the create stays in doubt; dropClass answers a /batch holding a write of the class 502 without applying it.
// With txMark it is a backend with moralis-go-server's txMark feature (moralisGoServerInfo, MoralisGoTxMark rows
// named by their mark, moralisGoTxApplied with its fence); without, those functions are "Invalid function".
type memServer struct {
	mu         sync.Mutex
	rows       map[string]map[string]map[string]any // class -> id -> fields
	writes     []string                             // "POST Class" / "PUT Class id" / "DELETE Class id", in the order applied
	failClass  string
	loseClass  string
	dropClass  string
	loseAtomic bool // apply a transactional /batch, then answer 502 (the answer lost)
	txMark     bool
	loseOne    bool // lose the answers of single (not /batch) writes, after applying them
	serverIDs  bool // the client leaves ids to the server (the default config); false: ClientObjectIDs
	seenReq    map[string]bool
	clock      int // seconds of the next updatedAt
}

// stamp is a new, later updatedAt.
func (m *memServer) stamp() string {
	m.clock++
	return fmt.Sprintf("2026-01-02T00:%02d:%02d.000Z", m.clock/60, m.clock%60)
}

// snapshot copies the rows (for a transaction's rollback).
func (m *memServer) snapshot() map[string]map[string]map[string]any {
	out := make(map[string]map[string]map[string]any, len(m.rows))
	for cls, ids := range m.rows {
		out[cls] = make(map[string]map[string]any, len(ids))
		for id, row := range ids {
			cp := make(map[string]any, len(row))
			for k, v := range row {
				cp[k] = v
			}
			out[cls][id] = cp
		}
	}
	return out
}

// function answers a cloud function call.
func (m *memServer) function(name string, params map[string]any) (int, any) {
	if !m.txMark {
		return 400, map[string]any{"code": 141, "error": "Invalid function: \"" + name + "\""}
	}
	switch name {
	case "moralisGoServerInfo":
		return 200, map[string]any{"result": map[string]any{"name": "moralis-go-server", "version": "0.0.0", "features": []any{"txMark"}}}
	case "moralisGoTxApplied":
		mark, _ := params["mark"].(string)
		if m.rows["MoralisGoTxMark"] == nil {
			m.rows["MoralisGoTxMark"] = map[string]map[string]any{}
		}
		if row := m.rows["MoralisGoTxMark"][mark]; row != nil {
			return 200, map[string]any{"result": map[string]any{"applied": row["fence"] != true}}
		}
		m.rows["MoralisGoTxMark"][mark] = map[string]any{"mark": mark, "fence": true}
		return 200, map[string]any{"result": map[string]any{"applied": false}}
	}
	return 400, map[string]any{"code": 141, "error": "Invalid function: \"" + name + "\""}
}

func (m *memServer) write(method, path string, body map[string]any) (int, map[string]any) {
	parts := strings.Split(strings.TrimPrefix(path, "/parse/"), "/")
	if parts[0] == "users" {
		parts = append([]string{"classes", "_User"}, parts[1:]...)
	}
	if len(parts) < 2 || parts[0] != "classes" {
		return 404, map[string]any{"code": 1, "error": "unexpected path " + path}
	}
	cls := parts[1]
	if cls == m.failClass {
		return 400, map[string]any{"code": 142, "error": "refused by the test"}
	}
	if m.rows[cls] == nil {
		m.rows[cls] = map[string]map[string]any{}
	}
	switch {
	case method == "POST" && len(parts) == 2:
		id, _ := body["objectId"].(string)
		if cls == "MoralisGoTxMark" {
			id, _ = body["mark"].(string) // the server's beforeSave makes the mark the row's id
		}
		if id == "" {
			id = fmt.Sprintf("srv%d", len(m.writes))
		}
		if _, dup := m.rows[cls][id]; dup {
			return 400, map[string]any{"code": 137, "error": "A duplicate value for a field with unique values was provided"}
		}
		row := map[string]any{}
		for k, v := range body {
			if op, ok := v.(map[string]any); ok && op["__op"] == "Increment" {
				v = op["amount"]
			}
			row[k] = v
		}
		row["objectId"] = id
		row["createdAt"], row["updatedAt"] = "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"
		m.rows[cls][id] = row
		m.writes = append(m.writes, "POST "+cls)
		return 201, map[string]any{"objectId": id, "createdAt": "2026-01-01T00:00:00.000Z"}
	case method == "PUT" && len(parts) == 3:
		row := m.rows[cls][parts[2]]
		if row == nil {
			return 404, map[string]any{"code": 101, "error": "Object not found."}
		}
		answer := map[string]any{}
		for k, v := range body {
			if op, ok := v.(map[string]any); ok && op["__op"] == "Increment" {
				n, _ := row[k].(float64)
				d, _ := op["amount"].(float64)
				v = n + d
				answer[k] = v
			}
			row[k] = v
		}
		row["updatedAt"] = m.stamp()
		answer["updatedAt"] = row["updatedAt"]
		m.writes = append(m.writes, "PUT "+cls+" "+parts[2])
		return 200, answer
	case method == "DELETE" && len(parts) == 3:
		if m.rows[cls][parts[2]] == nil {
			return 404, map[string]any{"code": 101, "error": "Object not found."}
		}
		delete(m.rows[cls], parts[2])
		m.writes = append(m.writes, "DELETE "+cls+" "+parts[2])
		return 200, map[string]any{}
	}
	return 404, map[string]any{"code": 1, "error": "unexpected " + method + " " + path}
}

func (m *memServer) reply(r idReq) (int, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := func(status int, v any) (int, string) {
		b, _ := json.Marshal(v)
		return status, string(b)
	}
	method, _ := r.Body["_method"].(string)
	if method == "" {
		method = "POST"
	}
	if r.Path == "batch" {
		reqs, _ := r.Body["requests"].([]any)
		answers := make([]map[string]any, len(reqs))
		lose, failed := false, false
		tx := r.Body["transaction"] == true
		before := m.snapshot()
		for _, q := range reqs {
			if path := q.(map[string]any)["path"].(string); m.dropClass != "" && strings.HasPrefix(path, "/parse/classes/"+m.dropClass) {
				return 502, "bad gateway" // lost before the server saw it
			}
		}
		for i, q := range reqs {
			sub := q.(map[string]any)
			body, _ := sub["body"].(map[string]any)
			path := sub["path"].(string)
			if m.loseClass != "" && strings.HasPrefix(path, "/parse/classes/"+m.loseClass) {
				lose = true
			}
			if status, a := m.write(sub["method"].(string), path, body); status < 300 {
				answers[i] = map[string]any{"success": a}
			} else {
				answers[i] = map[string]any{"error": a}
				failed = true
			}
		}
		if tx && failed {
			m.rows = before
			return 500, `{"code":1,"message":"Internal server error."}`
		}
		if lose || tx && m.loseAtomic {
			return 502, "bad gateway"
		}
		return out(200, answers)
	}
	if name, ok := strings.CutPrefix(r.Path, "functions/"); ok {
		params := map[string]any{}
		for k, v := range r.Body {
			if !strings.HasPrefix(k, "_") {
				params[k] = v
			}
		}
		status, a := m.function(name, params)
		return out(status, a)
	}
	if method == "GET" {
		cls := strings.TrimPrefix(r.Path, "classes/")
		if c, _, _ := strings.Cut(cls, "/"); c == m.loseClass {
			return 502, "bad gateway"
		}
		if cls, id, one := strings.Cut(cls, "/"); one { // one object
			if row := m.rows[cls][id]; row != nil {
				return out(200, row)
			}
			return out(404, map[string]any{"code": 101, "error": "Object not found."})
		}
		var where map[string]any
		switch w := r.Body["where"].(type) {
		case map[string]any:
			where = w
		case string:
			_ = json.Unmarshal([]byte(w), &where)
		}
		var results []map[string]any
		if in, ok := where["objectId"].(map[string]any)["$in"].([]any); ok {
			for _, id := range in {
				if row := m.rows[cls][id.(string)]; row != nil {
					results = append(results, row)
				}
			}
		}
		return out(200, map[string]any{"results": results})
	}
	body := map[string]any{}
	for k, v := range r.Body {
		if !strings.HasPrefix(k, "_") {
			body[k] = v
		}
	}
	// Request ids are deduplicated as parse-server's idempotencyOptions do: recorded before the write.
	if rid := r.Header.Get("X-Parse-Request-Id"); rid != "" {
		if m.seenReq == nil {
			m.seenReq = map[string]bool{}
		}
		if m.seenReq[rid] {
			return out(400, map[string]any{"code": 159, "error": "Duplicate request"})
		}
		m.seenReq[rid] = true
	}
	if id, ok := body["objectId"]; ok && id == "" { // the deduplication probe's body
		return out(400, map[string]any{"code": 104, "error": "objectId must not be empty, null or undefined"})
	}
	status, a := m.write(method, "/parse/"+r.Path, body)
	if m.loseOne {
		return 502, "bad gateway"
	}
	return out(status, a)
}

func memClient(t *testing.T, m *memServer) (*Client, *idServer) {
	t.Helper()
	m.rows = map[string]map[string]map[string]any{}
	srv := newIDServer(t, m.reply)
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", MaxAttempts: 2, Retry: RetryPolicy{Base: time.Millisecond}, ClientObjectIDs: !m.serverIDs})
	require.NoError(t, err)
	return c, srv
}

func ptr(o *parse.Object) map[string]any {
	return map[string]any{"__type": "Pointer", "className": o.ClassName(), "objectId": o.ID()}
}

// rowOf is the stored row whose key is o's.
func (m *memServer) rowOf(o *parse.Object) (string, map[string]any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, row := range m.rows[o.ClassName()] {
		if row["key"] == o.Get("key") {
			return id, row
		}
	}
	return "", nil
}

// newThings makes n new objects of class Thing, each with a=1, n=1, tag=A and its own key.
func newThings(t *testing.T, n int) []*parse.Object {
	objs := make([]*parse.Object, n)
	for i := range objs {
		objs[i] = parse.NewObject("Thing")
		require.NoError(t, objs[i].Set("key", fmt.Sprintf("k%d", i)))
		require.NoError(t, objs[i].Set("a", 1))
		require.NoError(t, objs[i].Set("tag", "A"))
		require.NoError(t, objs[i].Increment("n", 1))
	}
	return objs
}

// editThings makes the edits: tag=B, b=2, n+=2.
func editThings(t *testing.T, objs []*parse.Object) {
	for _, o := range objs {
		require.NoError(t, o.Set("tag", "B"))
		require.NoError(t, o.Set("b", 2))
		require.NoError(t, o.Increment("n", 2))
	}
}

// assertIntended fails unless the server holds one row per object, with the edited values, and the
// objects have nothing pending.
func assertIntended(t *testing.T, m *memServer, objs []*parse.Object) {
	t.Helper()
	assert.Len(t, m.rows["Thing"], len(objs), "one row per object")
	for _, o := range objs {
		id, row := m.rowOf(o)
		require.NotNil(t, row, "a row for %v", o.Get("key"))
		assert.Equal(t, id, o.ID())
		assert.EqualValues(t, 1, row["a"])
		assert.EqualValues(t, 2, row["b"])
		assert.Equal(t, "B", row["tag"])
		assert.Empty(t, o.DirtyKeys())
	}
}
