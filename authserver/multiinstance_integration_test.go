//go:build integration

package authserver_test

// Several endpoint machines: two instances of the sign-in endpoint (authserver.NewHandler), each with its own
// client of its own parse-server instance (devstack's ServerURL and ServerURL2, one database), behind a
// round-robin proxy on 127.0.0.1, as a load balancer would put them. The nonce store is the only state the
// endpoint keeps between the GET /message and the POST /signin of one sign-in, so it must be shared: with
// authserver.BackendNonceStore it lives in the backend's database; the in-memory default works on one machine only
// (TestMultiInstanceMemoryNonceStoreIsPerInstance shows why). Sessions are the backend's session tokens, so
// they need nothing shared on the Go side.
//
// Run with the stack up (`make up`): go test -run MultiInstance -v ./authserver/

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/c13f5054/moralis-go/parse"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/rrproxy"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// miInstanceHeader is set by the test's wrapper around each endpoint instance (the handler is not changed):
// the name of the instance that answered.
const miInstanceHeader = "X-Test-Endpoint"

const miDomain = "multi.example.test"

var miNames = [2]string{"A", "B"}

// miHostCounter counts the requests an instance's clients send to each backend host.
type miHostCounter struct {
	mu     sync.Mutex
	byHost map[string]int
	next   http.RoundTripper
}

func (h *miHostCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.byHost[r.URL.Host]++
	h.mu.Unlock()
	return h.next.RoundTrip(r)
}

func (h *miHostCounter) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for k, v := range h.byHost {
		out[k] = v
	}
	return out
}

// miCluster is two endpoint instances behind one round-robin proxy.
type miCluster struct {
	env     devstack.Env
	backend [2]string // parse-server URL of each instance
	hosts   [2]*miHostCounter
	proxy   *rrproxy.Proxy
	http    *http.Client
	master  *client.Client // master-key client of parse-server 1, for checks
}

// miNonces is where the cluster's instances keep their nonces.
type miNonces int

const (
	miMemory  miNonces = iota // each instance its own, the default without Redis
	miBackend                 // a BackendNonceStore over each instance's own parse-server
	miRedis                   // the default with Config.RedisURL: the stack's Redis
)

// miStart starts the cluster with its nonces kept as nonces says.
func miStart(t *testing.T, nonces miNonces) *miCluster {
	t.Helper()
	env := devstack.MustLoad(t)
	cl := &miCluster{env: env, backend: [2]string{env.ServerURL, env.RequireServerURL2(t)}}
	if cl.backend[0] == cl.backend[1] {
		t.Fatalf("ServerURL and ServerURL2 are the same (%s): not two parse-server instances", cl.backend[0])
	}
	var endpoints [2]string
	for i := range 2 {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		t.Cleanup(tr.CloseIdleConnections)
		cl.hosts[i] = &miHostCounter{byHost: map[string]int{}, next: tr}
		hc := &http.Client{Transport: cl.hosts[i]}
		// The master key issues the sign-in tickets the backend's adapters require (auth.IssueTicket).
		cfg := client.Config{ServerURL: cl.backend[i], AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
			MasterKey: env.MasterKey, InstallationID: uuid.NewString(), HTTPClient: hc}
		be, err := authserver.NewClientBackend(authserver.BackendConfig{Client: cfg})
		if err != nil {
			t.Fatal(err)
		}
		// Bearer-token clients (TokenInBody), all behind one proxy address: the per-client limits would only
		// measure that address.
		hcfg := authserver.Config{AppID: env.AppID, Domain: miDomain, TokenInBody: true,
			RateLimit: authserver.NoRateLimit, SignInRateLimit: authserver.NoRateLimit, NoncesPerClient: -1}
		switch nonces {
		case miRedis:
			hcfg.RedisURL = env.RedisURL
			if hcfg.RedisURL == "" {
				t.Fatal("the stack has no Redis (MORALIS_REDIS_URL): run make up")
			}
		case miBackend:
			mc, err := client.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			store, err := authserver.NewBackendNonceStore(mc)
			if err != nil {
				t.Fatal(err)
			}
			hcfg.Nonces = store
		}
		h, err := authserver.NewHandler(be, hcfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		name := miNames[i]
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(miInstanceHeader, name)
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		endpoints[i] = srv.URL
	}
	p, err := rrproxy.New(endpoints[0], endpoints[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cl.proxy = p
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	t.Cleanup(tr.CloseIdleConnections)
	cl.http = &http.Client{Transport: tr, Timeout: 60 * time.Second}
	mc, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, MasterKey: env.MasterKey,
		InstallationID: uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	cl.master = mc.WithMasterKey()
	return cl
}

// miAnswer is one answer of the endpoint through the proxy.
type miAnswer struct {
	status   int
	instance string // which endpoint instance answered (the test's wrapper header)
	target   string // the proxy's target index
	body     map[string]any
	raw      string
}

func (a miAnswer) str(k string) string { s, _ := a.body[k].(string); return s }

func (cl *miCluster) do(ctx context.Context, method, path, bearer string, body any) (miAnswer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return miAnswer{}, err
		}
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, cl.proxy.URL+path, rd)
	if err != nil {
		return miAnswer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return miAnswer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return miAnswer{}, err
	}
	a := miAnswer{status: resp.StatusCode, instance: resp.Header.Get(miInstanceHeader),
		target: resp.Header.Get(rrproxy.TargetHeader), raw: string(raw)}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		return a, fmt.Errorf("%s %s: %d answer is not JSON: %q", method, path, a.status, raw)
	}
	return a, nil
}

