package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// quotaScript: KEYS[1] the quota's sorted set (members scored by their expiry, milliseconds of Redis's
// clock), ARGV[1] a new member, ARGV[2] its life in ms, ARGV[3] the maximum. It drops the expired
// members, then adds the new one unless max are live. It returns {1, 0} when taken, else {0, ms until
// the oldest live member expires}.
var quotaScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
local keep = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(keep[2]))
return {1, 0}
`)

// Take counts one item against key's quota: at most max items live at once over every instance, each
// counted for life from when it was taken (a nonce until it expires, used or not). It returns whether
// the item was taken and, when not, how long until the oldest counted item expires. On a Redis fault
// it returns false, 0 and an error matching ErrUnavailable: refuse the request.
func (s *Store) Take(ctx context.Context, key string, max int, life time.Duration) (taken bool, retryAfter time.Duration, err error) {
	if err := checkKey("take", key); err != nil {
		return false, 0, err
	}
	if max <= 0 {
		return false, 0, fmt.Errorf("redislimit: take: quota %q has max %d (must be positive)", key, max)
	}
	if life < time.Millisecond {
		return false, 0, fmt.Errorf("redislimit: take: life %v is under 1 ms", life)
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return false, 0, fmt.Errorf("redislimit: take: item id: %w", err)
	}
	res, err := quotaScript.Run(ctx, s.rdb, []string{s.prefix + "q:" + key}, hex.EncodeToString(b[:]),
		life.Milliseconds(), max).Int64Slice()
	if err != nil {
		return false, 0, unavailable("take", err)
	}
	if len(res) != 2 {
		return false, 0, unavailable("take", fmt.Errorf("script answered %d values", len(res)))
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	return false, time.Duration(res[1]) * time.Millisecond, nil
}
