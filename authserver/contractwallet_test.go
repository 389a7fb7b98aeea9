package authserver

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"
	"github.com/c13f5054/moralis-go/signer"
)

// TestHandlerSmartWalletSignIn: through the endpoint, a deployed ERC-1271 account and a counterfactual ERC-6492
// one sign in with their owner's signature when Config.Chain is set; a non-owner is refused with 401
// before the backend; without Chain the account is refused as today; a chain that is down answers 503.
func TestHandlerSmartWalletSignIn(t *testing.T) {
	w := walletnet.Start(t)
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	deployed := w.DeployAccount(t, owner.Address())
	later := w.Counterfactual(t, other.Address())

	e := newTestEnv(t, func(o *Config) { o.Chain = w.Client })
	msg, _ := e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, other, msg)), nil); a.status != http.StatusUnauthorized ||
		a.body["error"] != "Signature does not match address" {
		t.Fatalf("non-owner: %d %v", a.status, a.body)
	}
	if e.cb.n.Load() != 0 {
		t.Fatal("backend called for a refused signature")
	}
	msg, _ = e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, owner, msg)), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-1271 sign-in: %d %v", a.status, a.body)
	}
	msg, _ = e.getMessage("evm", later.Hex())
	sig := "0x" + hex.EncodeToString(auth.WrapERC6492Signature(w.Factory, walletnet.CreateAccountCall(other.Address()), mustHex(ethSign(t, other, msg))))
	if a := e.postJSON("/signin", body("evm", later.Hex(), msg, sig), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-6492 sign-in: %d %v", a.status, a.body)
	}
	if got := len(e.be.signed); got != 2 || e.be.signed[0].Address != strings.ToLower(deployed.Hex()) ||
		e.be.signed[1].Address != strings.ToLower(later.Hex()) {
		t.Fatalf("backend saw %+v", e.be.signed)
	}

	plain := newTestEnv(t, nil)
	msg, _ = plain.getMessage("evm", deployed.Hex())
	if a := plain.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, owner, msg)), nil); a.status != http.StatusUnauthorized {
		t.Fatalf("no Chain: %d %v", a.status, a.body)
	}

	// A chain that is down answers 503 and spends no nonce: once it is back, the same signed message signs in.
	var up atomic.Bool
	flaky := &countingCaller{fn: func(m ethereum.CallMsg) ([]byte, error) {
		if !up.Load() {
			return nil, errors.New("dial tcp: connection refused")
		}
		return w.Client.CallContract(context.Background(), m, nil)
	}}
	down := newTestEnv(t, func(o *Config) { o.Chain = flaky })
	msg, _ = down.getMessage("evm", deployed.Hex())
	signed := body("evm", deployed.Hex(), msg, ethSign(t, owner, msg))
	if a := down.postJSON("/signin", signed, nil); a.status != http.StatusServiceUnavailable || a.body["error"] != "Chain unavailable" {
		t.Fatalf("chain down: %d %v", a.status, a.body)
	}
	if down.cb.n.Load() != 0 {
		t.Fatal("backend called while the chain was down")
	}
	up.Store(true)
	if a := down.postJSON("/signin", signed, nil); a.status != http.StatusOK {
		t.Fatalf("chain back: %d %v", a.status, a.body)
	}
}
