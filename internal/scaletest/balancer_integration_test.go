//go:build integration

package scaletest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/signer"
)

// Attacks through the stack's real HAProxy (internal/devstack/haproxy.cfg, the configuration DEPLOY.md gives) on
// the two endpoint instances at their defaults: from one address and from a few dozen, each holding what it can.
// Each time a fresh user, from an address of its own, is served: signed in (200) and recognised (/auth/me 200).
// The outcome is asserted, never a duration.

// attackAddrs is how many addresses the "few dozen" attacks come from.
const attackAddrs = 36

// perAddrConns is the balancer's cap of open connections per client address (haproxy.cfg's stick table), the
// endpoint's DefaultMaxConnsPerClient.
const perAddrConns = authserver.DefaultMaxConnsPerClient

// attacker holds connections to the endpoints' balancer from its addresses until the test ends, dialling again
// whenever one is closed (by the balancer's cap, its request timeout or an instance), as a determined client would.
type attacker struct {
	held    atomic.Int64 // connections open now
	dials   atomic.Int64
	refused atomic.Int64 // closed before any answer
	answers sync.Map     // status line -> *atomic.Int64
	wg      sync.WaitGroup
	stop    context.CancelFunc
}

// attack starts perAddr connections from each address in ips to the balancer at lb, each sending prefix and then
// holding the connection (sending nothing more). It returns once every connection was dialled at least once.
func attack(tb testing.TB, lb string, ips []string, perAddr int, prefix string) *attacker {
	tb.Helper()
	u, err := url.Parse(lb)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &attacker{stop: cancel}
	var first sync.WaitGroup
	for _, ip := range ips {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
		for range perAddr {
			a.wg.Add(1)
			first.Add(1)
			go func() {
				defer a.wg.Done()
				once := sync.OnceFunc(first.Done)
				defer once()
				for ctx.Err() == nil {
					c, err := d.DialContext(ctx, "tcp", u.Host)
					a.dials.Add(1)
					once()
					if err != nil {
						sleepCtx(ctx, 100*time.Millisecond)
						continue
					}
					a.hold(ctx, c, prefix)
				}
			}()
		}
	}
	first.Wait()
	tb.Cleanup(a.end)
	return a
}

