package authserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/query/live"
)

// GuardLive refuses a credentialed request from an origin that is not configured before it asks the backend about
// the session or reaches the stream behind it, and lets the configured origin through with CORS headers naming it.
// Fails when GuardLive stops checking the origin, or checks it after the session.
func TestGuardLiveOrigin(t *testing.T) {
	e := newTestEnv(t, nil)
	e.be.users["r:live"] = &PublicUser{ObjectID: "u1", Accounts: []string{}, SolAccounts: []string{}}
	var reached atomic.Int32
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok, ok := VerifiedSession(r); !ok || tok != "r:live" {
			t.Errorf("stream reached without the confirmed session: %q %v", tok, ok)
		}
		reached.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(e.h.GuardLive(next))
	t.Cleanup(srv.Close)
	get := func(origin string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/live", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer r:live")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}

	for _, origin := range []string{"https://evil.example", "https://app.example.evil", "http://app.example", "null"} {
		before := e.cb.n.Load()
		resp := get(origin)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("origin %q: status %d, want 403", origin, resp.StatusCode)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Fatalf("origin %q: Access-Control-Allow-Origin %q on a refusal", origin, got)
		}
		if n := e.cb.n.Load() - before; n != 0 {
			t.Fatalf("origin %q: %d backend calls before the refusal", origin, n)
		}
	}
	if reached.Load() != 0 {
		t.Fatalf("a foreign origin reached the stream %d times", reached.Load())
	}

	resp := get("https://app.example")
	if resp.StatusCode != http.StatusNoContent || reached.Load() != 1 {
		t.Fatalf("configured origin: status %d, reached %d", resp.StatusCode, reached.Load())
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("configured origin: CORS headers %v", resp.Header)
	}
	// No Origin header: not a browser's cross-origin request; the session alone decides.
	if resp := get(""); resp.StatusCode != http.StatusNoContent || reached.Load() != 2 {
		t.Fatalf("no origin: status %d, reached %d", resp.StatusCode, reached.Load())
	}
}

// unauthorizedMe is a backend whose users/me refuses every session with a bare 401 (no Parse code), as a proxy in
// front of the backend may.
type unauthorizedMe struct{ *fakeBackend }

func (unauthorizedMe) Me(context.Context, string) (*PublicUser, error) {
	return nil, &BackendError{Status: http.StatusUnauthorized, Message: "unauthorized"}
}

// A session the backend refuses, by Parse's code or by a bare 401, gets 401 "Invalid session token" and its cookie
// cleared, without reaching the stream. Fails when GuardLive answers a bare 401 as a backend failure (the backend's
// text, the cookie kept).
func TestGuardLiveRefusedSession(t *testing.T) {
	for name, b := range map[string]Backend{"invalid session token": newFakeBackend(), "bare 401": unauthorizedMe{newFakeBackend()}} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnvBackend(t, b, "testAppId", nil)
			var reached atomic.Int32
			srv := httptest.NewServer(e.h.GuardLive(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) })))
			t.Cleanup(srv.Close)
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/live", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Cookie", DefaultCookieName+"=r:forged")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			set := resp.Header.Get("Set-Cookie")
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `"Invalid session token"`) ||
				!strings.Contains(set, DefaultCookieName+"=;") || !strings.Contains(set, "Max-Age=0") {
				t.Fatalf("status %d, body %s, Set-Cookie %q", resp.StatusCode, body, set)
			}
			if reached.Load() != 0 {
				t.Fatal("a refused session reached the stream")
			}
		})
	}
}

