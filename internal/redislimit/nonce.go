package redislimit

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Nonces in Redis: one key per nonce, its value empty while the nonce is issued and not yet bound, then what it was
// bound to; Redis's expiry ends it. Every instance over the same Redis and prefix sees the same nonces, and a
// nonce is consumed by one atomic script, so it signs in at most once over the whole deployment.

// NonceResult is what ConsumeNonce found.
type NonceResult int

const (
	// NonceConsumed: the nonce was live and bound to the value given; it is gone now.
	NonceConsumed NonceResult = iota
	// NonceUnknown: never issued, already consumed, expired, or issued and never bound.
	NonceUnknown
	// NonceMismatch: live and bound to another value; it was not consumed.
	NonceMismatch
)

// consumeScript: KEYS[1] the nonce's key, ARGV[1] the binding presented. 0 consumed, 1 unknown or unbound,
// 2 bound to something else (left as it was).
var consumeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or v == '' then return 1 end
if v ~= ARGV[1] then return 2 end
redis.call('DEL', KEYS[1])
return 0
`)

func (s *Store) nonceKey(nonce string) string { return s.prefix + "n:" + nonce }

// IssueNonce records nonce as issued (and not bound) for ttl. It returns false when the nonce already exists (a
// value drawn twice: draw another). On a Redis fault it returns an error matching ErrUnavailable.
func (s *Store) IssueNonce(ctx context.Context, nonce string, ttl time.Duration) (bool, error) {
	if err := checkKey("issue nonce", nonce); err != nil {
		return false, err
	}
	if ttl < time.Millisecond {
		return false, errors.New("redislimit: issue nonce: ttl under 1 ms")
	}
	ok, err := s.rdb.SetNX(ctx, s.nonceKey(nonce), "", ttl).Result()
	if err != nil {
		return false, unavailable("issue nonce", err)
	}
	return ok, nil
}

// bindScript: KEYS[1] the nonce's key, ARGV[1] the binding. It binds a live, unbound nonce, keeping its expiry:
// 1 bound, 0 not live or bound already.
var bindScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= '' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
`)

// BindNonce records what a live nonce was issued for, keeping its expiry. It returns false when the nonce is not
// live (expired, consumed or never issued) or is bound already.
func (s *Store) BindNonce(ctx context.Context, nonce, binding string) (bool, error) {
	if err := checkKey("bind nonce", nonce); err != nil {
		return false, err
	}
	if binding == "" {
		return false, errors.New("redislimit: bind nonce: empty binding")
	}
	res, err := bindScript.Run(ctx, s.rdb, []string{s.nonceKey(nonce)}, binding).Int()
	if err != nil {
		return false, unavailable("bind nonce", err)
	}
	return res == 1, nil
}

// ConsumeNonce consumes nonce when it is live and bound to exactly binding, in one atomic step: of several
// concurrent calls (from any instance) at most one gets NonceConsumed.
func (s *Store) ConsumeNonce(ctx context.Context, nonce, binding string) (NonceResult, error) {
	if err := checkKey("consume nonce", nonce); err != nil {
		return NonceUnknown, err
	}
	res, err := consumeScript.Run(ctx, s.rdb, []string{s.nonceKey(nonce)}, binding).Int()
	if err != nil {
		return NonceUnknown, unavailable("consume nonce", err)
	}
	switch res {
	case 0:
		return NonceConsumed, nil
	case 2:
		return NonceMismatch, nil
	}
	return NonceUnknown, nil
}