// hold sends prefix on c and waits until the balancer closes it or the attack ends, noting how it ended.
func (a *attacker) hold(ctx context.Context, c net.Conn, prefix string) {
	a.held.Add(1)
	defer a.held.Add(-1)
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	defer c.Close()
	if prefix != "" {
		if _, err := io.WriteString(c, prefix); err != nil {
			a.refused.Add(1)
			sleepCtx(ctx, 100*time.Millisecond)
			return
		}
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	switch {
	case ctx.Err() != nil:
	case line == "" && err != nil:
		a.refused.Add(1)
		sleepCtx(ctx, 100*time.Millisecond) // refused at once: a pause before the next try
	default:
		n, _ := a.answers.LoadOrStore(strings.TrimSpace(line), new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
}

// end stops the attack and waits for its connections to close.
func (a *attacker) end() {
	a.stop()
	a.wg.Wait()
}

// String sums up the attack for the test log.
func (a *attacker) String() string {
	var ans []string
	a.answers.Range(func(k, v any) bool {
		ans = append(ans, fmt.Sprintf("%q x %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	return fmt.Sprintf("%d held now, %d dials, %d refused unanswered, answers %v", a.held.Load(), a.dials.Load(),
		a.refused.Load(), ans)
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// attackIPs returns n loopback addresses of one random 127.x.y.0/24 (each test its own, so the balancer's and the
// endpoints' per-address counts start at zero).
func attackIPs(tb testing.TB, n int) []string {
	tb.Helper()
	base := newEPClient(tb).ip
	net3 := base[:strings.LastIndexByte(base, '.')]
	ips := make([]string, n)
	for i := range ips {
		ips[i] = fmt.Sprintf("%s.%d", net3, 1+i)
	}
	return ips
}

// freshUserServed signs a new wallet in through the balancer from a new address and checks its session at
// /auth/me: both must be 200.
func freshUserServed(tb testing.TB, lb string) {
	tb.Helper()
	c := newEPClient(tb)
	tok := c.signIn(lb, wallet(tb))
	if a := c.do("GET", lb+"/auth/me", nil, tok); a.status != http.StatusOK || !strings.Contains(a.body, `"objectId"`) {
		tb.Fatalf("a fresh user's /auth/me after signing in (on %s): %d %s", a.instance, a.status, a.body)
	}
}

// slowBody is a sign-in request whose body never comes whole: its headers and the first byte of 1,000.
const slowBody = "POST /auth/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"

// One address opening more connections than its cap gets exactly its 64 held, the others refused unanswered
// at once; the held ones, which never send a whole request, are answered 408 and closed by the balancer (timeout
// http-request), and meanwhile a fresh user is served. Fails without the stick table's cap (tried: all 100 held).
func TestBalancerCapsConnectionsPerAddress(t *testing.T) {
	lb := endpointEnv(t).EndpointLBURL
	u, _ := url.Parse(lb)
	ip := attackIPs(t, 1)[0]
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	const n = perAddrConns + 36
	type end struct {
		status string
		err    error
	}
	ends := make(chan end, n)
	for range n {
		c, err := d.Dial("tcp", u.Host)
		if err != nil {
			ends <- end{err: err} // refused while connecting
			continue
		}
		go func() {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(2 * time.Minute))
			line, err := bufio.NewReader(c).ReadString('\n')
			ends <- end{strings.TrimSpace(line), err}
		}()
	}
	refused := 0
	for refused < n-perAddrConns {
		e := <-ends
		if e.status != "" {
			t.Fatalf("a connection was answered %q before the over-cap ones were refused (%d refused)", e.status, refused)
		}
		var ne net.Error
		if errors.As(e.err, &ne) && ne.Timeout() {
			t.Fatalf("a connection neither refused nor answered within 2 minutes (%d refused)", refused)
		}
		refused++
	}
	freshUserServed(t, lb)
	for i := range perAddrConns {
		if e := <-ends; e.status != "HTTP/1.1 408 Request Time-out" {
			t.Fatalf("held connection %d of %d ended with %q, %v; want the balancer's 408", i+1, perAddrConns, e.status, e.err)
		}
	}
	t.Logf("%d connections from one address: %d refused at once, %d held until the balancer's 408", n, refused, perAddrConns)
}

// Slow request bodies, from one address (three times its cap) and then from a few dozen addresses (each at its
// cap), held and renewed as the balancer closes them: the balancer waits for each body (option
// http-buffer-request) and no slow request reaches an instance, so a fresh user is served throughout. Fails
// without the balancer's request buffering and its whole-body check for the few dozen addresses (tried: their
// bodies filled both instances' 256 request slots and the fresh user's GET /auth/message waited in the queue until
// its 503; without the buffering alone, the whole-body check refused every slow body at once, 413).
func TestBalancerSlowBodiesLockNobodyOut(t *testing.T) {
	lb := endpointEnv(t).EndpointLBURL
	t.Run("one address", func(t *testing.T) {
		a := attack(t, lb, attackIPs(t, 1), 3*perAddrConns, slowBody)
		freshUserServed(t, lb)
		t.Logf("the attack: %v", a)
	})
	t.Run("a few dozen addresses", func(t *testing.T) {
		a := attack(t, lb, attackIPs(t, attackAddrs), perAddrConns, slowBody)
		freshUserServed(t, lb)
		t.Logf("the attack: %v", a)
	})
}

// Connections that send nothing at all, from one address and from a few dozen, held and renewed: a fresh user is
// served throughout.
func TestBalancerHeldConnectionsLockNobodyOut(t *testing.T) {
	lb := endpointEnv(t).EndpointLBURL
	t.Run("one address", func(t *testing.T) {
		a := attack(t, lb, attackIPs(t, 1), 3*perAddrConns, "")
		freshUserServed(t, lb)
		t.Logf("the attack: %v", a)
	})
	t.Run("a few dozen addresses", func(t *testing.T) {
		a := attack(t, lb, attackIPs(t, attackAddrs), perAddrConns, "")
		freshUserServed(t, lb)
		t.Logf("the attack: %v", a)
	})
}

// Live streams held open within every stream cap: one address holding as many as it may open at once (its
// opening burst, 10), then 24 addresses each holding 8 (192 streams, about 96 on each instance, more than an
// instance's per-client connection cap of 64): a fresh user signs in and opens a stream of its own. The endpoints
// count each stream's client from the balancer's PROXY protocol header; fails when their connection caps count the
// balancer instead (tried: the balancer without send-proxy-v2 and the endpoints reading the client from
// X-Forwarded-For, -trust-proxy: once an instance held 64 streams, sign-ins and streams through it got 502).
func TestBalancerHeldLiveStreamsLockNobodyOut(t *testing.T) {
	lb := endpointEnv(t).EndpointLBURL
	t.Run("one address", func(t *testing.T) {
		holdStreams(t, lb, attackIPs(t, 1)[0], authserver.DefaultLiveRateBurst)
		freshUserServed(t, lb)
	})
	t.Run("a few dozen addresses", func(t *testing.T) {
		fromEach(t, attackIPs(t, 24), func(ip string) string {
			return holdStreams(t, lb, ip, authserver.DefaultLiveStreamsPerUser)
		})
		freshUserServed(t, lb)
		c := newEPClient(t)
		if s, ans := c.openLive(lb, c.signIn(lb, wallet(t))); s == nil {
			t.Fatalf("a fresh user's stream beside 192 held ones: %d %s", ans.status, ans.body)
		}
	})
}

// fromEach runs fn for each address at once and fails the test with what went wrong (fn's non-empty results).
func fromEach(t *testing.T, ips []string, fn func(ip string) string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, len(ips))
	for _, ip := range ips {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ip); err != "" {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// holdStreams opens n live streams from ip through lb, DefaultLiveStreamsPerSession per session and
// DefaultLiveStreamsPerUser per wallet, each within every cap; they stay open until the test ends. It returns
// what went wrong ("" when all opened).
func holdStreams(tb testing.TB, lb, ip string, n int) string {
	tb.Helper()
	c := newEPClientAt(tb, ip)
	var tok string
	var w *signer.Key
	for i := range n {
		if i%authserver.DefaultLiveStreamsPerUser == 0 {
			w = wallet(tb)
		}
		if i%authserver.DefaultLiveStreamsPerSession == 0 {
			tok = c.signIn(lb, w)
		}
		if s, ans := c.openLive(lb, tok); s == nil {
			return fmt.Sprintf("held stream %d of %s: %d %s", i+1, ip, ans.status, ans.body)
		}
	}
	return ""
}

// Ticket floods at parse-server through its balancer: the public ticket function (moralisAuthRequestMessage, the
// JavaScript key) allows each client address 20 unused tickets. One address asking 22, then a few dozen asking 21
// each, each request with a forged X-Forwarded-For, are refused beyond their own 20 (155), and a fresh address
// still gets its ticket: parse-server trusts the balancer's X-Forwarded-For (trustProxy), which the balancer sets to
// the real address, so it meters each client, not the balancer nor the address a client names. Fails without
// trustProxy (tried: the fresh address was refused "Too many ticket requests" once the first address had its 20)
// and when the balancer passes the client's X-Forwarded-For on (tried: the set-header line removed, the flooding
// address got 22 tickets of 22).
func TestBalancerTicketFloodLocksNobodyOut(t *testing.T) {
	env := scaledEnv(t)
	const perClient = 20 // DEVSTACK_TICKET_MAX_PER_CLIENT's default
	ask := func(c *epClient) epAnswer {
		t := c.tb
		req, err := http.NewRequestWithContext(t.Context(), "POST", env.LBURL+"/functions/moralisAuthRequestMessage",
			strings.NewReader(`{"address":"`+strings.ToLower(wallet(t).Address().Hex())+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Parse-Application-Id", env.AppID)
		req.Header.Set("X-Parse-Javascript-Key", env.JavaScriptKey)
		// Each request names another address of its own choosing: the balancer overwrites it with the real one.
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", mrand.IntN(256), mrand.IntN(256), 1+mrand.IntN(254)))
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatalf("POST functions/moralisAuthRequestMessage from %s: %v", c.ip, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return epAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	}
	flood := func(c *epClient, n int) string {
		ok, refused := 0, 0
		for range n {
			switch a := ask(c); {
			case a.status == http.StatusOK:
				ok++
			case a.status == http.StatusBadRequest && a.errorText() == "Too many ticket requests":
				refused++
			default:
				return fmt.Sprintf("a ticket request from %s: %d %s", c.ip, a.status, a.body)
			}
		}
		if ok != perClient || refused != n-perClient {
			return fmt.Sprintf("%s asked %d tickets: %d issued, %d refused; want %d issued", c.ip, n, ok, refused, perClient)
		}
		return ""
	}
	fresh := func(t *testing.T) {
		t.Helper()
		if a := ask(newEPClient(t)); a.status != http.StatusOK || !strings.Contains(a.body, `"ticket"`) {
			t.Fatalf("a fresh address's ticket request: %d %s", a.status, a.body)
		}
	}
	t.Run("one address", func(t *testing.T) {
		if err := flood(newEPClient(t), perClient+2); err != "" {
			t.Fatal(err)
		}
		fresh(t)
	})
	t.Run("a few dozen addresses", func(t *testing.T) {
		fromEach(t, attackIPs(t, 24), func(ip string) string { return flood(newEPClientAt(t, ip), perClient+1) })
		fresh(t)
	})
}
