//go:build integration

package authserver

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/signer"
)

// serverInfo is moralisGoServerInfo's answer to the master key (the server package's capability report).
type serverInfo struct {
	Name     string            `json:"name"`
	Features []string          `json:"features"`
	Off      map[string]string `json:"off"`
}

// signInThrice signs wallet s in through an endpoint over backend (a ClientBackend of cfg) three times: new, then
// returning twice; each session must be good at /me. It logs the backend requests of each.
func signInThrice(t *testing.T, cfg client.Config) {
	t.Helper()
	ct := &countingTransport{}
	cfg.HTTPClient = &http.Client{Transport: ct}
	be, err := NewClientBackend(BackendConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, func(o *Config) {
		o.RateLimit, o.SignInRateLimit, o.LiveRateLimit, o.NoncesPerClient = RateLimit{}, RateLimit{}, RateLimit{}, 0
	})
	for _, chain := range []string{"evm", "solana"} {
		var addr string
		var sign func(msg string) string
		if chain == "evm" {
			s := mustEthKey(t)
			addr, sign = ethAddr(s), func(msg string) string { return ethSign(t, s, msg) }
		} else {
			s, err := signer.GenerateEd25519Key()
			if err != nil {
				t.Fatal(err)
			}
			addr, sign = s.PublicKey(), func(msg string) string { return solSign(t, s, msg) }
		}
		for _, step := range []string{"a new wallet", "the wallet returning", "the wallet returning again"} {
			msg, _ := e.getMessage(chain, addr)
			ct.take()
			a := e.postJSON("/signin", body(chain, addr, msg, sign(msg)), nil)
			got := ct.take()
			if a.status != http.StatusOK {
				t.Fatalf("%s, %s: %d %s (backend requests: %s)", chain, step, a.status, a.raw, strings.Join(got, ", "))
			}
			t.Logf("%s, %s: %d backend requests: %s", chain, step, len(got), strings.Join(got, ", "))
			if r := e.me(sessionOf(a)); r.status != http.StatusOK {
				t.Fatalf("%s, %s: /me with the new session: %d %s", chain, step, r.status, r.raw)
			}
		}
	}
}

// Wallets sign in through the endpoint, new and returning, Ethereum and Solana, on whatever parse-server line the
// stack's environment names (the oldest-line run of make test points it at the oldest supported one).
func TestSignInNewAndReturningWallets(t *testing.T) {
	_, cfg, env := stacktest.Client(t)
	cfg.MasterKey = env.MasterKey
	signInThrice(t, cfg)
}

// A parse-server upgrade that changes the private modules the server package uses must not stop wallets signing in:
// an extra parse-server over the stack's database, with lib/RestWrite, lib/triggers, lib/Auth and lib/Config
// broken on purpose (DEVSTACK_BREAK_PRIVATE), reports the one-call sign-in off with the module that broke it, and
// new wallets and then the same wallets returning sign in through it (the returning ones by parse-server's login,
// the endpoint's tickets claimed through the public API), each session good at /me.
func TestSignInWithBrokenPrivateModules(t *testing.T) {
	x := stacktest.StartExtra(t, "broken-private", stacktest.ExtraOptions{BreakPrivate: []string{"RestWrite", "triggers", "Auth", "Config"}})
	_, cfg, env := stacktest.Client(t)
	cfg.ServerURL = x.ServerURL
	cfg.MasterKey = env.MasterKey

	var info struct {
		Result serverInfo `json:"result"`
	}
	master := stacktest.Master(t, x.Env)
	if err := master.Request(context.Background(), http.MethodPost, "functions/moralisGoServerInfo", map[string]any{}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Result.Name != "moralis-go-server" || !strings.Contains(info.Result.Off["signIn"], "broken on purpose") {
		t.Fatalf("moralisGoServerInfo: %+v; want signIn off, broken on purpose", info.Result)
	}
	for _, f := range info.Result.Features {
		if f == "signIn" {
			t.Fatalf("signIn listed as on: %v", info.Result.Features)
		}
	}

	signInThrice(t, cfg)
}

// raceEndpointTicket submits one login with a fresh endpoint ticket n times at once, over servers (round robin), and
// returns how many signed in; every other answer must be the adapter's "used" refusal.
func raceEndpointTicket(t *testing.T, s *atkStack, be *ClientBackend, servers []int, n int) int {
	t.Helper()
	w, _ := signer.GenerateKey()
	m := auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(w), Message: "Moralis Authentication\n\nrace " + ethAddr(w)}
	m.Signature = ethSign(t, w, m.Message)
	ticket, err := be.endpointTicket(m, false, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	authData := map[string]any{"id": ethAddr(w), "signature": m.Signature, "data": m.Message, "ticket": ticket}
	answers := make([]parseAnswer, n)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = s.logIn(t, servers[i%len(servers)], auth.ProviderEth, authData)
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
			t.Fatalf("submission %d: %d %s", i, a.status, a.raw)
		}
	}
	return wins
}

// One endpoint ticket submitted 16 times at once over both of the stack's parse-servers signs in exactly once, in
// every round: the adapter claims the ticket's id with one insert keyed by it (the database controller). With that
// private module broken (an extra instance: claim rows through the public API) never more than once, and a ticket
// nobody races signs in.
func TestEndpointTicketConcurrentConsumers(t *testing.T) {
	s := newAtkStack(t)
	be, err := NewClientBackend(BackendConfig{Client: s.cfg, Flow: auth.Options{NoAddressObjects: true}})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		if wins := raceEndpointTicket(t, s, be, []int{0, 1}, 16); wins != 1 {
			t.Fatalf("round %d: %d of 16 concurrent submissions signed in, want exactly 1", round, wins)
		}
	}
	x := stacktest.StartExtra(t, "broken-config", stacktest.ExtraOptions{BreakPrivate: []string{"Config"}, Env: map[string]string{"DEVSTACK_LIVEQUERY": "0"}})
	s.servers = append(s.servers, x.ServerURL)
	for round := 0; round < 3; round++ {
		if wins := raceEndpointTicket(t, s, be, []int{2}, 16); wins > 1 {
			t.Fatalf("claim rows, round %d: %d of 16 concurrent submissions signed in, want at most 1", round, wins)
		}
	}
	if wins := raceEndpointTicket(t, s, be, []int{2}, 1); wins != 1 {
		t.Fatalf("claim rows: a ticket nobody races: %d sign-ins, want 1", wins)
	}
}
