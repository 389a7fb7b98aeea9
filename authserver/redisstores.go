package authserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/internal/redislimit"
)

// The policy's stores over Redis (Config.Redis, Config.RedisURL): the same interfaces as the in-memory ones, with
// their state in one Redis that every endpoint instance shares, through internal/redislimit (GCRA rate limits, a
// quota, stream caps as leases, revocation with a key and a pub/sub message). Each fails closed: a fault of Redis
// is a *storeError, answered 503, never a request let through.

// liveLeaseTTL is the life of a live stream's slots in Redis; the instance holding the stream renews them every
// third of it, so the slots of an instance that died come back within liveLeaseTTL.
const liveLeaseTTL = 30 * time.Second

// limitKey is the Redis key of a limit's client: short keys as they are, long ones (a ClientKey of your own may
// return anything) by their SHA-256.
func limitKey(name, key string) string {
	if len(key) > 200 {
		sum := sha256.Sum256([]byte(key))
		key = "sha256:" + hex.EncodeToString(sum[:])
	}
	return name + ":" + key
}

func limitFault(err error) error { return &storeError{answer: errLimitStore, err: err} }

// redisLimiter is a RateLimit (Burst at once, one more per Every) as a GCRA limit in Redis, named so that the
// endpoint's limits do not share budgets.
type redisLimiter struct {
	s    *redislimit.Store
	name string
	lim  redislimit.Limit
}

// newRedisLimiter returns the limiter of cfg, or nil (no limit) when cfg.Burst is not positive.
func newRedisLimiter(s *redislimit.Store, name string, cfg RateLimit) rateLimiter {
	if cfg.Burst <= 0 {
		return nil
	}
	every := cfg.Every
	if every <= 0 {
		every = time.Second
	}
	return redisLimiter{s: s, name: "endpoint:" + name,
		lim: redislimit.Limit{Events: cfg.Burst, Period: every * time.Duration(cfg.Burst), Burst: cfg.Burst}}
}

func (l redisLimiter) allow(ctx context.Context, key string) (bool, time.Duration, error) {
	ok, wait, err := l.s.Allow(ctx, limitKey(l.name, key), l.lim)
	if err != nil {
		return false, 0, limitFault(err)
	}
	return ok, wait, nil
}

// takeBoth takes one request of r's client from a, then from b, as a.take(r) and then b.take(r) would (a refusal
// by a leaves b untouched); two Redis limits over one Store take it in one round trip.
func takeBoth(r *http.Request, a, b limit) error {
	ra, okA := a.store.(redisLimiter)
	rb, okB := b.store.(redisLimiter)
	if !okA || !okB || ra.s != rb.s {
		if err := a.take(r); err != nil {
			return err
		}
		return b.take(r)
	}
	refused, wait, err := ra.s.AllowEach(r.Context(),
		redislimit.Check{Key: limitKey(ra.name, a.key(r)), Limit: ra.lim},
		redislimit.Check{Key: limitKey(rb.name, b.key(r)), Limit: rb.lim})
	switch {
	case err != nil:
		return limitFault(err)
	case refused >= 0:
		return tooManyRequests(wait)
	}
	return nil
}

// redisQuota is the nonce quota in Redis: each nonce counts against its client for one NonceTTL over every
// instance.
type redisQuota struct {
	s   *redislimit.Store
	max int
	ttl time.Duration
}

func (q redisQuota) allow(ctx context.Context, key string) (bool, time.Duration, error) {
	ok, wait, err := q.s.Take(ctx, limitKey("endpoint:nonces", key), q.max, q.ttl)
	if err != nil {
		return false, 0, limitFault(err)
	}
	return ok, wait, nil
}

// redisSessions is the session cache of this instance (memorySessions) under the revocations in Redis: every
// lookup asks Redis whether the session was revoked (one EXISTS), so a sign-out through any instance refuses the
// session on every instance at once, whatever this instance cached; forget revokes it for revokeTTL (longer than
// any instance trusts a cached session).
type redisSessions struct {
	local     memorySessions
	s         *redislimit.Store
	revokeTTL time.Duration
}

func (s redisSessions) lookup(ctx context.Context, tok string) (PublicUser, bool, error) {
	revoked, err := s.s.Revoked(ctx, tok)
	switch {
	case err != nil:
		return PublicUser{}, false, &storeError{answer: errSessionStore, err: err}
	case revoked:
		_ = s.local.forget(ctx, tok) // memorySessions.forget never fails
		return PublicUser{}, false, errNoSession
	}
	return s.local.lookup(ctx, tok)
}

