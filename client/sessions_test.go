package client

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

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
