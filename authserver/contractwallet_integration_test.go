//go:build integration

package authserver

import (
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/signer"
)

// Smart-contract wallets sign in end to end: the Go endpoint verifies an ERC-1271 account (and an undeployed
// ERC-6492 one) on the simulated chain, ClientBackend verifies it again before it asks the backend for a ticket
// marked for a contract account, and parse-server's moralisEth adapter lets that ticket in without ecrecover.
// A non-owner is refused by the endpoint; the same signature sent straight to parse-server with an ordinary ticket
// (or none) is refused by the adapter.
func TestIntegrationSmartWalletSignInThroughTheBackend(t *testing.T) {
	w := walletnet.Start(t)
	_, cfg, _ := stacktest.Client(t)
	if cfg.MasterKey == "" {
		t.Fatal("the local stack has no master key")
	}
	be, err := NewClientBackend(BackendConfig{Client: cfg, Flow: auth.Options{NoAddressObjects: true}, Chain: w.Client})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, func(o *Config) { o.Chain = w.Client })
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	deployed := w.DeployAccount(t, owner.Address())

	msg, _ := e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, ethSign(t, other, msg)), nil); a.status != http.StatusUnauthorized {
		t.Fatalf("non-owner: %d %s", a.status, a.raw)
	}
	msg, _ = e.getMessage("evm", deployed.Hex())
	sig := ethSign(t, owner, msg)
	a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, sig), nil)
	if a.status != http.StatusOK {
		t.Fatalf("ERC-1271 sign-in through parse-server: %d %s", a.status, a.raw)
	}
	if !strings.Contains(a.raw, strings.ToLower(deployed.Hex())) {
		t.Fatalf("the user is not the contract account: %s", a.raw)
	}

	later := w.Counterfactual(t, other.Address())
	msg, _ = e.getMessage("evm", later.Hex())
	wrapped := "0x" + hex.EncodeToString(auth.WrapERC6492Signature(w.Factory, walletnet.CreateAccountCall(other.Address()), mustHex(ethSign(t, other, msg))))
	if a := e.postJSON("/signin", body("evm", later.Hex(), msg, wrapped), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-6492 sign-in through parse-server: %d %s", a.status, a.raw)
	}

	// Straight at parse-server: a contract signature with an ordinary ticket is refused (and the ticket is not
	// spent), as is one with no ticket.
	c, _, _ := stacktest.Client(t)
	m := auth.SignedMessage{Chain: auth.ChainEVM, Address: deployed.Hex(), Message: msg, Signature: sig}
	plain, err := auth.IssueTicket(t.Context(), c, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Ticket = plain
	if _, err := c.Users.LogInWith(t.Context(), "moralisEth", m.AuthData()); err == nil {
		t.Fatal("a contract signature signed in with an ordinary ticket")
	}
	m.Ticket = ""
	if _, err := c.Users.LogInWith(t.Context(), "moralisEth", m.AuthData()); err == nil {
		t.Fatal("a contract signature signed in without a ticket")
	}
}
