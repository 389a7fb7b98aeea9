package authserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
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
