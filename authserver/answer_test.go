package authserver

import (
	"io"

	"testing"

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
