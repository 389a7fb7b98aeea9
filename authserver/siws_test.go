package authserver

import (
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/signer"
)

// getSIWS asks for a SIWS message (style=siws) and returns it with the signInInput the endpoint sent.
func (e *testEnv) getSIWS(addr string) (string, map[string]any) {
	e.t.Helper()
	a := e.do("GET", "/message?chain=solana&style=siws&address="+addr, "", "", nil)
	if a.status != 200 {
		e.t.Fatalf("GET /message style=siws: %d %s", a.status, a.raw)
	}
	in, _ := a.body["signInInput"].(map[string]any)
	return a.body["message"].(string), in
}

func TestHandlerSIWSSignIn(t *testing.T) {
	e := newTestEnv(t, nil)
	s, _ := signer.GenerateEd25519Key()
	msg, in := e.getSIWS(s.PublicKey())
	m, err := auth.ParseSIWS(msg)
	if err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	if m.Domain != "app.example" || m.Address != s.PublicKey() || m.URI != "https://app.example" || m.ChainID != DefaultSolanaChainID ||
		m.Version != "1" || m.Statement != auth.DefaultSigningMessage || !m.IssuedAt.Equal(e.clock.Now().Truncate(time.Millisecond)) ||
		!m.ExpirationTime.After(m.IssuedAt) {
		t.Fatalf("issued %+v", m)
	}
	// The input a wallet's solana:signIn takes writes exactly the same text (createSignInMessageText's layout).
	built := &auth.SIWSMessage{Domain: in["domain"].(string), Address: in["address"].(string), Statement: in["statement"].(string),
		URI: in["uri"].(string), Version: in["version"].(string), ChainID: in["chainId"].(string), Nonce: in["nonce"].(string)}
	built.IssuedAt, _ = time.Parse(time.RFC3339, in["issuedAt"].(string))
	built.ExpirationTime, _ = time.Parse(time.RFC3339, in["expirationTime"].(string))
	if built.String() != msg {
		t.Fatalf("signInInput renders\n%q\nnot\n%q", built.String(), msg)
	}
	a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil)
	if a.status != 200 || a.body["user"].(map[string]any)["solAddress"] != s.PublicKey() || sessionOf(a) == "" {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	// Replay: the nonce is used.
	if a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil); a.status != 401 ||
		!strings.Contains(a.raw, "Nonce unknown, used or expired") {
		t.Fatalf("replay: %d %s", a.status, a.raw)
	}
	// A wallet that writes the times in another RFC 3339 form signs the same fields: accepted.
	msg2, _ := e.getSIWS(s.PublicKey())
	m2, _ := auth.ParseSIWS(msg2)
	alt := strings.Replace(msg2, "Issued At: "+auth.FormatServerTime(m2.IssuedAt), "Issued At: "+m2.IssuedAt.Format("2006-01-02T15:04:05.000000+00:00"), 1)
	if alt == msg2 {
		t.Fatal("the time was not rewritten")
	}
	if a := e.postJSON("/signin", body("solana", s.PublicKey(), alt, solSign(t, s, alt)), nil); a.status != 200 {
		t.Fatalf("other time form: %d %s", a.status, a.raw)
	}
	if got := e.cb.n.Load(); got != 2 {
		t.Fatalf("backend calls %d, want 2", got)
	}
}

