package authserver

import (
	"strings"

	"testing"
	"time"
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
