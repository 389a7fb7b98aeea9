package authserver

// Attacks on Handler.DataProxy by a signed-in user (or none): each test is one finding of the red-team review.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/c13f5054/moralis-go/parse"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
)

// fakeParse is a backend REST server that records the bodies it gets and answers every call with status/body.
type fakeParse struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
	status int
	ctype  string
	body   string
}

func newFakeParse(t *testing.T, status int, ctype, body string) *fakeParse {
	t.Helper()
	f := &fakeParse{status: status, ctype: ctype, body: body}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		f.mu.Lock()
		f.bodies = append(f.bodies, string(b))
		f.mu.Unlock()
		w.Header().Set("Content-Type", f.ctype)
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, f.body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeParse) seen() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.bodies, "\n")
}

// A subquery ($inQuery, $notInQuery, $select, $dontSelect, at any depth) reads its own class: it must not reach
// a class /data/query may not read (_User, _Session, _Role by default; anything not in AllowedClasses).
func TestDataProxyRedteamSubqueryClassNotAllowed(t *testing.T) {
	e := newProxyEnv(t, nil)
	refused := []map[string]any{
		{"owner": map[string]any{"$inQuery": map[string]any{"className": "_Session", "where": map[string]any{}}}},
		{"objectId": map[string]any{"$select": map[string]any{"key": "objectId",
			"query": map[string]any{"className": "_User", "where": map[string]any{"username": "bob"}}}}},
		{"$or": []any{map[string]any{"a": map[string]any{"$notInQuery": map[string]any{"className": "_Role"}}}}},
		{"a": map[string]any{"$inQuery": map[string]any{"className": "Item", "where": map[string]any{
			"b": map[string]any{"$dontSelect": map[string]any{"key": "x", "query": map[string]any{"className": "_User"}}}}}}},
	}
	for i, where := range refused {
		wantError(t, e.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": where}),
			403, parse.CodeOperationForbidden, "")
		if n := e.data.count(); n != 0 {
			t.Fatalf("where %d: a subquery of a refused class reached the backend", i)
		}
	}
	only := newProxyEnv(t, func(o *DataProxyConfig) { o.AllowedClasses = []string{"Item"} })
	wantError(t, only.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": map[string]any{
		"x": map[string]any{"$inQuery": map[string]any{"className": "Secret"}}}}), 403, parse.CodeOperationForbidden, "")
	// A subquery of an allowed class is fine.
	if a := only.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": map[string]any{
		"x": map[string]any{"$inQuery": map[string]any{"className": "Item"}}}}); a.status != 200 {
		t.Fatalf("allowed subquery: %d %s", a.status, a.raw)
	}
}

// include embeds the objects a pointer names, of any class: an object of a class /data/query may not read must
// go back to a pointer (here another user's _User row with its addresses).
func TestDataProxyRedteamIncludeHidesOtherClasses(t *testing.T) {
	result := `{"objectId":"a","owner":{"__type":"Object","className":"_User","objectId":"u2","ethAddress":"` +
		proxyOtherAddr + `","accounts":["` + proxyOtherAddr + `"]},"tags":[{"__type":"Object","className":"Tag","objectId":"t1","name":"red"}],"n":12345678901234567}`
	e := newProxyEnv(t, nil)
	e.data.results = []json.RawMessage{json.RawMessage(result)}
	a := e.post("/data/query", proxyToken, map[string]any{"className": "Item", "include": []string{"owner", "tags"}})
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	if strings.Contains(a.raw, proxyOtherAddr) || !strings.Contains(a.raw, `{"__type":"Pointer","className":"_User","objectId":"u2"}`) {
		t.Fatalf("an included _User was served: %s", a.raw)
	}
	if !strings.Contains(a.raw, `"name":"red"`) || !strings.Contains(a.raw, `12345678901234567`) {
		t.Fatalf("an allowed included class (or a number) was changed: %s", a.raw)
	}
	only := newProxyEnv(t, func(o *DataProxyConfig) { o.AllowedClasses = []string{"Item"} })
	only.data.results = []json.RawMessage{json.RawMessage(result)}
	b := only.post("/data/query", proxyToken, map[string]any{"className": "Item", "include": []string{"tags"}})
	if b.status != 200 || strings.Contains(b.raw, `"red"`) {
		t.Fatalf("a class outside AllowedClasses was served through include: %d %s", b.status, b.raw)
	}
}

// ClientDataBackend promises the user's session, never the master key; over a WithMasterKey view every call
// carried _MasterKey (ACLs off for every signed-in user).
func TestDataProxyRedteamMasterKeyClientRefused(t *testing.T) {
	fp := newFakeParse(t, 200, "application/json", `{"results":[{"objectId":"secret"}]}`)
	mc, err := client.New(client.Config{ServerURL: fp.srv.URL, AppID: "app", JavaScriptKey: "js", MasterKey: "the-master-key", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := newProxyEnv(t, nil)
	p, err := e.h.DataProxy(DataProxyConfig{Backend: NewClientDataBackend(mc.WithMasterKey())})
	if err == nil {
		req := httptest.NewRequest("POST", "/data/query", strings.NewReader(`{"className":"Item"}`))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: DefaultCookieName, Value: proxyToken})
		p.ServeHTTP(httptest.NewRecorder(), req)
	}
	// Used directly, it refuses too.
	_, _ = NewClientDataBackend(mc.WithMasterKey()).CallFunction(context.Background(), proxyToken, "echo", nil)
	if strings.Contains(fp.seen(), "the-master-key") {
		t.Fatalf("a data call went out with the master key: %s", fp.seen())
	}
}