// miWallet is a random Ethereum key.
type miWallet struct {
	key  *ecdsa.PrivateKey
	addr string // checksummed
}

func miNewWallet(t testing.TB) miWallet {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return miWallet{key: k, addr: crypto.PubkeyToAddress(k.PublicKey).Hex()}
}

// sign is personal_sign (EIP-191): a 65-byte signature with v = 27 or 28, 0x-hex.
func (w miWallet) sign(msg string) (string, error) {
	sig, err := crypto.Sign(accounts.TextHash([]byte(msg)), w.key)
	if err != nil {
		return "", err
	}
	sig[64] += 27
	return "0x" + hex.EncodeToString(sig), nil
}

// miSignIn is one sign-in as a browser does it: GET message, sign, POST signin.
type miSignIn struct {
	msg, nonce, sig string
	get, post       miAnswer
}

func (cl *miCluster) signIn(ctx context.Context, w miWallet) (miSignIn, error) {
	var s miSignIn
	var err error
	s.get, err = cl.do(ctx, http.MethodGet, "/message?chain=evm&address="+url.QueryEscape(w.addr), "", nil)
	if err != nil {
		return s, err
	}
	if s.get.status != http.StatusOK {
		return s, fmt.Errorf("GET /message: %d %s", s.get.status, s.get.raw)
	}
	s.msg, s.nonce = s.get.str("message"), s.get.str("nonce")
	if s.msg == "" || !strings.Contains(s.msg, "Nonce: "+s.nonce) {
		return s, fmt.Errorf("GET /message: no message with its nonce: %s", s.get.raw)
	}
	if s.sig, err = w.sign(s.msg); err != nil {
		return s, err
	}
	s.post, err = cl.do(ctx, http.MethodPost, "/signin", "", miBody(w, s.msg, s.sig))
	return s, err
}

func miBody(w miWallet, msg, sig string) map[string]string {
	return map[string]string{"chain": "evm", "address": w.addr, "message": msg, "signature": sig}
}

func miUser(a miAnswer) map[string]any { u, _ := a.body["user"].(map[string]any); return u }

func miCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

const miNonceRefusal = "Nonce unknown, used or expired"

// (a) The message comes from instance A, the sign-in goes to instance B and succeeds; the session it gives
// works on instance A too (stateless: the backend's token is the truth).
func TestMultiInstanceSignInAcrossInstances(t *testing.T) {
	t.Run("backend nonces", func(t *testing.T) { testSignInAcrossInstances(t, miBackend) })
	t.Run("redis nonces", func(t *testing.T) { testSignInAcrossInstances(t, miRedis) })
}

