package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cap is a shared counter with a ceiling: at most Max leases on Key at once, over every instance.
// A live-stream guard passes one Cap per dimension (per session, per user, per client address).
type Cap struct {
	Key string
	Max int
}

// Lease is a held slot in one or more caps. It expires by itself TTL after it was acquired or last
// renewed, so the slots of an instance that died free up without it; an instance that keeps a
// stream open renews it (every TTL/3 is a good pace) and releases it when the stream ends.
type Lease struct {
	// ID is the lease's random id (the member in each cap's sorted set).
	ID string
	// Keys are the caps' keys, in the order given to Acquire.
	Keys []string
}

// ErrLeaseLost is returned by Renew when the lease is no longer held in some cap: it expired (it was
// not renewed within its TTL) or was released. The stream it guarded must end.
var ErrLeaseLost = errors.New("redislimit: lease lost")

// Each cap is a sorted set of lease ids scored by their expiry (milliseconds of Redis's clock).

// acquireScript: ARGV[1] lease id, ARGV[2] TTL ms, ARGV[3..] the caps' maxima in KEYS order. It drops
// expired leases from every key, then adds the lease to all keys or to none. It returns 0 when
// acquired, else the 1-based index of the first full cap.
var acquireScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
for i, k in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
  if redis.call('ZCARD', k) >= tonumber(ARGV[2 + i]) then
    return i
  end
end
for _, k in ipairs(KEYS) do
  redis.call('ZADD', k, now + ttl, ARGV[1])
  local keep = redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', k, tonumber(keep[2]))
end
return 0
`)

// renewScript: ARGV[1] lease id, ARGV[2] TTL ms. It renews the lease in every key where it is still
// live; it returns the number of keys where it was not (expired or released), which are left alone.
var renewScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lost = 0
for _, k in ipairs(KEYS) do
  local exp = redis.call('ZSCORE', k, ARGV[1])
  if (not exp) or tonumber(exp) <= now then
    lost = lost + 1
  else
    redis.call('ZADD', k, 'XX', now + tonumber(ARGV[2]), ARGV[1])
    local keep = redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')
    redis.call('PEXPIREAT', k, tonumber(keep[2]))
  end
end
return lost
`)

func checkCaps(caps []Cap, ttl time.Duration) error {
	if len(caps) == 0 {
		return errors.New("redislimit: acquire: no caps")
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("redislimit: acquire: lease TTL %v is under 1 ms", ttl)
	}
	seen := make(map[string]bool, len(caps))
	for _, c := range caps {
		if err := checkKey("acquire", c.Key); err != nil {
			return err
		}
		if c.Max <= 0 {
			return fmt.Errorf("redislimit: acquire: cap %q has max %d (must be positive)", c.Key, c.Max)
		}
		if seen[c.Key] {
			return fmt.Errorf("redislimit: acquire: cap %q given twice", c.Key)
		}
		seen[c.Key] = true
	}
	return nil
}

// Acquire takes one slot in every cap, or none: when some cap already holds Max live leases it
// returns ok false and full, the first such Cap. The lease expires ttl from now unless renewed. On a
// Redis fault it returns ok false and an error matching ErrUnavailable: refuse the stream.
func (s *Store) Acquire(ctx context.Context, ttl time.Duration, caps ...Cap) (lease Lease, ok bool, full Cap, err error) {
	if err := checkCaps(caps, ttl); err != nil {
		return Lease{}, false, Cap{}, err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Lease{}, false, Cap{}, fmt.Errorf("redislimit: acquire: lease id: %w", err)
	}
	lease = Lease{ID: hex.EncodeToString(b[:]), Keys: make([]string, len(caps))}
	keys := make([]string, len(caps))
	args := []any{lease.ID, ttl.Milliseconds()}
	for i, c := range caps {
		lease.Keys[i] = c.Key
		keys[i] = s.prefix + "cap:" + c.Key
		args = append(args, c.Max)
	}
	n, err := acquireScript.Run(ctx, s.rdb, keys, args...).Int()
	if err != nil {
		return Lease{}, false, Cap{}, unavailable("acquire", err)
	}
	if n != 0 {
		if n < 1 || n > len(caps) {
			return Lease{}, false, Cap{}, unavailable("acquire", fmt.Errorf("script answered %d", n))
		}
		return Lease{}, false, caps[n-1], nil
	}
	return lease, true, Cap{}, nil
}

func (s *Store) leaseKeys(op string, l Lease) ([]string, error) {
	if l.ID == "" || len(l.Keys) == 0 {
		return nil, fmt.Errorf("redislimit: %s: empty lease", op)
	}
	keys := make([]string, len(l.Keys))
	for i, k := range l.Keys {
		if err := checkKey(op, k); err != nil {
			return nil, err
		}
		keys[i] = s.prefix + "cap:" + k
	}
	return keys, nil
}

// Renew extends the lease to ttl from now in every cap. It returns ErrLeaseLost when the lease had
// expired or been released in some cap (the stream must end: its slot may be someone else's now),
// and an error matching ErrUnavailable on a Redis fault (the caller decides how long it tolerates
// that; the lease itself runs out at its TTL).
func (s *Store) Renew(ctx context.Context, l Lease, ttl time.Duration) error {
	keys, err := s.leaseKeys("renew", l)
	if err != nil {
		return err
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("redislimit: renew: lease TTL %v is under 1 ms", ttl)
	}
	lost, err := renewScript.Run(ctx, s.rdb, keys, l.ID, ttl.Milliseconds()).Int()
	if err != nil {
		return unavailable("renew", err)
	}
	if lost != 0 {
		return ErrLeaseLost
	}
	return nil
}

// Release gives the lease's slots back. Releasing a lease twice, or one that expired, is not an error.
func (s *Store) Release(ctx context.Context, l Lease) error {
	keys, err := s.leaseKeys("release", l)
	if err != nil {
		return err
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.ZRem(ctx, k, l.ID)
		}
		return nil
	})
	if err != nil {
		return unavailable("release", err)
	}
	return nil
}

// Held returns how many live leases key holds now (expired ones are not counted).
func (s *Store) Held(ctx context.Context, key string) (int, error) {
	if err := checkKey("held", key); err != nil {
		return 0, err
	}
	t, err := s.rdb.Time(ctx).Result()
	if err != nil {
		return 0, unavailable("held", err)
	}
	n, err := s.rdb.ZCount(ctx, s.prefix+"cap:"+key, fmt.Sprint(t.UnixMilli()+1), "+inf").Result()
	if err != nil {
		return 0, unavailable("held", err)
	}
	return int(n), nil
}
