package authserver

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/signer"
)

// signInFuncBackend answers SignInFunction as server/cloud/authsignin.js does for a returning wallet, except
// that the first fail calls get a 502 (a proxy that lost the answer), and refuse, when set, is answered as a
// beforeLogin trigger's error. Every other request is unexpected (a 404 with code 101).
type signInFuncBackend struct {
	mu     sync.Mutex
	fail   int
	refuse string
	calls  []map[string]any
	other  []string
}

func (f *signInFuncBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/functions/"+SignInFunction) {
		f.other = append(f.other, r.Method+" "+r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"code":101,"error":"unexpected"}`)
		return
	}
	var p map[string]any
	_ = json.Unmarshal(b, &p)
	f.calls = append(f.calls, p)
	switch {
	case f.fail > 0:
		f.fail--
		w.WriteHeader(http.StatusBadGateway)
	case f.refuse != "":
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"code":119,"error":"`+f.refuse+`"}`)
	default:
		id, _ := p["id"].(string)
		_ = json.NewEncoder(w).Encode(map[string]any{"result": map[string]any{"session": "s1", "user": map[string]any{
			"objectId": "u1", "ethAddress": id, "accounts": []string{id}, "sessionToken": p["sessionToken"],
			"authData":  map[string]any{auth.ProviderEth: map[string]any{"id": id}},
			"createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"}}})
	}
}

func signInFuncSetup(t *testing.T, f *signInFuncBackend) (*ClientBackend, auth.SignedMessage) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	be, err := NewClientBackend(BackendConfig{Client: client.Config{ServerURL: srv.URL + "/parse", AppID: "app",
		MasterKey: "master", MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	msg := "sign in"
	return be, auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(s), Message: msg, Signature: ethSign(t, s, msg)}
}

// A returning wallet's sign-in whose SignInFunction call lost its answer is made again with a new session token,
// the same installation id and "again" (the function then deletes a session the lost answer held); at most
// inDoubtAttempts calls. The session handed out is the one of the call that was answered.
func TestSignInFunctionInDoubt(t *testing.T) {
	for _, c := range []struct {
		fail int
		ok   bool
	}{{0, true}, {1, true}, {inDoubtAttempts - 1, true}, {inDoubtAttempts, false}} {
		f := &signInFuncBackend{fail: c.fail}
		be, m := signInFuncSetup(t, f)
		sess, err := be.SignIn(t.Context(), m)
		if c.ok != (err == nil) {
			t.Fatalf("%d lost answers: err %v; want ok %v", c.fail, err, c.ok)
		}
		if len(f.other) != 0 {
			t.Fatalf("%d lost answers: other requests %v", c.fail, f.other)
		}
		if want := min(c.fail+1, inDoubtAttempts); len(f.calls) != want {
			t.Fatalf("%d lost answers: %d calls; want %d", c.fail, len(f.calls), want)
		}
		tokens := map[string]bool{}
		for i, p := range f.calls {
			tok, _ := p["sessionToken"].(string)
			if !strings.HasPrefix(tok, "r:") || len(tok) != 34 || tokens[tok] {
				t.Fatalf("call %d: token %q (a new one each time wanted)", i, tok)
			}
			tokens[tok] = true
			if p["installationId"] == "" || p["installationId"] != f.calls[0]["installationId"] {
				t.Fatalf("call %d: installation id %v, first %v", i, p["installationId"], f.calls[0]["installationId"])
			}
			if again := p["again"] == true; again != (i > 0) {
				t.Fatalf("call %d: again %v", i, p["again"])
			}
			if p["provider"] != auth.ProviderEth || p["id"] != m.Address {
				t.Fatalf("call %d: provider %v id %v", i, p["provider"], p["id"])
			}
		}
		if c.ok {
			if last := f.calls[len(f.calls)-1]["sessionToken"]; sess.SessionToken != last {
				t.Fatalf("session %q; the answered call's token was %v", sess.SessionToken, last)
			}
			if sess.User.ObjectID != "u1" || sess.User.EthAddress != m.Address {
				t.Fatalf("user %+v", sess.User)
			}
		}
	}
}

// An error the function answers (the app's beforeLogin trigger refusing the user) is the sign-in's answer, as the
// login's would be: no login is tried instead.
func TestSignInFunctionTriggerRefusal(t *testing.T) {
	f := &signInFuncBackend{refuse: "beforeLogin: this account is suspended"}
	be, m := signInFuncSetup(t, f)
	_, err := be.SignIn(t.Context(), m)
	var be2 *BackendError
	if !errors.As(err, &be2) || be2.Code != 119 {
		t.Fatalf("err %v; want a BackendError with code 119", err)
	}
	if len(f.calls) != 1 || len(f.other) != 0 {
		t.Fatalf("%d function calls, other requests %v; want 1 and none", len(f.calls), f.other)
	}
}

// A signature that does not verify is never sent to the function (which trusts its master-key caller): the sign-in
// goes to the login, whose adapter refuses it as it always has.
func TestSignInFunctionNeedsAValidSignature(t *testing.T) {
	f := &signInFuncBackend{}
	be, m := signInFuncSetup(t, f)
	m.Message += " (edited)"
	if _, err := be.SignIn(t.Context(), m); err == nil {
		t.Fatal("signed in with a signature over another text")
	}
	if len(f.calls) != 0 {
		t.Fatalf("%d function calls with a bad signature", len(f.calls))
	}
}
