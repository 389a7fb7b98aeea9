package authserver

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// The Handler's live-stream caps when Config leaves them zero (a negative value turns one off). They stand beside
// query/live's own caps (per session token, and overall): re-signing gives a wallet as many sessions as it likes,
// so only the user behind the sessions and the client address bound what one attacker holds.
const (
	// DefaultLiveStreamsPerSession is how many streams one session may hold open through Live (or GuardLive) at once (the
	// same as query/live's own per-session cap, which counts per process only).
	DefaultLiveStreamsPerSession = 4
	// DefaultLiveStreamsPerUser is how many streams one user (the account behind the sessions) may hold open
	// through Live (or GuardLive) at once, however many sessions and addresses it uses.
	DefaultLiveStreamsPerUser = 8
	// DefaultLiveStreamsPerClient is how many streams one client (LiveRateLimit's ClientKey: the remote address by
	// default) may hold open through Live (or GuardLive) at once, however many users it signs in as.
	DefaultLiveStreamsPerClient = 16
	// DefaultMaxLiveStreams is how many live streams one instance holds open at once: half of DefaultMaxConns, so
	// that however many clients hold streams, the other half of the connections is left to sign-ins and requests.
	DefaultMaxLiveStreams = DefaultMaxConns / 2
)

var (
	errSessionStreams = refuse(parse.CodeRequestLimitExceeded, "too many live streams for this session")
	errUserStreams    = refuse(parse.CodeRequestLimitExceeded, "too many live streams for this user")
	errClientStreams  = refuse(parse.CodeRequestLimitExceeded, "too many live streams for this client")
	// errInstanceStreams answers a stream over MaxLiveStreams: the instance is full, not the client over a limit.
	errInstanceStreams = &apiError{status: http.StatusServiceUnavailable, code: parse.CodeInternalServerError,
		msg: "too many live streams on this server", retryAfter: 5 * time.Second}
)

// streamLimits are the live-stream caps of the configuration (0: no cap) and the function naming a request's
// client.
type streamLimits struct {
	perSession, perUser, perClient int
	key                            func(*http.Request) string
}

func (l streamLimits) off() bool { return l.perSession <= 0 && l.perUser <= 0 && l.perClient <= 0 }

// memoryStreamCaps is the in-memory streamCaps: open streams counted per session, per user and per client, each
// under its cap (0: no cap). A stream over a cap is refused with 429 (code 155), as query/live refuses one over the
// session's cap. Memory is bounded by the open streams: a count that drops to zero is deleted. Safe for
// concurrent use.
type memoryStreamCaps struct {
	mu                          sync.Mutex
	lim                         streamLimits
	bySession, byUser, byClient map[string]int
}

// newMemoryStreamCaps returns the caps, or nil (no streamCaps) when all are off.
func newMemoryStreamCaps(lim streamLimits) streamCaps {
	if lim.off() {
		return nil
	}
	return &memoryStreamCaps{lim: lim, bySession: map[string]int{}, byUser: map[string]int{}, byClient: map[string]int{}}
}

func (c *memoryStreamCaps) open(_ context.Context, r *http.Request, tok string, user *PublicUser, _ func()) (func(), error) {
	sum := sha256.Sum256([]byte(tok))
	sess, uid, client := string(sum[:]), "", c.lim.key(r)
	if user != nil {
		uid = user.ObjectID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.lim.perSession > 0 && c.bySession[sess] >= c.lim.perSession:
		return nil, errSessionStreams
	case c.lim.perUser > 0 && c.byUser[uid] >= c.lim.perUser:
		return nil, errUserStreams
	case c.lim.perClient > 0 && c.byClient[client] >= c.lim.perClient:
		return nil, errClientStreams
	}
	c.bySession[sess]++
	c.byUser[uid]++
	c.byClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			decrement(c.bySession, sess)
			decrement(c.byUser, uid)
			decrement(c.byClient, client)
		})
	}, nil
}

// decrement takes one from m[k] and deletes the key at zero.
func decrement(m map[string]int, k string) {
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}
