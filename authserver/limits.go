package authserver

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// The Handler's per-client limits when Config leaves them zero. Each is on by default; a negative Burst
// (or a negative NoncesPerClient) turns one off.
const (
	// DefaultRateBurst and DefaultRateEvery: every route, 60 requests at once, one more per second.
	DefaultRateBurst = 60
	DefaultRateEvery = time.Second
	// DefaultSignInRateBurst and DefaultSignInRateEvery: GET /message, POST /signin and POST /link together
	// (the routes that issue nonces or verify signatures and log in), 20 at once, one more every 3 s.
	DefaultSignInRateBurst = 20
	DefaultSignInRateEvery = 3 * time.Second
	// DefaultLiveRateBurst and DefaultLiveRateEvery: stream openings through Live (or GuardLive), 10 at once, one more every 6 s.
	DefaultLiveRateBurst = 10
	DefaultLiveRateEvery = 6 * time.Second
	// DefaultNoncesPerClient is how many nonces one client may hold at once (issued within the last NonceTTL).
	DefaultNoncesPerClient = 20
)

// NoRateLimit turns a RateLimit of Config off.
var NoRateLimit = RateLimit{Burst: -1}

// withDefault returns rl with the handler's defaults applied: a zero Burst takes burst/every, a negative one
// means off (Burst 0 for newLimiter). A nil ClientKey takes key.
func (rl RateLimit) withDefault(burst int, every time.Duration, key func(*http.Request) string) RateLimit {
	switch {
	case rl.Burst == 0:
		rl.Burst, rl.Every = burst, every
	case rl.Burst < 0:
		rl.Burst = 0
	}
	if rl.ClientKey == nil {
		rl.ClientKey = key
	}
	return rl
}

// nonceQuota bounds how many nonces one client holds: each issued nonce counts against its client until the
// nonce expires (one NonceTTL), used or not. A flood from many addresses then fills the nonce store only up to
// clients × max, not up to the store's cap, so a newcomer still gets a nonce. Safe for concurrent use; memory is
// bounded by the clients seen within one TTL.
type nonceQuota struct {
	mu       sync.Mutex
	max      int
	ttl      time.Duration
	now      func() time.Time
	byClient map[string][]time.Time // expiry of each counted nonce, oldest first
	lastGC   time.Time
}

// newNonceQuota returns the quota, or nil (a nil rateLimiter: no quota) when max is not positive.
func newNonceQuota(max int, ttl time.Duration, now func() time.Time) rateLimiter {
	if max <= 0 {
		return nil
	}
	return &nonceQuota{max: max, ttl: ttl, now: now, byClient: map[string][]time.Time{}}
}

// allow counts one nonce for client k (the nonce quota is a rateLimiter whose tokens come back as nonces
// expire); false (with the wait until one of its nonces expires) when the client already holds max.
func (q *nonceQuota) allow(_ context.Context, k string) (bool, time.Duration, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	if len(q.byClient) > 1024 && now.Sub(q.lastGC) > q.ttl/4 {
		for c, exps := range q.byClient {
			if !now.Before(exps[len(exps)-1]) {
				delete(q.byClient, c)
			}
		}
		q.lastGC = now
	}
	exps := q.byClient[k]
	i := 0
	for i < len(exps) && !now.Before(exps[i]) {
		i++
	}
	exps = exps[i:]
	if len(exps) >= q.max {
		q.byClient[k] = exps
		return false, exps[0].Sub(now), nil
	}
	q.byClient[k] = append(exps, now.Add(q.ttl))
	return true, 0, nil
}
