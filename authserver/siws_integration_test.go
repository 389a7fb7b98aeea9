//go:build integration

package authserver

import (
	"net/http"
	"testing"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/signer"
)

// TestIntegrationSIWS signs in with Sign-In with Solana through the endpoint and the real backend (parse-server's
// moralisSol adapter and its one-time ticket): the session works at /me, a replay is refused before the backend,
// and a message naming the wallet but signed by another key never reaches it.
func TestIntegrationSIWS(t *testing.T) {
	_, cfg, _ := stacktest.Client(t)
	be, err := NewClientBackend(BackendConfig{Client: cfg, Flow: auth.Options{NoAddressObjects: true}})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	s, _ := signer.GenerateEd25519Key()
	other, _ := signer.GenerateEd25519Key()
	msg, in := e.getSIWS(s.PublicKey())
	if in == nil {
		t.Fatal("no signInInput")
	}
	a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil)
	if a.status != 200 || a.body["user"].(map[string]any)["solAddress"] != s.PublicKey() {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	tok := sessionOf(a)
	if a := e.do(http.MethodGet, "/me", "", "", map[string]string{"Cookie": DefaultCookieName + "=" + tok}); a.status != 200 ||
		a.body["user"].(map[string]any)["solAddress"] != s.PublicKey() {
		t.Fatalf("me: %d %s", a.status, a.raw)
	}
	calls := e.cb.n.Load()
	if a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil); a.status != 401 {
		t.Fatalf("replay: %d %s", a.status, a.raw)
	}
	msg2, _ := e.getSIWS(s.PublicKey())
	if a := e.postJSON("/signin", body("solana", other.PublicKey(), msg2, solSign(t, other, msg2)), nil); a.status != 401 {
		t.Fatalf("names another key: %d %s", a.status, a.raw)
	}
	if n := e.cb.n.Load(); n != calls {
		t.Fatalf("refusals reached the backend: %d calls", n-calls)
	}
}
