//go:build integration

package authserver

// Attacks on wallet sign-in, performed against the real stack: the Go endpoint (Handler over ClientBackend),
// both parse-server instances with this project's moralisEth / moralisSol adapters, and PostgreSQL. Each test
// asserts the refusal, and a control shows the same path still signs a real wallet in.
//
//   - keyless Solana sign-in with the 8 small-order public keys (and non-canonical R, S >= L);
//   - replay of a captured authData straight at parse-server (no ticket, a used ticket, an expired ticket,
//     a ticket for another address / chain / text, a forged ticket, 16 concurrent submissions);
//   - SIWE or Moralis-style text the endpoint never issued (statement, resources, expiration changed, nonce
//     kept), and a nonce moved to another address or chain.
//
// Run with the stack up (`make up`): go test -run WalletAttack -v ./authserver/

import (
	"crypto/ed25519"
	"encoding/hex"

	"fmt"

	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"

	"github.com/c13f5054/moralis-go/internal/ed25519vec"
	"github.com/c13f5054/moralis-go/internal/stacktest"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/mr-tron/base58"
)

const (
	errTicketUsed    = "ticket unknown, used or expired"
	errSolKeyCannot  = "moralisSol: public key cannot sign (not a canonical point of large order)"
	errSolMismatch   = "moralisSol: signature does not match address"
	errNotIssuedText = "Message does not match the one issued"
)

// ---- 1. Keyless Solana sign-in ----

// The 8 small-order public keys, with "signatures" that crypto/ed25519 (and OpenSSL) accept without any private
// key, are refused by the endpoint (before any nonce or backend work) and by both parse-server instances even
// with a valid ticket issued for that key and text, which the refusal leaves unconsumed.
func TestWalletAttackKeylessSolanaSmallOrderKeys(t *testing.T) {
	s := newAtkStack(t)
	e := s.endpoint(t, nil)
	realSol, _ := signer.GenerateEd25519Key()
	for i, h := range ed25519vec.SmallOrderPointsHex {
		pub := ed25519vec.Hex(t, h)
		addr := base58.Encode(pub)
		// A message (with a real nonce of the endpoint, issued for a real key) that the forgery works for.
		var msg string
		var sig []byte
		for try := 0; try < 40 && sig == nil; try++ {
			msg, _ = e.getMessage("solana", realSol.PublicKey())
			sig = ed25519vec.ForgeSmallOrder(t, pub, []byte(msg))
		}
		if sig == nil {
			t.Fatalf("key %s: no forgery found", h)
		}
		if !ed25519.Verify(pub, []byte(msg), sig) {
			t.Fatal("the forgery is not accepted by crypto/ed25519: the attack is not shown")
		}
		// Through the endpoint: the address itself is refused.
		if a := e.do("GET", "/message?chain=solana&address="+addr, "", "", nil); a.status != 400 || a.body["error"] != "Invalid address" {
			t.Fatalf("GET /message for %s: %d %s", addr, a.status, a.raw)
		}
		before := e.cb.n.Load()
		a := e.postJSON("/signin", body("solana", addr, msg, base58.Encode(sig)), nil)
		if a.status != 400 || a.body["error"] != "Invalid address" {
			t.Fatalf("endpoint sign-in with small-order key %s: %d %s", addr, a.status, a.raw)
		}
		if e.cb.n.Load() != before {
			t.Fatal("a keyless sign-in reached the backend")
		}
		// The backend's own message function will not issue a ticket for it.
		if a := s.post(t, i, "functions/"+auth.RequestMessageFunction, map[string]any{"chain": "solana", "address": addr}); a.status != 400 || a.err() != "Invalid address" {
			t.Fatalf("%s for %s: %d %s", auth.RequestMessageFunction, addr, a.status, a.raw)
		}
		// Straight at parse-server, with a ticket the master key issued for exactly this key and text: only the
		// key check stands in the way. Both instances refuse, and the ticket is not consumed.
		forgedTicket := issueRawTicket(t, s, auth.ChainSolana, addr, msg)
		for inst := range s.servers {
			wantRefused(t, fmt.Sprintf("instance %d, key %s", inst+1, h), s.logIn(t, inst, auth.ProviderSol,
				map[string]any{"id": addr, "signature": base58.Encode(sig), "data": msg, "ticket": forgedTicket}), errSolKeyCannot)
		}
		if !s.ticketExists(t, forgedTicket) {
			t.Fatal("the refused forgery consumed the ticket: the signature was not checked first")
		}
	}
	// Control: a real key signs in through both doors.
	msg, _ := e.getMessage("solana", realSol.PublicKey())
	if a := e.postJSON("/signin", body("solana", realSol.PublicKey(), msg, solSign(t, realSol, msg)), nil); a.status != 200 {
		t.Fatalf("real key through the endpoint: %d %s", a.status, a.raw)
	}
	m2, t2 := s.requestMessage(t, 1, auth.ChainSolana, realSol.PublicKey())
	if a := s.logIn(t, 1, auth.ProviderSol, map[string]any{"id": realSol.PublicKey(), "signature": solSign(t, realSol, m2), "data": m2, "ticket": t2}); !a.ok() {
		t.Fatalf("real key at parse-server: %d %s", a.status, a.raw)
	}
}

