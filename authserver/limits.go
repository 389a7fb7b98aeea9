package authserver

import (
	"math"
	"net/http"
	"strconv"
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
	// DefaultLiveRateBurst and DefaultLiveRateEvery: stream openings through GuardLive, 10 at once, one more every 6 s.
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

// signInRoute reports whether a path (relative to the mount point) issues nonces or verifies signatures.
func signInRoute(path string) bool {
	return path == "/message" || path == "/signin" || path == "/link"
}

// allow applies the per-client rate limits of a request to the handler's routes; when it answers false it has
// written the 429.
func (h *Handler) allow(w http.ResponseWriter, r *http.Request) bool {
	ok, wait := h.limit.allow(r)
	if ok && signInRoute(r.URL.Path) {
		ok, wait = h.signInLimit.allow(r)
	}
	if !ok {
		tooManyRequests(w, wait)
	}
	return ok
}

func tooManyRequests(w http.ResponseWriter, wait time.Duration) {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, CodeRequestLimit, "Too many requests")
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
	key      func(*http.Request) string
	byClient map[string][]time.Time // expiry of each counted nonce, oldest first
	lastGC   time.Time
}

func newNonceQuota(max int, ttl time.Duration, now func() time.Time, key func(*http.Request) string) *nonceQuota {
	if max <= 0 {
		return nil
	}
	return &nonceQuota{max: max, ttl: ttl, now: now, key: key, byClient: map[string][]time.Time{}}
}

// take counts one nonce for the request's client; false (with the wait until one of its nonces expires) when
// the client already holds max.
func (q *nonceQuota) take(r *http.Request) (bool, time.Duration) {
	if q == nil {
		return true, 0
	}
	k := q.key(r)
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
		return false, exps[0].Sub(now)
	}
	q.byClient[k] = append(exps, now.Add(q.ttl))
	return true, 0
}
