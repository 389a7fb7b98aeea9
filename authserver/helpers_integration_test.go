//go:build integration

package authserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync/atomic"

	"encoding/json"

	"io"

	"net"
	"net/http"
	"net/http/httptest"

	"strings"

	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"

	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"

	"github.com/c13f5054/moralis-go/signer"
)

// realEnv serves a Handler over the real backend (ClientBackend of the local stack).
func realEnv(t *testing.T, opts *auth.Options, mod func(o *Config)) *testEnv {
	t.Helper()
	_, cfg, env := stacktest.Client(t)
	cfg.MasterKey = env.MasterKey // the endpoint's backend may issue sign-in tickets with it
	bc := BackendConfig{Client: cfg}
	if opts != nil {
		bc.Flow = *opts
	}
	be, err := NewClientBackend(bc)
	if err != nil {
		t.Fatal(err)
	}
	return newTestEnvBackend(t, be, cfg.AppID, mod)
}

// signInOnce runs GET /message, personal_sign, POST /signin for s.
func (e *testEnv) signInOnce(s signer.Ethereum) answer {
	e.t.Helper()
	msg, _ := e.getMessage("evm", ethAddr(s))
	return e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(e.t, s, msg)), nil)
}

// loopbackClient sends from the loopback address ip (127.0.0.0/8 is all local on Linux), so the endpoint sees
// another client per address.
func loopbackClient(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext,
		MaxIdleConnsPerHost: 1}}
}

func devstackEnv(t *testing.T) devstack.Env { return devstack.MustLoad(t) }

func readLine(r io.Reader) (string, error) {
	var b [1]byte
	var line []byte
	for {
		if _, err := r.Read(b[:]); err != nil {
			return string(line), err
		}
		if b[0] == '\n' {
			return string(line), nil
		}
		line = append(line, b[0])
	}
}

// parseAnswer is an answer of parse-server to a request made by hand.
type parseAnswer struct {
	status int
	body   map[string]any
	raw    string
}

func (a parseAnswer) code() float64 { c, _ := a.body["code"].(float64); return c }
func (a parseAnswer) err() string   { s, _ := a.body["error"].(string); return s }
func (a parseAnswer) ok() bool      { return a.status == 200 || a.status == 201 }

// atkStack is the stack as an attacker sees it: both parse-server URLs and the public keys.
type atkStack struct {
	env     devstack.Env
	servers []string
	master  *client.Client
	cfg     client.Config // JavaScript key + master key, for an endpoint's ClientBackend
	c       *client.Client
}

func newAtkStack(t *testing.T) *atkStack {
	t.Helper()
	c, cfg, env := stacktest.Client(t)
	return &atkStack{env: env, servers: []string{env.ServerURL, env.RequireServerURL2(t)}, master: stacktest.Master(t, env),
		cfg: cfg, c: c}
}