func (s redisSessions) remember(ctx context.Context, tok string, u PublicUser) {
	s.local.remember(ctx, tok, u)
}

func (s redisSessions) forget(ctx context.Context, tok string) error {
	if tok == "" {
		return nil
	}
	_ = s.local.forget(ctx, tok) // memorySessions.forget never fails
	if err := s.s.Revoke(ctx, tok, s.revokeTTL); err != nil {
		return &storeError{answer: errSessionStore, err: err}
	}
	return nil
}

// redisStreamCaps counts the open live streams per session, per user and per client over every instance: one
// lease in Redis per stream, in every cap at once or in none, renewed while the stream is open. A stream whose
// lease is lost (it expired while Redis was away longer than liveLeaseTTL) is ended: its slot may be someone
// else's by then.
type redisStreamCaps struct {
	s      *redislimit.Store
	lim    streamLimits
	report func(r *http.Request, err error) // Config.OnError, or nil
}

func (c *redisStreamCaps) open(ctx context.Context, r *http.Request, tok string, user *PublicUser, end func()) (func(), error) {
	var caps []redislimit.Cap
	refusal := map[string]error{} // the answer when a cap is full
	add := func(key string, max int, refused error) {
		if max > 0 {
			caps = append(caps, redislimit.Cap{Key: key, Max: max})
			refusal[key] = refused
		}
	}
	add("endpoint:live:session:"+redislimit.TokenHash(tok), c.lim.perSession, errSessionStreams)
	if user != nil {
		add(limitKey("endpoint:live:user", user.ObjectID), c.lim.perUser, errUserStreams)
	}
	add(limitKey("endpoint:live:client", c.lim.key(r)), c.lim.perClient, errClientStreams)
	if len(caps) == 0 {
		return func() {}, nil
	}
	lease, ok, full, err := c.s.Acquire(ctx, liveLeaseTTL, caps...)
	switch {
	case err != nil:
		return nil, limitFault(err)
	case !ok:
		return nil, refusal[full.Key]
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go c.keep(r, lease, end, stop, done)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := c.s.Release(rctx, lease); err != nil && c.report != nil {
				c.report(r, err) // the slots come back by themselves at the lease's expiry
			}
		})
	}, nil
}

// keep renews lease every third of its life until stop is closed; it calls end when the lease is lost or could
// not be renewed for a whole life.
func (c *redisStreamCaps) keep(r *http.Request, lease redislimit.Lease, end func(), stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(liveLeaseTTL / 3)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := c.s.Renew(ctx, lease, liveLeaseTTL)
		cancel()
		switch {
		case err == nil:
			last = time.Now()
			continue
		case c.report != nil:
			c.report(r, err)
		}
		if errors.Is(err, redislimit.ErrLeaseLost) || time.Since(last) >= liveLeaseTTL {
			end()
			return
		}
	}
}

// openStreams are the live streams open on this instance, by the SHA-256 of their session, so that a sign-out (on
// this instance, or on another one through Redis) ends them. Safe for concurrent use.
type openStreams struct {
	mu   sync.Mutex
	next uint64
	m    map[[32]byte]*sessionStreams
}

type sessionStreams struct {
	token string
	ends  map[uint64]func()
}

func newOpenStreams() *openStreams { return &openStreams{m: map[[32]byte]*sessionStreams{}} }

// add records a stream of tok that end ends; the returned func removes it when the stream is over.
func (o *openStreams) add(tok string, end func()) (remove func()) {
	h := sha256.Sum256([]byte(tok))
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.m[h]
	if s == nil {
		s = &sessionStreams{token: tok, ends: map[uint64]func(){}}
		o.m[h] = s
	}
	o.next++
	id := o.next
	s.ends[id] = end
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		if s := o.m[h]; s != nil {
			delete(s.ends, id)
			if len(s.ends) == 0 {
				delete(o.m, h)
			}
		}
	}
}

// end ends every stream of the session whose SHA-256 is h.
func (o *openStreams) end(h [32]byte) {
	o.mu.Lock()
	var ends []func()
	if s := o.m[h]; s != nil {
		for _, e := range s.ends {
			ends = append(ends, e)
		}
	}
	o.mu.Unlock()
	for _, e := range ends {
		e()
	}
}

// tokens returns the sessions that hold streams.
func (o *openStreams) tokens() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]string, 0, len(o.m))
	for _, s := range o.m {
		out = append(out, s.token)
	}
	return out
}