// A real key with a malleated signature: small-order R, S + L (its twin), S = L. The endpoint answers "Invalid
// signature"; both parse-server instances refuse it with a valid ticket in hand.
func TestWalletAttackSolanaNonCanonicalSignature(t *testing.T) {
	s := newAtkStack(t)
	e := s.endpoint(t, nil)
	sol, _ := signer.GenerateEd25519Key()
	msg, ticket := s.requestMessage(t, 0, auth.ChainSolana, sol.PublicKey())
	good, _ := sol.SignMessage(t.Context(), []byte(msg))
	sBig := new(big.Int).SetBytes(ed25519vec.Reverse(good[32:]))
	variants := map[string][]byte{
		"S+L":           append(append([]byte(nil), good[:32]...), ed25519vec.LE32(new(big.Int).Add(sBig, ed25519vec.L))...),
		"S=L":           append(append([]byte(nil), good[:32]...), ed25519vec.LE32(ed25519vec.L)...),
		"small-order R": append(ed25519vec.Hex(t, ed25519vec.SmallOrderPointsHex[4]), good[32:]...),
	}
	for name, sig := range variants {
		m, _ := e.getMessage("solana", sol.PublicKey())
		bad := append([]byte(nil), sig...)
		if a := e.postJSON("/signin", body("solana", sol.PublicKey(), m, base58.Encode(bad)), nil); a.status != 400 || a.body["error"] != "Invalid signature" {
			t.Fatalf("endpoint, %s: %d %s", name, a.status, a.raw)
		}
		for inst := range s.servers {
			wantRefused(t, fmt.Sprintf("instance %d, %s", inst+1, name), s.logIn(t, inst, auth.ProviderSol,
				map[string]any{"id": sol.PublicKey(), "signature": base58.Encode(bad), "data": msg, "ticket": ticket}), errSolMismatch)
		}
	}
	// Control: the genuine signature with the same ticket.
	if a := s.logIn(t, 1, auth.ProviderSol, map[string]any{"id": sol.PublicKey(), "signature": base58.Encode(good), "data": msg, "ticket": ticket}); !a.ok() {
		t.Fatalf("genuine signature: %d %s", a.status, a.raw)
	}
}

// ---- 2. Replay at the backend ----

