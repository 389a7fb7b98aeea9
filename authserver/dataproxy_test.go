package authserver

import (
	"context"

	"errors"

	"io"

	"net/http"

	"strings"

	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

const (
	proxyUserAddr  = "0x1111111111111111111111111111111111111111"
	proxyOtherAddr = "0x2222222222222222222222222222222222222222"
	proxyToken     = "r:proxy-session"
	proxyToken2    = "r:proxy-session-2"
)

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

// The per-session budget multiplied with sessions: one user signs in again and again (a new session each time)
// and gets a full burst per session, all spent on the server's chain-data API key.
func TestDataProxyRateLimitPerUser(t *testing.T) {
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
func TestDataProxySessionCheckIsTimeBounded(t *testing.T) {
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

// POST /signout cleared the Handler's session cache but not the proxy's users: the token kept reading data (and
// pinned its addresses) for SessionCacheTTL after the sign-out.
func TestDataProxySignOutEndsDataSession(t *testing.T) {
	e := newProxyEnv(t, nil)
	if a := e.get("/data/chain/balance", proxyToken); a.status != 200 {
		t.Fatalf("before: %d %s", a.status, a.raw)
	}
	if a := e.do("POST", "/signout", "", "", cookie(proxyToken)); a.status != 200 {
		t.Fatalf("signout: %d %s", a.status, a.raw)
	}
	wantError(t, e.get("/data/chain/balance", proxyToken), 401, parse.CodeInvalidSessionToken, "Invalid session token")
}

// The configuration rule, field by field: zero is the default, negative is off where off makes sense (RateLimit,
// CacheTTL) and an error naming the field elsewhere.
func TestDataProxyConfigRule(t *testing.T) {
	e := newProxyEnv(t, nil)
	for field, c := range map[string]DataProxyConfig{
		"RateLimit.Every":  {RateLimit: RateLimit{Every: -time.Second}},
		"CacheEntries":     {CacheEntries: -1},
		"MaxResponseBytes": {MaxResponseBytes: -1},
		"MaxBodyBytes":     {MaxBodyBytes: -1},
		"Timeout":          {Timeout: -time.Second},
		"DefaultChain":     {DefaultChain: "../x"},
		"AllowedClasses":   {AllowedClasses: []string{"bad name"}},
		"AllowedFunctions": {AllowedFunctions: []string{"../x"}},
	} {
		if _, err := e.h.DataProxy(c); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("negative or invalid %s: %v", field, err)
		}
	}
	for name, c := range map[string]DataProxyConfig{
		"zero":           {},
		"rate limit off": {RateLimit: NoRateLimit},
		"cache off":      {CacheTTL: -1},
	} {
		h, err := e.h.DataProxy(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := h.(*dataProxy)
		switch name {
		case "zero":
			if p.o.CacheEntries != DefaultDataCacheEntries || p.o.MaxResponseBytes != DefaultDataMaxResponseBytes ||
				p.o.MaxBodyBytes != DefaultDataMaxBodyBytes || p.o.Timeout != DefaultDataTimeout ||
				p.o.CacheTTL != DefaultDataCacheTTL || p.o.RateLimit.Burst != DefaultDataRateBurst || p.cache == nil {
				t.Fatalf("zero did not give the defaults: %+v", p.o)
			}
		case "rate limit off":
			if p.o.RateLimit.Burst != 0 {
				t.Fatalf("NoRateLimit: burst %d", p.o.RateLimit.Burst)
			}
		case "cache off":
			if p.cache != nil {
				t.Fatal("a negative CacheTTL left a cache")
			}
		}
	}
}
