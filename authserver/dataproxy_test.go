package authserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

const (
	proxyUserAddr  = "0x1111111111111111111111111111111111111111"
	proxyOtherAddr = "0x2222222222222222222222222222222222222222"
	proxyToken     = "r:proxy-session"
	proxyToken2    = "r:proxy-session-2"
)

// fakeDataBackend records the calls that reach it.
type fakeDataBackend struct {
	mu      sync.Mutex
	queries []*query.Request
	tokens  []string
	funcs   []string
	params  []map[string]any
	err     error
	results []json.RawMessage
}

func (f *fakeDataBackend) RunQuery(_ context.Context, tok string, req *query.Request) (*query.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, req)
	f.tokens = append(f.tokens, tok)
	if f.err != nil {
		return nil, f.err
	}
	res := &query.Response{Results: f.results}
	if c, _ := req.Params["count"].(int); c == 1 {
		res.Count, res.HasCount = len(f.results), true
	}
	return res, nil
}

func (f *fakeDataBackend) CallFunction(_ context.Context, tok, name string, params map[string]any) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.funcs = append(f.funcs, name)
	f.tokens = append(f.tokens, tok)
	f.params = append(f.params, params)
	if f.err != nil {
		return nil, f.err
	}
	b, _ := json.Marshal(map[string]any{"echo": params, "name": name})
	return b, nil
}

func (f *fakeDataBackend) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queries) + len(f.funcs)
}

type proxyEnv struct {
	*testEnv
	api  *web3apitest.Server
	data *fakeDataBackend
}