// A signed message captured once (the old authData {id, signature, data}, or one with its ticket) does not log in
// again at either parse-server instance; nor does a browser's signed request replayed past the endpoint; what the
// users table keeps of a wallet login is its address only.
func TestWalletAttackReplayCapturedAuthDataAtBackend(t *testing.T) {
	s := newAtkStack(t)
	ctx := stacktest.Ctx(t)
	w, _ := signer.GenerateKey()
	msg, ticket := s.requestMessage(t, 0, auth.ChainEVM, ethAddr(w))
	captured := map[string]any{"id": ethAddr(w), "signature": ethSign(t, w, msg), "data": msg, "ticket": ticket}
	first := s.logIn(t, 0, auth.ProviderEth, captured)
	if !first.ok() {
		t.Fatalf("first sign-in: %d %s", first.status, first.raw)
	}
	uid, _ := first.body["objectId"].(string)
	for inst := range s.servers {
		wantRefused(t, fmt.Sprintf("replay on instance %d", inst+1), s.logIn(t, inst, auth.ProviderEth, captured), "moralisEth: "+errTicketUsed)
		noTicket := map[string]any{"id": captured["id"], "signature": captured["signature"], "data": captured["data"]}
		wantRefused(t, fmt.Sprintf("without a ticket on instance %d", inst+1), s.logIn(t, inst, auth.ProviderEth, noTicket),
			"moralisEth: authData requires a ticket issued by this server")
	}
	// The users table holds the address only: no signature, text or ticket to capture.
	stored, err := s.master.Objects.Get(ctx, client.UserClass, uid)
	if err != nil {
		t.Fatal(err)
	}
	ad, _ := stored.Get("authData").(map[string]any)[auth.ProviderEth].(map[string]any)
	if len(ad) != 1 || ad["id"] != ethAddr(w) {
		t.Fatalf("stored authData %v", stored.Get("authData"))
	}

	// The endpoint door: a browser's signed request (all an eavesdropper of it has) replayed straight at
	// parse-server, with no ticket or a made-up one, is refused; the endpoint itself refuses it too.
	e := s.endpoint(t, nil)
	m2, _ := e.getMessage("evm", ethAddr(w))
	sig2 := ethSign(t, w, m2)
	if a := e.postJSON("/signin", body("evm", ethAddr(w), m2, sig2), nil); a.status != 200 {
		t.Fatalf("endpoint sign-in: %d %s", a.status, a.raw)
	}
	for inst := range s.servers {
		wantRefused(t, "browser request past the endpoint", s.logIn(t, inst, auth.ProviderEth,
			map[string]any{"id": ethAddr(w), "signature": sig2, "data": m2}), "moralisEth: authData requires a ticket issued by this server")
		wantRefused(t, "browser request with a made-up ticket", s.logIn(t, inst, auth.ProviderEth,
			map[string]any{"id": ethAddr(w), "signature": sig2, "data": m2, "ticket": ticket}), "moralisEth: "+errTicketUsed)
	}
	if a := e.postJSON("/signin", body("evm", ethAddr(w), m2, sig2), nil); a.status != 401 || a.body["error"] != "Nonce unknown, used or expired" {
		t.Fatalf("replay at the endpoint: %d %s", a.status, a.raw)
	}
}

