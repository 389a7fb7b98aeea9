package authserver

import (
	"context"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/signer"
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

// endBackend is a Backend of one's own whose sessions end at fixed times: it gives them at sign-in (Session) and
// reports them from Me (ReportSessionEnd), as ClientBackend does.
type endBackend struct {
	*fakeBackend
	end, max time.Time
	silent   bool // Me reports nothing
}

func (b *endBackend) SignIn(ctx context.Context, m auth.SignedMessage) (*Session, error) {
	s, err := b.fakeBackend.SignIn(ctx, m)
	if s != nil {
		s.ExpiresAt, s.MaxExpiresAt = b.end, b.max
	}
	return s, err
}

func (b *endBackend) Me(ctx context.Context, tok string) (*PublicUser, error) {
	if !b.silent {
		ReportSessionEnd(ctx, b.end, b.max)
	}
	return b.fakeBackend.Me(ctx, tok)
}

// The answers of POST /signin and GET /me say when the session ends (the wire contract's SessionEnd), on the
// endpoint's clock; a Backend that does not know (or does not say) gets answers without it.
func TestAnswersSayWhenTheSessionEnds(t *testing.T) {
	be := &endBackend{fakeBackend: newFakeBackend()}
	e := newTestEnvBackend(t, be, "testAppId", nil)
	now := e.clock.Now()
	be.end, be.max = now.Add(time.Hour).Truncate(time.Millisecond), now.Add(3*time.Hour).Truncate(time.Millisecond)
	want := map[string]any{"expiresAt": auth.FormatServerTime(be.end), "maxExpiresAt": auth.FormatServerTime(be.max),
		"now": auth.FormatServerTime(now)}
	signIn := func() answer {
		k, _ := signer.GenerateKey()
		msg, _ := e.getMessage("evm", ethAddr(k))
		return e.postJSON("/signin", body("evm", ethAddr(k), msg, ethSign(t, k, msg)), nil)
	}
	a := signIn()
	if a.status != 200 || !reflect.DeepEqual(a.body["session"], want) {
		t.Fatalf("sign-in: %d %s; want session %v", a.status, a.raw, want)
	}
	tok := sessionOf(a)
	// /me after the session slid (as ClientBackend reports it): the new end.
	e.clock.Add(time.Minute)
	be.end = be.end.Add(time.Minute)
	want = map[string]any{"expiresAt": auth.FormatServerTime(be.end), "maxExpiresAt": auth.FormatServerTime(be.max),
		"now": auth.FormatServerTime(e.clock.Now())}
	if a := e.do("GET", "/me", "", "", cookie(tok)); a.status != 200 || !reflect.DeepEqual(a.body["session"], want) {
		t.Fatalf("/me: %d %s; want session %v", a.status, a.raw, want)
	}
	// Unknown: no "session" at all (never a zero time the page would take for an ended session).
	be.silent = true
	if a := e.do("GET", "/me", "", "", cookie(tok)); a.status != 200 || a.body["session"] != nil || strings.Contains(a.raw, `"session"`) {
		t.Fatalf("/me, nothing reported: %d %s", a.status, a.raw)
	}
	be.end, be.max = time.Time{}, time.Time{}
	if a := signIn(); a.status != 200 || strings.Contains(a.raw, `"session"`) {
		t.Fatalf("sign-in, end unknown: %d %s", a.status, a.raw)
	}
}