// revocationWatch keeps this instance in step with the revocations of every instance: a session revoked anywhere
// leaves this instance's cache and its streams end (within milliseconds: Redis pub/sub). After a reconnect, when
// messages may have been lost, the whole cache is dropped and each open stream's session is checked again. Runs
// until ctx ends. Faults of Redis meanwhile are answered and reported by the requests themselves (503).
func revocationWatch(ctx context.Context, s *redislimit.Store, sessions memorySessions, open *openStreams) {
	revoked := func(hexHash string) {
		var h [32]byte
		if b, err := hex.DecodeString(hexHash); err == nil && len(b) == len(h) {
			copy(h[:], b)
			sessions.c.remove(h)
			open.end(h)
		}
	}
	resync := func() {
		sessions.c.clear()
		for _, tok := range open.tokens() {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			gone, err := s.Revoked(rctx, tok)
			cancel()
			if gone && err == nil {
				open.end(sha256.Sum256([]byte(tok)))
			}
		}
	}
	for {
		// Watch returns early only when it could not subscribe (Redis is down): meanwhile every lookup of a
		// session is refused (503, reported to OnError by the request); try again.
		if err := s.Watch(ctx, revoked, resync); err == nil || ctx.Err() != nil {
			return
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		resync()
	}
}

// redisNonceStore is the NonceStore over the Handler's Redis (the default when Config.Redis or RedisURL is set and
// Config.Nonces is not): a nonce issued by one instance is accepted by every other, and consumed at most once over
// them all (one atomic script). Each nonce is one key that Redis expires with the nonce; what it is bound to is kept
// as the binding's JSON, compared whole. At most DefaultMaxOutstandingNonces are live over all the instances
// together (Issue answers ErrTooManyNonces beyond), so many client addresses cannot grow Redis without bound.
type redisNonceStore struct {
	s        *redislimit.Store
	max      int // live nonces over every instance (DefaultMaxOutstandingNonces)
	now      func() time.Time
	newValue func() (string, error)
}

func (r redisNonceStore) Issue(ctx context.Context, ttl time.Duration) (Nonce, error) {
	return r.issue(ctx, ttl, nil)
}

// issueBound is Issue and Bind in one round trip (boundIssuer): the nonce is drawn here, bind(n) says what it is
// for (the message holds the nonce's value and end), and the nonce goes to Redis bound to that.
func (r redisNonceStore) issueBound(ctx context.Context, ttl time.Duration, bind func(Nonce) NonceBinding) (Nonce, error) {
	return r.issue(ctx, ttl, bind)
}

func (r redisNonceStore) issue(ctx context.Context, ttl time.Duration, bind func(Nonce) NonceBinding) (Nonce, error) {
	if ttl <= 0 {
		ttl = DefaultNonceTTL
	}
	for range 3 { // a value drawn twice (62^16 of them) is drawn again
		v, err := r.newValue()
		if err != nil {
			return Nonce{}, err
		}
		exp := r.now().Add(ttl)
		var ok bool
		if bind != nil {
			ok, err = r.s.IssueBoundNonce(ctx, v, nonceBindingKey(bind(Nonce{Value: v, ExpiresAt: exp})), ttl, r.max)
		} else {
			ok, err = r.s.IssueNonce(ctx, v, ttl, r.max)
		}
		if errors.Is(err, redislimit.ErrNoncesFull) {
			return Nonce{}, ErrTooManyNonces
		}
		if err != nil {
			return Nonce{}, err
		}
		if ok {
			return Nonce{Value: v, ExpiresAt: exp}, nil
		}
	}
	return Nonce{}, errors.New("authserver: the nonce store holds every value drawn")
}

func nonceBindingKey(b NonceBinding) string {
	raw, _ := json.Marshal([3]string{string(b.Chain), b.Address, b.Message}) // strings only: cannot fail
	return string(raw)
}

func (r redisNonceStore) Bind(ctx context.Context, nonce string, b NonceBinding) error {
	ok, err := r.s.BindNonce(ctx, nonce, nonceBindingKey(b))
	if err != nil {
		return err
	}
	if !ok {
		return ErrNonceInvalid
	}
	return nil
}

func (r redisNonceStore) Consume(ctx context.Context, nonce string, b NonceBinding) error {
	if nonce == "" || len(nonce) > 128 {
		return ErrNonceInvalid
	}
	res, err := r.s.ConsumeNonce(ctx, nonce, nonceBindingKey(b))
	if err != nil {
		return err
	}
	switch res {
	case redislimit.NonceConsumed:
		return nil
	case redislimit.NonceMismatch:
		return ErrNonceMismatch
	}
	return ErrNonceInvalid
}