// newProxyEnv serves the Handler and its DataProxy (over web3apitest with its API key, and a fake DataBackend)
// under /auth; the fake backend knows two sessions.
func newProxyEnv(t *testing.T, mod func(o *DataProxyConfig)) *proxyEnv {
	t.Helper()
	api := web3apitest.NewServer(t)
	w3, err := web3api.New(web3api.Config{APIKey: api.APIKey, BaseURL: api.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, nil)
	e.be.users[proxyToken] = &PublicUser{ObjectID: "u1", EthAddress: proxyUserAddr, Accounts: []string{proxyUserAddr}}
	e.be.users[proxyToken2] = &PublicUser{ObjectID: "u2", EthAddress: proxyOtherAddr, Accounts: []string{proxyOtherAddr}}
	data := &fakeDataBackend{}
	o := DataProxyConfig{Chain: w3, Backend: data, AllowedFunctions: []string{"echo"}}
	if mod != nil {
		mod(&o)
	}
	p, err := e.h.DataProxy(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/data/", http.StripPrefix("/auth", p))
	mux.Handle("/auth/", http.StripPrefix("/auth", e.h))
	e.srv.Config.Handler = mux
	return &proxyEnv{testEnv: e, api: api, data: data}
}

func cookie(tok string) map[string]string {
	return map[string]string{"Cookie": DefaultCookieName + "=" + tok}
}

func (e *proxyEnv) get(path, tok string) answer {
	e.t.Helper()
	var hdr map[string]string
	if tok != "" {
		hdr = cookie(tok)
	}
	return e.do("GET", path, "", "", hdr)
}

func (e *proxyEnv) post(path, tok string, body any) answer {
	e.t.Helper()
	b, _ := json.Marshal(body)
	var hdr map[string]string
	if tok != "" {
		hdr = cookie(tok)
	}
	return e.do("POST", path, "application/json", string(b), hdr)
}

func wantError(t *testing.T, a answer, status int, code parse.Code, msg string) {
	t.Helper()
	if a.status != status || a.body["code"] != float64(code) || (msg != "" && a.body["error"] != msg) {
		t.Fatalf("got %d %s, want %d {code %d, error %q}", a.status, a.raw, status, code, msg)
	}
}

func TestDataProxySessionFirst(t *testing.T) {
	e := newProxyEnv(t, nil)
	for _, c := range []struct {
		name, method, path, tok string
	}{
		{"no session, chain", "GET", "/data/chain/balance", ""},
		{"fake session, chain", "GET", "/data/chain/balance", "r:forged"},
		{"no session, query", "POST", "/data/query", ""},
		{"fake session, function", "POST", "/data/function", "r:forged"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a answer
			if c.method == "GET" {
				a = e.get(c.path, c.tok)
			} else {
				a = e.post(c.path, c.tok, map[string]any{"className": "Item", "name": "echo"})
			}
			wantError(t, a, 401, parse.CodeInvalidSessionToken, "Invalid session token")
			// A session the backend refused is cleared from the browser.
			if cleared := strings.Contains(a.header.Get("Set-Cookie"), DefaultCookieName+"=;") &&
				strings.Contains(a.header.Get("Set-Cookie"), "Max-Age=0"); cleared != (c.tok != "") {
				t.Fatalf("Set-Cookie %q (token %q)", a.header.Get("Set-Cookie"), c.tok)
			}
		})
	}
	if n := e.api.Count("getNativeBalance"); n != 0 {
		t.Fatalf("the chain-data API was called %d times without a session", n)
	}
	if n := e.data.count(); n != 0 {
		t.Fatalf("the backend ran %d data requests without a session", n)
	}
	// A forged token is checked once per request with users/me and never cached.
	before := e.cb.n.Load()
	e.get("/data/chain/balance", "r:forged")
	e.get("/data/chain/balance", "r:forged")
	if got := e.cb.n.Load() - before; got != 2 {
		t.Fatalf("users/me calls for two forged requests: %d, want 2", got)
	}
}

func TestDataProxyChainBalanceDefaultsToTheUserAndCaches(t *testing.T) {
	e := newProxyEnv(t, nil)
	a := e.get("/data/chain/balance?chain=1337", proxyToken)
	if a.status != 200 || a.header.Get("X-Cache") != "MISS" {
		t.Fatalf("first: %d %s (X-Cache %q)", a.status, a.raw, a.header.Get("X-Cache"))
	}
	if b, ok := a.body["balance"].(string); !ok || strings.Trim(b, "0123456789") != "" || b == "" {
		t.Fatalf("no decimal balance in %s", a.raw)
	}
	// Same request from the same (or another) session within the TTL: from the cache, one upstream call.
	b := e.get("/data/chain/balance?chain=0x539", proxyToken)
	if b.status != 200 || b.header.Get("X-Cache") != "HIT" || b.raw != a.raw {
		t.Fatalf("second: %d %q %s", b.status, b.header.Get("X-Cache"), b.raw)
	}
	if n := e.api.Count("getNativeBalance"); n != 1 {
		t.Fatalf("upstream calls: %d, want 1", n)
	}
	// After the TTL the API is asked again.
	e.clock.Add(DefaultDataCacheTTL + time.Second)
	if c := e.get("/data/chain/balance?chain=1337", proxyToken); c.header.Get("X-Cache") != "MISS" {
		t.Fatalf("after the TTL: X-Cache %q", c.header.Get("X-Cache"))
	}
	if n := e.api.Count("getNativeBalance"); n != 2 {
		t.Fatalf("upstream calls after the TTL: %d, want 2", n)
	}
	// Every kind answers, with the user's address in the path.
	for _, path := range []string{"tokens", "nfts?limit=5", "transactions?limit=5&cursor=b2Zmc2V0OjU"} {
		if a := e.get("/data/chain/"+path, proxyToken); a.status != 200 {
			t.Fatalf("%s: %d %s", path, a.status, a.raw)
		}
	}
}

func TestDataProxyChainRefusals(t *testing.T) {
	e := newProxyEnv(t, nil)
	cases := []struct {
		path   string
		status int
		code   parse.Code
		msg    string
	}{
		{"/data/chain/balance?address=" + proxyOtherAddr, 403, parse.CodeOperationForbidden, "Address is not linked to this user"},
		{"/data/chain/balance?address=0xnope", 400, parse.CodeValidationError, "Invalid address"},
		{"/data/chain/balance?chain=0xZZ", 400, parse.CodeInvalidQuery, "Invalid chain"},
		{"/data/chain/balance?chain=../../x", 400, parse.CodeInvalidQuery, "Invalid chain"},
		{"/data/chain/balance?limit=5", 400, parse.CodeInvalidQuery, "cursor and limit apply to nfts and transactions only"},
		{"/data/chain/nfts?limit=101", 400, parse.CodeInvalidQuery, "limit must be an integer from 1 to 100"},
		{"/data/chain/nfts?cursor=%3Cscript%3E", 400, parse.CodeInvalidQuery, "Invalid cursor"},
		{"/data/chain/balance?x-api-key=1", 400, parse.CodeInvalidQuery, `Unknown parameter "x-api-key"`},
		{"/data/chain/unknown", 404, parse.CodeInvalidJSON, "not found"},
	}
	for _, c := range cases {
		wantError(t, e.get(c.path, proxyToken), c.status, c.code, c.msg)
	}
	total := 0
	for _, ep := range []string{"getNativeBalance", "getNFTs"} {
		total += e.api.Count(ep)
	}
	if total != 0 {
		t.Fatalf("refused requests reached the API %d times", total)
	}
	wantError(t, e.post("/data/chain/balance", proxyToken, map[string]any{}), 405, parse.CodeInvalidJSON, "Method not allowed")
	// With AnyAddress the other address is served.
	open := newProxyEnv(t, func(o *DataProxyConfig) { o.AnyAddress = true })
	if a := open.get("/data/chain/balance?address="+proxyOtherAddr, proxyToken); a.status != 200 {
		t.Fatalf("AnyAddress: %d %s", a.status, a.raw)
	}
}

func TestDataProxyPerSessionRateLimit(t *testing.T) {
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.RateLimit = RateLimit{Burst: 2, Every: time.Hour} })
	for i := 0; i < 2; i++ {
		if a := e.get("/data/chain/balance", proxyToken); a.status != 200 {
			t.Fatalf("request %d: %d %s", i, a.status, a.raw)
		}
	}
	a := e.get("/data/chain/balance", proxyToken)
	wantError(t, a, 429, parse.CodeRequestLimitExceeded, "Too many requests")
	if a.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	// Another session (same client address) has its own budget.
	if b := e.get("/data/chain/balance", proxyToken2); b.status != 200 {
		t.Fatalf("other session: %d %s", b.status, b.raw)
	}
	// The default limit is on.
	d := newProxyEnv(t, nil)
	for i := 0; i < DefaultDataRateBurst; i++ {
		if a := d.post("/data/function", proxyToken, map[string]any{"name": "echo"}); a.status != 200 {
			t.Fatalf("request %d: %d %s", i, a.status, a.raw)
		}
	}
	wantError(t, d.post("/data/function", proxyToken, map[string]any{"name": "echo"}), 429, parse.CodeRequestLimitExceeded, "Too many requests")
}