func testSignInAcrossInstances(t *testing.T, nonces miNonces) {
	cl := miStart(t, nonces)
	ctx := miCtx(t, 60*time.Second)
	w := miNewWallet(t)
	s, err := cl.signIn(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if s.get.instance != "A" || s.get.target != "0" {
		t.Fatalf("GET /message answered by instance %q (proxy target %q), want A", s.get.instance, s.get.target)
	}
	if s.post.instance != "B" || s.post.target != "1" {
		t.Fatalf("POST /signin answered by instance %q (proxy target %q), want B", s.post.instance, s.post.target)
	}
	if s.post.status != http.StatusOK {
		t.Fatalf("sign-in on B with A's message: %d %s", s.post.status, s.post.raw)
	}
	tok := s.post.str("sessionToken")
	u := miUser(s.post)
	if !strings.HasPrefix(tok, "r:") || u == nil || u["objectId"] == "" || u["ethAddress"] != strings.ToLower(w.addr) {
		t.Fatalf("sign-in answer: %s", s.post.raw)
	}
	// The third request goes to A, which validates B's session through parse-server 1.
	me, err := cl.do(ctx, http.MethodGet, "/me", tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if me.instance != "A" || me.status != http.StatusOK || miUser(me)["objectId"] != u["objectId"] {
		t.Fatalf("GET /me on A with B's session: instance %q, %d %s", me.instance, me.status, me.raw)
	}
	if c := cl.proxy.Counts(); c[0] != 2 || c[1] != 1 {
		t.Fatalf("proxy counts %v, want [2 1]", c)
	}
	// Each instance talked to its own parse-server only.
	for i := range 2 {
		own := strings.TrimPrefix(strings.TrimPrefix(cl.backend[i], "http://"), "https://")
		own = strings.SplitN(own, "/", 2)[0]
		got := cl.hosts[i].counts()
		if len(got) != 1 || got[own] == 0 {
			t.Fatalf("instance %s called backend hosts %v, want only %s", miNames[i], got, own)
		}
	}
	// The user exists once, with the address, in the one database.
	stored, err := cl.master.Objects.Get(ctx, client.UserClass, u["objectId"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if stored.String("ethAddress") != strings.ToLower(w.addr) {
		t.Fatalf("stored user ethAddress %q", stored.String("ethAddress"))
	}
}

// (b) A replayed sign-in (same message and signature) is refused by the other instance, and by the first.
func TestMultiInstanceReplayRefusedByOtherInstance(t *testing.T) {
	t.Run("backend nonces", func(t *testing.T) { testReplayRefusedByOtherInstance(t, miBackend) })
	t.Run("redis nonces", func(t *testing.T) { testReplayRefusedByOtherInstance(t, miRedis) })
}

func testReplayRefusedByOtherInstance(t *testing.T, nonces miNonces) {
	cl := miStart(t, nonces)
	ctx := miCtx(t, 60*time.Second)
	w := miNewWallet(t)
	s, err := cl.signIn(ctx, w) // GET on A, POST on B
	if err != nil {
		t.Fatal(err)
	}
	if s.post.status != http.StatusOK || s.post.instance != "B" {
		t.Fatalf("first sign-in: instance %q, %d %s", s.post.instance, s.post.status, s.post.raw)
	}
	for _, want := range []string{"A", "B"} {
		r, err := cl.do(ctx, http.MethodPost, "/signin", "", miBody(w, s.msg, s.sig))
		if err != nil {
			t.Fatal(err)
		}
		if r.instance != want {
			t.Fatalf("replay went to %q, want %s", r.instance, want)
		}
		if r.status < 400 || r.status > 499 || r.str("error") != miNonceRefusal || r.body["code"] != float64(parse.CodeObjectNotFound) {
			t.Fatalf("replay on %s: %d %s; want a 4xx with %q", want, r.status, r.raw, miNonceRefusal)
		}
		if _, ok := r.body["sessionToken"]; ok {
			t.Fatalf("replay on %s got a session: %s", want, r.raw)
		}
	}
}

// (c) 200 concurrent sign-ins through the proxy, each with its own key: all succeed, over both instances,
// and each nonce is accepted exactly once (replaying every message once more is refused 200 times).
func TestMultiInstanceConcurrentSignIns(t *testing.T) {
	const n = 200
	cl := miStart(t, miBackend)
	ctx := miCtx(t, 180*time.Second)
	wallets := make([]miWallet, n)
	for i := range wallets {
		wallets[i] = miNewWallet(t)
	}
	results := make([]miSignIn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = cl.signIn(ctx, wallets[i])
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	var failed int
	tokens := map[string]bool{}
	users := map[string]bool{}
	nonces := map[string]bool{}
	var cross, issuedOn, usedOn [2]int
	for i, r := range results {
		if errs[i] == nil && r.post.status != http.StatusOK {
			errs[i] = fmt.Errorf("POST /signin: %d %s", r.post.status, r.post.raw)
		}
		if errs[i] != nil {
			failed++
			if failed <= 5 {
				t.Errorf("sign-in %d: %v", i, errs[i])
			}
			continue
		}
		tok, u := r.post.str("sessionToken"), miUser(r.post)
		if !strings.HasPrefix(tok, "r:") || u == nil || u["ethAddress"] != strings.ToLower(wallets[i].addr) {
			t.Errorf("sign-in %d: answer %s", i, r.post.raw)
		}
		tokens[tok] = true
		users[fmt.Sprint(u["objectId"])] = true
		nonces[r.nonce] = true
		gi, pi := miIndex(r.get.instance), miIndex(r.post.instance)
		if gi < 0 || pi < 0 {
			t.Fatalf("sign-in %d: instances %q and %q", i, r.get.instance, r.post.instance)
		}
		issuedOn[gi]++
		usedOn[pi]++
		if gi != pi {
			cross[pi]++
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d concurrent sign-ins failed", failed, n)
	}
	if len(tokens) != n || len(users) != n || len(nonces) != n {
		t.Fatalf("distinct sessions %d, users %d, nonces %d; want %d each", len(tokens), len(users), len(nonces), n)
	}
	c := cl.proxy.Counts()
	if c[0]+c[1] != 2*n || c[0] != c[1] || cl.proxy.Failures() != 0 {
		t.Fatalf("proxy counts %v (failures %d), want %d each", c, cl.proxy.Failures(), n)
	}
	if issuedOn[0] == 0 || issuedOn[1] == 0 || usedOn[0] == 0 || usedOn[1] == 0 || cross[0]+cross[1] == 0 {
		t.Fatalf("not spread: issued on A/B %v, used on A/B %v, crossed %v", issuedOn, usedOn, cross)
	}
	t.Logf("%d concurrent sign-ins over 2 endpoint instances + 2 parse-server instances: %v wall time (%.0f sign-ins/s); "+
		"nonces issued on A/B %v, consumed on A/B %v, issued on one and consumed on the other %d",
		n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), issuedOn, usedOn, cross[0]+cross[1])

	// Replay every message once more, concurrently: each is refused with the nonce error.
	var refused, accepted atomic.Int32
	replayStart := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := cl.do(ctx, http.MethodPost, "/signin", "", miBody(wallets[i], results[i].msg, results[i].sig))
			switch {
			case err != nil:
				t.Errorf("replay %d: %v", i, err)
			case r.status == http.StatusOK:
				accepted.Add(1)
			case r.status >= 400 && r.status < 500 && r.str("error") == miNonceRefusal:
				refused.Add(1)
			default:
				t.Errorf("replay %d: %d %s", i, r.status, r.raw)
			}
		}()
	}
	wg.Wait()
	if accepted.Load() != 0 || refused.Load() != n {
		t.Fatalf("replays: %d accepted, %d refused with %q; want 0 and %d", accepted.Load(), refused.Load(), miNonceRefusal, n)
	}
	t.Logf("%d replays refused in %v", n, time.Since(replayStart).Round(time.Millisecond))

	// No consumed nonce is left in the backend.
	ids := make([]any, 0, n)
	for nonce := range nonces {
		ids = append(ids, nonce[:10])
	}
	var out struct {
		Count   int   `json:"count"`
		Results []any `json:"results"`
	}
	where := map[string]any{"objectId": map[string]any{"$in": ids}}
	if err := cl.master.Request(ctx, "GET", "classes/"+authserver.DefaultNonceClass, map[string]any{"where": where, "count": 1, "limit": 0}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Count != 0 {
		t.Fatalf("%d consumed nonces are still stored", out.Count)
	}
}

func miIndex(name string) int {
	for i, n := range miNames {
		if n == name {
			return i
		}
	}
	return -1
}

// With the default in-memory store each instance knows only its own nonces: a message issued by A is refused
// by B, and only A accepts it. Behind a load balancer that is a random failure of about every other sign-in;
// hence authserver.BackendNonceStore (or another shared store) whenever more than one instance answers.
func TestMultiInstanceMemoryNonceStoreIsPerInstance(t *testing.T) {
	cl := miStart(t, miMemory)
	ctx := miCtx(t, 60*time.Second)
	w := miNewWallet(t)
	s, err := cl.signIn(ctx, w) // GET on A, POST on B
	if err != nil {
		t.Fatal(err)
	}
	if s.get.instance != "A" || s.post.instance != "B" {
		t.Fatalf("instances %q then %q, want A then B", s.get.instance, s.post.instance)
	}
	if s.post.status != http.StatusUnauthorized || s.post.str("error") != miNonceRefusal {
		t.Fatalf("B with A's in-memory nonce: %d %s; want 401 %q", s.post.status, s.post.raw, miNonceRefusal)
	}
	// The same signed message, sent again, reaches A, which issued the nonce: accepted there.
	r, err := cl.do(ctx, http.MethodPost, "/signin", "", miBody(w, s.msg, s.sig))
	if err != nil {
		t.Fatal(err)
	}
	if r.instance != "A" || r.status != http.StatusOK || !strings.HasPrefix(r.str("sessionToken"), "r:") {
		t.Fatalf("A with its own nonce: instance %q, %d %s", r.instance, r.status, r.raw)
	}
}

// The same signed message posted twice at the same moment, through the proxy (so usually to both
// instances): exactly one of the two is accepted, for every one of 50 pairs.
func TestMultiInstanceSimultaneousDoubleSubmit(t *testing.T) {
	const pairs = 50
	cl := miStart(t, miBackend)
	ctx := miCtx(t, 120*time.Second)
	type pair struct {
		w        miWallet
		msg, sig string
	}
	ps := make([]pair, pairs)
	for i := range ps {
		w := miNewWallet(t)
		a, err := cl.do(ctx, http.MethodGet, "/message?chain=evm&address="+w.addr, "", nil)
		if err != nil || a.status != http.StatusOK {
			t.Fatalf("GET /message: %v %d %s", err, a.status, a.raw)
		}
		sig, err := w.sign(a.str("message"))
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = pair{w: w, msg: a.str("message"), sig: sig}
	}
	var wg sync.WaitGroup
	wins := make([]atomic.Int32, pairs)
	var onBoth atomic.Int32
	for i := range ps {
		var inst [2]string
		var mu sync.Mutex
		var inner sync.WaitGroup
		for k := range 2 {
			wg.Add(1)
			inner.Add(1)
			go func() {
				defer wg.Done()
				defer inner.Done()
				r, err := cl.do(ctx, http.MethodPost, "/signin", "", miBody(ps[i].w, ps[i].msg, ps[i].sig))
				switch {
				case err != nil:
					t.Errorf("pair %d: %v", i, err)
				case r.status == http.StatusOK:
					wins[i].Add(1)
				case r.status != http.StatusUnauthorized || r.str("error") != miNonceRefusal:
					t.Errorf("pair %d: %d %s", i, r.status, r.raw)
				}
				mu.Lock()
				inst[k] = r.instance
				mu.Unlock()
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			inner.Wait()
			if inst[0] != inst[1] {
				onBoth.Add(1)
			}
		}()
	}
	wg.Wait()
	for i := range wins {
		if w := wins[i].Load(); w != 1 {
			t.Errorf("pair %d: %d of 2 simultaneous submissions accepted, want exactly 1", i, w)
		}
	}
	if onBoth.Load() == 0 {
		t.Fatalf("no pair was split over both instances")
	}
	t.Logf("%d pairs, %d split over both instances: one acceptance each", pairs, onBoth.Load())
}
