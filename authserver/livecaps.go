package authserver

import (
	"context"
	"net/http"
	"sync"

	"github.com/c13f5054/moralis-go/parse"
)

// The Handler's live-stream caps when Config leaves them zero (a negative value turns one off). They stand beside
// query/live's own caps (per session token, and overall): re-signing gives a wallet as many sessions as it likes,
// so only the user behind the sessions and the client address bound what one attacker holds.
const (
	// DefaultLiveStreamsPerUser is how many streams one user (the account behind the sessions) may hold open
	// through GuardLive at once, however many sessions and addresses it uses.
	DefaultLiveStreamsPerUser = 8
	// DefaultLiveStreamsPerClient is how many streams one client (LiveRateLimit's ClientKey: the remote address by
	// default) may hold open through GuardLive at once, however many users it signs in as.
	DefaultLiveStreamsPerClient = 16
)

var (
	errUserStreams   = refuse(parse.CodeRequestLimitExceeded, "too many live streams for this user")
	errClientStreams = refuse(parse.CodeRequestLimitExceeded, "too many live streams for this client")
)

// memoryStreamCaps is the in-memory streamCaps: open streams counted per user and per client, each under its cap
// (0: no cap). A stream over either cap is refused with 429 (code 155), as query/live refuses one over the
// session's cap. Memory is bounded by the open streams: a count that drops to zero is deleted. Safe for
// concurrent use.
type memoryStreamCaps struct {
	mu                 sync.Mutex
	perUser, perClient int
	key                func(*http.Request) string
	byUser, byClient   map[string]int
}

// newMemoryStreamCaps returns the caps, or nil (no streamCaps) when both are off.
func newMemoryStreamCaps(perUser, perClient int, key func(*http.Request) string) streamCaps {
	if perUser <= 0 && perClient <= 0 {
		return nil
	}
	return &memoryStreamCaps{perUser: perUser, perClient: perClient, key: key,
		byUser: map[string]int{}, byClient: map[string]int{}}
}

func (c *memoryStreamCaps) open(_ context.Context, r *http.Request, user *PublicUser) (func(), error) {
	uid, client := "", c.key(r)
	if user != nil {
		uid = user.ObjectID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.perUser > 0 && c.byUser[uid] >= c.perUser:
		return nil, errUserStreams
	case c.perClient > 0 && c.byClient[client] >= c.perClient:
		return nil, errClientStreams
	}
	c.byUser[uid]++
	c.byClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
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
