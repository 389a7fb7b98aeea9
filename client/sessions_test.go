package client

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/c13f5054/moralis-go/parse"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// idReq is one request seen by idServer.
type idReq struct {
	Method string         // the real HTTP method
	Path   string         // the path after /parse/
	Header http.Header    // request headers
	Raw    []byte         // raw body
	Body   map[string]any // the JSON body, when it is one
}

// idServer is an httptest server mounted at /parse that records every request and answers with reply.
type idServer struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []idReq
	reply func(r idReq) (int, string)
}

func newIDServer(t *testing.T, reply func(r idReq) (int, string)) *idServer {
	t.Helper()
	s := &idServer{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rq := idReq{Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, "/parse/"), Header: r.Header.Clone(), Raw: raw}
		if r.URL.RawPath != "" {
			rq.Path = strings.TrimPrefix(r.URL.RawPath, "/parse/")
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			rq.Body = m
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rq)
		s.mu.Unlock()
		status, body := 200, "{}"
		if s.reply != nil {
			status, body = s.reply(rq)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *idServer) requests() []idReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]idReq(nil), s.reqs...)
}

func (s *idServer) count() int { return len(s.requests()) }

// last returns the only request, failing when there is not exactly one.
func (s *idServer) only(t *testing.T) idReq {
	t.Helper()
	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("want exactly 1 request, got %d: %+v", len(reqs), reqs)
	}
	return reqs[0]
}

// client returns a client of the server; master adds a master key.
func (s *idServer) client(t *testing.T, master bool) *Client {
	t.Helper()
	cfg := Config{
		ServerURL:      s.URL + "/parse",
		AppID:          "app1",
		JavaScriptKey:  "js1",
		InstallationID: "inst-1",
		MaxAttempts:    1,
		Retry:          RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
	}
	if master {
		cfg.MasterKey = "mk1"
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// jsonEq fails unless got (any JSON-encodable value) encodes to the same JSON as want.
func jsonEq(t *testing.T, got any, want string) {
	t.Helper()
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var g, w any
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %s: %v", want, err)
	}
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Fatalf("JSON mismatch\n got: %s\nwant: %s", gj, wj)
	}
}

func wantPath(t *testing.T, r idReq, method, path string) {
	t.Helper()
	if r.Path != path {
		t.Fatalf("path = %q, want %q", r.Path, path)
	}
	if r.Method != http.MethodPost {
		t.Fatalf("HTTP method = %s, want POST (the real method travels in _method)", r.Method)
	}
	got, _ := r.Body["_method"].(string)
	if method == http.MethodPost {
		if _, has := r.Body["_method"]; has {
			t.Fatalf("_method = %v, want none for a POST", r.Body["_method"])
		}
	} else if got != method {
		t.Fatalf("_method = %q, want %q", got, method)
	}
	if r.Body["_ApplicationId"] != "app1" || r.Body["_InstallationId"] != "inst-1" {
		t.Fatalf("missing app or installation id: %v", r.Body)
	}
}

func TestCurrentSessionNeedsTokenBeforeRequest(t *testing.T) {
	srv := newIDServer(t, nil)
	c := srv.client(t, false)
	_, err := c.Sessions.Current(t.Context())
	if !errors.Is(err, ErrSessionTokenRequired) {
		t.Fatalf("err = %v, want ErrSessionTokenRequired", err)
	}
	if _, err := c.Sessions.List(t.Context()); !errors.Is(err, ErrSessionTokenRequired) {
		t.Fatalf("Sessions err = %v", err)
	}
	if err := c.Sessions.Revoke(t.Context(), "abc"); !errors.Is(err, ErrSessionTokenRequired) {
		t.Fatalf("RevokeSession err = %v", err)
	}
	if err := c.WithSessionToken("r:x").Sessions.Revoke(t.Context(), ""); err == nil {
		t.Fatal("RevokeSession without id: want an error")
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent, want 0", n)
	}
}

func TestCurrentSessionWire(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		return 200, `{"objectId":"S1","user":{"__type":"Pointer","className":"_User","objectId":"U1"},
			"installationId":"inst-1","sessionToken":"r:tok","restricted":false,
			"expiresAt":{"__type":"Date","iso":"2027-11-21T22:00:00.000Z"},
			"createdWith":{"action":"login","authProvider":"password"},
			"createdAt":"2026-11-21T22:00:00.000Z","updatedAt":"2026-11-21T22:00:00.000Z"}`
	})
	s, err := srv.client(t, false).WithSessionToken("r:tok").Sessions.Current(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	wantPath(t, r, http.MethodGet, "sessions/me")
	if r.Body["_SessionToken"] != "r:tok" || r.Body["_JavaScriptKey"] != "js1" {
		t.Fatalf("body lacks token or key: %v", r.Body)
	}
	if s.ID() != "S1" || s.SessionToken() != "r:tok" || s.InstallationID() != "inst-1" || s.Restricted() {
		t.Fatalf("session fields: %v", s.Fields())
	}
	if s.User() != (parse.Pointer{ClassName: "_User", ObjectID: "U1"}) {
		t.Fatalf("user = %+v", s.User())
	}
	if want := time.Date(2027, 11, 21, 22, 0, 0, 0, time.UTC); !s.ExpiresAt().Equal(want) {
		t.Fatalf("expiresAt = %v", s.ExpiresAt())
	}
	if s.CreatedWith()["action"] != "login" || s.CreatedAt().IsZero() {
		t.Fatalf("createdWith = %v, createdAt %v", s.CreatedWith(), s.CreatedAt())
	}
}

func TestCurrentSessionInvalidToken(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 400, `{"code":209,"error":"Session token not found."}` })
	_, err := srv.client(t, false).WithSessionToken("r:stale").Sessions.Current(t.Context())
	if !errors.Is(err, parse.ErrInvalidSessionToken) {
		t.Fatalf("err = %v, want code 209", err)
	}
	if strings.Contains(err.Error(), "r:stale") {
		t.Fatalf("the error leaks the token: %v", err)
	}
}

func TestSessionsWire(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) {
		return 200, `{"results":[{"objectId":"S2","installationId":"b","sessionToken":"r:2"},{"objectId":"S1","installationId":"a"}]}`
	})
	ss, err := srv.client(t, false).WithSessionToken("r:2").Sessions.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	wantPath(t, r, http.MethodGet, "sessions")
	if r.Body["_SessionToken"] != "r:2" || r.Body["order"] != "-createdAt" || r.Body["limit"] != float64(1000) {
		t.Fatalf("body: %v", r.Body)
	}
	if len(ss) != 2 || ss[0].ID() != "S2" || ss[1].InstallationID() != "a" || ss[0].ClassName() != SessionClass {
		t.Fatalf("sessions: %+v", ss)
	}
}

func TestRevokeSessionWire(t *testing.T) {
	srv := newIDServer(t, nil)
	if err := srv.client(t, false).WithSessionToken("r:1").Sessions.Revoke(t.Context(), "S9"); err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	wantPath(t, r, http.MethodDelete, "sessions/S9")
	if r.Body["_SessionToken"] != "r:1" {
		t.Fatalf("body: %v", r.Body)
	}
	// With the master key no token is needed.
	srv2 := newIDServer(t, nil)
	if err := srv2.client(t, true).WithMasterKey().Sessions.Revoke(t.Context(), "S9"); err != nil {
		t.Fatal(err)
	}
	if r := srv2.only(t); r.Body["_MasterKey"] != "mk1" {
		t.Fatalf("body: %v", r.Body)
	}
}
