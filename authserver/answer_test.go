package authserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
)

func TestHandlerBackendErrors(t *testing.T) {
	e := newTestEnv(t, nil)
	s, _ := signer.GenerateKey()
	e.be.err = &BackendError{Status: 401, Code: 101, Message: "moralisEth: signature does not match address"}
	m, _ := e.getMessage("evm", ethAddr(s))
	a := e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
	if a.status != 401 || a.body["code"] != float64(101) {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	e.be.err = io.ErrUnexpectedEOF // an unknown error: no details leak
	m, _ = e.getMessage("evm", ethAddr(s))
	a = e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
	if a.status != 502 || a.body["error"] != "Backend error" {
		t.Fatalf("%d %s", a.status, a.raw)
	}
}

// The answer table keeps 401 for the session: whatever the code, a route that takes a session answers 401 only when
// the session is missing, ended or refused (209), and POST /signin, which carries none, also when the sign-in is
// refused (101). Fails when a route of a signed-in user answers 101 as statusOf alone does (tried: forRoute
// returning its error unchanged: 101 was 401 on the routes with a session).
func TestAnswerTableKeeps401ForTheSession(t *testing.T) {
	codes := []parse.Code{parse.CodeObjectNotFound, parse.CodeInvalidSessionToken, parse.CodeOperationForbidden,
		parse.CodeDuplicateValue, parse.CodeAccountAlreadyLinked, parse.CodeRequestLimitExceeded, parse.CodeInvalidJSON,
		parse.CodeValidationError, parse.CodeScriptFailed, parse.CodeInternalServerError, parse.CodeConnectionFailed, 0}
	for _, rule := range []sessionRule{sessionNone, sessionPresent, sessionConfirmed} {
		for _, code := range codes {
			got := refuse(code, "x").forRoute(route{session: rule}).statusCode()
			want401 := code == parse.CodeInvalidSessionToken || (code == parse.CodeObjectNotFound && rule == sessionNone)
			if (got == http.StatusUnauthorized) != want401 {
				t.Errorf("code %d on a route with session rule %d: status %d", code, rule, got)
			}
		}
	}
}

// A refused action of a signed-in user is a 4xx other than 401 and leaves the session as it was: a link whose
// signature does not match or whose nonce was used, an unlink of an address the user never linked, a data call
// the backend answers 101. No cookie is cleared, and /me still answers with the user. Fails when forRoute is left
// out (tried: the link with a bad signature was 401).
func TestRefusalsOfASignedInUserKeepTheSession(t *testing.T) {
	e := newProxyEnv(t, nil)
	s, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	m, _ := e.getMessage("evm", ethAddr(s))
	in := e.postJSON("/signin", body("evm", ethAddr(s), m, ethSign(t, s, m)), nil)
	tok := sessionOf(in)
	if in.status != http.StatusOK || tok == "" {
		t.Fatalf("sign-in: %d %s", in.status, in.raw)
	}
	used, _ := e.getMessage("evm", ethAddr(other))
	if a := e.postJSON("/link", body("evm", ethAddr(other), used, ethSign(t, other, used)), cookie(tok)); a.status != http.StatusOK {
		t.Fatalf("a link: %d %s", a.status, a.raw)
	}
	for _, c := range []struct {
		name string
		do   func() answer
		code parse.Code
	}{
		{"a link whose signature is another key's", func() answer {
			m, _ := e.getMessage("evm", ethAddr(other))
			return e.postJSON("/link", body("evm", ethAddr(other), m, ethSign(t, s, m)), cookie(tok))
		}, parse.CodeObjectNotFound},
		{"a link with a used nonce", func() answer {
			return e.postJSON("/link", body("evm", ethAddr(other), used, ethSign(t, other, used)), cookie(tok))
		}, parse.CodeObjectNotFound},
		{"an unlink of an address never linked", func() answer {
			e.be.mu.Lock()
			e.be.unlinkErr = &BackendError{Status: http.StatusUnauthorized, Code: int(parse.CodeObjectNotFound), Message: "Address not found"}
			e.be.mu.Unlock()
			return e.postJSON("/unlink", map[string]string{"chain": "evm", "address": "0x" + strings.Repeat("12", 20)}, cookie(tok))
		}, parse.CodeObjectNotFound},
		{"a data query the backend answers 101", func() answer {
			e.data.mu.Lock()
			e.data.err = &parse.Error{Status: http.StatusNotFound, Code: parse.CodeObjectNotFound, Message: "Object not found."}
			e.data.mu.Unlock()
			return e.post("/data/query", tok, map[string]any{"className": "Item", "where": map[string]any{}})
		}, parse.CodeObjectNotFound},
		{"a cloud function that throws", func() answer {
			e.data.mu.Lock()
			e.data.err = &parse.Error{Status: http.StatusBadRequest, Code: parse.CodeScriptFailed, Message: "no"}
			e.data.mu.Unlock()
			return e.post("/data/function", tok, map[string]any{"name": "echo"})
		}, parse.CodeScriptFailed},
	} {
		a := c.do()
		if a.status == http.StatusUnauthorized || a.status < 400 || a.status >= 500 || a.body["code"] != float64(c.code) {
			t.Errorf("%s: %d %s; want a 4xx other than 401 with code %d", c.name, a.status, a.raw, c.code)
		}
		if sc := a.header.Get("Set-Cookie"); sc != "" {
			t.Errorf("%s: the answer sets a cookie: %s", c.name, sc)
		}
		if me := e.do("GET", "/me", "", "", cookie(tok)); me.status != http.StatusOK {
			t.Fatalf("after %s, /me: %d %s", c.name, me.status, me.raw)
		}
	}
	// The session's own end is 401 on the same routes.
	e.postJSON("/signout", nil, cookie(tok))
	if a := e.postJSON("/unlink", map[string]string{"chain": "evm", "address": ethAddr(other)}, cookie(tok)); a.status != http.StatusUnauthorized || a.body["code"] != float64(parse.CodeInvalidSessionToken) {
		t.Fatalf("an unlink with an ended session: %d %s; want 401 code 209", a.status, a.raw)
	}
}
