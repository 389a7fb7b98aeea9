//go:build integration

package authserver

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/stacktest"
)

// functionEnv is an endpoint at its defaults but without rate limits over the real stack, whose backend client has
// the master key and counts its requests.
func functionEnv(t *testing.T) (*ClientBackend, *testEnv, *countingTransport) {
	t.Helper()
	_, cfg, env := stacktest.Client(t)
	cfg.MasterKey = env.MasterKey
	ct := &countingTransport{}
	cfg.HTTPClient = &http.Client{Transport: ct}
	be, err := NewClientBackend(BackendConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	// The check of the backend now, so that no test counts its requests.
	if _, err := be.CheckBackend(t.Context()); err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, func(o *Config) {
		o.RateLimit, o.SignInRateLimit, o.LiveRateLimit, o.NoncesPerClient = RateLimit{}, RateLimit{}, RateLimit{}, 0
	})
	return be, e, ct
}

// useSignInFunction turns SignInFunction on or off for be (and the Handler's copy: they share what they learned),
// as a check of a backend with or without it would.
func useSignInFunction(be *ClientBackend, on bool) {
	be.caps.mu.Lock()
	be.caps.signIn = fnState{off: !on, reason: "turned off by the test"}
	be.caps.mu.Unlock()
}

// The one-call sign-in of a returning wallet (SignInFunction) runs the app's beforeLogin trigger as parse-server's
// login does: the devstack's trigger (cloud/triggers.js) records what it saw for a user carrying triggerRun, and
// refuses a user whose loginRefused is true. The same wallet signs in through the function and through the login
// (a backend told the function is missing); the trigger must have run for both, seeing the same user, the sign-in's
// own installation id each time, no master key and the client's address. The refusal must reach the browser as the
// login's would (403 with code 119), and the refused user gets no session from either path (through the function,
// a refusal it throws instead of answering {refused} is not a definite one: the login then refuses the same way).
func TestSignInFunctionRunsBeforeLogin(t *testing.T) {
	be, e, ct := functionEnv(t)
	s := mustEthKey(t)
	signIn := func() answer {
		msg, _ := e.getMessage("evm", ethAddr(s))
		return e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil)
	}
	first := signIn() // a new wallet: through the login
	if first.status != 200 {
		t.Fatalf("first sign-in: %d %s", first.status, first.raw)
	}
	uid, _ := first.body["user"].(map[string]any)["objectId"].(string)
	if uid == "" {
		t.Fatalf("no user id in %s", first.raw)
	}
	ctx := t.Context()
	master := be.Client().WithMasterKey()
	run := fmt.Sprintf("login%d", rand.Uint32())
	if err := master.Request(ctx, http.MethodPut, "classes/_User/"+uid, map[string]any{"triggerRun": run}, nil); err != nil {
		t.Fatal(err)
	}

	ct.take()
	viaFunc := signIn()
	if viaFunc.status != 200 {
		t.Fatalf("returning sign-in: %d %s", viaFunc.status, viaFunc.raw)
	}
	if got := ct.take(); len(got) != 1 || got[0] != "POST /parse/functions/"+SignInFunction {
		t.Fatalf("returning sign-in sent %v; want the one function call", got)
	}
	useSignInFunction(be, false) // this backend now sends the login, as for a backend without the function
	viaLogin := signIn()
	if viaLogin.status != 200 {
		t.Fatalf("returning sign-in through the login: %d %s", viaLogin.status, viaLogin.raw)
	}
	if got := ct.take(); len(got) == 0 || got[0] != "POST /parse/users" {
		t.Fatalf("sign-in through the login sent %v", got)
	}
	for _, a := range []answer{viaFunc, viaLogin} {
		if r := e.me(sessionOf(a)); r.status != 200 {
			t.Fatalf("/me: %d %s", r.status, r.raw)
		}
	}

	var logs struct {
		Results []map[string]any `json:"results"`
	}
	if err := master.Request(ctx, http.MethodGet, "classes/TriggerLog",
		map[string]any{"where": map[string]any{"run": run}, "order": "createdAt"}, &logs); err != nil {
		t.Fatal(err)
	}
	if len(logs.Results) != 2 {
		t.Fatalf("beforeLogin ran %d times for 2 sign-ins: %v", len(logs.Results), logs.Results)
	}
	seenInst := map[any]bool{}
	for i, l := range logs.Results {
		if l["phase"] != "beforeLogin" || l["cls"] != "_User" || l["seenId"] != uid || l["label"] != ethAddr(s) {
			t.Fatalf("sign-in %d: the trigger saw %v (user %s, address %s)", i+1, l, uid, ethAddr(s))
		}
		if l["master"] != false || l["hasIp"] != true {
			t.Fatalf("sign-in %d: the trigger's request: master %v, ip %v (want false, true)", i+1, l["master"], l["hasIp"])
		}
		if inst, _ := l["installationId"].(string); inst == "" || seenInst[inst] {
			t.Fatalf("sign-in %d: installation id %q (a new one per sign-in wanted)", i+1, inst)
		}
		seenInst[l["installationId"]] = true
	}

	if err := master.Request(ctx, http.MethodPut, "classes/_User/"+uid, map[string]any{"loginRefused": true}, nil); err != nil {
		t.Fatal(err)
	}
	for _, fn := range []bool{false, true} {
		useSignInFunction(be, fn)
		a := signIn()
		if a.status == 200 || sessionOf(a) != "" {
			t.Fatalf("refused user (function %v): %d %s", fn, a.status, a.raw)
		}
		if code, _ := a.body["code"].(float64); a.status != 403 || code != 119 {
			t.Fatalf("refused user (function %v): %d %s; want 403 with code 119", fn, a.status, a.raw)
		}
	}
}