// gatedChain is a ChainData whose answers wait for a gate; it counts calls.
type gatedChain struct {
	calls atomic.Int32
	gate  chan struct{}
	body  string
	err   error
}

func (g *gatedChain) Raw(ctx context.Context, method, path string, q url.Values, body any, out any) error {
	g.calls.Add(1)
	if g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if g.err != nil {
		return g.err
	}
	*(out.(*json.RawMessage)) = json.RawMessage(g.body)
	return nil
}

func TestDataProxySharesConcurrentCallsAndBoundsTheCache(t *testing.T) {
	g := &gatedChain{gate: make(chan struct{}), body: `{"balance":"7"}`}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = g; o.CacheEntries = 2 })
	var wg sync.WaitGroup
	answers := make([]answer, 5)
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = e.get("/data/chain/balance", proxyToken2) }()
	}
	for deadline := time.Now().Add(5 * time.Second); g.calls.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(g.gate)
	wg.Wait()
	for i, a := range answers {
		if a.status != 200 || a.raw != `{"balance":"7"}` {
			t.Fatalf("answer %d: %d %s", i, a.status, a.raw)
		}
	}
	if n := g.calls.Load(); n != 1 {
		t.Fatalf("upstream calls for 5 concurrent identical requests: %d, want 1", n)
	}
	// Bounded: a third key evicts the oldest.
	e.get("/data/chain/balance?chain=1", proxyToken2)
	e.get("/data/chain/balance?chain=5", proxyToken2)
	e.get("/data/chain/balance?chain=10", proxyToken2)
	before := g.calls.Load()
	if a := e.get("/data/chain/balance?chain=1", proxyToken2); a.header.Get("X-Cache") != "MISS" {
		t.Fatalf("evicted entry served from the cache (%q)", a.header.Get("X-Cache"))
	}
	if g.calls.Load() != before+1 {
		t.Fatal("no upstream call for the evicted entry")
	}
	if a := e.get("/data/chain/balance?chain=10", proxyToken2); a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("recent entry not cached (%q)", a.header.Get("X-Cache"))
	}
}

