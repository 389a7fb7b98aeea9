//go:build integration

package scaletest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/signer"
)

// One client asking for sign-in messages through the balancer, which alternates between the two endpoint
// instances, gets the deployment's sign-in limit (DefaultSignInRateBurst at once), not one per instance; and the
// nonces it holds count against one quota (DefaultNoncesPerClient) on both. Fails when either guard is per process
// (tried: the endpoints started without -redis: 40 messages of 40 were issued).
func TestEndpointSignInLimitAcrossInstances(t *testing.T) {
	env := endpointEnv(t)
	c := newEPClient(t)
	addr := strings.ToLower(wallet(t).Address().Hex())
	msg := env.EndpointLBURL + "/auth/message?chain=evm&address=" + addr
	results := make(chan epAnswer, 2*authserver.DefaultSignInRateBurst)
	start := time.Now()
	for range 2 * authserver.DefaultSignInRateBurst {
		go func() { results <- c.do("GET", msg, nil, "") }()
	}
	issued, limited, by := 0, 0, map[string]int{}
	var last epAnswer
	for range 2 * authserver.DefaultSignInRateBurst {
		a := <-results
		by[a.instance]++
		switch {
		case a.status == http.StatusOK:
			issued++
		case a.status == http.StatusTooManyRequests && a.retryAfter() <= authserver.DefaultSignInRateEvery:
			limited++ // the sign-in limit's refusal (the nonce quota's waits until a nonce expires)
			last = a
		case a.status != http.StatusTooManyRequests:
			t.Fatalf("GET /auth/message on %s: %d %s", a.instance, a.status, a.body)
		}
	}
	elapsed := time.Since(start)
	if by["endpoint1"] == 0 || by["endpoint2"] == 0 {
		t.Fatalf("the balancer did not alternate: answers by instance %v", by)
	}
	if issued != authserver.DefaultSignInRateBurst {
		t.Fatalf("%d of %d messages issued through two instances (%v), want the deployment's sign-in burst of %d",
			issued, 2*authserver.DefaultSignInRateBurst, by, authserver.DefaultSignInRateBurst)
	}
	// The sign-in limit refused all but what refilled meanwhile (one every DefaultSignInRateEvery), which the
	// nonce quota then refused; per process, each instance's limit would have let 20 through to the quota.
	if want := authserver.DefaultSignInRateBurst - int(elapsed/authserver.DefaultSignInRateEvery) - 1; limited < max(want, 1) {
		t.Fatalf("the sign-in limit refused %d of %d requests in %v, want at least %d", limited,
			2*authserver.DefaultSignInRateBurst, elapsed.Round(time.Millisecond), max(want, 1))
	}
	// Once the sign-in limit lets one more through, the quota refuses it: the client holds its
	// DefaultNoncesPerClient nonces, spread over both instances, until they expire (DefaultNonceTTL).
	time.Sleep(last.retryAfter())
	a := c.do("GET", msg, nil, "")
	if a.status != http.StatusTooManyRequests || a.retryAfter() < time.Minute {
		t.Fatalf("after the sign-in limit's wait, on %s: %d (Retry-After %q) %s; want the nonce quota's 429, Retry-After about %v",
			a.instance, a.status, a.header.Get("Retry-After"), a.body, authserver.DefaultNonceTTL)
	}
	t.Logf("%d messages issued, %d refused by the sign-in limit, over both instances %v in %v; then the nonce quota: 429, Retry-After %s",
		issued, limited, by, elapsed.Round(time.Millisecond), a.header.Get("Retry-After"))
}

// Live streams through the balancer count against one cap per session (DefaultLiveStreamsPerSession) and per
// user (DefaultLiveStreamsPerUser) over both instances; a stream's slot comes back when it ends, whichever
// instance held it. Fails when the caps are per process (tried: the endpoints started without -redis: the fifth
// stream of a session opened).
func TestEndpointLiveCapsAcrossInstances(t *testing.T) {
	env := endpointEnv(t)
	lb := env.EndpointLBURL
	w := wallet(t)
	a, b := newEPClient(t), newEPClient(t) // two addresses: each stays under its live-stream opening rate
	s1 := a.signIn(lb, w)
	var open []*stream
	by := map[string]int{}
	for i := range authserver.DefaultLiveStreamsPerSession {
		s, ans := a.openLive(lb, s1)
		if s == nil {
			t.Fatalf("stream %d of the session: %d %s", i+1, ans.status, ans.body)
		}
		open = append(open, s)
		by[s.instance]++
	}
	if by["endpoint1"] == 0 || by["endpoint2"] == 0 {
		t.Fatalf("the balancer did not alternate: streams by instance %v", by)
	}
	s, ans := a.openLive(lb, s1)
	if s != nil || ans.status != http.StatusTooManyRequests || ans.errorText() != "too many live streams for this session" {
		t.Fatalf("stream %d of one session over two instances (%v): %d %s; want 429 too many live streams for this session",
			authserver.DefaultLiveStreamsPerSession+1, by, ans.status, ans.body)
	}
	// One stream ends: its slot is free again, on either instance.
	// (HAProxy ends the stream on the instance when it next writes to the closed client: the stack's endpoints send
	// a heartbeat every second.) Each try costs one of the client's live-stream openings (DefaultLiveRateBurst).
	open[0].close()
	closed := time.Now()
	reopened := false
	for try := 0; try < 4 && !reopened; try++ {
		time.Sleep(time.Second)
		s, ans = a.openLive(lb, s1)
		if reopened = s != nil; !reopened && ans.errorText() != "too many live streams for this session" {
			t.Fatalf("reopening: %d %s", ans.status, ans.body)
		}
	}
	if !reopened {
		t.Fatal("the slot of a closed stream did not come back within 4 s")
	}
	t.Logf("a closed stream's slot came back within %v", time.Since(closed).Round(100*time.Millisecond))
	// The same wallet signed in twice more, from another address: the user's cap counts every session's streams.
	s2, s3 := b.signIn(lb, w), b.signIn(lb, w)
	for i := range authserver.DefaultLiveStreamsPerUser - authserver.DefaultLiveStreamsPerSession {
		if s, ans := b.openLive(lb, s2); s == nil {
			t.Fatalf("stream %d of the user: %d %s", authserver.DefaultLiveStreamsPerSession+i+1, ans.status, ans.body)
		}
	}
	s, ans = b.openLive(lb, s3)
	if s != nil || ans.status != http.StatusTooManyRequests || ans.errorText() != "too many live streams for this user" {
		t.Fatalf("stream %d of one user over two instances: %d %s; want 429 too many live streams for this user",
			authserver.DefaultLiveStreamsPerUser+1, ans.status, ans.body)
	}
}

