//go:build integration

package authserver

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/signer"
)

// Sessions that roll, against the real stack with the endpoint's clock faked: parse-server's _Session.expiresAt
// and the cookie follow the rule (slide only after half the idle lifetime, never past the cap), and a session
// ends when its wallet binding breaks.

const (
	testIdle = time.Hour
	testMax  = 3 * time.Hour
)

func rollingEnv(t *testing.T, mod func(o *Config)) *testEnv {
	t.Helper()
	return realEnv(t, nil, func(o *Config) {
		o.SessionIdleTTL, o.SessionMaxAge = testIdle, testMax
		if mod != nil {
			mod(o)
		}
	})
}

// backendSessionEnd reads the _Session of tok with the master key: its expiresAt, and whether it exists.
func backendSessionEnd(t *testing.T, master *client.Client, tok string) (time.Time, bool) {
	t.Helper()
	var resp struct {
		Results []struct {
			ExpiresAt struct {
				ISO string `json:"iso"`
			} `json:"expiresAt"`
		} `json:"results"`
	}
	if err := master.Request(t.Context(), http.MethodGet, "classes/_Session",
		map[string]any{"where": map[string]any{"sessionToken": tok}, "keys": "expiresAt"}, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, resp.Results[0].ExpiresAt.ISO)
	if err != nil {
		t.Fatal(err)
	}
	return at, true
}

// sessionCookie returns the session cookie an answer sets (nil when none).
func sessionCookie(a answer) *http.Cookie {
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == DefaultCookieName {
			return c
		}
	}
	return nil
}

// me is GET /me with tok in the cookie.
func (e *testEnv) me(tok string) answer {
	e.t.Helper()
	return e.do("GET", "/me", "", "", cookie(tok))
}

// wantEnd checks that the session ends at want, by the backend's _Session and, when the answer set it, the cookie.
func wantEnd(t *testing.T, what string, master *client.Client, tok string, a answer, now, want time.Time) {
	t.Helper()
	got, ok := backendSessionEnd(t, master, tok)
	if !ok {
		t.Fatalf("%s: the backend has no session", what)
	}
	if w := want.Truncate(time.Millisecond); !got.Equal(w) {
		t.Fatalf("%s: _Session.expiresAt = %s; want %s", what, got.Format(time.RFC3339Nano), w.Format(time.RFC3339Nano))
	}
	if c := sessionCookie(a); c != nil {
		if wantAge := int(want.Sub(now) / time.Second); c.MaxAge != wantAge || c.Value != tok {
			t.Fatalf("%s: cookie Max-Age %d (token kept: %v); want %d", what, c.MaxAge, c.Value == tok, wantAge)
		}
	}
}

// wantAnswerEnd checks that answer a says the session ends at end unless used, at max however used, on the clock
// at now (the wire contract's SessionEnd).
func wantAnswerEnd(t *testing.T, what string, a answer, now, end, max time.Time) {
	t.Helper()
	want := map[string]any{"expiresAt": auth.FormatServerTime(end), "maxExpiresAt": auth.FormatServerTime(max),
		"now": auth.FormatServerTime(now)}
	if !reflect.DeepEqual(a.body["session"], want) {
		t.Fatalf("%s: the answer's session is %v; want %v", what, a.body["session"], want)
	}
}

// backendRefuses checks that parse-server itself no longer accepts tok.
func backendRefuses(t *testing.T, tok string) {
	t.Helper()
	c, _, _ := stacktest.Client(t)
	if _, err := c.WithSessionToken(tok).Users.Me(t.Context()); err == nil {
		t.Fatal("parse-server still accepts the ended session")
	}
}

