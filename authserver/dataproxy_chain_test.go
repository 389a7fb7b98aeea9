package authserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

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

// seqChain answers call i with {"balance":"i"} (from 1); a call waits on the gate of its number when there is one.
type seqChain struct {
	calls atomic.Int32
	mu    sync.Mutex
	gates map[int32]chan struct{}
}

func (s *seqChain) Raw(ctx context.Context, method, path string, q url.Values, body any, out any) error {
	n := s.calls.Add(1)
	s.mu.Lock()
	gate := s.gates[n]
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	*(out.(*json.RawMessage)) = json.RawMessage(fmt.Sprintf(`{"balance":"%d"}`, n))
	return nil
}

func (e *proxyEnv) getFresh(path, tok string) answer {
	e.t.Helper()
	h := cookie(tok)
	h["Cache-Control"] = "max-age=0, No-Cache"
	return e.do("GET", path, "", "", h)
}

// Cache-Control: no-cache (sent by the hooks after a receipt) skips the cached answer, and the fresh answer is what
// later requests are served. Fails when the proxy ignores the header.
func TestDataProxyNoCacheGetsAFreshAnswer(t *testing.T) {
	s := &seqChain{}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = s })
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"1"}` || a.header.Get("X-Cache") != "MISS" {
		t.Fatalf("first: %s %q", a.raw, a.header.Get("X-Cache"))
	}
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"1"}` || a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("cached: %s %q", a.raw, a.header.Get("X-Cache"))
	}
	if a := e.getFresh("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` || a.header.Get("X-Cache") != "MISS" {
		t.Fatalf("no-cache: %s %q", a.raw, a.header.Get("X-Cache"))
	}
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` || a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("after no-cache: %s %q, want the fresh answer from the cache", a.raw, a.header.Get("X-Cache"))
	}
	if n := s.calls.Load(); n != 2 {
		t.Fatalf("upstream calls: %d, want 2", n)
	}
	// The preflight lets a cross-origin page send the header.
	pre := e.do("OPTIONS", "/data/chain/balance", "", "", map[string]string{"Origin": "https://app.example",
		"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "cache-control"})
	if pre.status != 204 || pre.header.Get("Access-Control-Allow-Headers") != "Content-Type, Authorization, Cache-Control" {
		t.Fatalf("preflight: %d %v", pre.status, pre.header)
	}
}

// A fresh request does not join a call that began before it, and that older call's answer, arriving last, does not
// replace the fresh one in the cache. Fails when fresh requests share the older flight, or when the cache keeps
// whichever answer came last.
func TestDataProxyNoCacheIsNotOverwrittenByAnOlderCall(t *testing.T) {
	s := &seqChain{gates: map[int32]chan struct{}{1: make(chan struct{})}}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = s })
	old := make(chan answer, 1)
	go func() { old <- e.get("/data/chain/balance", proxyToken) }()
	for deadline := time.Now().Add(5 * time.Second); s.calls.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the first call never reached the chain")
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.clock.Add(time.Second) // the transaction lands; the page asks again
	if a := e.getFresh("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` {
		t.Fatalf("fresh request joined the older call or was served stale: %s", a.raw)
	}
	close(s.gates[1])
	if a := <-old; a.raw != `{"balance":"1"}` {
		t.Fatalf("older call: %s", a.raw)
	}
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` || a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("cache after both: %s %q, want the fresh answer", a.raw, a.header.Get("X-Cache"))
	}
}

// CacheEntries (1,000) times MaxResponseBytes (1 MiB) let the cache grow to a GiB of distinct answers (chains,
// cursors, limits, addresses with AnyAddress): it needs a bound in bytes.
func TestDataProxyCacheBoundedInBytes(t *testing.T) {
	e := newProxyEnv(t, nil)
	h, err := e.h.DataProxy(DataProxyConfig{Chain: &gatedChain{body: `{}`}})
	if err != nil {
		t.Fatal(err)
	}
	c := h.(*dataProxy).cache
	body := make([]byte, DefaultDataMaxResponseBytes) // one array, so the test itself stays small
	for i := 0; i < DefaultDataCacheEntries; i++ {
		c.putFrom(fmt.Sprintf("/0x%040x/nft?chain=eth&limit=%d", i, i%100+1), body, time.Now())
	}
	total := 0
	c.mu.Lock()
	for _, en := range c.m {
		total += len(en.v)
	}
	n := len(c.m)
	c.mu.Unlock()
	if total > 64<<20 {
		t.Fatalf("cache holds %d answers, %d MiB", n, total>>20)
	}
	if _, ok := c.get(fmt.Sprintf("/0x%040x/nft?chain=eth&limit=%d", DefaultDataCacheEntries-1, (DefaultDataCacheEntries-1)%100+1)); !ok {
		t.Fatal("the newest answer was not kept")
	}
}

// panicChain panics in its first call once gate opens, and counts calls.
type panicChain struct {
	calls atomic.Int32
	gate  chan struct{}
}

func (p *panicChain) Raw(ctx context.Context, _, _ string, _ url.Values, _ any, _ any) error {
	p.calls.Add(1)
	<-p.gate
	panic("chain data implementation bug")
}

// An empty upstream answer was served as an empty 200 (not JSON), and so was the answer of every request that
// waited on a call whose ChainData panicked.
func TestDataProxyEmptyOrFailedUpstreamIsAnError(t *testing.T) {
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = &gatedChain{body: ""} })
	wantError(t, e.get("/data/chain/balance", proxyToken), 502, parse.CodeInternalServerError, "Upstream error")

	pc := &panicChain{gate: make(chan struct{})}
	f := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = pc })
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the panic it recovers
	type result struct {
		status int
		body   string
		err    error
	}
	get := func() result {
		req, _ := http.NewRequest("GET", f.srv.URL+"/auth/data/chain/balance", nil)
		req.AddCookie(&http.Cookie{Name: DefaultCookieName, Value: proxyToken})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return result{err: err}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return result{status: resp.StatusCode, body: string(b)}
	}
	first := make(chan result, 1)
	go func() { first <- get() }()
	for deadline := time.Now().Add(5 * time.Second); pc.calls.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	waiter := make(chan result, 1)
	go func() { waiter <- get() }()
	time.Sleep(100 * time.Millisecond) // the second request joins the call in flight
	close(pc.gate)
	<-first // its connection is dropped by net/http's recover
	w := <-waiter
	if w.err != nil {
		t.Fatalf("waiter: %v", w.err)
	}
	if w.status == 200 {
		t.Fatalf("a request that waited on a failed call got 200 %q", w.body)
	}
	if pc.calls.Load() != 1 {
		t.Fatalf("calls: %d", pc.calls.Load())
	}
}
