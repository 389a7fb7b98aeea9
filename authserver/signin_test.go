package authserver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"

	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"

	"github.com/c13f5054/moralis-go/signer"
	ethereum "github.com/ethereum/go-ethereum"
)

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
	// Another statement (same app, a valid nonce) is refused by the message check itself (400), not only by the
	// nonce's binding to the issued text.
	msg3, _ := e.getMessage("evm", ethAddr(s))
	stmt := strings.Replace(msg3, "Sign in to Demo", "Sign in to Evil", 1)
	if a := e.postJSON("/signin", body("evm", ethAddr(s), stmt, ethSign(t, s, stmt)), nil); a.status != 400 || a.body["error"] != "Invalid sign-in message" {
		t.Fatalf("other statement: %d %s", a.status, a.raw)
	}
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
		{"link with bad signature", 404, func() answer {
			m, _ := e.getMessage("evm", ethAddr(other))
			return e.postJSON("/link", body("evm", ethAddr(other), m, ethSign(t, s, m)), map[string]string{"Authorization": "Bearer " + tok})
		}},
		{"me without session", 401, func() answer { return e.do("GET", "/me", "", "", nil) }},
		{"message bad address", 400, func() answer { return e.do("GET", "/message?chain=solana&address=0x12", "", "", nil) }},
		{"message no address", 400, func() answer { return e.do("GET", "/message?chain=evm", "", "", nil) }},
	}
	refusalText := map[string]string{"another domain": "Message is for another domain",
		"another URI": "Message is for another domain", "another chain": "Message is for another chain"}
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
		// The message's own checks answer before the nonce's: a message for another domain, URI or chain is
		// refused as such, not only because its text was never issued.
		if want, ok := refusalText[c.name]; ok && msg != want {
			t.Errorf("%s: error %q, want %q", c.name, msg, want)
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

// TestHandlerSmartWalletSignIn: through the endpoint, a deployed ERC-1271 account and a counterfactual ERC-6492
// one sign in with their owner's signature when Config.Chain is set; a non-owner is refused with 401
// before the backend; without Chain the account is refused as today; a chain that is down answers 503.
func TestHandlerSmartWalletSignIn(t *testing.T) {
	w := walletnet.Start(t)
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	deployed := w.DeployAccount(t, owner.Address())
	later := w.Counterfactual(t, other.Address())

	e := newTestEnv(t, func(o *Config) { o.Chain = w.Client })
	msg, _ := e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, other, msg)), nil); a.status != http.StatusUnauthorized ||
		a.body["error"] != "Signature does not match address" {
		t.Fatalf("non-owner: %d %v", a.status, a.body)
	}
	if e.cb.n.Load() != 0 {
		t.Fatal("backend called for a refused signature")
	}
	msg, _ = e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, owner, msg)), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-1271 sign-in: %d %v", a.status, a.body)
	}
	msg, _ = e.getMessage("evm", later.Hex())
	sig := "0x" + hex.EncodeToString(auth.WrapERC6492Signature(w.Factory, walletnet.CreateAccountCall(other.Address()), mustHex(ethSign(t, other, msg))))
	if a := e.postJSON("/signin", body("evm", later.Hex(), msg, sig), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-6492 sign-in: %d %v", a.status, a.body)
	}
	if got := len(e.be.signed); got != 2 || e.be.signed[0].Address != strings.ToLower(deployed.Hex()) ||
		e.be.signed[1].Address != strings.ToLower(later.Hex()) {
		t.Fatalf("backend saw %+v", e.be.signed)
	}

	plain := newTestEnv(t, nil)
	msg, _ = plain.getMessage("evm", deployed.Hex())
	if a := plain.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, owner, msg)), nil); a.status != http.StatusUnauthorized {
		t.Fatalf("no Chain: %d %v", a.status, a.body)
	}

	// A chain that is down answers 503 and spends no nonce: once it is back, the same signed message signs in.
	var up atomic.Bool
	flaky := &countingCaller{fn: func(m ethereum.CallMsg) ([]byte, error) {
		if !up.Load() {
			return nil, errors.New("dial tcp: connection refused")
		}
		return w.Client.CallContract(context.Background(), m, nil)
	}}
	down := newTestEnv(t, func(o *Config) { o.Chain = flaky })
	msg, _ = down.getMessage("evm", deployed.Hex())
	signed := body("evm", deployed.Hex(), msg, ethSign(t, owner, msg))
	if a := down.postJSON("/signin", signed, nil); a.status != http.StatusServiceUnavailable || a.body["error"] != "Chain unavailable" {
		t.Fatalf("chain down: %d %v", a.status, a.body)
	}
	if down.cb.n.Load() != 0 {
		t.Fatal("backend called while the chain was down")
	}
	up.Store(true)
	if a := down.postJSON("/signin", signed, nil); a.status != http.StatusOK {
		t.Fatalf("chain back: %d %v", a.status, a.body)
	}
}

// FuzzHandlerSignIn: whatever body arrives at POST /signin, the handler answers a 4xx JSON error and never
// calls the backend (random input cannot carry a valid signature over an issued nonce).
func FuzzHandlerSignIn(f *testing.F) {
	f.Add([]byte(`{"chain":"evm","address":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","message":"m","signature":"0x00"}`), "application/json")
	f.Add([]byte(`{"chain":"solana","address":"FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z","message":"Moralis Authentication\n\nId: testAppId:abcDEF12345678","signature":"2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua"}`), "application/json; charset=utf-8")
	f.Add([]byte(`{}`), "text/plain")
	be := newFakeBackend()
	h, err := NewHandler(be, Config{AppID: "testAppId", Domain: "app.example", Now: time.Now})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, ct string) {
		req := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code < 400 || rec.Code > 499 {
			t.Fatalf("status %d for %q", rec.Code, b)
		}
		var e struct {
			Code  int    `json:"code"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code == 0 || e.Error == "" {
			t.Fatalf("answer %q", rec.Body.String())
		}
		if be.calls.Load() != 0 {
			t.Fatal("backend called")
		}
	})
}
