package auth

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"

	"github.com/c13f5054/moralis-go/client"
)

// Tickets are minted with the master key only; authData carries one only when it is set.
func TestIssueTicketNeedsMasterKeyAndAuthData(t *testing.T) {
	c, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "app", JavaScriptKey: "js"})
	if err != nil {
		t.Fatal(err)
	}
	m := SignedMessage{Chain: ChainEVM, Address: katEthAddr, Message: katEthMsg}
	for _, cl := range []*client.Client{nil, c} {
		if _, err := IssueTicket(context.Background(), cl, m, nil); err == nil {
			t.Fatal("a ticket without the master key")
		}
	}
	if _, ok := m.AuthData()["ticket"]; ok {
		t.Fatal("empty ticket sent")
	}
	m.Ticket = "T"
	if got := m.AuthData()["ticket"]; got != "T" {
		t.Fatalf("ticket %v", got)
	}
	mc, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "app", MasterKey: "mk", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := IssueTicket(context.Background(), mc, SignedMessage{Chain: ChainSolana, Address: "11111111111111111111111111111111", Message: "m"}, nil); err == nil {
		t.Fatal("a ticket for a small-order key")
	}
}

// With TicketOptions.Chain, a signature that recovers to its address gets an ordinary ticket without any chain
// call; one that does not gets a contract-account ticket only when the chain accepts it, and nothing (no backend
// call) when the chain refuses it or is down.
func TestIssueTicketContractOnlyAfterTheChainAgrees(t *testing.T) {
	f := &fakeParse{t: t, answers: map[string][]fakeAnswer{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	mc, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app", MasterKey: "mk", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eoa := SignedMessage{Chain: ChainEVM, Address: katEthAddr, Message: katEthMsg, Signature: katEthSig}
	contract := SignedMessage{Chain: ChainEVM, Address: "0x000000000000000000000000000000000000dEaD", Message: katEthMsg,
		Signature: katEthSig}
	answer := func(verdict byte) *countingCaller {
		return &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return abiWord(uint64(verdict)), nil }}
	}
	saved := `{"objectId":"Tk01234567","createdAt":"2026-01-01T00:00:00.000Z"}`

	valid := answer(validatorValid)
	f.on("POST classes/"+DefaultTicketClass, 201, saved)
	if tk, err := IssueTicket(ctx, mc, eoa, &TicketOptions{Chain: valid}); err != nil || !strings.HasPrefix(tk, "Tk01234567") {
		t.Fatalf("EOA: %q %v", tk, err)
	}
	if valid.n.Load() != 0 || f.calls[len(f.calls)-1].body["contract"] != nil {
		t.Fatalf("EOA: %d chain calls, ticket %v", valid.n.Load(), f.calls[len(f.calls)-1].body)
	}

	f.on("POST classes/"+DefaultTicketClass, 201, saved)
	if _, err := IssueTicket(ctx, mc, contract, &TicketOptions{Chain: valid}); err != nil {
		t.Fatalf("contract account: %v", err)
	}
	if valid.n.Load() != 1 || f.calls[len(f.calls)-1].body["contract"] != true {
		t.Fatalf("contract account: %d chain calls, ticket %v", valid.n.Load(), f.calls[len(f.calls)-1].body)
	}

	before := len(f.routes())
	if _, err := IssueTicket(ctx, mc, contract, &TicketOptions{Chain: answer(validatorRefused)}); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("refused by the account: %v", err)
	}
	down := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return nil, errors.New("connection refused") }}
	if _, err := IssueTicket(ctx, mc, contract, &TicketOptions{Chain: down}); !errors.Is(err, ErrChainUnavailable) {
		t.Fatalf("chain down: %v", err)
	}
	if len(f.routes()) != before {
		t.Fatalf("a refused signature reached the backend: %v", f.routes()[before:])
	}
	// Without a chain the ticket is an ordinary one, whatever the signature: the backend checks it.
	f.on("POST classes/"+DefaultTicketClass, 201, saved)
	if _, err := IssueTicket(ctx, mc, contract, nil); err != nil || f.calls[len(f.calls)-1].body["contract"] != nil {
		t.Fatalf("no chain: %v %v", err, f.calls[len(f.calls)-1].body)
	}
}