// A ticket is bound to its chain, address and exact text, expires, and cannot be made by the public: each misuse
// is refused by the backend and leaves a good ticket good.
func TestWalletAttackTicketBindingExpiryForgery(t *testing.T) {
	s := newAtkStack(t)
	ctx := stacktest.Ctx(t)
	a, _ := signer.GenerateKey()
	b, _ := signer.GenerateKey()
	sol, _ := signer.GenerateEd25519Key()
	msg, ticket := s.requestMessage(t, 0, auth.ChainEVM, ethAddr(a))
	used := "moralisEth: " + errTicketUsed
	// Another address signs the same text with a's ticket.
	wantRefused(t, "ticket of another address", s.logIn(t, 1, auth.ProviderEth,
		map[string]any{"id": ethAddr(b), "signature": ethSign(t, b, msg), "data": msg, "ticket": ticket}), used)
	// a signs a text the backend did not issue, keeping the ticket (and the secret in it).
	edited := strings.Replace(msg, "Moralis Authentication", "Moralis Authentication\nResources:\n- https://evil.example/", 1)
	wantRefused(t, "edited text", s.logIn(t, 0, auth.ProviderEth,
		map[string]any{"id": ethAddr(a), "signature": ethSign(t, a, edited), "data": edited, "ticket": ticket}), used)
	// The ticket on the other chain's provider, for a Solana key that signs the same text.
	wantRefused(t, "ticket of another chain", s.logIn(t, 1, auth.ProviderSol,
		map[string]any{"id": sol.PublicKey(), "signature": solSign(t, sol, msg), "data": msg, "ticket": ticket}), "moralisSol: "+errTicketUsed)
	if !s.ticketExists(t, ticket) {
		t.Fatal("a refused misuse consumed the ticket")
	}
	// The public cannot mint a ticket, not even with a chosen object id.
	for _, forged := range []map[string]any{
		{"secret": "forgedforgedforgedforg", "chain": "evm", "address": ethAddr(b), "message": msg,
			"expiresAt": map[string]any{"__type": "Date", "iso": "2099-01-01T00:00:00.000Z"}},
		{"objectId": "forgedId01", "secret": "forgedforgedforgedforg"},
	} {
		if r := s.post(t, 0, "classes/"+auth.DefaultTicketClass, forged); r.status < 400 || r.code() != 119 {
			t.Fatalf("public ticket creation: %d %s", r.status, r.raw)
		}
	}
	// Expiry: a ticket issued for 1 s is refused after 1.5 s.
	short, err := auth.IssueTicket(ctx, s.master, auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(b), Message: "Moralis Authentication\n\nId: x:short"}, &auth.TicketOptions{TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	wantRefused(t, "expired ticket", s.logIn(t, 0, auth.ProviderEth, map[string]any{"id": ethAddr(b),
		"signature": ethSign(t, b, "Moralis Authentication\n\nId: x:short"), "data": "Moralis Authentication\n\nId: x:short", "ticket": short}), used)
	// Control: the good ticket still signs a in.
	if r := s.logIn(t, 1, auth.ProviderEth, map[string]any{"id": ethAddr(a), "signature": ethSign(t, a, msg), "data": msg, "ticket": ticket}); !r.ok() {
		t.Fatalf("good ticket after the refusals: %d %s", r.status, r.raw)
	}
}

// One signed authData with its ticket, submitted 16 times at once over both parse-server instances: the database
// lets exactly one in.
func TestWalletAttackConcurrentReplayOneWinner(t *testing.T) {
	s := newAtkStack(t)
	for round := 0; round < 3; round++ {
		w, _ := signer.GenerateKey()
		msg, ticket := s.requestMessage(t, round, auth.ChainEVM, ethAddr(w))
		authData := map[string]any{"id": ethAddr(w), "signature": ethSign(t, w, msg), "data": msg, "ticket": ticket}
		var wg sync.WaitGroup
		answers := make([]parseAnswer, 16)
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = s.logIn(t, i, auth.ProviderEth, authData)
			}()
		}
		wg.Wait()
		wins := 0
		for i, a := range answers {
			switch {
			case a.ok():
				wins++
			case a.status == 404 && a.err() == "moralisEth: "+errTicketUsed:
			default:
				t.Fatalf("round %d, submission %d: %d %s", round, i, a.status, a.raw)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d of 16 concurrent submissions signed in, want exactly 1", round, wins)
		}
	}
}

// ---- 5. Text the endpoint never issued; a nonce moved to another address or chain ----

