//go:build integration

package authserver

import (
	"fmt"
	"github.com/c13f5054/moralis-go/parse"
	"math/rand/v2"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/stacktest"
)

// The data proxy over the real backend: a query runs with the caller's session, so the backend's ACLs decide
// what each user sees (A never gets B's private object); a cloud function runs as the caller (the server sees
// the caller's user); a function not listed is refused without reaching the backend.
func TestIntegrationDataProxyQueriesAndFunctionsAsTheUser(t *testing.T) {
	ctx := stacktest.Ctx(t)
	st := dataProxyStack(t)
	e, be, dc := st.e, st.be, st.dc

	class := fmt.Sprintf("DataProxyItem%d", rand.Uint32())
	signUp := func(name string) *client.User {
		u := client.NewUser()
		u.SetUsername(fmt.Sprintf("%s%d", name, rand.Uint32()))
		u.SetPassword("pw-" + name)
		if err := dc.Users.SignUp(ctx, u); err != nil {
			t.Fatal(err)
		}
		// A password session, made at the backend: the endpoint accepts it once adopted (ClientBackend.AdoptSession).
		if err := be.AdoptSession(ctx, u.SessionToken()); err != nil {
			t.Fatal(err)
		}
		return u
	}
	a, b := signUp("ann"), signUp("bob")
	own := func(u *client.User, label string) *parse.Object {
		o := parse.NewObject(class)
		_ = o.Set("label", label)
		o.SetACL(parse.NewUserACL(u.ID()))
		if err := dc.WithSessionToken(u.SessionToken()).Objects.Save(ctx, o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	oa, _ := own(a, "ann's"), own(b, "bob's")

	post := func(path, tok string, body any) answer {
		t.Helper()
		return e.postJSON(path, body, map[string]string{"Authorization": "Bearer " + tok})
	}
	q := post("/data/query", a.SessionToken(), map[string]any{"className": class, "count": true})
	if q.status != 200 {
		t.Fatalf("query: %d %s", q.status, q.raw)
	}
	res, _ := q.body["results"].([]any)
	if len(res) != 1 || q.body["count"] != float64(1) {
		t.Fatalf("ann sees %d objects (count %v), want exactly her own: %s", len(res), q.body["count"], q.raw)
	}
	if got, _ := res[0].(map[string]any); got["objectId"] != oa.ID() || got["label"] != "ann's" {
		t.Fatalf("ann's query answered %v", got)
	}

	f := post("/data/function", b.SessionToken(), map[string]any{"name": "echo", "params": map[string]any{"x": 1}})
	if f.status != 200 {
		t.Fatalf("function: %d %s", f.status, f.raw)
	}
	if r, _ := f.body["result"].(map[string]any); r == nil || r["user"] != b.ID() || r["master"] != false {
		t.Fatalf("echo ran as %v (master %v), want bob (%s) without the master key: %s", r["user"], r["master"], b.ID(), f.raw)
	}

	if n := post("/data/function", a.SessionToken(), map[string]any{"name": "fail"}); n.status != 400 || n.body["code"] != float64(parse.CodeScriptFailed) {
		t.Fatalf("unlisted function: %d %s", n.status, n.raw)
	}
	if none := post("/data/query", "r:not-a-session", map[string]any{"className": class}); none.status != 401 {
		t.Fatalf("forged session: %d %s", none.status, none.raw)
	}
}

// proxyStack is an endpoint over the real backend (a ClientBackend, be) with the data proxy mounted at
// /auth/data/ (cloud functions allowed: echo); dc is the data backend's client (no master key: the proxy refuses
// one), c a client of the backend and env the stack (stacktest.Client).
type proxyStack struct {
	c, dc *client.Client
	env   devstack.Env
	e     *testEnv
	be    *ClientBackend
}

func dataProxyStack(t *testing.T) proxyStack {
	t.Helper()
	c, cfg, env := stacktest.Client(t)
	be, err := NewClientBackend(BackendConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	dc, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	if err != nil {
		t.Fatal(err)
	}
	mountDataProxy(t, e, DataProxyConfig{Backend: NewClientDataBackend(dc), AllowedFunctions: []string{"echo"}})
	return proxyStack{c: c, dc: dc, env: env, e: e, be: be}
}
