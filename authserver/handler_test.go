package authserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/signer"
)

func TestNewHandlerConfig(t *testing.T) {
	be := newFakeBackend()
	if _, err := NewHandler(nil, Config{AppID: "a", Domain: "x.example"}); err == nil {
		t.Error("no backend accepted")
	}
	bad := map[string]Config{
		"AppID":           {Domain: "x.example"},
		"Domain":          {AppID: "a"},
		"EVMMessageStyle": {AppID: "a", Domain: "x.example", EVMMessageStyle: "weird"},
		"URI":             {AppID: "a", Domain: "x.example", URI: "not a uri"},
		"Statement":       {AppID: "a", Domain: "x.example", Statement: "two\nlines"},
		"AllowedOrigins":  {AppID: "a", Domain: "x.example", AllowedOrigins: []string{"app.example"}},
		"NonceTTL":        {AppID: "a", Domain: "x.example", NonceTTL: -time.Second},
		"CookieMaxAge":    {AppID: "a", Domain: "x.example", CookieMaxAge: -time.Second},
		"MaxBodyBytes":    {AppID: "a", Domain: "x.example", MaxBodyBytes: -1},
		"RateLimit":       {AppID: "a", Domain: "x.example", RateLimit: RateLimit{Burst: 1, Every: -time.Second}},
		"SignInRateLimit": {AppID: "a", Domain: "x.example", SignInRateLimit: RateLimit{Every: -time.Second}},
		"LiveRateLimit":   {AppID: "a", Domain: "x.example", LiveRateLimit: RateLimit{Every: -time.Second}},
		"CookieName":      {AppID: "a", Domain: "x.example", CookieName: "a b"},
	}
	for field, c := range bad {
		_, err := NewHandler(be, c)
		if err == nil {
			t.Errorf("bad %s accepted", field)
		} else if !strings.Contains(err.Error(), field) {
			t.Errorf("bad %s: the error does not name it: %v", field, err)
		}
	}
	// The configuration is copied: changing the caller's afterwards changes nothing.
	c := Config{AppID: "a", Domain: "x.example", AllowedOrigins: []string{"https://ok.example"}}
	h, err := NewHandler(be, c)
	if err != nil {
		t.Fatal(err)
	}
	c.AllowedOrigins[0] = "https://evil.example"
	if !h.policy.originAllowed("https://ok.example") || h.policy.originAllowed("https://evil.example") {
		t.Fatal("the handler shares the caller's AllowedOrigins")
	}
	if _, err := NewHandler(be, Config{AppID: "a", EVMMessageStyle: StyleMoralis}); err != nil {
		t.Fatalf("moralis style without domain: %v", err)
	}
}

// TestNewHandlerSIWEStatement: a SIWE endpoint refuses at construction a statement its own messages could not
// carry (ParseSIWE would refuse every one of them); the Moralis style keeps taking any printable line.
func TestNewHandlerSIWEStatement(t *testing.T) {
	for _, st := range []string{"Caf\u00e9 sign-in", `say "hi"`, "100% yours"} {
		if _, err := NewHandler(newFakeBackend(), Config{AppID: "a", Domain: "x.example", Statement: st}); err == nil {
			t.Errorf("SIWE statement %q accepted", st)
		}
		if _, err := NewHandler(newFakeBackend(), Config{AppID: "a", Statement: st, EVMMessageStyle: StyleMoralis}); err != nil {
			t.Errorf("Moralis statement %q: %v", st, err)
		}
	}
	if _, err := NewHandler(newFakeBackend(), Config{AppID: "a", Domain: "user:pw@[::1]:8080",
		Statement: "I accept the Terms: https://x.example/tos"}); err != nil {
		t.Errorf("userinfo/IPv6 domain: %v", err)
	}
}

// A SIWE message issued a few seconds in the future (a wallet's clock ahead of the server's) is accepted within the
// default ClockSkew and refused when ClockSkew is negative (none). Fails when a negative ClockSkew falls back to the
// default.
func TestClockSkewNegativeMeansNone(t *testing.T) {
	for _, c := range []struct {
		name   string
		skew   time.Duration
		status int
	}{{"default", 0, 200}, {"none", -1, 401}} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, func(o *Config) { o.ClockSkew = c.skew })
			s, _ := signer.GenerateKey()
			ctx := context.Background()
			n, err := e.h.o.Nonces.Issue(ctx, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			m := (&auth.SIWEMessage{Domain: "app.example", Address: ethAddr(s), Statement: auth.DefaultSigningMessage,
				URI: "https://app.example", Version: "1", ChainID: 1, Nonce: n.Value,
				IssuedAt: e.clock.Now().Add(5 * time.Second), ExpirationTime: n.ExpiresAt}).String()
			if err := e.h.o.Nonces.Bind(ctx, n.Value, NonceBinding{Chain: auth.ChainEVM, Address: ethAddr(s), Message: m}); err != nil {
				t.Fatal(err)
			}
			a := e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
			if a.status != c.status {
				t.Fatalf("a message issued 5 s ahead with ClockSkew %v: %d %s, want %d", c.skew, a.status, a.raw, c.status)
			}
		})
	}
}

// A session the backend confirmed is trusted for SessionCacheTTL (the default: the second request asks the backend
// nothing); a negative SessionCacheTTL asks the backend every time. Fails when a negative value falls back to the
// default or caches at all.
func TestSessionCacheTTLNegativeAsksEveryTime(t *testing.T) {
	for _, c := range []struct {
		name string
		ttl  time.Duration
		asks int32
	}{{"default", 0, 1}, {"off", -1, 3}} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, func(o *Config) { o.SessionCacheTTL = c.ttl })
			s, _ := signer.GenerateKey()
			msg, _ := e.getMessage("evm", ethAddr(s))
			a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil)
			tok := sessionOf(a)
			if a.status != 200 || tok == "" {
				t.Fatalf("sign-in: %d %s", a.status, a.raw)
			}
			before := e.cb.n.Load()
			for range 3 {
				if _, err := e.h.policy.confirm(context.Background(), tok); err != nil {
					t.Fatal(err)
				}
			}
			if got := e.cb.n.Load() - before; got != c.asks {
				t.Fatalf("SessionCacheTTL %v: 3 confirmations asked the backend %d times, want %d", c.ttl, got, c.asks)
			}
		})
	}
}
