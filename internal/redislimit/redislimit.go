// Package redislimit holds the endpoint's guards that must hold over a whole deployment rather
// than one process: a shared rate limiter (GCRA), shared counters with leases for live-stream caps,
// and session revocation that reaches every instance. All state lives in one Redis (or a Redis
// primary behind Sentinel) reached through github.com/redis/go-redis/v9; every decision is one Lua
// script run atomically by Redis, so two endpoint instances sharing the Redis share the limits.
//
// Failing closed: when Redis cannot be reached or answers an error, every method returns an error
// that matches ErrUnavailable (errors.Is) together with a refusal (allowed false, no lease,
// revoked true). The caller answers 429 or 503; it never treats a Redis fault as "no limit".
//
// Keys are "<prefix>rl:<key>", "<prefix>q:<key>", "<prefix>cap:<key>" and "<prefix>rev:<hash>"; the prefix (default
// "moralis:") lets several deployments share one Redis. Keys given by the caller (a client address,
// a user id) are used as they are; session tokens are never stored, only their SHA-256.
//
// Multi-key operations (Acquire with several caps) assume one Redis node: on Redis Cluster the keys
// of one call would have to share a hash slot, which this package does not arrange.
package redislimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix is the key prefix a Store uses when Options.Prefix is empty.
const DefaultPrefix = "moralis:"

// ErrUnavailable matches (errors.Is) every error a Store returns because Redis could not be reached
// or did not answer in time. The caller must refuse the request (429 or 503), never let it through.
var ErrUnavailable = errors.New("redislimit: redis unavailable")

// UnavailableError is the error of an operation that Redis did not complete. It matches
// ErrUnavailable and unwraps to the client's error.
type UnavailableError struct {
	// Op names the operation: "allow", "take", "acquire", "renew", "release", "revoke", "revoked", "watch".
	Op string
	// Err is go-redis's error (a dial error, a timeout, a context error, a Redis error reply).
	Err error
}

// Error implements error.
func (e *UnavailableError) Error() string {
	return "redislimit: " + e.Op + ": redis unavailable: " + e.Err.Error()
}

// Is reports whether target is ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns the client's error.
func (e *UnavailableError) Unwrap() error { return e.Err }

func unavailable(op string, err error) error { return &UnavailableError{Op: op, Err: err} }

// Options configure a Store. The zero value is usable.
type Options struct {
	// Prefix is put before every key; empty means DefaultPrefix.
	Prefix string
}

// Store is the shared guard state in one Redis. It is safe for concurrent use; several Stores (in
// several processes) over the same Redis and prefix share every limit.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
}

// New returns a Store over rdb (a *redis.Client, or a failover client for Sentinel). The Store does
// not own rdb: closing it is the caller's. The client's own timeouts bound every call; give it short
// ones (Open uses 500 ms), since a guard that waits seconds for Redis holds the request that long.
func New(rdb redis.UniversalClient, opts Options) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("redislimit: nil redis client")
	}
	p := opts.Prefix
	if p == "" {
		p = DefaultPrefix
	}
	return &Store{rdb: rdb, prefix: p}, nil
}

// Open parses a redis:// or rediss:// URL (as redis.ParseURL does: redis://[user:password@]host:port/db),
// sets short timeouts where the URL sets none (dial 1 s, read and write 500 ms, one retry: enough for a
// pooled connection that a Redis restart closed, while a Redis that is down is reported at once
// instead of after go-redis's default retries of the command and of each dial), and returns a Store
// over a new client together with that client, which the caller closes when done. Open does no I/O.
func Open(rawURL string, opts Options) (*Store, *redis.Client, error) {
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("redislimit: redis URL: %w", redactURLError(err, rawURL))
	}
	if !strings.Contains(rawURL, "dial_timeout") {
		o.DialTimeout = time.Second
	}
	if !strings.Contains(rawURL, "read_timeout") {
		o.ReadTimeout = 500 * time.Millisecond
	}
	if !strings.Contains(rawURL, "write_timeout") {
		o.WriteTimeout = 500 * time.Millisecond
	}
	if !strings.Contains(rawURL, "max_retries") {
		o.MaxRetries = 1
	}
	// go-redis dials up to 5 times, 100 ms apart, per connection by default: a refused connection
	// would hold every guarded request for half a second.
	o.DialerRetries = 1
	rdb := redis.NewClient(o)
	s, err := New(rdb, opts)
	if err != nil {
		_ = rdb.Close()
		return nil, nil, err
	}
	return s, rdb, nil
}

// redactURLError keeps a password in the URL out of the error text.
func redactURLError(err error, rawURL string) error {
	msg := err.Error()
	if i := strings.Index(rawURL, "@"); i > 0 {
		if j := strings.Index(rawURL, "://"); j >= 0 && j+3 < i {
			if creds := rawURL[j+3 : i]; creds != "" {
				msg = strings.ReplaceAll(msg, creds, "xxxxx")
			}
		}
	}
	return errors.New(msg)
}

// Ping checks that Redis answers; the error matches ErrUnavailable when it does not.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return unavailable("ping", err)
	}
	return nil
}

// checkKey refuses keys that cannot be what the caller meant: empty, or long enough to be abuse.
func checkKey(op, key string) error {
	if key == "" {
		return fmt.Errorf("redislimit: %s: empty key", op)
	}
	if len(key) > 512 {
		return fmt.Errorf("redislimit: %s: key of %d bytes (at most 512)", op, len(key))
	}
	return nil
}
