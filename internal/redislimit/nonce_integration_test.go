//go:build integration

package redislimit

import (
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
	ok, err := a.IssueNonce(ctx, "nonceAAAA1", time.Minute)
	if err != nil || !ok {
		t.Fatalf("issue: %v %v", ok, err)
	}
	if ok, _ := b.IssueNonce(ctx, "nonceAAAA1", time.Minute); ok {
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
	if ok, _ := a.IssueNonce(ctx, "nonceBBBB2", 50*time.Millisecond); !ok {
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
