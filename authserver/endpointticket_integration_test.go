//go:build integration

package authserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/signer"
)

// loginCapture keeps the authData of every login (POST .../users) a backend client sends: what an eavesdropper on
// the link between the endpoint and parse-server, or a leaked request log, would hold.
type loginCapture struct {
	mu    sync.Mutex
	seen  []map[string]any
	inner http.RoundTripper
}

func (c *loginCapture) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/users") && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		var v struct {
			AuthData map[string]map[string]any `json:"authData"`
		}
		if json.Unmarshal(b, &v) == nil && v.AuthData[auth.ProviderEth] != nil {
			c.mu.Lock()
			c.seen = append(c.seen, v.AuthData[auth.ProviderEth])
			c.mu.Unlock()
		}
	}
	return c.inner.RoundTrip(r)
}

func (c *loginCapture) last(t *testing.T) map[string]any {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) == 0 {
		t.Fatal("no login captured")
	}
	return c.seen[len(c.seen)-1]
}

// with returns a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}

// The endpoint's tickets (an HMAC keyed by the master key, checked by the adapter, no round trip to issue): the
// authData of an endpoint sign-in, captured on its way to parse-server, is refused when replayed at either instance;
// a ticket with its MAC, expiry, id, address, text or contract flag changed is refused; one minted with another key
// or already expired is refused; a fresh one minted with the master key signs in exactly once.
func TestWalletAttackEndpointTicketReplayForgery(t *testing.T) {
	s := newAtkStack(t)
	capt := &loginCapture{inner: http.DefaultTransport}
	cfg := s.cfg
	cfg.HTTPClient = &http.Client{Transport: capt}
	be, err := NewClientBackend(BackendConfig{Client: cfg, Flow: auth.Options{NoAddressObjects: true}})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	a, _ := signer.GenerateKey()
	b, _ := signer.GenerateKey()
	msg, _ := e.getMessage("evm", ethAddr(a))
	sig := ethSign(t, a, msg)
	if r := e.postJSON("/signin", body("evm", ethAddr(a), msg, sig), nil); r.status != 200 {
		t.Fatalf("endpoint sign-in: %d %s", r.status, r.raw)
	}
	captured := capt.last(t)
	ticket, _ := captured["ticket"].(string)
	if !strings.HasPrefix(ticket, "e1.") {
		t.Fatalf("the endpoint sent ticket %q; want an endpoint ticket", ticket)
	}
	used := "moralisEth: " + errTicketUsed
	for inst := range s.servers {
		wantRefused(t, fmt.Sprintf("captured endpoint login replayed on instance %d", inst+1), s.logIn(t, inst, auth.ProviderEth, captured), used)
	}

	// Each part of a fresh, valid ticket changed (or the authData around it): refused, and the fresh one still works.
	m := auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(a), Message: msg + "\nagain", Signature: ""}
	m.Signature = ethSign(t, a, m.Message)
	fresh, err := be.endpointTicket(m, false, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]any{"id": ethAddr(a), "signature": m.Signature, "data": m.Message, "ticket": fresh}
	parts := strings.Split(fresh, ".")
	flip := func(s string) string {
		c := byte('0')
		if s[0] == '0' {
			c = '1'
		}
		return string(c) + s[1:]
	}
	later := fmt.Sprint(time.Now().Add(2 * time.Minute).UnixMilli())
	otherKey := s.cfg
	otherKey.MasterKey = "not-the-master-key"
	other, err := (&ClientBackend{cfg: otherKey}).endpointTicket(m, false, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	expired, err := be.endpointTicket(m, false, time.Now().Add(-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	asContract, err := be.endpointTicket(auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(b), Message: m.Message, Signature: "-"}, false, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	bSig := ethSign(t, b, m.Message)
	for _, c := range []struct {
		what string
		ad   map[string]any
	}{
		{"MAC changed", with(good, "ticket", strings.Join([]string{parts[0], parts[1], parts[2], flip(parts[3])}, "."))},
		{"expiry moved", with(good, "ticket", strings.Join([]string{parts[0], parts[1], later, parts[3]}, "."))},
		{"id changed", with(good, "ticket", strings.Join([]string{parts[0], flip(parts[1]), parts[2], parts[3]}, "."))},
		{"minted with another key", with(good, "ticket", other)},
		{"expired", with(good, "ticket", expired)},
		{"text edited", with(with(good, "data", m.Message+" "), "signature", ethSign(t, a, m.Message+" "))},
		{"another address signs the text with a's ticket", map[string]any{"id": ethAddr(b), "signature": bSig, "data": m.Message, "ticket": fresh}},
		// An ordinary ticket for b, with a signature that does not recover to b: the adapter's contract-account
		// branch needs a ticket issued as a contract account's.
		{"ordinary ticket taken for a contract account's", map[string]any{"id": ethAddr(b), "signature": m.Signature, "data": m.Message, "ticket": asContract}},
	} {
		for inst := range s.servers {
			a := s.logIn(t, inst, auth.ProviderEth, c.ad)
			if a.ok() {
				t.Fatalf("%s (instance %d): signed in: %s", c.what, inst+1, a.raw)
			}
			if a.status != 404 || a.code() != 101 {
				t.Fatalf("%s (instance %d): %d %s; want 404 code 101", c.what, inst+1, a.status, a.raw)
			}
		}
	}
	if r := s.logIn(t, 1, auth.ProviderEth, good); !r.ok() {
		t.Fatalf("the fresh ticket: %d %s", r.status, r.raw)
	}
	for inst := range s.servers {
		wantRefused(t, fmt.Sprintf("the fresh ticket again on instance %d", inst+1), s.logIn(t, inst, auth.ProviderEth, good), used)
	}
}