func TestRollingSessionSlidesUpToTheCap(t *testing.T) {
	e := rollingEnv(t, nil)
	master := stacktest.Master(t, devstackEnv(t))
	e.clock.Add(-time.Duration(e.clock.Now().Nanosecond())) // whole seconds: the backend keeps milliseconds
	t0 := e.clock.Now()
	a := e.signInOnce(mustEthKey(t))
	if a.status != 200 {
		t.Fatalf("sign-in: %d %s", a.status, a.raw)
	}
	tok := sessionOf(a)
	if sessionCookie(a).MaxAge != int(testIdle/time.Second) {
		t.Fatalf("sign-in cookie Max-Age %d; want %d", sessionCookie(a).MaxAge, int(testIdle/time.Second))
	}
	wantEnd(t, "sign-in", master, tok, a, t0, t0.Add(testIdle))
	wantAnswerEnd(t, "sign-in", a, t0, t0.Add(testIdle), t0.Add(testMax))

	// Used before half its lifetime has passed: no write, no new cookie.
	e.clock.Add(testIdle/2 - time.Second)
	a = e.me(tok)
	if a.status != 200 || sessionCookie(a) != nil {
		t.Fatalf("/me just before half the lifetime: %d, cookie %v; want 200 and no cookie", a.status, sessionCookie(a))
	}
	wantEnd(t, "just before half the lifetime", master, tok, a, e.clock.Now(), t0.Add(testIdle))
	wantAnswerEnd(t, "just before half the lifetime", a, e.clock.Now(), t0.Add(testIdle), t0.Add(testMax))

	// Past half: it slides to now + idle, in the backend and in the cookie; then to the cap, never past it.
	for _, step := range []struct {
		after time.Duration // since t0
		want  time.Duration // the end, since t0
		slid  bool
	}{{40 * time.Minute, 100 * time.Minute, true}, {80 * time.Minute, 140 * time.Minute, true},
		{130 * time.Minute, testMax, true}, // now + idle would be past the cap: the cap
		{170 * time.Minute, testMax, false}} {
		e.clock.Add(t0.Add(step.after).Sub(e.clock.Now()))
		a = e.me(tok)
		if a.status != 200 {
			t.Fatalf("/me at t0+%s: %d %s", step.after, a.status, a.raw)
		}
		if (sessionCookie(a) != nil) != step.slid {
			t.Fatalf("/me at t0+%s: cookie set %v; want %v", step.after, sessionCookie(a) != nil, step.slid)
		}
		wantEnd(t, "at t0+"+step.after.String(), master, tok, a, e.clock.Now(), t0.Add(step.want))
		wantAnswerEnd(t, "at t0+"+step.after.String(), a, e.clock.Now(), t0.Add(step.want), t0.Add(testMax))
	}

	// At the cap it ends, however active: 401, the cookie cleared, and parse-server refuses it too.
	e.clock.Add(t0.Add(testMax).Sub(e.clock.Now()))
	a = e.me(tok)
	if a.status != 401 || a.body["code"] != float64(209) {
		t.Fatalf("/me at the cap: %d %s; want 401 code 209", a.status, a.raw)
	}
	if c := sessionCookie(a); c == nil || c.MaxAge >= 0 {
		t.Fatalf("/me at the cap: the cookie is not cleared: %v", c)
	}
	backendRefuses(t, tok)
}

func TestRollingSessionEndsWhenIdle(t *testing.T) {
	e := rollingEnv(t, nil)
	tok := sessionOf(e.signInOnce(mustEthKey(t)))
	e.clock.Add(testIdle - time.Second)
	if a := e.me(tok); a.status != 200 {
		t.Fatalf("/me just before the end: %d %s", a.status, a.raw)
	}
	// That use slid it (past half its lifetime): one idle lifetime later, unused, it has ended.
	e.clock.Add(testIdle)
	if a := e.me(tok); a.status != 401 || a.body["code"] != float64(209) {
		t.Fatalf("/me after an idle lifetime: %d %s; want 401 code 209", a.status, a.raw)
	}
	backendRefuses(t, tok)
}

func TestRollingSessionEndsWhenTheWalletSwitches(t *testing.T) {
	e := rollingEnv(t, nil)
	a, b := mustEthKey(t), mustEthKey(t)

	// Another account signs in in the same browser: the session it held ends, on the backend too.
	tokA := sessionOf(e.signInOnce(a))
	msg, _ := e.getMessage("evm", ethAddr(b))
	ans := e.postJSON("/signin", body("evm", ethAddr(b), msg, ethSign(t, b, msg)), cookie(tokA))
	if ans.status != 200 || sessionOf(ans) == tokA {
		t.Fatalf("sign-in of B over A's session: %d %s", ans.status, ans.raw)
	}
	if r := e.me(tokA); r.status != 401 {
		t.Fatalf("A's session after B signed in: %d %s; want 401", r.status, r.raw)
	}
	backendRefuses(t, tokA)

	// The session's address is unlinked from its user: the session, bound to it, ends.
	tokA = sessionOf(e.signInOnce(a))
	d := mustEthKey(t)
	msg, _ = e.getMessage("evm", ethAddr(d))
	if r := e.postJSON("/link", body("evm", ethAddr(d), msg, ethSign(t, d, msg)), cookie(tokA)); r.status != 200 {
		t.Fatalf("link D: %d %s", r.status, r.raw)
	}
	if r := e.postJSON("/unlink", map[string]string{"chain": "evm", "address": ethAddr(a)}, cookie(tokA)); r.status != 200 {
		t.Fatalf("unlink A: %d %s", r.status, r.raw)
	}
	if r := e.me(tokA); r.status != 401 || r.body["code"] != float64(209) {
		t.Fatalf("/me after the session's address was unlinked: %d %s; want 401 code 209", r.status, r.raw)
	}
	backendRefuses(t, tokA)

	// The endpoint now signs in on another chain id: a session signed for chain 1 ends.
	c := mustEthKey(t)
	tokC := sessionOf(e.signInOnce(c))
	other := rollingEnv(t, func(o *Config) { o.ChainID = 5 })
	if r := other.me(tokC); r.status != 401 || r.body["code"] != float64(209) {
		t.Fatalf("/me of a chain-1 session at a chain-5 endpoint: %d %s; want 401 code 209", r.status, r.raw)
	}
	backendRefuses(t, tokC)
}

func mustEthKey(t *testing.T) *signer.Key {
	t.Helper()
	k, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