// SIWE text changed by the signer (statement, resources, a later expiration), nonce kept: every field check
// passes, the signature is good, and the endpoint refuses it because it is not the text it issued. The issued
// text still signs in afterwards (the refusals did not burn the nonce).
func TestWalletAttackUnissuedSIWEText(t *testing.T) {
	s := newAtkStack(t)
	e := s.endpoint(t, nil)
	w, _ := signer.GenerateKey()
	issued, _ := e.getMessage("evm", ethAddr(w))
	base, err := auth.ParseSIWE(issued)
	if err != nil {
		t.Fatal(err)
	}
	edits := map[string]func(m *auth.SIWEMessage){
		"statement":  func(m *auth.SIWEMessage) { m.Statement = "I approve the transfer of all my tokens" },
		"resources":  func(m *auth.SIWEMessage) { m.Resources = []string{"https://evil.example/grant"} },
		"expiration": func(m *auth.SIWEMessage) { m.ExpirationTime = m.ExpirationTime.Add(24 * time.Hour) },
	}
	for name, edit := range edits {
		m := *base
		m.Resources = append([]string(nil), base.Resources...)
		edit(&m)
		text := m.String()
		if text == issued {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		before := e.cb.n.Load()
		a := e.postJSON("/signin", body("evm", ethAddr(w), text, ethSign(t, w, text)), nil)
		if a.status != 401 || a.body["error"] != errNotIssuedText {
			t.Fatalf("edited %s: %d %s; want 401 %q", name, a.status, a.raw, errNotIssuedText)
		}
		if e.cb.n.Load() != before {
			t.Fatalf("edited %s reached the backend", name)
		}
	}
	if a := e.postJSON("/signin", body("evm", ethAddr(w), issued, ethSign(t, w, issued)), nil); a.status != 200 {
		t.Fatalf("issued text after the refusals: %d %s", a.status, a.raw)
	}
}

// A nonce issued for one address is refused for another (SIWE and Solana), and a nonce issued for Solana is
// refused for an EVM sign-in over the same Moralis-style text. Each still works for what it was issued for.
func TestWalletAttackNonceMovedToAnotherAddressOrChain(t *testing.T) {
	s := newAtkStack(t)
	e := s.endpoint(t, nil)
	victim, _ := signer.GenerateKey()
	attacker, _ := signer.GenerateKey()
	issued, _ := e.getMessage("evm", ethAddr(victim))
	m, err := auth.ParseSIWE(issued)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := auth.ChecksumEthAddress(ethAddr(attacker))
	m.Address = addr
	moved := m.String()
	if a := e.postJSON("/signin", body("evm", ethAddr(attacker), moved, ethSign(t, attacker, moved)), nil); a.status != 401 || a.body["error"] != errNotIssuedText {
		t.Fatalf("SIWE nonce moved to another address: %d %s", a.status, a.raw)
	}
	if a := e.postJSON("/signin", body("evm", ethAddr(victim), issued, ethSign(t, victim, issued)), nil); a.status != 200 {
		t.Fatalf("issued SIWE text: %d %s", a.status, a.raw)
	}

	solA, _ := signer.GenerateEd25519Key()
	solB, _ := signer.GenerateEd25519Key()
	text, _ := e.getMessage("solana", solA.PublicKey())
	if a := e.postJSON("/signin", body("solana", solB.PublicKey(), text, solSign(t, solB, text)), nil); a.status != 401 || a.body["error"] != errNotIssuedText {
		t.Fatalf("Solana nonce moved to another key: %d %s", a.status, a.raw)
	}
	if a := e.postJSON("/signin", body("solana", solA.PublicKey(), text, solSign(t, solA, text)), nil); a.status != 200 {
		t.Fatalf("issued Solana text: %d %s", a.status, a.raw)
	}

	// Moralis-style EVM messages have the same form as Solana ones: a Solana nonce must not serve an EVM sign-in.
	em := s.endpoint(t, func(o *Config) { o.EVMMessageStyle = StyleMoralis })
	solText, _ := em.getMessage("solana", solA.PublicKey())
	if a := em.postJSON("/signin", body("evm", ethAddr(attacker), solText, ethSign(t, attacker, solText)), nil); a.status != 401 || a.body["error"] != errNotIssuedText {
		t.Fatalf("Solana nonce on the EVM chain: %d %s", a.status, a.raw)
	}
	evmText, _ := em.getMessage("evm", ethAddr(attacker))
	if a := em.postJSON("/signin", body("evm", ethAddr(attacker), evmText, ethSign(t, attacker, evmText)), nil); a.status != 200 {
		t.Fatalf("issued Moralis-style EVM text: %d %s", a.status, a.raw)
	}
}

// The SDK helpers and the endpoint's link keep working on the stack (tickets flow through both).
func TestWalletAttackControlFlowsStillWork(t *testing.T) {
	s := newAtkStack(t)
	ctx := stacktest.Ctx(t)
	w, _ := signer.GenerateKey()
	u, err := auth.SignInEthereum(ctx, s.c, w, nil)
	if err != nil {
		t.Fatalf("auth.SignInEthereum: %v", err)
	}
	if err := auth.LinkSolana(ctx, s.c, u, mustSolSigner(t), &auth.Options{NoAddressObjects: true}); err != nil {
		t.Fatalf("auth.LinkSolana: %v", err)
	}
	if _, err := auth.SignInEthereum(ctx, s.c, w, &auth.Options{Message: "Welcome back"}); err != nil {
		t.Fatalf("second auth.SignInEthereum: %v", err)
	}
}

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
