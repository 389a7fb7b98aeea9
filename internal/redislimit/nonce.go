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

// consumeScript: KEYS[1] the nonce's key, KEYS[2] the index of live nonces, ARGV[1] the binding presented. 0
// consumed (and out of the index), 1 unknown or unbound, 2 bound to something else (left as it was).
var consumeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or v == '' then return 1 end
if v ~= ARGV[1] then return 2 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 0
`)

func (s *Store) nonceKey(nonce string) string { return s.prefix + "n:" + nonce }

// ErrNoncesFull is returned by IssueNonce when max nonces are live already (over every instance).
var ErrNoncesFull = errors.New("redislimit: issue nonce: the cap of live nonces is reached")

// issueScript: KEYS[1] the nonce's key, KEYS[2] the index of live nonces (a sorted set scored by expiry in Unix ms,
// by Redis's clock); ARGV[1] the TTL in ms, ARGV[2] the cap (0: none), ARGV[3] the nonce's value (empty: issued,
// not bound; else its binding). 1 issued, 0 the key exists, 2 the cap is reached. Expired entries leave the index
// as nonces are issued; the index itself expires with its newest entry.
var issueScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= max then return 2 end
end
if not redis.call('SET', KEYS[1], ARGV[3], 'NX', 'PX', ttl) then return 0 end
if max > 0 then
  redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return 1
`)

func (s *Store) nonceIndexKey() string { return s.prefix + "nonces" }

// IssueNonce records nonce as issued (and not bound) for ttl. It returns false when the nonce already exists (a
// value drawn twice: draw another). With limit > 0, at most limit nonces are live at once over every instance that
// shares this Redis and prefix: beyond it IssueNonce returns ErrNoncesFull until one is consumed or expires, so
// Redis's memory stays bounded however many client addresses ask. On a Redis fault it returns an error matching
// ErrUnavailable.
func (s *Store) IssueNonce(ctx context.Context, nonce string, ttl time.Duration, limit int) (bool, error) {
	return s.issueNonce(ctx, "issue nonce", nonce, "", ttl, limit)
}

// IssueBoundNonce is IssueNonce and BindNonce in one round trip: it records nonce as issued for ttl and bound to
// binding at once (it is never live unbound). It returns false when the nonce already exists, and ErrNoncesFull
// beyond limit, as IssueNonce.
func (s *Store) IssueBoundNonce(ctx context.Context, nonce, binding string, ttl time.Duration, limit int) (bool, error) {
	if binding == "" {
		return false, errors.New("redislimit: issue bound nonce: empty binding")
	}
	return s.issueNonce(ctx, "issue bound nonce", nonce, binding, ttl, limit)
}

func (s *Store) issueNonce(ctx context.Context, op, nonce, value string, ttl time.Duration, limit int) (bool, error) {
	if err := checkKey(op, nonce); err != nil {
		return false, err
	}
	if ttl < time.Millisecond {
		return false, errors.New("redislimit: " + op + ": ttl under 1 ms")
	}
	res, err := issueScript.Run(ctx, s.rdb, []string{s.nonceKey(nonce), s.nonceIndexKey()}, ttl.Milliseconds(), max(limit, 0), value).Int()
	if err != nil {
		return false, unavailable(op, err)
	}
	switch res {
	case 1:
		return true, nil
	case 2:
		return false, ErrNoncesFull
	}
	return false, nil
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
	res, err := consumeScript.Run(ctx, s.rdb, []string{s.nonceKey(nonce), s.nonceIndexKey()}, binding).Int()
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
