//go:build integration

package authserver

import (
	"github.com/c13f5054/moralis-go/parse"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/signer"
)

// TestIntegrationHandler runs the endpoint over the real backend: the whole browser flow works, and every
// refusal is a 4xx that never reaches the backend.
func TestIntegrationHandler(t *testing.T) {
	_, cfg, _ := stacktest.Client(t)
	be, err := NewClientBackend(BackendConfig{Client: cfg, Flow: auth.Options{NoAddressObjects: true}})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	s, _ := signer.GenerateKey()
	msg, _ := e.getMessage("evm", ethAddr(s))
	a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil)
	if a.status != 200 {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	tok := sessionOf(a)
	user, _ := a.body["user"].(map[string]any)
	if !strings.HasPrefix(tok, "r:") || user["ethAddress"] != ethAddr(s) || user["objectId"] == "" {
		t.Fatalf("signin answer %s", a.raw)
	}
	if strings.Contains(a.raw, "authData") || strings.Contains(a.raw, cfg.JavaScriptKey) || strings.Contains(a.raw, "signature") {
		t.Fatalf("answer leaks: %s", a.raw)
	}
	cookie := map[string]string{"Cookie": DefaultCookieName + "=" + tok}
	if a := e.do(http.MethodGet, "/me", "", "", cookie); a.status != 200 || a.body["user"].(map[string]any)["objectId"] != user["objectId"] {
		t.Fatalf("me: %d %s", a.status, a.raw)
	}
	sol, _ := signer.GenerateEd25519Key()
	m2, _ := e.getMessage("solana", sol.PublicKey())
	if a := e.postJSON("/link", body("solana", sol.PublicKey(), m2, solSign(t, sol, m2)), cookie); a.status != 200 ||
		a.body["user"].(map[string]any)["solAddress"] != sol.PublicKey() {
		t.Fatalf("link: %d %s", a.status, a.raw)
	}
	if a := e.postJSON("/unlink", map[string]string{"chain": "solana", "address": sol.PublicKey()}, cookie); a.status != 200 ||
		len(a.body["user"].(map[string]any)["solAccounts"].([]any)) != 0 {
		t.Fatalf("unlink: %d %s", a.status, a.raw)
	}
	// Solana sign-in through the endpoint.
	sol2, _ := signer.GenerateEd25519Key()
	m3, _ := e.getMessage("solana", sol2.PublicKey())
	if a := e.postJSON("/signin", body("solana", sol2.PublicKey(), m3, solSign(t, sol2, m3)), nil); a.status != 200 {
		t.Fatalf("solana signin: %d %s", a.status, a.raw)
	}
	if a := e.do(http.MethodPost, "/signout", "", "", cookie); a.status != 200 {
		t.Fatalf("signout: %d %s", a.status, a.raw)
	}
	if a := e.do(http.MethodGet, "/me", "", "", cookie); a.status != 401 || a.body["code"] != float64(209) {
		t.Fatalf("me after signout: %d %s", a.status, a.raw)
	}
	runRefusals(t, e)
}

// Two browsers of one user keep both sessions (each sign-in has its own installation id).
func TestIntegrationHandlerTwoSessions(t *testing.T) {
	_, cfg, _ := stacktest.Client(t)
	be, err := NewClientBackend(BackendConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	s, _ := signer.GenerateKey()
	var toks []string
	for i := 0; i < 2; i++ {
		msg, _ := e.getMessage("evm", ethAddr(s))
		a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil)
		if a.status != 200 {
			t.Fatalf("signin %d: %d %s", i, a.status, a.raw)
		}
		toks = append(toks, sessionOf(a))
	}
	for i, tok := range toks {
		if a := e.do(http.MethodGet, "/me", "", "", map[string]string{"Authorization": "Bearer " + tok}); a.status != 200 {
			t.Fatalf("session %d lost: %d %s", i, a.status, a.raw)
		}
	}
}

// A burst past the rate limit is refused with 429 over the real backend, without reaching it; a request within
// the limit does reach it.
func TestIntegrationHandlerRateLimit(t *testing.T) {
	_, cfg, _ := stacktest.Client(t)
	be, err := NewClientBackend(BackendConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, func(o *Config) { o.RateLimit = RateLimit{Burst: 3, Every: time.Hour} })
	s, _ := signer.GenerateKey()
	msg, _ := e.getMessage("evm", ethAddr(s))
	signed := body("evm", ethAddr(s), msg, ethSign(t, s, msg))
	if a := e.postJSON("/signin", signed, nil); a.status != 200 {
		t.Fatalf("within the limit: %d %s", a.status, a.raw)
	}
	if a := e.do(http.MethodGet, "/message?chain=evm&address="+ethAddr(s), "", "", nil); a.status != 200 {
		t.Fatalf("third request: %d", a.status)
	}
	before := e.cb.n.Load()
	for i := 0; i < 5; i++ {
		a := e.postJSON("/signin", signed, nil)
		if a.status != 429 || a.body["code"] != float64(parse.CodeRequestLimitExceeded) {
			t.Fatalf("burst %d: %d %s", i, a.status, a.raw)
		}
	}
	if e.cb.n.Load() != before {
		t.Fatal("a rate-limited request reached the backend")
	}
}
