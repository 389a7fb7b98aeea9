//go:build integration

package authserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// With Redis, the limit every route takes (RateLimit, 5 here) and the sign-in routes' own (SignInRateLimit, 3) are
// taken in that order, in one round trip, as two takes would be: three GET /message pass; the fourth is refused
// by the sign-in limit and still counts against the first; GET /me, which takes only the first, then has one
// request left; after it, everything is refused by the first limit, and another client is untouched. Fails when
// the pair is not taken in order (tried: the sign-in limit taken first: /me had two requests left) or one of the two
// is skipped (tried: only the first taken: the fourth /message passed).
func TestRedisLimitsTakenInOrder(t *testing.T) {
	redisURL, run := stackRedis(t)
	key := func(r *http.Request) string { return run + ":" + r.Header.Get("X-Test-Client") } // this run's keys only
	e := newTestEnv(t, func(o *Config) {
		o.RedisURL = redisURL
		o.RateLimit = RateLimit{Burst: 5, Every: time.Minute, ClientKey: key}
		o.SignInRateLimit = RateLimit{Burst: 3, Every: time.Minute, ClientKey: key}
	})
	t.Cleanup(func() {
		if err := e.h.Close(); err != nil {
			t.Error(err)
		}
	})
	as := func(client string) map[string]string { return map[string]string{"X-Test-Client": client} }
	message := "/message?chain=evm&address=" + ethAddr(mustEthKey(t))
	for i := range 3 {
		if a := e.do("GET", message, "", "", as("a")); a.status != http.StatusOK {
			t.Fatalf("GET /message %d: %d %s", i+1, a.status, a.raw)
		}
	}
	a := e.do("GET", message, "", "", as("a"))
	wantError(t, a, http.StatusTooManyRequests, parse.CodeRequestLimitExceeded, "")
	// GET /me takes the first limit only: its fifth request passes the limits (and has no session).
	wantError(t, e.do("GET", "/me", "", "", as("a")), http.StatusUnauthorized, parse.CodeInvalidSessionToken, "")
	wantError(t, e.do("GET", "/me", "", "", as("a")), http.StatusTooManyRequests, parse.CodeRequestLimitExceeded, "")
	wantError(t, e.do("GET", message, "", "", as("a")), http.StatusTooManyRequests, parse.CodeRequestLimitExceeded, "")
	if a := e.do("GET", message, "", "", as("b")); a.status != http.StatusOK {
		t.Fatalf("another client: %d %s", a.status, a.raw)
	}
}