// SignInFunction against parse-server itself: a call made again (after a lost answer) with the same installation
// id ends the session the first call made (parse-server's session write deletes the user's earlier sessions of
// that installation id), so at most one of them lives; without the master key the function does nothing.
func TestSignInFunctionAgainEndsTheLostSession(t *testing.T) {
	be, e, _ := functionEnv(t)
	s := mustEthKey(t)
	msg, _ := e.getMessage("evm", ethAddr(s))
	if a := e.postJSON("/signin", body("evm", ethAddr(s), msg, ethSign(t, s, msg)), nil); a.status != 200 {
		t.Fatalf("first sign-in: %d %s", a.status, a.raw)
	}
	ctx := t.Context()
	now := be.life.now()
	until := now.Add(be.life.idle)
	inst := fmt.Sprintf("inst-%d", rand.Uint64())
	call := func(c *client.Client, tok string, again bool) error {
		p := map[string]any{"provider": "moralisEth", "id": ethAddr(s), "installationId": inst, "sessionToken": tok,
			"until": parseDate(until)["iso"], "record": recordParams(be.newRecord(tok, now, until, sessionBinding{}))}
		if again {
			p["again"] = true
		}
		return c.Request(ctx, http.MethodPost, "functions/"+SignInFunction, p, nil)
	}
	tok1, tok2 := fmt.Sprintf("r:%032x", rand.Uint64()), fmt.Sprintf("r:%032x", rand.Uint64())
	if err := call(be.Client(), fmt.Sprintf("r:%032x", rand.Uint64()), false); err == nil {
		t.Fatal("the function ran without the master key")
	}
	master := be.Client().WithMasterKey()
	if err := call(master, tok1, false); err != nil {
		t.Fatal(err)
	}
	if err := call(master, tok2, true); err != nil {
		t.Fatal(err)
	}
	var sessions struct {
		Results []map[string]any `json:"results"`
	}
	if err := master.Request(ctx, http.MethodGet, "classes/_Session", map[string]any{"where": map[string]any{"installationId": inst}}, &sessions); err != nil {
		t.Fatal(err)
	}
	if len(sessions.Results) != 1 || sessions.Results[0]["sessionToken"] != tok2 {
		t.Fatalf("sessions of the installation after a call made again: %v; want only the second", sessions.Results)
	}
	if r := e.me(tok2); r.status != 200 {
		t.Fatalf("/me with the second session: %d %s", r.status, r.raw)
	}
	if r := e.me(tok1); r.status == 200 {
		t.Fatal("the first (lost) session still works")
	}
}

// A ClientBackend used without a Handler (no chain ids for the record) signs a returning wallet in through the
// function too, and a user whose ACL is not exactly its own (here: public read) is left to the login, which makes it
// private again, as it always has.
func TestSignInFunctionWithoutAHandlerAndForeignACL(t *testing.T) {
	_, cfg, env := stacktest.Client(t)
	cfg.MasterKey = env.MasterKey
	ct := &countingTransport{}
	cfg.HTTPClient = &http.Client{Transport: ct}
	be, err := NewClientBackend(BackendConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := be.CheckBackend(ctx); err != nil {
		t.Fatal(err)
	}
	s := mustEthKey(t)
	signIn := func(what string) *Session {
		t.Helper()
		msg := fmt.Sprintf("sign in %d", rand.Uint64())
		sess, err := be.SignIn(ctx, auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(s), Message: msg, Signature: ethSign(t, s, msg)})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return sess
	}
	first := signIn("first sign-in")
	ct.take()
	signIn("returning sign-in")
	if got := ct.take(); len(got) != 1 || got[0] != "POST /parse/functions/"+SignInFunction {
		t.Fatalf("returning sign-in without a Handler sent %v; want the one function call", got)
	}
	uid := first.User.ObjectID
	master := be.Client().WithMasterKey()
	public := map[string]any{"*": map[string]any{"read": true}, uid: map[string]any{"read": true, "write": true}}
	if err := master.Request(ctx, http.MethodPut, "classes/_User/"+uid, map[string]any{"ACL": public}, nil); err != nil {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("sign in %d", rand.Uint64())
	ct.take()
	if _, err := be.SignIn(ctx, auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(s), Message: msg, Signature: ethSign(t, s, msg)}); err != nil {
		t.Fatal(err)
	}
	if got := ct.take(); len(got) < 2 || got[0] != "POST /parse/functions/"+SignInFunction || got[1] != "POST /parse/users" {
		t.Fatalf("a user with a public ACL signed in with %v; want the function's refusal, then the login", got)
	}
	var u map[string]any
	if err := master.Request(ctx, http.MethodGet, "classes/_User/"+uid, nil, &u); err != nil {
		t.Fatal(err)
	}
	if acl, _ := u["ACL"].(map[string]any); len(acl) != 1 || acl[uid] == nil {
		t.Fatalf("ACL after the login: %v; want the user's own only", u["ACL"])
	}
}