// Live serves query/live's bridge as one more route of the endpoint: its refusals, from the pipeline (method,
// session) as from the bridge (class, where, the live-query server), are written by the endpoint's one writer, with
// the endpoint's headers and the status of its table, and only a failure is reported to OnError. Fails when the
// bridge's refusals are written by a writer of its own (tried: Live as a route of any method in front of a handler
// writing the bridge's refusals itself: the POST reached the bridge, 502, and every refusal lacked the endpoint's
// charset, nosniff and no-store).
func TestLiveAnswersThroughThePipeline(t *testing.T) {
	var reported atomic.Int32
	e := newTestEnv(t, func(c *Config) { c.OnError = func(*http.Request, error) { reported.Add(1) } })
	e.be.users["r:live"] = &PublicUser{ObjectID: "u1", Accounts: []string{}, SolAccounts: []string{}}
	var dials atomic.Int32
	bridge, err := live.NewSSEBridge(live.SSEConfig{AllowedClasses: []string{"Item"},
		Dial: func(context.Context, string) (*live.Client, error) {
			dials.Add(1)
			return nil, errors.New("dial tcp: connection refused")
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.StripPrefix("/auth", e.h.Live(bridge)))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		name, method, query, token string
		status                     int
		code                       int
		text                       string
	}{
		{"another method", http.MethodPost, "class=Item", "r:live", 405, 107, "Method not allowed"},
		{"no session", http.MethodGet, "class=Item", "", 401, 209, "Invalid session token"},
		{"a bad class name", http.MethodGet, "class=Bad-Name", "r:live", 400, 103, "Invalid class name"},
		{"a class not allowed", http.MethodGet, "class=Other", "r:live", 403, 119, "live queries are not enabled for class Other"},
		{"a where that is not JSON", http.MethodGet, "class=Item&where=%7B", "r:live", 400, 107, "where parameter is not valid JSON"},
		{"a where operator not allowed", http.MethodGet, "class=Item&where=" + url.QueryEscape(`{"a":{"$select":{}}}`), "r:live", 400, 102, ""},
		{"the live-query server unreachable", http.MethodGet, "class=Item", "r:live", 502, 1, "could not reach the live query server"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+"/auth/live?"+c.query, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		a := readAnswer(resp)
		if a.status != c.status || a.body["code"] != float64(c.code) || (c.text != "" && a.body["error"] != c.text) {
			t.Errorf("%s: %d %s; want %d {code %d, %q}", c.name, a.status, a.raw, c.status, c.code, c.text)
		}
		if a.header.Get("Content-Type") != "application/json; charset=utf-8" || a.header.Get("X-Content-Type-Options") != "nosniff" ||
			a.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: not the endpoint's headers: %v", c.name, a.header)
		}
		if c.status == 405 && a.header.Get("Allow") != http.MethodGet {
			t.Errorf("%s: Allow %q", c.name, a.header.Get("Allow"))
		}
	}
	if dials.Load() != 1 || reported.Load() != 1 {
		t.Fatalf("%d dials, %d reported to OnError; want 1 and 1 (the unreachable server only)", dials.Load(), reported.Load())
	}
}

// The instance's live streams are capped (MaxLiveStreams) over Live and GuardLive together: at the cap a stream is
// refused 503 {"code":1} with Retry-After before any dial, and the slot comes back when a stream ends. Fails without
// the cap (tried: the second stream went on to the bridge's dial).
func TestLiveStreamsCappedPerInstance(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.MaxLiveStreams = 1 })
	e.be.users["r:a"] = &PublicUser{ObjectID: "ua", Accounts: []string{}, SolAccounts: []string{}}
	e.be.users["r:b"] = &PublicUser{ObjectID: "ub", Accounts: []string{}, SolAccounts: []string{}}
	held, release := make(chan struct{}), make(chan struct{})
	guarded := e.h.GuardLive(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(held)
		<-release
	}))
	var dials atomic.Int32
	bridge, _ := live.NewSSEBridge(live.SSEConfig{Dial: func(context.Context, string) (*live.Client, error) {
		dials.Add(1)
		return nil, errors.New("no live-query server here")
	}})
	mux := http.NewServeMux()
	mux.Handle("/guarded/", http.StripPrefix("/guarded", guarded))
	mux.Handle("/auth/", http.StripPrefix("/auth", e.h.Live(bridge)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	var once sync.Once
	end := func() { once.Do(func() { close(release) }) }
	t.Cleanup(end) // before srv.Close, which waits for the held stream
	get := func(path, tok string) answer {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return readAnswer(resp)
	}
	first := make(chan answer, 1)
	go func() { first <- get("/guarded/live", "r:a") }()
	<-held
	a := get("/auth/live?class=Item", "r:b")
	if a.status != http.StatusServiceUnavailable || a.body["code"] != float64(1) || a.header.Get("Retry-After") == "" || dials.Load() != 0 {
		t.Fatalf("a stream at the instance's cap: %d %s (Retry-After %q, %d dials); want 503 code 1 before any dial",
			a.status, a.raw, a.header.Get("Retry-After"), dials.Load())
	}
	end()
	<-first
	if a := get("/auth/live?class=Item", "r:b"); a.status != http.StatusBadGateway || dials.Load() != 1 {
		t.Fatalf("after the stream ended: %d %s, %d dials; want the bridge's dial (502 here)", a.status, a.raw, dials.Load())
	}
}
