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

// gcraScript is the generic cell rate algorithm over each key in order (KEYS[i]), each holding its
// theoretical arrival time (TAT, microseconds of Redis's clock); ARGV[2i-1] is key i's emission interval T and
// ARGV[2i] its burst window Burst*T, both in microseconds. An event is allowed when, after it, TAT lies at most
// one burst window ahead of now; a key lives as long as its TAT is in the future. Redis's own clock is the one
// clock every instance shares, so instances with skewed clocks still agree. The keys are counted one after the
// other, as separate calls would be, and the first refusal stops it (the keys before it keep their event, the
// keys after are not counted). It returns {0, 0} when every key allowed its event, else {i, microseconds to wait
// before a retry can succeed} for the first key i (1-based) that refused.
var gcraScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local new_tat = tat + interval
  if new_tat - now > window then
    return {i, new_tat - now - window}
  end
  redis.call('SET', key, string.format('%d', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
end
return {0, 0}
`)

// Allow counts one event against key under limit, over every instance sharing this Redis. It
// returns whether the event is allowed and, when not, how long until one would be. On a Redis fault
// it returns false, 0 and an error matching ErrUnavailable: refuse the request.
func (s *Store) Allow(ctx context.Context, key string, limit Limit) (allowed bool, retryAfter time.Duration, err error) {
	refused, wait, err := s.AllowEach(ctx, Check{Key: key, Limit: limit})
	if err != nil {
		return false, 0, err
	}
	return refused < 0, wait, nil
}

// Check is one key and its limit, for AllowEach.
type Check struct {
	Key   string
	Limit Limit
}

// AllowEach counts one event against each check's key under its limit, in order, as that many Allow calls one
// after the other would, in one round trip to Redis: the first check that refuses stops it (the checks before it
// keep their event; the checks after it are not counted). It returns the index of that check, or -1 when every
// check allowed the event, and how long until the refusing one would allow one. On a Redis fault it returns 0, 0
// and an error matching ErrUnavailable: refuse the request. At most 8 checks.
func (s *Store) AllowEach(ctx context.Context, checks ...Check) (refused int, retryAfter time.Duration, err error) {
	if len(checks) == 0 || len(checks) > 8 {
		return 0, 0, fmt.Errorf("redislimit: allow each: %d checks (1 to 8)", len(checks))
	}
	keys := make([]string, len(checks))
	args := make([]any, 0, 2*len(checks))
	for i, c := range checks {
		if err := checkKey("allow", c.Key); err != nil {
			return 0, 0, err
		}
		if err := c.Limit.check(); err != nil {
			return 0, 0, err
		}
		burst := c.Limit.Burst
		if burst == 0 {
			burst = c.Limit.Events
		}
		interval := c.Limit.Period.Microseconds() / int64(c.Limit.Events)
		keys[i] = s.prefix + "rl:" + c.Key
		args = append(args, interval, interval*int64(burst))
	}
	res, err := gcraScript.Run(ctx, s.rdb, keys, args...).Int64Slice()
	if err != nil {
		return 0, 0, unavailable("allow", err)
	}
	if len(res) != 2 || res[0] < 0 || res[0] > int64(len(checks)) {
		return 0, 0, unavailable("allow", fmt.Errorf("script answered %v", res))
	}
	if res[0] == 0 {
		return -1, 0, nil
	}
	return int(res[0]) - 1, time.Duration(res[1]) * time.Microsecond, nil
}