// The per-session budget multiplied with sessions: one user signs in again and again (a new session each time)
// and gets a full burst per session, all spent on the server's chain-data API key.
func TestDataProxyRedteamRateLimitPerUser(t *testing.T) {
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.RateLimit = RateLimit{Burst: 2, Every: time.Hour} })
	const again = "r:proxy-session-again"
	e.be.users[again] = &PublicUser{ObjectID: "u1", EthAddress: proxyUserAddr, Accounts: []string{proxyUserAddr}}
	for i := 0; i < 2; i++ {
		if a := e.get("/data/chain/balance", proxyToken); a.status != 200 {
			t.Fatalf("request %d: %d %s", i, a.status, a.raw)
		}
	}
	wantError(t, e.get("/data/chain/balance", again), 429, parse.CodeRequestLimitExceeded, "Too many requests")
	if b := e.get("/data/chain/balance", proxyToken2); b.status != 200 {
		t.Fatalf("another user: %d %s", b.status, b.raw)
	}
}

// CacheEntries (1,000) times MaxResponseBytes (1 MiB) let the cache grow to a GiB of distinct answers (chains,
// cursors, limits, addresses with AnyAddress): it needs a bound in bytes.
func TestDataProxyRedteamCacheBoundedInBytes(t *testing.T) {
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

// slowMe is a Backend whose users/me answers only when its context ends (or the test does).
type slowMe struct {
	*fakeBackend
	release chan struct{}
}

func (s *slowMe) Me(ctx context.Context, tok string) (*PublicUser, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.release:
		return nil, errors.New("released")
	}
}

// users/me ran on the request's context alone: a slow backend held every data request (and its goroutine) for
// as long as the client kept the connection open, past Timeout.
func TestDataProxyRedteamSessionCheckIsTimeBounded(t *testing.T) {
	be := &slowMe{fakeBackend: newFakeBackend(), release: make(chan struct{})}
	e := newTestEnvBackend(t, be, "testAppId", nil)
	t.Cleanup(func() { close(be.release) }) // runs before the server closes
	p, err := e.h.DataProxy(DataProxyConfig{Chain: &gatedChain{body: `{}`}, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/data/", http.StripPrefix("/auth", p))
	e.srv.Config.Handler = mux
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/auth/data/chain/balance", nil)
	req.AddCookie(&http.Cookie{Name: DefaultCookieName, Value: proxyToken})
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start).Round(time.Millisecond), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("got %d %s, want 504", resp.StatusCode, b)
	}
}

// A 4xx that is not the backend's JSON (a reverse proxy's or a firewall's page) became a parse.Error whose text
// carries 512 bytes of that page, and the proxy relayed it.
func TestDataProxyRedteamHidesNonParseErrorBodies(t *testing.T) {
	page := `<html><body>Request blocked by edge-waf (10.0.3.7), nginx/1.18.0, incident 8d2f</body></html>`
	fp := newFakeParse(t, 403, "text/html", page)
	c, err := client.New(client.Config{ServerURL: fp.srv.URL, AppID: "app", JavaScriptKey: "js", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Backend = NewClientDataBackend(c) })
	for _, a := range []answer{
		e.post("/data/query", proxyToken, map[string]any{"className": "Item"}),
		e.post("/data/function", proxyToken, map[string]any{"name": "echo"}),
	} {
		if a.status < 500 || strings.Contains(a.raw, "10.0.3.7") || strings.Contains(a.raw, "nginx") {
			t.Fatalf("the upstream page was relayed: %d %s", a.status, a.raw)
		}
	}
	// The backend's own refusals still keep their text.
	fp.mu.Lock()
	fp.status, fp.ctype, fp.body = 400, "application/json", `{"code":141,"error":"intentional failure"}`
	fp.mu.Unlock()
	wantError(t, e.post("/data/function", proxyToken, map[string]any{"name": "echo"}), 400, parse.CodeScriptFailed, "intentional failure")
}

// POST /signout cleared the Handler's session cache but not the proxy's users: the token kept reading data (and
// pinned its addresses) for SessionCacheTTL after the sign-out.
func TestDataProxyRedteamSignOutEndsDataSession(t *testing.T) {
	e := newProxyEnv(t, nil)
	if a := e.get("/data/chain/balance", proxyToken); a.status != 200 {
		t.Fatalf("before: %d %s", a.status, a.raw)
	}
	if a := e.do("POST", "/signout", "", "", cookie(proxyToken)); a.status != 200 {
		t.Fatalf("signout: %d %s", a.status, a.raw)
	}
	wantError(t, e.get("/data/chain/balance", proxyToken), 401, parse.CodeInvalidSessionToken, "Invalid session token")
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
func TestDataProxyRedteamEmptyOrFailedUpstreamIsAnError(t *testing.T) {
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
