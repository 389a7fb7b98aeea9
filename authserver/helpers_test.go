package authserver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
	ethereum "github.com/ethereum/go-ethereum"
	"github.com/mr-tron/base58"
)

// ethAddr is the lower-cased 0x address of s, as the endpoint and the backend store it.
func ethAddr(s signer.Ethereum) string { return strings.ToLower(s.Address().Hex()) }

// mustHex decodes hex (with or without 0x) of a test's own making.
func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		panic(err)
	}
	return b
}

// countingCaller is an auth.ContractCaller that counts eth_calls and answers with fn.
type countingCaller struct {
	n  atomic.Int32
	fn func(ethereum.CallMsg) ([]byte, error)
}

func (c *countingCaller) CallContract(_ context.Context, m ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	c.n.Add(1)
	return c.fn(m)
}

// The address of a well-known key (the same vector as in auth's and signer's tests); the Solana one is
// ed25519vec.KATPub58.
const (
	katEthAddr = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" // Hardhat's development key #0
)

// fakeBackend records every call; a test asserts how many reached it.
type fakeBackend struct {
	calls  atomic.Int32
	mu     sync.Mutex
	signed []auth.SignedMessage
	users  map[string]*PublicUser // by session token
	err    error
	// unlinkErr, when set, is Unlink's answer for a signed-in user (a refusal of the backend).
	unlinkErr error
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
	u, err := f.user(tok)
	if err == nil && f.unlinkErr != nil {
		return nil, f.unlinkErr
	}
	return u, err
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

// requestLog keeps requests (method and path) in the order they came. Safe for concurrent use.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) add(r string) {
	l.mu.Lock()
	l.seen = append(l.seen, r)
	l.mu.Unlock()
}

// take returns the requests seen since the last take.
func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.seen
	l.seen = nil
	return s
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
	return readAnswer(resp)
}

// readAnswer reads and closes resp: its status, headers, body and the body's JSON (nil when it is not JSON).
func readAnswer(resp *http.Response) answer {
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

// fakeDataBackend records the calls that reach it.
type fakeDataBackend struct {
	mu      sync.Mutex
	queries []*parse.QueryRequest
	tokens  []string
	funcs   []string
	params  []map[string]any
	err     error
	results []json.RawMessage
}

func (f *fakeDataBackend) RunQuery(_ context.Context, tok string, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, req)
	f.tokens = append(f.tokens, tok)
	if f.err != nil {
		return nil, f.err
	}
	res := &parse.QueryResponse{Results: f.results}
	if c, _ := req.Params["count"].(int); c == 1 {
		res.Count, res.HasCount = len(f.results), true
	}
	return res, nil
}

func (f *fakeDataBackend) CallFunction(_ context.Context, tok, name string, params map[string]any) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.funcs = append(f.funcs, name)
	f.tokens = append(f.tokens, tok)
	f.params = append(f.params, params)
	if f.err != nil {
		return nil, f.err
	}
	b, _ := json.Marshal(map[string]any{"echo": params, "name": name})
	return b, nil
}

func (f *fakeDataBackend) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queries) + len(f.funcs)
}

type proxyEnv struct {
	*testEnv
	api  *web3apitest.Server
	data *fakeDataBackend
}

// newProxyEnv serves the Handler and its DataProxy (over web3apitest with its API key, and a fake DataBackend)
// under /auth; the fake backend knows two sessions.
func newProxyEnv(t *testing.T, mod func(o *DataProxyConfig)) *proxyEnv {
	t.Helper()
	api := web3apitest.NewServer(t)
	w3, err := web3api.New(web3api.Config{APIKey: api.APIKey, BaseURL: api.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, nil)
	e.be.users[proxyToken] = &PublicUser{ObjectID: "u1", EthAddress: proxyUserAddr, Accounts: []string{proxyUserAddr}}
	e.be.users[proxyToken2] = &PublicUser{ObjectID: "u2", EthAddress: proxyOtherAddr, Accounts: []string{proxyOtherAddr}}
	data := &fakeDataBackend{}
	o := DataProxyConfig{Chain: w3, Backend: data, AllowedFunctions: []string{"echo"}}
	if mod != nil {
		mod(&o)
	}
	mountDataProxy(t, e, o)
	return &proxyEnv{testEnv: e, api: api, data: data}
}

// mountDataProxy serves a data proxy made with o at /auth/data/ of e's server, beside the endpoint at /auth/.
func mountDataProxy(t *testing.T, e *testEnv, o DataProxyConfig) {
	t.Helper()
	p, err := e.h.DataProxy(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/data/", http.StripPrefix("/auth", p))
	mux.Handle("/auth/", http.StripPrefix("/auth", e.h))
	e.srv.Config.Handler = mux
}

func cookie(tok string) map[string]string {
	return map[string]string{"Cookie": DefaultCookieName + "=" + tok}
}

func (e *proxyEnv) get(path, tok string) answer {
	e.t.Helper()
	var hdr map[string]string
	if tok != "" {
		hdr = cookie(tok)
	}
	return e.do("GET", path, "", "", hdr)
}

func (e *proxyEnv) post(path, tok string, body any) answer {
	e.t.Helper()
	b, _ := json.Marshal(body)
	var hdr map[string]string
	if tok != "" {
		hdr = cookie(tok)
	}
	return e.do("POST", path, "application/json", string(b), hdr)
}

func wantError(t *testing.T, a answer, status int, code parse.Code, msg string) {
	t.Helper()
	if a.status != status || a.body["code"] != float64(code) || (msg != "" && a.body["error"] != msg) {
		t.Fatalf("got %d %s, want %d {code %d, error %q}", a.status, a.raw, status, code, msg)
	}
}

// gatedChain is a ChainData whose answers wait for a gate; it counts calls.
type gatedChain struct {
	calls atomic.Int32
	gate  chan struct{}
	body  string
	err   error
}

func (g *gatedChain) Raw(ctx context.Context, method, path string, q url.Values, body any, out any) error {
	g.calls.Add(1)
	if g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if g.err != nil {
		return g.err
	}
	*(out.(*json.RawMessage)) = json.RawMessage(g.body)
	return nil
}

// fakeParse is a backend REST server that records the bodies it gets and answers every call with status/body.
type fakeParse struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
	status int
	ctype  string
	body   string
}

func newFakeParse(t *testing.T, status int, ctype, body string) *fakeParse {
	t.Helper()
	f := &fakeParse{status: status, ctype: ctype, body: body}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		f.mu.Lock()
		f.bodies = append(f.bodies, string(b))
		f.mu.Unlock()
		w.Header().Set("Content-Type", f.ctype)
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, f.body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeParse) seen() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.bodies, "\n")
}

// withHandler passes the Handler's rules (rolling sessions, its logger) to the wrapped Backend (a ClientBackend),
// so the counted Backend behaves as it would unwrapped.
func (c *countingBackend) withHandler(l sessionLife, logger *slog.Logger) Backend {
	if hb, ok := c.Backend.(handlerBound); ok {
		c.Backend = hb.withHandler(l, logger)
	}
	return c
}
