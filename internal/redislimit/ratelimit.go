package redislimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limit is a rate: Events per Period on average, with up to Burst of them back to back. Burst 0
// means Burst = Events (a whole period's worth at once).
type Limit struct {
	Events int
	Period time.Duration
	Burst  int
}

func (l Limit) check() error {
	if l.Events <= 0 || l.Period <= 0 || l.Burst < 0 {
		return fmt.Errorf("redislimit: limit %d per %v (burst %d): events and period must be positive", l.Events, l.Period, l.Burst)
	}
	if l.Period/time.Duration(l.Events) < time.Microsecond {
		return fmt.Errorf("redislimit: limit %d per %v: more than one event per microsecond", l.Events, l.Period)
	}
	return nil
}

// gcraScript is the generic cell rate algorithm over one key holding the theoretical arrival time
// (TAT, microseconds of Redis's clock). ARGV[1] is the emission interval T and ARGV[2] the burst
// window Burst*T, both in microseconds. A request is allowed when, after it, TAT lies at most one
// burst window ahead of now; the key lives as long as TAT is in the future. Redis's own clock is
// the one clock every instance shares, so instances with skewed clocks still agree.
// It returns {allowed (1 or 0), microseconds to wait before a retry can succeed}.
var gcraScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - now > window then
  return {0, new_tat - now - window}
end
redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
return {1, 0}
`)

// Allow counts one event against key under limit, over every instance sharing this Redis. It
// returns whether the event is allowed and, when not, how long until one would be. On a Redis fault
// it returns false, 0 and an error matching ErrUnavailable: refuse the request.
func (s *Store) Allow(ctx context.Context, key string, limit Limit) (allowed bool, retryAfter time.Duration, err error) {
	if err := checkKey("allow", key); err != nil {
		return false, 0, err
	}
	if err := limit.check(); err != nil {
		return false, 0, err
	}
	burst := limit.Burst
	if burst == 0 {
		burst = limit.Events
	}
	interval := limit.Period.Microseconds() / int64(limit.Events)
	res, err := gcraScript.Run(ctx, s.rdb, []string{s.prefix + "rl:" + key}, interval, interval*int64(burst)).Int64Slice()
	if err != nil {
		return false, 0, unavailable("allow", err)
	}
	if len(res) != 2 {
		return false, 0, unavailable("allow", fmt.Errorf("script answered %d values", len(res)))
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	return false, time.Duration(res[1]) * time.Microsecond, nil
}