// Every refusal happens before the backend is called, and the nonce survives it where it was not the problem.
func TestHandlerSIWSRefusals(t *testing.T) {
	e := newTestEnv(t, nil)
	s, _ := signer.GenerateEd25519Key()
	other, _ := signer.GenerateEd25519Key()
	type tc struct {
		name   string
		status int
		want   string
		run    func() answer
	}
	post := func(addr, msg, sig string) answer { return e.postJSON("/signin", body("solana", addr, msg, sig), nil) }
	// edit issues a message for s, changes its text and signs the result with s.
	edit := func(f func(string) string) answer {
		msg, _ := e.getSIWS(s.PublicKey())
		msg = f(msg)
		return post(s.PublicKey(), msg, solSign(t, s, msg))
	}
	cases := []tc{
		{"other domain", 401, "Message is for another domain", func() answer {
			return edit(func(m string) string { return strings.Replace(m, "app.example wants", "evil.example wants", 1) })
		}},
		{"other uri", 401, "Message is for another domain", func() answer {
			return edit(func(m string) string {
				return strings.Replace(m, "URI: https://app.example", "URI: https://evil.example", 1)
			})
		}},
		{"other chain", 401, "Message is for another chain", func() answer {
			return edit(func(m string) string { return strings.Replace(m, "Chain ID: mainnet", "Chain ID: devnet", 1) })
		}},
		{"statement changed", 401, "Message does not match the one issued", func() answer {
			return edit(func(m string) string { return strings.Replace(m, auth.DefaultSigningMessage, "Other words", 1) })
		}},
		{"field added", 401, "Message does not match the one issued", func() answer {
			return edit(func(m string) string { return m + "\nResources:\n- https://evil.example/x" })
		}},
		{"nonce never issued", 401, "Nonce unknown, used or expired", func() answer {
			return edit(func(m string) string {
				pm, _ := auth.ParseSIWS(m)
				return strings.Replace(m, "Nonce: "+pm.Nonce, "Nonce: ZZZZZZZZZZZZ", 1)
			})
		}},
		// The message names s, the key that signs is other's, and the request says other: not s's sign-in.
		{"names another key", 401, "Message is for another address", func() answer {
			msg, _ := e.getSIWS(s.PublicKey())
			return post(other.PublicKey(), msg, solSign(t, other, msg))
		}},
		{"signed by another key", 401, "Signature does not match address", func() answer {
			msg, _ := e.getSIWS(s.PublicKey())
			return post(s.PublicKey(), msg, solSign(t, other, msg))
		}},
		{"bad signature", 400, "Invalid signature", func() answer {
			msg, _ := e.getSIWS(s.PublicKey())
			return post(s.PublicKey(), msg, "zz")
		}},
		{"malformed", 400, "Invalid sign-in message", func() answer {
			return edit(func(m string) string { return m + "\n" })
		}},
		{"expired nonce", 401, "Message has expired", func() answer {
			msg, _ := e.getSIWS(s.PublicKey())
			e.clock.Add(DefaultNonceTTL + time.Second)
			defer e.clock.Add(-DefaultNonceTTL - time.Second)
			return post(s.PublicKey(), msg, solSign(t, s, msg))
		}},
		{"issued in the future", 401, "Message is not valid yet", func() answer {
			e.clock.Add(11 * time.Minute)
			msg, _ := e.getSIWS(s.PublicKey())
			e.clock.Add(-11 * time.Minute)
			return post(s.PublicKey(), msg, solSign(t, s, msg))
		}},
	}
	for _, c := range cases {
		a := c.run()
		if a.status != c.status || !strings.Contains(a.raw, c.want) {
			t.Errorf("%s: %d %s, want %d %q", c.name, a.status, a.raw, c.status, c.want)
		}
	}
	if n := e.cb.n.Load(); n != 0 {
		t.Fatalf("%d backend calls after refusals", n)
	}
}

// Without a Domain there is no SIWS: style=siws gets the Moralis-style message, and a SIWS text is refused
// (never "any domain").
func TestHandlerSIWSOffWithoutDomain(t *testing.T) {
	e := newTestEnv(t, func(o *Config) { o.Domain, o.URI, o.EVMMessageStyle = "", "", StyleMoralis })
	s, _ := signer.GenerateEd25519Key()
	a := e.do("GET", "/message?chain=solana&style=siws&address="+s.PublicKey(), "", "", nil)
	if a.status != 200 || a.body["signInInput"] != nil || !strings.Contains(a.raw, "Id: testAppId:") {
		t.Fatalf("GET: %d %s", a.status, a.raw)
	}
	m := &auth.SIWSMessage{Domain: "any.example", Address: s.PublicKey(), Version: "1", ChainID: "mainnet",
		Nonce: a.body["nonce"].(string), IssuedAt: e.clock.Now()}
	msg := m.String()
	if a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil); a.status != 400 {
		t.Fatalf("SIWS without a domain: %d %s", a.status, a.raw)
	}
}

func TestNewHandlerSIWSConfig(t *testing.T) {
	base := Config{AppID: "a", Domain: "app.example"}
	for name, edit := range map[string]func(*Config){
		"unknown chain":      func(c *Config) { c.SolanaChainID = "mainnet-beta" },
		"statement not ABNF": func(c *Config) { c.EVMMessageStyle, c.Statement = StyleMoralis, "Sign in \"here\"" },
	} {
		c := base
		edit(&c)
		if _, err := NewHandler(newFakeBackend(), c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	c := base
	c.SolanaChainID = "solana:devnet"
	if _, err := NewHandler(newFakeBackend(), c); err != nil {
		t.Fatal(err)
	}
}

// A statement that looks like a field is the statement of the endpoint's SIWS message (its fields follow it), as
// the ABNF reads it: issued, parsed back and signed in with.
func TestHandlerSIWSStatementLikeAField(t *testing.T) {
	for _, st := range []string{"Version: 2 of our terms", "Nonce: ", "Resources: none"} {
		e := newTestEnv(t, func(o *Config) { o.EVMMessageStyle, o.Statement = StyleMoralis, st })
		s, _ := signer.GenerateEd25519Key()
		msg, in := e.getSIWS(s.PublicKey())
		m, err := auth.ParseSIWS(msg)
		if err != nil || m.Statement != st || in["statement"] != st || m.Version != "1" || m.Nonce != in["nonce"] {
			t.Fatalf("%q: %v, parsed %+v, input %v", st, err, m, in)
		}
		if a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil); a.status != 200 {
			t.Fatalf("%q: signin %d %s", st, a.status, a.raw)
		}
	}
}
