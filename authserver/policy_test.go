package authserver

import (
	"strings"

	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
)

func TestHandlerCORS(t *testing.T) {
	e := newTestEnv(t, nil)
	a := e.do("OPTIONS", "/signin", "", "", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
	if a.status != 204 || a.header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		a.header.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(a.header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Fatalf("preflight: %d %v", a.status, a.header)
	}
	// A GET from a disallowed origin is answered (no state change) but without CORS headers, so a browser
	// will not let the page read it.
	a = e.do("GET", "/message?chain=evm&address="+katEthAddr, "", "", map[string]string{"Origin": "https://evil.example"})
	if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("GET from evil: %d %v", a.status, a.header)
	}
	// An Origin equal to the Host header is not trusted for that (the Host is the caller's choice): refused.
	host := strings.TrimPrefix(e.srv.URL, "http://")
	a = e.do("POST", "/signout", "", "", map[string]string{"Origin": "http://" + host})
	if a.status != 403 {
		t.Fatalf("origin = host, not configured: %d %s", a.status, a.raw)
	}
	if _, err := NewHandler(e.be, Config{AppID: "a", Domain: "x.example", AllowedOrigins: []string{"*"}}); err == nil {
		t.Fatal("wildcard origin accepted")
	}
}

func TestHandlerRateLimit(t *testing.T) {
	e := newTestEnv(t, func(o *Config) { o.RateLimit = RateLimit{Burst: 3, Every: time.Minute} })
	s, _ := signer.GenerateKey()
	for i := 0; i < 3; i++ {
		if a := e.do("GET", "/message?chain=evm&address="+ethAddr(s), "", "", nil); a.status != 200 {
			t.Fatalf("request %d: %d", i, a.status)
		}
	}
	a := e.postJSON("/signin", body("evm", ethAddr(s), "m", "s"), nil)
	if a.status != 429 || a.body["code"] != float64(parse.CodeRequestLimitExceeded) || a.header.Get("Retry-After") == "" {
		t.Fatalf("burst: %d %s %v", a.status, a.raw, a.header)
	}
	if e.be.calls.Load() != 0 {
		t.Fatal("rate-limited request reached the backend")
	}
	e.clock.Add(time.Minute)
	if a := e.do("GET", "/message?chain=evm&address="+ethAddr(s), "", "", nil); a.status != 200 {
		t.Fatalf("after refill: %d", a.status)
	}
}

// TestSessionRequiredBeforeBackend: a route that needs a session refuses a request without one (401) before the
// backend is asked anything.
func TestSessionRequiredBeforeBackend(t *testing.T) {
	e := newTestEnv(t, nil)
	base := e.cb.n.Load()
	for _, hdr := range []map[string]string{nil, {"Authorization": "Basic abc"}, {"Authorization": "Bearer "}} {
		a := e.do("GET", "/me", "", "", hdr)
		if a.status != 401 {
			t.Errorf("/me with %v: %d %s", hdr, a.status, a.raw)
		}
	}
	if got := e.cb.n.Load(); got != base {
		t.Fatalf("requests without a session reached the backend (%d calls)", got-base)
	}
}
