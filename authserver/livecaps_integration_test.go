//go:build integration

package authserver

import (
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
)

// Item 2 of #32 against the real stack (parse-server's live-query server behind query/live's bridge, its own
// per-session cap of 4): one wallet signed in 6 times streams from 6 loopback addresses, 4 tries each, and holds
// exactly DefaultLiveStreamsPerUser streams (the rest 429 {"code":155}); one address signed in as 5 wallets holds
// exactly DefaultLiveStreamsPerClient; a fresh wallet from a fresh address still streams while both attackers
// hold their caps.
func TestAttackLiveStreamsFromManyAddresses(t *testing.T) {
	var dials atomic.Int32
	e := liveEndpoint(t, &dials, nil) // the default stream caps; the rate limits off, so only the caps refuse
	signIn := func(s signer.Ethereum) string {
		t.Helper()
		a := e.signInOnce(s)
		if a.status != 200 || sessionOf(a) == "" {
			t.Fatalf("sign-in: %d %s", a.status, a.raw)
		}
		return sessionOf(a)
	}
	liveURL := e.srv.URL + "/auth/live?class=LiveItem&where=" + url.QueryEscape(`{"run":"caps"}`)
	// stream opens a stream with tok from ip: true when it streams, false on the caps' 429.
	stream := func(ip, tok, wantRefusal string) bool {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, liveURL, nil)
		req.Header.Set("Cookie", DefaultCookieName+"="+tok)
		resp, err := loopbackClient(ip).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			t.Cleanup(func() { resp.Body.Close() })
			if line, err := readLine(resp.Body); line != ": subscribed" {
				t.Fatalf("stream from %s: %q %v", ip, line, err)
			}
			return true
		}
		wantError(t, readAnswer(resp), http.StatusTooManyRequests, parse.CodeRequestLimitExceeded, wantRefusal)
		return false
	}

	wallet, _ := signer.GenerateKey()
	opened := 0
	for i := range 6 {
		tok := signIn(wallet)
		for range 4 {
			if stream(fmt.Sprintf("127.0.8.%d", 1+i), tok, "too many live streams for this user") {
				opened++
			}
		}
	}
	if opened != DefaultLiveStreamsPerUser {
		t.Fatalf("one wallet, 6 sessions from 6 addresses: %d streams, want %d", opened, DefaultLiveStreamsPerUser)
	}
	opened = 0
	for range 5 {
		w, _ := signer.GenerateKey()
		tok := signIn(w)
		for range 4 {
			if stream("127.0.9.1", tok, "too many live streams for this client") {
				opened++
			}
		}
	}
	if opened != DefaultLiveStreamsPerClient {
		t.Fatalf("one address, 5 wallets: %d streams, want %d", opened, DefaultLiveStreamsPerClient)
	}
	fresh, _ := signer.GenerateKey()
	if !stream("127.0.10.1", signIn(fresh), "") {
		t.Fatal("a fresh wallet from a fresh address was refused a stream")
	}
	if got, want := dials.Load(), int32(DefaultLiveStreamsPerUser+DefaultLiveStreamsPerClient+1); got != want {
		t.Fatalf("%d live-query dials, want %d (a refused stream never reaches the live-query server)", got, want)
	}
}
