//go:build integration

package authserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/signer"
)

// countingTransport counts the requests a backend client sends (method and path, in order).
type countingTransport struct{ requestLog }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.add(r.Method + " " + r.URL.Path)
	return http.DefaultTransport.RoundTrip(r)
}

// The backend requests of one sign-in through the endpoint at its defaults (ClientBackend with the master key,
// the in-memory nonce store, every limit on): a returning wallet costs one (SignInFunction: the user found, its
// beforeLogin trigger run, the session and its record made), a new one four (the function answers "use the login";
// the login through the wallet adapter, with an endpoint ticket the adapter checks itself; the user's address and
// ACL written; the session recorded by one cloud function call). GET /message costs none. The test fails if a count
// goes up (or down: then lower it here). The check of the backend (CheckBackend, once per process and again while
// something is missing) is made before counting. BackendConfig.DirectSignIn, deprecated, changes nothing.
func TestSignInBackendRequests(t *testing.T) {
	t.Run("default", func(t *testing.T) { signInCost(t, false, 4, 1) })
	t.Run("direct", func(t *testing.T) { signInCost(t, true, 4, 1) })
	t.Run("solana", func(t *testing.T) { signInCostSolana(t) })
}

// signInCostSolana: a Solana wallet's returning sign-in takes the same one request (the function's moralisSol way:
// solAddress and solAccounts), and the session works.
func signInCostSolana(t *testing.T) {
	_, e, ct := functionEnv(t)
	s, err := signer.GenerateEd25519Key()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{4, 1} {
		msg, _ := e.getMessage("solana", s.PublicKey())
		ct.take()
		a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil)
		got := ct.take()
		if a.status != 200 {
			t.Fatalf("sign-in %d: %d %s", i+1, a.status, a.raw)
		}
		if len(got) != want {
			t.Fatalf("sign-in %d: %d backend requests (%s); want %d", i+1, len(got), strings.Join(got, ", "), want)
		}
		if r := e.me(sessionOf(a)); r.status != 200 {
			t.Fatalf("sign-in %d: /me: %d %s", i+1, r.status, r.raw)
		}
	}
}

func signInCost(t *testing.T, direct bool, first, returning int) {
	_, cfg, env := stacktest.Client(t)
	cfg.MasterKey = env.MasterKey
	ct := &countingTransport{}
	cfg.HTTPClient = &http.Client{Transport: ct}
	be, err := NewClientBackend(BackendConfig{Client: cfg, DirectSignIn: direct})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := be.CheckBackend(t.Context()); err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, func(o *Config) {
		o.RateLimit, o.SignInRateLimit, o.LiveRateLimit, o.NoncesPerClient = RateLimit{}, RateLimit{}, RateLimit{}, 0
	})
	s := mustEthKey(t)
	for _, step := range []struct {
		what string
		want int
	}{{"a new wallet", first}, {"a returning wallet", returning}, {"a returning wallet again", returning}} {
		ct.take()
		msg, _ := e.getMessage("evm", ethAddr(s))
		if got := ct.take(); len(got) != 0 {
			t.Fatalf("GET /message: %d backend requests: %s", len(got), strings.Join(got, ", "))
		}
		a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil)
		got := ct.take()
		if a.status != 200 {
			t.Fatalf("%s: %d %s", step.what, a.status, a.raw)
		}
		t.Logf("%s: %d backend requests: %s", step.what, len(got), strings.Join(got, ", "))
		if len(got) != step.want {
			t.Fatalf("%s: %d backend requests; want %d", step.what, len(got), step.want)
		}
		if r := e.me(sessionOf(a)); r.status != 200 {
			t.Fatalf("%s: /me with the new session: %d %s", step.what, r.status, r.raw)
		}
	}
}
