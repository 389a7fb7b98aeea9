//go:build integration

package redislimit

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A nonce issued through one instance is bound and consumed through the other, once: of 20 concurrent consumes
// over both instances exactly one wins. A binding other than its own is a mismatch and leaves it live; an unbound
// nonce, a consumed one and an expired one are unknown; a nonce cannot be issued twice nor bound twice. Fails when
// the consume is not one atomic step (tried: GET then DEL from Go: several winners) or when a mismatch consumes.
func TestNonceIssuedOnOneInstanceConsumedOnceOverBoth(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	ok, err := a.IssueNonce(ctx, "nonceAAAA1", time.Minute, 0)
	if err != nil || !ok {
		t.Fatalf("issue: %v %v", ok, err)
	}
	if ok, _ := b.IssueNonce(ctx, "nonceAAAA1", time.Minute, 0); ok {
		t.Fatal("a nonce was issued twice")
	}
	if res, err := b.ConsumeNonce(ctx, "nonceAAAA1", "x"); err != nil || res != NonceUnknown {
		t.Fatalf("consume of an unbound nonce: %v %v", res, err)
	}
	if ok, err := b.BindNonce(ctx, "nonceAAAA1", "for-me"); err != nil || !ok {
		t.Fatalf("bind: %v %v", ok, err)
	}
	if ok, _ := a.BindNonce(ctx, "nonceAAAA1", "for-another"); ok {
		t.Fatal("a nonce was bound twice")
	}
	if res, _ := a.ConsumeNonce(ctx, "nonceAAAA1", "for-another"); res != NonceMismatch {
		t.Fatalf("consume with another binding: %v, want a mismatch", res)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.ConsumeNonce(ctx, "nonceAAAA1", "for-me")
			if err != nil {
				t.Error(err)
			}
			if res == NonceConsumed {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d consumes won, want 1", wins.Load())
	}
	if ok, _ := a.BindNonce(ctx, "nonceAAAA1", "again"); ok {
		t.Fatal("a consumed nonce was bound again")
	}

	// Redis expires a nonce with its TTL.
	if ok, _ := a.IssueNonce(ctx, "nonceBBBB2", 50*time.Millisecond, 0); !ok {
		t.Fatal("issue")
	}
	if ok, _ := a.BindNonce(ctx, "nonceBBBB2", "for-me"); !ok {
		t.Fatal("bind")
	}
	time.Sleep(120 * time.Millisecond)
	if res, _ := b.ConsumeNonce(ctx, "nonceBBBB2", "for-me"); res != NonceUnknown {
		t.Fatalf("an expired nonce: %v", res)
	}
}

// The cap of live nonces holds over both instances together: with a cap of 6, four issued through one instance and
// two through the other fill it, and a seventh through either is refused (ErrNoncesFull) until one is consumed or
// expires; the index of live nonces never holds more than the cap and expires itself. Fails when the cap is not
// checked (tried: the ZCARD test removed: the seventh was issued) or a consumed nonce keeps its place (tried: the
// ZREM removed: still full after the consume).
func TestNonceCapOverBothInstances(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	const limit = 6
	issue := func(s *Store, n string, ttl time.Duration) error {
		ok, err := s.IssueNonce(ctx, n, ttl, limit)
		if err == nil && !ok {
			t.Fatalf("nonce %s exists already", n)
		}
		return err
	}
	for i, n := range []string{"capA00001", "capA00002", "capA00003", "capA00004", "capB00001", "capB00002"} {
		s, ttl := a, time.Minute
		if i >= 4 {
			s = b
		}
		if i < 2 {
			ttl = 150 * time.Millisecond // these two expire below
		}
		if err := issue(s, n, ttl); err != nil {
			t.Fatalf("nonce %d of %d: %v", i+1, limit, err)
		}
	}
	for _, s := range []*Store{a, b} {
		if err := issue(s, "capFull01", time.Minute); !errors.Is(err, ErrNoncesFull) {
			t.Fatalf("a nonce beyond the cap: %v, want ErrNoncesFull", err)
		}
	}
	if n, err := a.rdb.ZCard(ctx, a.nonceIndexKey()).Result(); err != nil || n != limit {
		t.Fatalf("index holds %d (%v), want %d", n, err, limit)
	}
	if ttl, err := a.rdb.PTTL(ctx, a.nonceIndexKey()).Result(); err != nil || ttl <= 0 || ttl > time.Minute {
		t.Fatalf("index TTL %v (%v), want (0, 1m]", ttl, err)
	}
	// A consumed nonce frees its place at once.
	if ok, err := b.BindNonce(ctx, "capA00003", "for-me"); err != nil || !ok {
		t.Fatalf("bind: %v %v", ok, err)
	}
	if res, err := b.ConsumeNonce(ctx, "capA00003", "for-me"); err != nil || res != NonceConsumed {
		t.Fatalf("consume: %v %v", res, err)
	}
	if err := issue(b, "capC00001", time.Minute); err != nil {
		t.Fatalf("after a consume: %v", err)
	}
	if err := issue(a, "capC00002", time.Minute); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("full again: %v, want ErrNoncesFull", err)
	}
	// Expired nonces free theirs.
	time.Sleep(250 * time.Millisecond)
	for _, n := range []string{"capC00002", "capC00003"} {
		if err := issue(a, n, time.Minute); err != nil {
			t.Fatalf("after two expired: %v", err)
		}
	}
	if err := issue(b, "capC00004", time.Minute); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("full after the expired were replaced: %v, want ErrNoncesFull", err)
	}
}

// A nonce issued bound (IssueBoundNonce) is live and bound at once: it cannot be bound again, is consumed once with
// its binding through the other instance, not with another; it counts against the cap as IssueNonce's do, and a
// value that exists is not issued again. Fails when the binding is not stored with the nonce (tried: an empty
// value stored: the consume answered unknown).
func TestNonceIssuedBound(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	if ok, err := a.IssueBoundNonce(ctx, "boundAAAA1", "for-me", time.Minute, 2); err != nil || !ok {
		t.Fatalf("issue bound: %v %v", ok, err)
	}
	if ok, _ := b.IssueBoundNonce(ctx, "boundAAAA1", "for-me", time.Minute, 2); ok {
		t.Fatal("a nonce was issued twice")
	}
	if ok, _ := b.BindNonce(ctx, "boundAAAA1", "for-another"); ok {
		t.Fatal("a nonce issued bound was bound again")
	}
	if res, _ := b.ConsumeNonce(ctx, "boundAAAA1", "for-another"); res != NonceMismatch {
		t.Fatalf("consume with another binding: %v, want a mismatch", res)
	}
	if ok, err := b.IssueNonce(ctx, "boundAAAA2", time.Minute, 2); err != nil || !ok {
		t.Fatalf("a second nonce: %v %v", ok, err)
	}
	if _, err := a.IssueBoundNonce(ctx, "boundAAAA3", "x", time.Minute, 2); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("a third under a cap of 2: %v, want ErrNoncesFull", err)
	}
	if res, err := b.ConsumeNonce(ctx, "boundAAAA1", "for-me"); err != nil || res != NonceConsumed {
		t.Fatalf("consume: %v %v", res, err)
	}
	if res, _ := a.ConsumeNonce(ctx, "boundAAAA1", "for-me"); res != NonceUnknown {
		t.Fatalf("second consume: %v, want unknown", res)
	}
	if _, err := a.IssueBoundNonce(ctx, "boundAAAA4", "", time.Minute, 0); err == nil {
		t.Fatal("an empty binding: no error")
	}
}
