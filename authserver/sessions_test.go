package authserver

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
)

// The lifetimes of rolling sessions follow the one configuration rule: zero is the default, negative an error
// naming the field, and an idle lifetime above the cap is an error too.
func TestSessionLifeConfig(t *testing.T) {
	for _, tc := range []struct {
		idle, max time.Duration
		wantErr   string
		wantIdle  time.Duration
		wantMax   time.Duration
	}{
		{wantIdle: DefaultSessionIdleTTL, wantMax: DefaultSessionMaxAge},
		{idle: time.Hour, max: 2 * time.Hour, wantIdle: time.Hour, wantMax: 2 * time.Hour},
		{idle: -1, wantErr: "Config.SessionIdleTTL"},
		{max: -1, wantErr: "Config.SessionMaxAge"},
		{idle: 2 * time.Hour, max: time.Hour, wantErr: "Config.SessionIdleTTL must not exceed SessionMaxAge"},
	} {
		h, err := NewHandler(newFakeBackend(), Config{AppID: "a", Domain: "app.example", SessionIdleTTL: tc.idle, SessionMaxAge: tc.max})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("idle %s max %s: err %v; want one naming %q", tc.idle, tc.max, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.o.SessionIdleTTL != tc.wantIdle || h.o.SessionMaxAge != tc.wantMax {
			t.Errorf("idle %s max %s: got %s %s", tc.idle, tc.max, h.o.SessionIdleTTL, h.o.SessionMaxAge)
		}
	}
}

// The cookie of a session whose end the Backend knows expires then (CookieMaxAge, when sooner, wins); without
// one it is a browser-session cookie, as before.
func TestSessionCookieExpiresWithTheSession(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		maxAge  time.Duration
		until   time.Time
		wantAge int
	}{
		{until: now.Add(time.Hour), wantAge: 3600},
		{maxAge: 10 * time.Minute, until: now.Add(time.Hour), wantAge: 600},
		{maxAge: 2 * time.Hour, until: now.Add(time.Hour), wantAge: 3600},
		{maxAge: 0, wantAge: 0},
	} {
		w := httptest.NewRecorder()
		cookieRules{name: "s", path: "/", now: func() time.Time { return now }, maxAge: tc.maxAge}.set(w, "tok", tc.until)
		c := w.Result().Cookies()[0]
		if c.MaxAge != tc.wantAge {
			t.Errorf("maxAge %s until %s: Max-Age %d; want %d", tc.maxAge, tc.until, c.MaxAge, tc.wantAge)
		}
	}
}

// A ClientBackend without a master key is not an error, but it is never silent: NewClientBackend logs (to
// BackendConfig.Logger) that the endpoint is not the one door in; with the key it logs nothing.
func TestClientBackendWithoutMasterKeyIsLoud(t *testing.T) {
	for _, master := range []string{"", "mk"} {
		logs := newLogs(t)
		if _, err := NewClientBackend(BackendConfig{Client: client.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "a",
			MasterKey: master}, Logger: logs.c.Logger}); err != nil {
			t.Fatal(err)
		}
		if loud := strings.Contains(logs.String(), "without a master key") && strings.Contains(logs.String(), "not the one door in"); loud != (master == "") {
			t.Fatalf("master key %q: logged %q", master, logs)
		}
	}
}
