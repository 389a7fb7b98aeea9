package authserver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"github.com/c13f5054/moralis-go/parse"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/signer"
)

// fakeBackend records every call; a test asserts how many reached it.
type fakeBackend struct {
	calls  atomic.Int32
	mu     sync.Mutex
	signed []auth.SignedMessage
	users  map[string]*PublicUser // by session token
	err    error
}

func newFakeBackend() *fakeBackend { return &fakeBackend{users: map[string]*PublicUser{}} }

func (f *fakeBackend) SignIn(_ context.Context, m auth.SignedMessage) (*Session, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.signed = append(f.signed, m)
	u := &PublicUser{ObjectID: "u" + m.Address[:6], Accounts: []string{}, SolAccounts: []string{}}
	if m.Chain == auth.ChainEVM {
		u.EthAddress, u.Accounts = m.Address, []string{m.Address}
	} else {
		u.SolAddress, u.SolAccounts = m.Address, []string{m.Address}
	}
	tok := "r:tok" + m.Address
	f.users[tok] = u
	return &Session{User: *u, SessionToken: tok}, nil
}

func (f *fakeBackend) user(tok string) (*PublicUser, error) {
	u := f.users[tok]
	if u == nil {
		return nil, &BackendError{Status: 401, Code: int(parse.CodeInvalidSessionToken), Message: "Invalid session token"}
	}
	return u, nil
}

func (f *fakeBackend) Link(_ context.Context, tok string, m auth.SignedMessage) (*PublicUser, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	u, err := f.user(tok)
	if err != nil {
		return nil, err
	}
	if m.Chain == auth.ChainEVM {
		u.Accounts = append(u.Accounts, m.Address)
	} else {
		u.SolAccounts = append(u.SolAccounts, m.Address)
	}
	return u, nil
}

func (f *fakeBackend) Unlink(_ context.Context, tok string, c auth.Chain, addr string) (*PublicUser, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.user(tok)
}

func (f *fakeBackend) Me(_ context.Context, tok string) (*PublicUser, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.user(tok)
}

func (f *fakeBackend) SignOut(_ context.Context, tok string) error {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.users, tok)
	return nil
}

type testEnv struct {
	t     *testing.T
	srv   *httptest.Server
	be    *fakeBackend // nil over a real backend
	cb    *countingBackend
	h     *Handler
	clock *testClock
}

// countingBackend counts the calls that reach the wrapped Backend.
type countingBackend struct {
	Backend
	n atomic.Int32
}

func (c *countingBackend) SignIn(ctx context.Context, m auth.SignedMessage) (*Session, error) {
	c.n.Add(1)
	return c.Backend.SignIn(ctx, m)
}

func (c *countingBackend) Link(ctx context.Context, tok string, m auth.SignedMessage) (*PublicUser, error) {
	c.n.Add(1)
	return c.Backend.Link(ctx, tok, m)
}

func (c *countingBackend) Unlink(ctx context.Context, tok string, ch auth.Chain, a string) (*PublicUser, error) {
	c.n.Add(1)
	return c.Backend.Unlink(ctx, tok, ch, a)
}

func (c *countingBackend) Me(ctx context.Context, tok string) (*PublicUser, error) {
	c.n.Add(1)
	return c.Backend.Me(ctx, tok)
}

func (c *countingBackend) SignOut(ctx context.Context, tok string) error {
	c.n.Add(1)
	return c.Backend.SignOut(ctx, tok)
}

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newTestEnv(t *testing.T, mod func(c *Config)) *testEnv {
	t.Helper()
	be := newFakeBackend()
	e := newTestEnvBackend(t, be, "testAppId", mod)
	e.be = be
	return e
}