// post sends body as JSON to parse-server (instance i) with the JavaScript key, as any client can.
func (s *atkStack) post(t *testing.T, i int, path string, body any) parseAnswer {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.servers[i%len(s.servers)]+"/"+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Parse-Application-Id", s.env.AppID)
	req.Header.Set("X-Parse-JavaScript-Key", s.env.JavaScriptKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := parseAnswer{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// logIn posts authData of provider straight to parse-server's /users (instance i): the backend door.
func (s *atkStack) logIn(t *testing.T, i int, provider string, authData map[string]any) parseAnswer {
	t.Helper()
	return s.post(t, i, "users", map[string]any{"authData": map[string]any{provider: authData}})
}

// requestMessage asks parse-server (instance i) for a message and ticket, as an SDK client does.
func (s *atkStack) requestMessage(t *testing.T, i int, chain auth.Chain, address string) (msg, ticket string) {
	t.Helper()
	a := s.post(t, i, "functions/"+auth.RequestMessageFunction, map[string]any{"chain": string(chain), "address": address})
	res, _ := a.body["result"].(map[string]any)
	msg, _ = res["message"].(string)
	ticket, _ = res["ticket"].(string)
	if a.status != 200 || msg == "" || ticket == "" {
		t.Fatalf("%s: %d %s", auth.RequestMessageFunction, a.status, a.raw)
	}
	return msg, ticket
}

// ticketExists reports whether the ticket's object is still stored (read with the master key).
func (s *atkStack) ticketExists(t *testing.T, ticket string) bool {
	t.Helper()
	_, err := s.master.Objects.Get(t.Context(), auth.DefaultTicketClass, ticket[:10])
	if err != nil && !strings.Contains(err.Error(), "101") {
		t.Fatalf("reading ticket: %v", err)
	}
	return err == nil
}

// endpoint is the Go sign-in endpoint over the real backend (ClientBackend with the master key).
func (s *atkStack) endpoint(t *testing.T, mod func(o *Config)) *testEnv {
	t.Helper()
	be, err := NewClientBackend(BackendConfig{Client: s.cfg, Flow: auth.Options{NoAddressObjects: true}})
	if err != nil {
		t.Fatal(err)
	}
	return newTestEnvBackend(t, be, s.cfg.AppID, mod)
}

func wantRefused(t *testing.T, what string, a parseAnswer, wantErr string) {
	t.Helper()
	if a.status != 404 || a.code() != 101 || a.err() != wantErr {
		t.Fatalf("%s: got %d %s; want 404 {code 101, %q}", what, a.status, a.raw, wantErr)
	}
	if _, ok := a.body["sessionToken"]; ok {
		t.Fatalf("%s: got a session: %s", what, a.raw)
	}
}

// issueRawTicket stores a ticket for any address (also one the Go side refuses), as the endpoint would, with the
// master key.
func issueRawTicket(t *testing.T, s *atkStack, chain auth.Chain, address, msg string) string {
	t.Helper()
	secret, err := auth.NewNonceValue()
	if err != nil {
		t.Fatal(err)
	}
	o := parse.NewObject(auth.DefaultTicketClass)
	o.Set("secret", secret)
	o.Set("expiresAt", time.Now().Add(time.Minute).UTC())
	o.Set("chain", string(chain))
	o.Set("address", address)
	o.Set("message", msg)
	o.SetACL(parse.NewACL())
	if err := s.master.Objects.Save(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	return o.ID() + secret
}

func mustSolSigner(t *testing.T) *signer.Ed25519Key {
	t.Helper()
	s, err := signer.GenerateEd25519Key()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// liveBridge is query/live's SSE bridge over the stack's live-query server, for the Handler's Live route: it
// streams with the session the route confirmed, and counts its websocket dials.
func liveBridge(t *testing.T, dials *atomic.Int32) *live.SSEBridge {
	return liveBridgeWith(t, dials, nil)
}

// liveBridgeWith is liveBridge with mod applied to its configuration.
func liveBridgeWith(t *testing.T, dials *atomic.Int32, mod func(c *live.SSEConfig)) *live.SSEBridge {
	t.Helper()
	env := devstackEnv(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	if err != nil {
		t.Fatal(err)
	}
	cfg := live.SSEConfig{
		Dial: func(ctx context.Context, tok string) (*live.Client, error) {
			dials.Add(1)
			return live.Dial(ctx, live.Config{URL: env.LiveQueryURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
				SessionToken: tok, Runner: c.WithSessionToken(tok)})
		},
	}
	if mod != nil {
		mod(&cfg)
	}
	bridge, err := live.NewSSEBridge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return bridge
}

// liveEndpoint serves a Handler over the real backend (realEnv with mod) under /auth, with its Live route over
// liveBridge at /auth/live.
func liveEndpoint(t *testing.T, dials *atomic.Int32, mod func(o *Config)) *testEnv {
	t.Helper()
	bridge := liveBridge(t, dials)
	e := realEnv(t, nil, mod)
	mux := http.NewServeMux()
	mux.Handle("/auth/live", http.StripPrefix("/auth", e.h.Live(bridge)))
	mux.Handle("/auth/", http.StripPrefix("/auth", e.h))
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

// stackRedis returns the local stack's Redis URL and a random name for this test's keys in it (the stack's Redis
// outlives the test, and other tests use it too).
func stackRedis(t *testing.T) (url, run string) {
	t.Helper()
	env := devstack.MustLoad(t)
	if env.RedisURL == "" {
		t.Fatal("the stack has no Redis (MORALIS_REDIS_URL): run make up")
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return env.RedisURL, hex.EncodeToString(b[:])
}