// A session signed out through instance 1 is refused at once by instance 2, which had it cached (a stream opened
// there a moment before), and instance 2 ends the session's open stream. Fails when the revocation does not
// reach the other instance (tried: the endpoints started without -redis: instance 2 opened a new stream from its
// cache and kept the old one).
func TestEndpointRevocationAcrossInstances(t *testing.T) {
	env := endpointEnv(t)
	c := newEPClient(t)
	one, two := "http://"+env.EndpointAddr1, "http://"+env.EndpointAddr2
	tok := c.signIn(env.EndpointLBURL, wallet(t))
	st, ans := c.openLive(two, tok) // instance 2 confirms the session and caches it
	if st == nil {
		t.Fatalf("stream on instance 2: %d %s", ans.status, ans.body)
	}
	start := time.Now()
	if a := c.do("POST", one+"/auth/signout", nil, tok); a.status != http.StatusOK {
		t.Fatalf("sign-out on instance 1: %d %s", a.status, a.body)
	}
	signedOut := time.Now()
	s, ans := c.openLive(two, tok)
	if s != nil || ans.status != http.StatusUnauthorized || ans.errorText() != "Invalid session token" {
		t.Fatalf("instance 2 right after the sign-out on instance 1: %d %s; want 401 Invalid session token", ans.status, ans.body)
	}
	select {
	case <-st.ended:
		t.Logf("instance 2 ended the signed-out session's stream %v after the sign-out answered (%v after it was sent)",
			time.Since(signedOut).Round(time.Microsecond), time.Since(start).Round(time.Microsecond))
	case <-time.After(5 * time.Second):
		t.Fatal("instance 2 kept the signed-out session's stream open for 5 s")
	}
	// Its last event says why, as on the instance that took the sign-out (the browser tab ends its session on it).
	const last = "event: error\n" + `data: {"code":209,"error":"Invalid session token","reason":"signedOut"}` + "\n\n"
	if got := st.got.String(); !strings.HasSuffix(got, last) {
		t.Fatalf("instance 2's stream ended with %q; want its last event %q", got[max(0, len(got)-200):], last)
	}
}

// signIn signs w in through base (GET /auth/message, POST /auth/signin) and returns the session token (from the
// HttpOnly cookie, the endpoint's only place for it).
func (c *epClient) signIn(base string, w *signer.Key) string {
	c.tb.Helper()
	addr := strings.ToLower(w.Address().Hex())
	a := c.do("GET", base+"/auth/message?chain=evm&address="+addr, nil, "")
	if a.status != http.StatusOK {
		c.tb.Fatalf("GET /auth/message: %d %s", a.status, a.body)
	}
	var m struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(a.body), &m); err != nil || m.Message == "" {
		c.tb.Fatalf("GET /auth/message: %q: %v", a.body, err)
	}
	sig, err := w.SignMessage(c.tb.Context(), []byte(m.Message))
	if err != nil {
		c.tb.Fatal(err)
	}
	resp := c.send(c.tb.Context(), "POST", base+"/auth/signin", map[string]string{"chain": "evm", "address": addr,
		"message": m.Message, "signature": "0x" + hex.EncodeToString(sig)}, "")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.tb.Fatalf("POST /auth/signin (message from %s, sign-in on %s): %d %s", a.instance, resp.Header.Get(endpointHeader), resp.StatusCode, b)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "moralis_session" && ck.Value != "" {
			return ck.Value
		}
	}
	c.tb.Fatalf("POST /auth/signin set no session cookie: %v", resp.Header.Values("Set-Cookie"))
	return ""
}

// stream is an open /auth/live stream.
type stream struct {
	resp     *http.Response
	instance string
	ended    chan struct{} // closed when the server ended the stream
	got      bytes.Buffer  // what the stream sent; read it after ended
}

// openLive opens GET /auth/live at base with tok: the open stream, or nil and the refusal.
func (c *epClient) openLive(base, tok string) (*stream, epAnswer) {
	c.tb.Helper()
	where := url.QueryEscape(`{"run":"endpoint-caps"}`)
	resp := c.send(context.WithoutCancel(c.tb.Context()), "GET", base+"/auth/live?class="+liveClass+"&where="+where, nil, tok)
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return nil, epAnswer{status: resp.StatusCode, header: resp.Header, body: string(b), instance: resp.Header.Get(endpointHeader)}
	}
	s := &stream{resp: resp, instance: resp.Header.Get(endpointHeader), ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		_, _ = io.Copy(&s.got, resp.Body)
	}()
	c.tb.Cleanup(s.close)
	return s, epAnswer{status: resp.StatusCode}
}

func (s *stream) close() { s.resp.Body.Close() }