// newTestEnvBackend serves a Handler over backend b (wrapped to count calls) under /auth on an httptest server.
func newTestEnvBackend(t *testing.T, b Backend, appID string, mod func(c *Config)) *testEnv {
	t.Helper()
	cb := &countingBackend{Backend: b}
	clock := &testClock{now: time.Now().UTC()}
	// The per-client limits are off here (the clock is frozen and every request comes from 127.0.0.1); tests of
	// the limits turn them on.
	o := Config{AppID: appID, Domain: "app.example", URI: "https://app.example",
		ChainID: 1, Now: clock.Now, AllowedOrigins: []string{"https://app.example"},
		RateLimit: NoRateLimit, SignInRateLimit: NoRateLimit, LiveRateLimit: NoRateLimit, NoncesPerClient: -1}
	if mod != nil {
		mod(&o)
	}
	h, err := NewHandler(cb, o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/", http.StripPrefix("/auth", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &testEnv{t: t, srv: srv, cb: cb, h: h, clock: clock}
}

type answer struct {
	status int
	body   map[string]any
	header http.Header
	raw    string
}

func (e *testEnv) do(method, path, contentType, body string, hdr map[string]string) answer {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+"/auth"+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

func (e *testEnv) postJSON(path string, v any, hdr map[string]string) answer {
	b, _ := json.Marshal(v)
	return e.do("POST", path, "application/json", string(b), hdr)
}

func (e *testEnv) getMessage(chain, addr string) (msg, nonce string) {
	e.t.Helper()
	a := e.do("GET", "/message?chain="+chain+"&address="+addr, "", "", nil)
	if a.status != 200 {
		e.t.Fatalf("GET /message: %d %s", a.status, a.raw)
	}
	return a.body["message"].(string), a.body["nonce"].(string)
}

func ethSign(t *testing.T, s signer.Ethereum, msg string) string {
	t.Helper()
	sig, err := s.SignMessage(context.Background(), []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(sig)
}

func solSign(t *testing.T, s signer.Solana, msg string) string {
	t.Helper()
	sig, err := s.SignMessage(context.Background(), []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	return base58.Encode(sig)
}

// sessionOf returns the session token of the cookie an answer sets ("" when none).
func sessionOf(a answer) string {
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == DefaultCookieName {
			return c.Value
		}
	}
	return ""
}

func body(chain, addr, msg, sig string) map[string]string {
	return map[string]string{"chain": chain, "address": addr, "message": msg, "signature": sig}
}

func TestHandlerEVMSignInFlow(t *testing.T) {
	e := newTestEnv(t, nil)
	s, _ := signer.GenerateKey()
	addrMixed, _ := auth.ChecksumEthAddress(ethAddr(s))
	msg, nonce := e.getMessage("evm", addrMixed)
	sm, err := auth.ParseSIWE(msg)
	if err != nil {
		t.Fatalf("handler message is not SIWE: %v\n%s", err, msg)
	}
	if sm.Domain != "app.example" || sm.Nonce != nonce || sm.ChainID != 1 || sm.Statement != auth.DefaultSigningMessage ||
		sm.ExpirationTime.Sub(sm.IssuedAt) != DefaultNonceTTL {
		t.Fatalf("message %+v", sm)
	}
	a := e.postJSON("/signin", body("evm", addrMixed, msg, ethSign(t, s, msg)), nil)
	if a.status != 200 {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	tok := sessionOf(a)
	if !strings.HasPrefix(tok, "r:") || a.body["user"].(map[string]any)["ethAddress"] != ethAddr(s) {
		t.Fatalf("answer %s", a.raw)
	}
	if _, inBody := a.body["sessionToken"]; inBody {
		t.Fatalf("the session token is in the body by default: %s", a.raw)
	}
	if strings.Contains(a.raw, "signature") || strings.Contains(a.raw, "authData") {
		t.Fatalf("answer leaks a signature: %s", a.raw)
	}
	if e.be.signed[0].Address != ethAddr(s) {
		t.Fatalf("backend got address %q, want lower-cased", e.be.signed[0].Address)
	}
	ck := a.header.Get("Set-Cookie")
	if !strings.Contains(ck, DefaultCookieName+"="+tok) || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Lax") || !strings.Contains(ck, "; Secure") {
		t.Fatalf("cookie %q", ck)
	}
	// /me by cookie and by bearer.
	if a := e.do("GET", "/me", "", "", map[string]string{"Cookie": DefaultCookieName + "=" + tok}); a.status != 200 || a.body["user"] == nil {
		t.Fatalf("me by cookie: %d %s", a.status, a.raw)
	}
	if a := e.do("GET", "/me", "", "", map[string]string{"Authorization": "Bearer " + tok}); a.status != 200 {
		t.Fatalf("me by bearer: %d %s", a.status, a.raw)
	}
	// Link a second EVM address and a Solana address.
	s2, _ := signer.GenerateKey()
	msg2, _ := e.getMessage("evm", ethAddr(s2))
	if a := e.postJSON("/link", body("evm", ethAddr(s2), msg2, ethSign(t, s2, msg2)), map[string]string{"Authorization": "Bearer " + tok}); a.status != 200 {
		t.Fatalf("link evm: %d %s", a.status, a.raw)
	}
	sol, _ := signer.GenerateEd25519Key()
	msg3, _ := e.getMessage("solana", sol.PublicKey())
	if !strings.HasPrefix(msg3, "Moralis Authentication\n\nId: testAppId:") {
		t.Fatalf("solana message %q", msg3)
	}
	if a := e.postJSON("/link", body("solana", sol.PublicKey(), msg3, solSign(t, sol, msg3)), map[string]string{"Authorization": "Bearer " + tok}); a.status != 200 {
		t.Fatalf("link sol: %d %s", a.status, a.raw)
	}
	if a := e.postJSON("/unlink", map[string]string{"chain": "solana", "address": sol.PublicKey()}, map[string]string{"Authorization": "Bearer " + tok}); a.status != 200 {
		t.Fatalf("unlink: %d %s", a.status, a.raw)
	}
	// Sign out clears the cookie; /me then answers 401 code 209 from the backend.
	a = e.do("POST", "/signout", "", "", map[string]string{"Authorization": "Bearer " + tok})
	if a.status != 200 || !strings.Contains(a.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("signout: %d %s %q", a.status, a.raw, a.header.Get("Set-Cookie"))
	}
	if a := e.do("GET", "/me", "", "", map[string]string{"Authorization": "Bearer " + tok}); a.status != 401 || a.body["code"] != float64(209) {
		t.Fatalf("me after signout: %d %s", a.status, a.raw)
	}
	if got := e.be.calls.Load(); got != 8 {
		t.Fatalf("backend calls %d, want 8", got)
	}
}

func TestHandlerSolanaSignIn(t *testing.T) {
	e := newTestEnv(t, func(o *Config) { o.CookieMaxAge = time.Hour })
	s, _ := signer.GenerateEd25519Key()
	msg, nonce := e.getMessage("solana", s.PublicKey())
	if msg != auth.BuildMoralisMessage("", "testAppId", nonce) {
		t.Fatalf("message %q", msg)
	}
	a := e.postJSON("/signin", body("solana", s.PublicKey(), msg, solSign(t, s, msg)), nil)
	if a.status != 200 || a.body["user"].(map[string]any)["solAddress"] != s.PublicKey() {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	if ck := a.header.Get("Set-Cookie"); !strings.Contains(ck, "Secure") || !strings.Contains(ck, "Max-Age=3600") {
		t.Fatalf("cookie %q", ck)
	}
}

func TestHandlerMoralisStyleEVM(t *testing.T) {
	e := newTestEnv(t, func(o *Config) {
		o.EVMMessageStyle = StyleMoralis
		o.Domain = ""
		o.Statement = "Sign in to Demo"
	})
	s, _ := signer.GenerateKey()
	msg, nonce := e.getMessage("evm", ethAddr(s))
	if msg != "Sign in to Demo\n\nId: testAppId:"+nonce {
		t.Fatalf("%q", msg)
	}
	if a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil); a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	// Another app's message (same text and a valid nonce) is refused.
	msg2, nonce2 := e.getMessage("evm", ethAddr(s))
	other := strings.Replace(msg2, "testAppId:", "otherApp:", 1)
	if a := e.postJSON("/signin", body("evm", ethAddr(s), other, ethSign(t, s, other)), nil); a.status != 401 {
		t.Fatalf("other app: %d %s", a.status, a.raw)
	}
	_ = nonce2
	if e.be.calls.Load() != 1 {
		t.Fatalf("backend calls %d", e.be.calls.Load())
	}
}

// TestHandlerRefusals proves every refusal is a 4xx and never reaches the backend.
func TestHandlerRefusals(t *testing.T) { runRefusals(t, newTestEnv(t, nil)) }

// runRefusals sends every kind of bad request to e and checks each gets its 4xx with a {code, error} body and
// that none reaches the backend. One good sign-in goes first (to have a used nonce).
func runRefusals(t *testing.T, e *testEnv) {
	app := e.h.o.AppID
	s, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	sol, _ := signer.GenerateEd25519Key()
	ctx := context.Background()
	siwe := func(mod func(m *auth.SIWEMessage)) string {
		n, err := e.h.o.Nonces.Issue(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		now := e.clock.Now()
		m := &auth.SIWEMessage{Domain: "app.example", Address: ethAddr(s), Statement: auth.DefaultSigningMessage, URI: "https://app.example",
			ChainID: 1, Nonce: n.Value, IssuedAt: now, ExpirationTime: n.ExpiresAt}
		if mod != nil {
			mod(m)
		}
		return m.String()
	}
	type tc struct {
		name   string
		status int
		run    func() answer
	}
	used, _ := e.getMessage("evm", ethAddr(s))
	usedSig := ethSign(t, s, used)
	first := e.postJSON("/signin", body("evm", ethAddr(s), used, usedSig), nil)
	if first.status != 200 {
		t.Fatalf("first use: %d %s", first.status, first.raw)
	}
	tok := sessionOf(first) // a real session: link refusals below are not for want of one
	base := e.cb.n.Load()

	cases := []tc{
		{"wrong signature", 400, func() answer {
			m := siwe(nil)
			return e.postJSON("/signin", body("evm", ethAddr(s), m, "0x"+strings.Repeat("11", 65)), nil)
		}},
		{"signature of another message", 401, func() answer {
			m := siwe(nil)
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m+" ")), nil)
		}},
		{"signature by another address", 401, func() answer {
			m := siwe(nil)
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, other, m)), nil)
		}},
		{"message names another address", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.Address = ethAddr(other) })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"reused nonce", 401, func() answer { return e.postJSON("/signin", body("evm", ethAddr(s), used, usedSig), nil) }},
		{"unknown nonce", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.Nonce = "neverIssued12345" })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"expired message", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.ExpirationTime = e.clock.Now().Add(-time.Second) })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"message issued long ago", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.IssuedAt = e.clock.Now().Add(-time.Hour); m.ExpirationTime = time.Time{} })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"future message", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.IssuedAt = e.clock.Now().Add(10 * time.Minute) })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"not before in future", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.NotBefore = e.clock.Now().Add(10 * time.Minute) })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"another domain", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.Domain = "evil.example" })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"another URI", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.URI = "https://evil.example" })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"another chain", 401, func() answer {
			m := siwe(func(m *auth.SIWEMessage) { m.ChainID = 137 })
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"solana message for another app", 401, func() answer {
			n, _ := e.h.o.Nonces.Issue(ctx, time.Minute)
			m := auth.BuildMoralisMessage("", "otherApp", n.Value)
			return e.postJSON("/signin", body("solana", sol.PublicKey(), m, solSign(t, sol, m)), nil)
		}},
		{"solana expired nonce", 401, func() answer {
			n, _ := e.h.o.Nonces.Issue(ctx, time.Millisecond)
			e.clock.Add(time.Second)
			m := auth.BuildMoralisMessage("", app, n.Value)
			return e.postJSON("/signin", body("solana", sol.PublicKey(), m, solSign(t, sol, m)), nil)
		}},
		{"solana signature by another key", 401, func() answer {
			o2, _ := signer.GenerateEd25519Key()
			m, _ := e.getMessage("solana", sol.PublicKey())
			return e.postJSON("/signin", body("solana", sol.PublicKey(), m, solSign(t, o2, m)), nil)
		}},
		{"solana hex signature", 400, func() answer {
			m, _ := e.getMessage("solana", sol.PublicKey())
			return e.postJSON("/signin", body("solana", sol.PublicKey(), m, hex.EncodeToString(make([]byte, 64))), nil)
		}},
		{"not a SIWE message", 400, func() answer {
			return e.postJSON("/signin", body("evm", ethAddr(s), "hello", ethSign(t, s, "hello")), nil)
		}},
		{"unsigned", 400, func() answer { return e.postJSON("/signin", body("evm", ethAddr(s), siwe(nil), ""), nil) }},
		{"no address", 400, func() answer { return e.postJSON("/signin", body("evm", "", "m", "s"), nil) }},
		{"bad address", 400, func() answer { return e.postJSON("/signin", body("evm", "0x12", "m", "s"), nil) }},
		{"unknown chain", 400, func() answer { return e.postJSON("/signin", body("btc", ethAddr(s), "m", "s"), nil) }},
		{"malformed JSON", 400, func() answer { return e.do("POST", "/signin", "application/json", `{"chain":`, nil) }},
		{"JSON array", 400, func() answer { return e.do("POST", "/signin", "application/json", `[]`, nil) }},
		{"unknown field", 400, func() answer { return e.do("POST", "/signin", "application/json", `{"chain":"evm","x":1}`, nil) }},
		{"wrong field type", 400, func() answer { return e.do("POST", "/signin", "application/json", `{"chain":1}`, nil) }},
		{"trailing data", 400, func() answer { return e.do("POST", "/signin", "application/json", `{"chain":"evm"} {}`, nil) }},
		{"oversized body", 413, func() answer {
			return e.do("POST", "/signin", "application/json", `{"message":"`+strings.Repeat("a", 70<<10)+`"}`, nil)
		}},
		{"wrong content type", 415, func() answer {
			return e.do("POST", "/signin", "text/plain", `{"chain":"evm"}`, nil)
		}},
		{"no content type", 415, func() answer { return e.do("POST", "/signin", "", `{"chain":"evm"}`, nil) }},
		{"form content type", 415, func() answer {
			return e.do("POST", "/signin", "application/x-www-form-urlencoded", `chain=evm`, nil)
		}},
		{"GET signin", 405, func() answer { return e.do("GET", "/signin", "", "", nil) }},
		{"POST message", 405, func() answer { return e.do("POST", "/message", "application/json", "{}", nil) }},
		{"unknown path", 404, func() answer { return e.do("GET", "/nope", "", "", nil) }},
		{"disallowed origin signin", 403, func() answer {
			m := siwe(nil)
			return e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), map[string]string{"Origin": "https://evil.example"})
		}},
		{"disallowed origin signout", 403, func() answer {
			return e.do("POST", "/signout", "", "", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer " + tok})
		}},
		{"disallowed origin preflight", 403, func() answer {
			return e.do("OPTIONS", "/signin", "", "", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
		}},
		{"link without session", 401, func() answer {
			m, _ := e.getMessage("evm", ethAddr(s))
			return e.postJSON("/link", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
		}},
		{"unlink without session", 401, func() answer {
			return e.postJSON("/unlink", map[string]string{"chain": "solana", "address": sol.PublicKey()}, nil)
		}},
		{"link with a non-bearer Authorization", 401, func() answer {
			m, _ := e.getMessage("evm", ethAddr(s))
			return e.postJSON("/link", body("evm", ethAddr(s), m, ethSign(t, s, m)), map[string]string{"Authorization": "Basic " + tok})
		}},
		{"link with bad signature", 401, func() answer {
			m, _ := e.getMessage("evm", ethAddr(other))
			return e.postJSON("/link", body("evm", ethAddr(other), m, ethSign(t, s, m)), map[string]string{"Authorization": "Bearer " + tok})
		}},
		{"me without session", 401, func() answer { return e.do("GET", "/me", "", "", nil) }},
		{"message bad address", 400, func() answer { return e.do("GET", "/message?chain=solana&address=0x12", "", "", nil) }},
		{"message no address", 400, func() answer { return e.do("GET", "/message?chain=evm", "", "", nil) }},
	}
	for _, c := range cases {
		a := c.run()
		if a.status != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, a.status, c.status, a.raw)
			continue
		}
		code, _ := a.body["code"].(float64)
		msg, _ := a.body["error"].(string)
		if code == 0 || msg == "" {
			t.Errorf("%s: answer is not {code, error}: %s", c.name, a.raw)
		}
		if got := e.cb.n.Load(); got != base {
			t.Fatalf("%s: reached the backend (%d calls)", c.name, got-base)
		}
	}
	// The specific texts.
	if a := e.do("GET", "/me", "", "", nil); a.raw != `{"code":209,"error":"Invalid session token"}`+"\n" {
		t.Errorf("me without session: %s", a.raw)
	}
	if a := e.postJSON("/signin", body("evm", "", "m", "s"), nil); a.body["error"] != "Address not found" {
		t.Errorf("no address: %s", a.raw)
	}
	if a := e.postJSON("/signin", body("evm", ethAddr(s), "m", ""), nil); a.body["error"] != "Data not signed" {
		t.Errorf("unsigned: %s", a.raw)
	}
}

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

