package redislimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// TokenHash is the SHA-256 (hex) of a session token: the only form in which this package stores or
// publishes a token. A session cache keyed by it can drop the entries Watch names.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func (s *Store) revChannel() string { return s.prefix + "revoked" }

// Revoke marks a session token revoked on every instance: a key that Revoked sees at once on any
// instance, kept for ttl (use at least the longest time an instance may trust a cached session, for
// example the session cache's lifetime, or the session's remaining life), and a message on the
// revocation channel so that instances running Watch drop their cached copy and end its streams.
func (s *Store) Revoke(ctx context.Context, token string, ttl time.Duration) error {
	if token == "" {
		return errors.New("redislimit: revoke: empty token")
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("redislimit: revoke: TTL %v is under 1 ms", ttl)
	}
	h := TokenHash(token)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.prefix+"rev:"+h, 1, ttl)
		p.Publish(ctx, s.revChannel(), h)
		return nil
	})
	if err != nil {
		return unavailable("revoke", err)
	}
	return nil
}

// Revoked reports whether token was revoked (within the ttl given to Revoke). On a Redis fault it
// returns true and an error matching ErrUnavailable: treat the session as not usable.
func (s *Store) Revoked(ctx context.Context, token string) (bool, error) {
	if token == "" {
		return true, errors.New("redislimit: revoked: empty token")
	}
	n, err := s.rdb.Exists(ctx, s.prefix+"rev:"+TokenHash(token)).Result()
	if err != nil {
		return true, unavailable("revoked", err)
	}
	return n == 1, nil
}

// Watch calls revoked with the TokenHash of every token revoked on any instance, as the messages
// arrive, until ctx ends (it then returns nil). Whenever the subscription is (re)established, after
// the first time, it calls resync first: messages published while this instance was cut off from
// Redis are lost, so the caller must drop every cached session then (and check Revoked afresh).
// Both callbacks run on Watch's goroutine, one at a time; they must not block for long. Watch
// returns an error only for a fault before the first subscription (it then matches ErrUnavailable);
// later faults are retried by the client, with resync called once the subscription is back.
func (s *Store) Watch(ctx context.Context, revoked func(tokenHash string), resync func()) error {
	if revoked == nil || resync == nil {
		return errors.New("redislimit: watch: nil callback")
	}
	ps := s.rdb.Subscribe(ctx, s.revChannel())
	// A blocked Receive does not end with ctx: closing the subscription does.
	stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
	defer stop()
	defer ps.Close()
	// The first receive confirms the subscription or reports why it failed.
	if _, err := ps.Receive(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return unavailable("watch", err)
	}
	for {
		msg, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			// go-redis reconnects on the next Receive and subscribes again; wait a little so a
			// Redis that is down is not hammered.
			t := time.NewTimer(100 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				resync()
			}
		case *redis.Message:
			if m.Channel == s.revChannel() && len(m.Payload) == sha256.Size*2 {
				revoked(m.Payload)
			}
		}
	}
}