func TestDataProxyBoundsAnswersAndHidesUpstreamDetails(t *testing.T) {
	big := &gatedChain{body: `{"balance":"` + strings.Repeat("9", 2000) + `"}`}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = big; o.MaxResponseBytes = 1000 })
	wantError(t, e.get("/data/chain/balance", proxyToken), 502, parse.CodeInternalServerError, "Response too large")
	wantError(t, e.get("/data/chain/balance", proxyToken), 502, parse.CodeInternalServerError, "Response too large")
	if n := big.calls.Load(); n != 2 {
		t.Fatalf("a too-large answer was cached (%d calls)", n)
	}
	// An upstream failure says nothing of the upstream (URL, key).
	api := newProxyEnv(t, nil)
	api.api.SetFailure("getNativeBalance", 500, `{"message":"boom at internal host"}`)
	a := api.get("/data/chain/balance", proxyToken)
	wantError(t, a, 502, parse.CodeInternalServerError, "Upstream error")
	if strings.Contains(a.raw, api.api.URL) || strings.Contains(a.raw, api.api.APIKey) || strings.Contains(a.raw, "boom") {
		t.Fatalf("upstream details leaked: %s", a.raw)
	}
	api.api.SetRateLimit("getNFTs", "7", nil)
	r := api.get("/data/chain/nfts", proxyToken)
	wantError(t, r, 429, parse.CodeRequestLimitExceeded, "Chain data rate limit reached")
	if r.header.Get("Retry-After") != "7" {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
}

func TestDataProxyQuery(t *testing.T) {
	e := newProxyEnv(t, nil)
	e.data.results = []json.RawMessage{json.RawMessage(`{"objectId":"a","n":1}`)}
	a := e.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": map[string]any{"n": map[string]any{"$gt": 0}},
		"order": "-createdAt", "limit": 10, "keys": []string{"n"}, "count": true})
	if a.status != 200 || a.raw != `{"count":1,"results":[{"objectId":"a","n":1}]}`+"\n" {
		t.Fatalf("query: %d %q", a.status, a.raw)
	}
	req := e.data.queries[0]
	if req.ClassName != "Item" || req.UseMasterKey || e.data.tokens[0] != proxyToken {
		t.Fatalf("request %+v as %q", req, e.data.tokens[0])
	}
	if req.Params["limit"] != 10 || req.Params["order"] != "-createdAt" {
		t.Fatalf("params %#v", req.Params)
	}
	refusals := []struct {
		body   any
		status int
		code   parse.Code
		msg    string
	}{
		{map[string]any{"className": "_User"}, 403, parse.CodeOperationForbidden, "Class not allowed"},
		{map[string]any{"className": "_Session"}, 403, parse.CodeOperationForbidden, "Class not allowed"},
		{map[string]any{"className": "bad name"}, 400, parse.CodeInvalidClassName, "Invalid class name"},
		{map[string]any{"className": "Item", "where": map[string]any{"t": map[string]any{"$regex": "(a+)+$"}}}, 400, parse.CodeInvalidQuery, "$regex is not allowed"},
		{map[string]any{"className": "Item", "limit": 5000}, 400, parse.CodeInvalidQuery, "limit must be an integer from 0 to 1000"},
		{map[string]any{"className": "Item", "skip": -1}, 400, parse.CodeInvalidQuery, ""},
		{map[string]any{"className": "Item", "useMasterKey": true}, 400, parse.CodeInvalidJSON, "Invalid JSON body"},
		{map[string]any{"className": "Item", "where": map[string]any{"$bad": 1}}, 400, parse.CodeInvalidQuery, ""},
	}
	for _, r := range refusals {
		wantError(t, e.post("/data/query", proxyToken, r.body), r.status, r.code, r.msg)
	}
	if len(e.data.queries) != 1 {
		t.Fatalf("refused queries reached the backend: %d", len(e.data.queries))
	}
	wantError(t, e.do("POST", "/data/query", "text/plain", `{}`, cookie(proxyToken)), 415, parse.CodeInvalidJSON, "")
	wantError(t, e.do("POST", "/data/query", "application/json", `{"className":"`+strings.Repeat("a", DefaultDataMaxBodyBytes)+`"}`, cookie(proxyToken)), 413, parse.CodeInvalidJSON, "Request body too large")
	// The backend's refusals keep their code; a dead session clears the cookie.
	e.data.err = &parse.Error{Code: parse.CodeOperationForbidden, Message: "Permission denied for action find on class Item.", Status: 403}
	wantError(t, e.post("/data/query", proxyToken, map[string]any{"className": "Item"}), 403, parse.CodeOperationForbidden, "Permission denied for action find on class Item.")
	e.data.err = &parse.Error{Code: parse.CodeInvalidSessionToken, Message: "Invalid session token", Status: 400}
	a = e.post("/data/query", proxyToken, map[string]any{"className": "Item"})
	wantError(t, a, 401, parse.CodeInvalidSessionToken, "Invalid session token")
	if !strings.Contains(a.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("cookie not cleared: %q", a.header.Get("Set-Cookie"))
	}
	// AllowedClasses restricts further.
	only := newProxyEnv(t, func(o *DataProxyConfig) { o.AllowedClasses = []string{"Item"} })
	wantError(t, only.post("/data/query", proxyToken, map[string]any{"className": "Other"}), 403, parse.CodeOperationForbidden, "Class not allowed")
}

