package auth

import (
	"context"
	"testing"

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
		if _, err := IssueTicket(context.Background(), cl, m, 0); err == nil {
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
	if _, err := IssueTicket(context.Background(), mc, SignedMessage{Chain: ChainSolana, Address: "11111111111111111111111111111111", Message: "m"}, 0); err == nil {
		t.Fatal("a ticket for a small-order key")
	}
}
