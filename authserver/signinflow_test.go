package authserver

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
)

// The requests of a first check of a backend with the server package: its info, then getServerTime twice with
// one request id (does it answer, does the backend deduplicate).
var checkRequests = []string{"POST functions/" + ServerInfoFunction, "POST functions/getServerTime", "POST functions/getServerTime"}

// sameRequests reports whether got holds want's requests, the check's (which run at once) in any order first.
func sameRequests(got []string, check []string, then ...string) bool {
	if len(got) != len(check)+len(then) {
		return false
	}
	a, b := slices.Clone(got[:len(check)]), slices.Clone(check)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b) && slices.Equal(got[len(check):], then)
}

// A returning wallet on a backend with the server package signs in with one request of SignInFunction (after the
// first request's check of the backend), with the session token the endpoint chose.
func TestSignInByFunctionIsOneRequest(t *testing.T) {
	f := &flowBackend{}
	be, _, _, m := flowSetup(t, f)
	for i, s := range signInTwice(t, be, f, m, checkRequests, "POST functions/"+SignInFunction) {
		if tok := f.fnCalls[i]["sessionToken"]; s.SessionToken != tok || s.User.ObjectID != "u1" {
			t.Fatalf("sign-in %d: session %+v; the call's token %v", i+1, s, tok)
		}
	}
}