func TestDataProxyFunction(t *testing.T) {
	e := newProxyEnv(t, nil)
	a := e.post("/data/function", proxyToken, map[string]any{"name": "echo", "params": map[string]any{"n": 2, "s": "x"}})
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	res := a.body["result"].(map[string]any)
	if res["name"] != "echo" || res["echo"].(map[string]any)["n"] != float64(2) || e.data.tokens[0] != proxyToken {
		t.Fatalf("result %v", res)
	}
	// A function not listed is code 141 like a function's own failure, so the same status (400: the one table).
	for _, name := range []string{"getAllERC20", "", "../x", "echo2"} {
		wantError(t, e.post("/data/function", proxyToken, map[string]any{"name": name}), 400, parse.CodeScriptFailed, "")
	}
	if len(e.data.funcs) != 1 {
		t.Fatalf("refused functions reached the backend: %v", e.data.funcs)
	}
	e.data.err = &parse.Error{Code: parse.CodeScriptFailed, Message: "intentional failure", Status: 400}
	wantError(t, e.post("/data/function", proxyToken, map[string]any{"name": "echo"}), 400, parse.CodeScriptFailed, "intentional failure")
}

func TestDataProxyOriginAndOptions(t *testing.T) {
	e := newProxyEnv(t, nil)
	a := e.do("GET", "/data/chain/balance", "", "", map[string]string{"Origin": "https://evil.example", "Cookie": DefaultCookieName + "=" + proxyToken})
	wantError(t, a, 403, parse.CodeOperationForbidden, "Origin not allowed")
	ok := e.do("GET", "/data/chain/balance", "", "", map[string]string{"Origin": "https://app.example", "Cookie": DefaultCookieName + "=" + proxyToken})
	if ok.status != 200 || ok.header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("allowed origin: %d %v", ok.status, ok.header)
	}
	if _, err := e.h.DataProxy(DataProxyConfig{DefaultChain: "bad chain!"}); err == nil {
		t.Fatal("bad DefaultChain accepted")
	}
	if _, err := e.h.DataProxy(DataProxyConfig{AllowedFunctions: []string{"a b"}}); err == nil {
		t.Fatal("bad function name accepted")
	}
	// Routes without a configured upstream are 404.
	none := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = nil; o.Backend = nil })
	wantError(t, none.get("/data/chain/balance", proxyToken), 404, parse.CodeInvalidJSON, "not found")
	wantError(t, none.post("/data/query", proxyToken, map[string]any{"className": "Item"}), 404, parse.CodeInvalidJSON, "not found")
}

func TestNormalizeChain(t *testing.T) {
	for in, want := range map[string]string{"1": "0x1", "1337": "0x539", "0x539": "0x539", "0X0539": "0x539", "eth": "eth", "Polygon": "polygon"} {
		if got, ok := normalizeChain(in); !ok || got != want {
			t.Errorf("normalizeChain(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0", "0x", "0x0", "-1", "1.5", "e", "eth/../x", "99999999999"} {
		if _, ok := normalizeChain(in); ok {
			t.Errorf("normalizeChain(%q) accepted", in)
		}
	}
}