func TestHandlerBackendErrors(t *testing.T) {
	e := newTestEnv(t, nil)
	s, _ := signer.GenerateKey()
	e.be.err = &BackendError{Status: 401, Code: 101, Message: "moralisEth: signature does not match address"}
	m, _ := e.getMessage("evm", ethAddr(s))
	a := e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
	if a.status != 401 || a.body["code"] != float64(101) {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	e.be.err = io.ErrUnexpectedEOF // an unknown error: no details leak
	m, _ = e.getMessage("evm", ethAddr(s))
	a = e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
	if a.status != 502 || a.body["error"] != "Backend error" {
		t.Fatalf("%d %s", a.status, a.raw)
	}
}

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

// The same signed message sent by many clients at once signs in exactly once.
func TestHandlerConcurrentReplay(t *testing.T) {
	e := newTestEnv(t, nil)
	s, _ := signer.GenerateKey()
	msg, _ := e.getMessage("evm", ethAddr(s))
	b := body("evm", ethAddr(s), msg, ethSign(t, s, msg))
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch a := e.postJSON("/signin", b, nil); a.status {
			case 200:
				ok.Add(1)
			case 401:
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != 15 || e.cb.n.Load() != 1 {
		t.Fatalf("ok %d refused %d backend calls %d", ok.Load(), refused.Load(), e.cb.n.Load())
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