// signInTwice signs m in twice through be and checks the requests f got for each: the check's (in any order) and
// then want for the first, want alone for the second.
func signInTwice(t *testing.T, be *ClientBackend, f *flowBackend, m auth.SignedMessage, check []string, want ...string) []*Session {
	t.Helper()
	var out []*Session
	for i := range 2 {
		s, err := be.SignIn(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.take(); !sameRequests(got, check, want...) {
			t.Fatalf("sign-in %d: requests %v", i+1, got)
		}
		check = nil
		out = append(out, s)
	}
	return out
}

// A function call whose answer was lost (in doubt) is made again with a new token, the same installation id and
// "again", at most inDoubtAttempts times; when every answer is lost the wallet signs in by the login, from that same
// installation id (parse-server's session write then deletes a session a lost call made), and it is logged.
func TestSignInFunctionInDoubt(t *testing.T) {
	for _, lost := range []int{0, 1, inDoubtAttempts - 1, inDoubtAttempts} {
		var script []string
		for range lost {
			script = append(script, "lost")
		}
		f := &flowBackend{fn: append(script, "session")}
		be, logs, _, m := flowSetup(t, f)
		s, err := be.SignIn(t.Context(), m)
		if err != nil {
			t.Fatalf("%d lost answers: %v", lost, err)
		}
		if want := min(lost+1, inDoubtAttempts); len(f.fnCalls) != want {
			t.Fatalf("%d lost answers: %d calls; want %d", lost, len(f.fnCalls), want)
		}
		tokens := map[any]bool{}
		for i, p := range f.fnCalls {
			tok, _ := p["sessionToken"].(string)
			if !strings.HasPrefix(tok, "r:") || len(tok) != 34 || tokens[tok] {
				t.Fatalf("call %d: token %q (a new one each time wanted)", i, tok)
			}
			tokens[tok] = true
			if p["installationId"] == "" || p["installationId"] != f.fnCalls[0]["installationId"] {
				t.Fatalf("call %d: installation id %v, first %v", i, p["installationId"], f.fnCalls[0]["installationId"])
			}
			if again := p["again"] == true; again != (i > 0) {
				t.Fatalf("call %d: again %v", i, p["again"])
			}
		}
		if lost < inDoubtAttempts {
			if len(f.logins) != 0 || s.SessionToken != f.fnCalls[len(f.fnCalls)-1]["sessionToken"] {
				t.Fatalf("%d lost answers: logins %d, session %q", lost, len(f.logins), s.SessionToken)
			}
			continue
		}
		if len(f.logins) != 1 || s.SessionToken != "r:login" {
			t.Fatalf("every answer lost: %d logins, session %q; want the login's", len(f.logins), s.SessionToken)
		}
		if f.logins[0]["installationId"] != f.fnCalls[0]["installationId"] {
			t.Fatalf("the login's installation id %v; the function's %v", f.logins[0]["installationId"], f.fnCalls[0]["installationId"])
		}
		if len(logs.lines("calls in doubt")) != 1 {
			t.Fatalf("the fallback was not logged with its reason:\n%s", logs)
		}
	}
}

// A function that fails (here with an internal TypeError's text, as a changed private module gives) does not fail
// the sign-in: the wallet signs in by the login, the failure is logged with its reason, and the error's text is not
// in what the sign-in returns. signInFailureLimit failures in a row turn the function off until the next check, which
// comes RecheckInterval later and turns it on again.
func TestSignInFunctionFailureFallsBackToTheLogin(t *testing.T) {
	const typeError = "141:RestWrite.createSession is not a function"
	f := &flowBackend{}
	for range signInFailureLimit {
		f.fn = append(f.fn, "throw:"+typeError)
	}
	f.fn = append(f.fn, "session")
	be, logs, clock, m := flowSetup(t, f)
	for i := range signInFailureLimit {
		s, err := be.SignIn(t.Context(), m)
		if err != nil {
			t.Fatalf("sign-in %d: %v", i+1, err)
		}
		if s.SessionToken != "r:login" {
			t.Fatalf("sign-in %d: session %q; want the login's", i+1, s.SessionToken)
		}
	}
	if got := logs.lines("RestWrite.createSession is not a function"); len(got) != signInFailureLimit+1 {
		t.Fatalf("logged %d lines with the reason; want one per failure and the turning off:\n%s", len(got), logs)
	}
	if len(logs.lines(SignInFunction+" turned off")) != 1 {
		t.Fatalf("turning the function off was not logged:\n%s", logs)
	}
	f.take()
	if _, err := be.SignIn(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if got := f.take(); slices.Contains(got, "POST functions/"+SignInFunction) {
		t.Fatalf("the function was called while off: %v", got)
	}
	clock.Add(be.recheck)
	s, err := be.SignIn(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.take(); !sameRequests(got, checkRequests, "POST functions/"+SignInFunction) || s.SessionToken == "r:login" {
		t.Fatalf("after the interval: requests %v, session %q; want the check, then the function", got, s.SessionToken)
	}
}

// {"useLogin"} sends the wallet to the login and leaves the function on; {"useLogin": "off: ..."} (the package
// turned the function off) also turns it off here until the next check.
func TestSignInFunctionUseLogin(t *testing.T) {
	f := &flowBackend{fn: []string{"useLogin:no single user", "useLogin:off: lib/RestWrite changed", "session"}}
	be, logs, clock, m := flowSetup(t, f)
	for i, wantCalls := range []int{1, 2, 2} {
		s, err := be.SignIn(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.fnCalls) != wantCalls || s.SessionToken != "r:login" || len(f.logins) != i+1 {
			t.Fatalf("sign-in %d: %d function calls, %d logins, session %q; want %d calls and the login", i+1,
				len(f.fnCalls), len(f.logins), s.SessionToken, wantCalls)
		}
	}
	if len(logs.lines("lib/RestWrite changed")) != 1 {
		t.Fatalf("the function turned off was not logged once:\n%s", logs)
	}
	clock.Add(be.recheck)
	s, err := be.SignIn(t.Context(), m)
	if err != nil || len(f.fnCalls) != 3 || s.SessionToken == "r:login" {
		t.Fatalf("after the interval: err %v, %d calls, session %q; want the function's session", err, len(f.fnCalls), s.SessionToken)
	}
}

// {"refused": {code, error}} is the app's definite refusal: it is the sign-in's answer (code 141's text is never
// shown) and no login is tried. A "refusal" with a code no login answers is not one: the login follows.
func TestSignInFunctionRefusal(t *testing.T) {
	for _, c := range []struct {
		script   string
		code     int
		text     string
		viaLogin bool
	}{
		{"refused:119:this account is suspended", 119, "this account is suspended", false},
		{"refused:141:Cannot read properties of undefined (reading 'id')", 141, scriptFailedText, false},
		{"refused:1:internal", 0, "", true},
	} {
		f := &flowBackend{fn: []string{c.script}}
		be, _, _, m := flowSetup(t, f)
		_, err := be.SignIn(t.Context(), m)
		if c.viaLogin {
			if err != nil || len(f.logins) != 1 {
				t.Fatalf("%s: err %v, %d logins; want the login", c.script, err, len(f.logins))
			}
			continue
		}
		var be2 *BackendError
		if !errors.As(err, &be2) || be2.Code != c.code || be2.Message != c.text || be2.Status != statusOf(parse.Code(c.code)) {
			t.Fatalf("%s: err %#v; want code %d %q", c.script, err, c.code, c.text)
		}
		if len(f.logins) != 0 {
			t.Fatalf("%s: a refused wallet was sent to the login", c.script)
		}
	}
}

// A signature that does not verify is never sent to the function (which trusts its master-key caller): the sign-in
// goes to the login, whose adapter refuses it as it always has.
func TestSignInFunctionNeedsAValidSignature(t *testing.T) {
	f := &flowBackend{login: "101:moralisEth: signature does not match"} // the SDK then tries a sign-up: refused too
	be, _, _, m := flowSetup(t, f)
	m.Message += " (edited)"
	if _, err := be.SignIn(t.Context(), m); err == nil {
		t.Fatal("signed in with a signature over another text")
	}
	if len(f.fnCalls) != 0 || len(f.logins) == 0 {
		t.Fatalf("%d function calls, %d logins with a bad signature; want none and the login", len(f.fnCalls), len(f.logins))
	}
}

// On a stock server (no server package, no functions) a wallet signs in by the login, its session unrecorded (the
// zero end: the backend's own length), and the session checks accept any session the backend confirms, without a
// record lookup. The functions are not asked again before the interval; after it, the check asks again, and a
// function installed meanwhile is used.
func TestSignInWithoutServerPackage(t *testing.T) {
	f := &flowBackend{noPackage: true, fnAbsent: true, recordAbsent: true}
	be, logs, clock, m := flowSetup(t, f)
	probes := append(slices.Clone(checkRequests), "POST functions/"+SignInFunction, "POST functions/"+RecordSessionFunction)
	for i, s := range signInTwice(t, be, f, m, probes, "POST users") {
		if !s.ExpiresAt.IsZero() || len(f.records) != 0 {
			t.Fatalf("sign-in %d: end %v, %d records; want none", i+1, s.ExpiresAt, len(f.records))
		}
	}
	if _, err := be.Me(t.Context(), "r:login"); err != nil {
		t.Fatal(err)
	}
	if got := f.take(); !slices.Equal(got, []string{"GET users/me"}) {
		t.Fatalf("/me of an unrecorded session: requests %v; want users/me only", got)
	}
	if n := len(logs.lines("backend check")); n != 1 {
		t.Fatalf("%d check lines logged; want 1:\n%s", n, logs)
	}
	f.mu.Lock()
	f.fnAbsent, f.recordAbsent = false, false // the functions are mounted (an older package: no info)
	f.mu.Unlock()
	clock.Add(be.recheck)
	s, err := be.SignIn(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.take(); !sameRequests(got, probes, "POST functions/"+SignInFunction) || s.ExpiresAt.IsZero() {
		t.Fatalf("after the interval: requests %v, end %v; want the check, then the function", got, s.ExpiresAt)
	}
	if n := len(logs.lines("backend check")); n != 2 {
		t.Fatalf("the change was not logged in a line of its own:\n%s", logs)
	}
}

// A backend whose record function answers 141 "Invalid function" at a sign-in (removed after the check) turns
// recording off, logged: the session is handed out unrecorded, and the session checks stop asking for records.
func TestRecordFunctionGoneTurnsRecordingOff(t *testing.T) {
	f := &flowBackend{fn: []string{"useLogin:no single user"}}
	be, logs, _, m := flowSetup(t, f)
	if _, err := be.CheckBackend(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.recordAbsent = true
	f.mu.Unlock()
	s, err := be.SignIn(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	if !s.ExpiresAt.IsZero() || be.recording() {
		t.Fatalf("end %v, recording %v; want an unrecorded session and recording off", s.ExpiresAt, be.recording())
	}
	if len(logs.lines(RecordSessionFunction+" turned off")) != 1 {
		t.Fatalf("turning recording off was not logged:\n%s", logs)
	}
}

// No internal error text reaches the browser: a sign-in whose function and login both fail with a TypeError's text
// (code 141, as parse-server answers any error cloud code throws), and a link whose backend answers the same, are
// answered with code 141 and a fixed text.
func TestInternalErrorTextNeverReachesTheBrowser(t *testing.T) {
	const internal = "Cannot read properties of undefined (reading 'applicationId')"
	f := &flowBackend{fn: []string{"throw:141:RestWrite.createSession is not a function"}, login: "141:" + internal,
		link: "141:" + internal}
	be, _, _, _ := flowSetup(t, f)
	e := newTestEnvBackend(t, be, "app", nil)
	s, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := e.getMessage("evm", ethAddr(s))
	a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil)
	if len(f.fnCalls) != 1 || len(f.logins) != 1 {
		t.Fatalf("%d function calls, %d logins; want the function, then the login", len(f.fnCalls), len(f.logins))
	}
	msg, _ = e.getMessage("evm", ethAddr(s))
	l := e.postJSON("/link", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), map[string]string{"Authorization": "Bearer r:abc"})
	for what, ans := range map[string]answer{"/signin": a, "/link": l} {
		if ans.status != http.StatusBadRequest || ans.body["code"] != float64(141) || ans.body["error"] != scriptFailedText {
			t.Fatalf("%s: %d %s; want 400 {code 141, %q}", what, ans.status, ans.raw, scriptFailedText)
		}
		for _, leak := range []string{"Cannot read", "applicationId", "is not a function", "RestWrite"} {
			if strings.Contains(ans.raw, leak) {
				t.Fatalf("%s: the answer %s holds the backend's internal text", what, ans.raw)
			}
		}
	}
}

// BackendConfig.DirectSignIn is a deprecated no-op: the flow is the same (one request of the function for a
// returning wallet), and NewClientBackend says so in the log.
func TestDirectSignInIsIgnored(t *testing.T) {
	f := &flowBackend{}
	be, _, _, m := flowSetup(t, f)
	logs := newLogs(t)
	cfg := be.cfg
	direct, err := NewClientBackend(BackendConfig{Client: cfg, DirectSignIn: true, Logger: logs.c.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs.lines("DirectSignIn is deprecated and ignored")) != 1 {
		t.Fatalf("not logged:\n%s", logs)
	}
	if _, err := direct.SignIn(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if got := f.take(); !sameRequests(got, checkRequests, "POST functions/"+SignInFunction) {
		t.Fatalf("requests %v; want the check, then the function", got)
	}
}
