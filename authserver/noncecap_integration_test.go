//go:build integration

package authserver

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/redislimit"
)

// Many client addresses cannot grow the Redis nonce store without bound: each address stays within its own quota
// (two nonces of NoncesPerClient's 20), yet 40 addresses asking for 80 nonces get exactly the store's cap (50 here,
// DefaultMaxOutstandingNonces by default) and the rest 503 "Nonce store unavailable", and Redis's index of live
// nonces holds the cap, no more. Fails without the cap (tried: the store's max set to 0: 80 nonces issued).
func TestRedisNonceCapFromManyAddresses(t *testing.T) {
	redisURL, run := stackRedis(t)
	prefix := "test-noncecap-" + run + ":"
	store, rdb, err := redislimit.Open(redisURL, redislimit.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	const limit = 50
	e := newTestEnv(t, func(o *Config) {
		o.RateLimit.ClientKey = func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
	})
	e.h.o.Nonces = redisNonceStore{s: store, max: limit, now: time.Now, newValue: auth.NewNonceValue}
	addr := ethAddr(mustEthKey(t))
	issued, full := 0, 0
	for c := range 40 {
		for range 2 {
			a := e.do("GET", "/message?chain=evm&address="+addr, "", "", map[string]string{"X-Test-Client": fmt.Sprintf("10.9.0.%d", c+1)})
			switch {
			case a.status == 200:
				issued++
			case a.status == http.StatusServiceUnavailable && a.body["error"] == "Nonce store unavailable":
				full++
			default:
				t.Fatalf("client %d: %d %s", c+1, a.status, a.raw)
			}
		}
	}
	if issued != limit || full != 80-limit {
		t.Fatalf("%d nonces issued and %d refused; want %d and %d", issued, full, limit, 80-limit)
	}
	if n, err := rdb.ZCard(t.Context(), prefix+"nonces").Result(); err != nil || n != limit {
		t.Fatalf("Redis holds %d live nonces (%v); want %d", n, err, limit)
	}
}
