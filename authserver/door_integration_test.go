//go:build integration

package authserver

// Issue 32, item 3: the backend's public ticket function as a second door. A phisher gets a victim to sign, through
// moralisAuthRequestMessage, a text mimicking the endpoint's SIWE message for the endpoint's own domain; the ticket
// signs the phisher in at the backend. Before, that session worked at the endpoint (/auth/me 200, /auth/data/query
// 200). Now the endpoint accepts only the sessions it made (ClientBackend's session records), and the function is
// metered per client address.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/google/uuid"
)

func TestAttackPhishingThroughThePublicTicketFunction(t *testing.T) {
	ctx := stacktest.Ctx(t)
	st := dataProxyStack(t)
	c, e, be, dc, env := st.c, st.e, st.be, st.dc, st.env

	victim, _ := signer.GenerateKey()
	addr := ethAddr(victim)
	// The phisher copies the endpoint's message for the victim and has the public function issue a ticket for it.
	mimic, _ := e.getMessage("evm", addr)
	rm, err := auth.RequestMessage(ctx, c, auth.ChainEVM, addr, &auth.Options{Message: mimic})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rm.Message, mimic) {
		t.Fatalf("the public function's message does not start with the mimicked text:\n%s", rm.Message)
	}
	sig, err := victim.SignMessage(ctx, []byte(rm.Message))
	if err != nil {
		t.Fatal(err)
	}
	rm.Signature = fmt.Sprintf("0x%x", sig)
	// The ticket signs the phisher in at the backend (the SDK's direct sign-in, which stays).
	phished, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		InstallationID: uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	u, err := auth.SignIn(ctx, phished, func(context.Context) (auth.SignedMessage, error) { return rm, nil }, nil)
	if err != nil {
		t.Fatalf("the direct sign-in with the public function's ticket: %v", err)
	}
	tok := u.SessionToken()
	stacktest.Me(t, ctx, dc, tok) // the backend accepts the session
	// The endpoint does not: /me, the data proxy and a link, by Bearer and by cookie.
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	cookie := map[string]string{"Cookie": DefaultCookieName + "=" + tok}
	for name, hdr := range map[string]map[string]string{"bearer": bearer, "cookie": cookie} {
		if a := e.do(http.MethodGet, "/me", "", "", hdr); a.status != 401 || a.body["code"] != float64(parse.CodeInvalidSessionToken) {
			t.Errorf("%s: /auth/me with the phished session: %d %s, want 401 code 209", name, a.status, a.raw)
		}
		if a := e.postJSON("/data/query", map[string]any{"className": "DoorProbe", "where": map[string]any{}}, hdr); a.status != 401 {
			t.Errorf("%s: /auth/data/query with the phished session: %d %s, want 401", name, a.status, a.raw)
		}
		other, _ := signer.GenerateKey()
		msg, _ := e.getMessage("evm", ethAddr(other))
		if a := e.postJSON("/link", body("evm", ethAddr(other), msg, ethSign(t, other, msg)), hdr); a.status != 401 {
			t.Errorf("%s: /auth/link with the phished session: %d %s, want 401", name, a.status, a.raw)
		}
	}
	// The victim's own sign-in through the endpoint works, and so does the session it gives.
	msg, _ := e.getMessage("evm", addr)
	a := e.postJSON("/signin", body("evm", addr, msg, ethSign(t, victim, msg)), nil)
	if a.status != 200 {
		t.Fatalf("the victim's sign-in through the endpoint: %d %s", a.status, a.raw)
	}
	own := map[string]string{"Authorization": "Bearer " + sessionOf(a)}
	if a := e.do(http.MethodGet, "/me", "", "", own); a.status != 200 {
		t.Fatalf("/auth/me with the endpoint's session: %d %s", a.status, a.raw)
	}
	if a := e.postJSON("/data/query", map[string]any{"className": "DoorProbe", "where": map[string]any{}}, own); a.status != 200 {
		t.Fatalf("/auth/data/query with the endpoint's session: %d %s", a.status, a.raw)
	}
	// A session made elsewhere and adopted by the endpoint's owner is accepted (AdoptSession).
	if err := be.AdoptSession(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if a := e.do(http.MethodGet, "/me", "", "", bearer); a.status != 200 {
		t.Fatalf("/auth/me with an adopted session: %d %s", a.status, a.raw)
	}
	// Signing out deletes the record: the same token is refused even if the backend still knew it.
	if a := e.postJSON("/signout", map[string]any{}, own); a.status != 200 {
		t.Fatalf("sign-out: %d %s", a.status, a.raw)
	}
	if _, err := be.sessionRecords(ctx, sessionOf(a)); !errors.Is(err, errForeignSession) {
		t.Fatalf("the record of a signed-out session: %v", err)
	}
}

// The public function from one client address: 1,500 unauthenticated calls (16 at a time) leave at most 20 unused
// tickets of that address; the rest are refused with 155. Another address is not affected.
func TestAttackPublicTicketFlood(t *testing.T) {
	// Its own bound: 1,500 calls through parse-server's function pipeline take tens of seconds on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, _, env := stacktest.Client(t)
	from := func(ip string) *client.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
		c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
			InstallationID: uuid.NewString(), HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// A fresh address per run: the tickets of an earlier run stay unexpired for 5 minutes.
	ip := fmt.Sprintf("127.0.%d.%d", 200+time.Now().Unix()%50, 1+time.Now().UnixNano()%250)
	attacker := from(ip)
	var issued, limited atomic.Int64
	var mu sync.Mutex
	var other error
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				err := attacker.Cloud.Call(ctx, auth.RequestMessageFunction, map[string]any{"chain": "evm",
					"address": "0x" + strings.Repeat("ab", 20), "text": strings.Repeat("x", 1000)}, nil)
				var pe *parse.Error
				switch {
				case err == nil:
					issued.Add(1)
				case errors.As(err, &pe) && pe.Code == 155:
					limited.Add(1)
				default:
					mu.Lock()
					if other == nil {
						other = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range 1500 {
		work <- i
	}
	close(work)
	wg.Wait()
	if other != nil {
		t.Fatalf("a call failed otherwise: %v (%d issued, %d refused with 155)", other, issued.Load(), limited.Load())
	}
	if issued.Load() == 0 || issued.Load() > 20 || issued.Load()+limited.Load() != 1500 {
		t.Fatalf("1,500 calls from one address: %d issued, %d refused with 155; want 1 to 20 issued, the rest refused",
			issued.Load(), limited.Load())
	}
	// Another client address still gets its message and signs in directly.
	s, _ := signer.GenerateKey()
	if _, err := auth.SignInEthereum(ctx, from("127.0.199.1"), s, nil); err != nil {
		t.Fatalf("another address's direct sign-in after the flood: %v", err)
	}
}
