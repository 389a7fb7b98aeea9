package auth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoryNonceStore(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := NewMemoryNonceStore(clock)
	n, err := s.Issue(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !validNonce(n.Value) || len(n.Value) != 22 || !n.ExpiresAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("nonce %+v", n)
	}
	if err := s.Consume(ctx, n.Value); err != nil {
		t.Fatal(err)
	}
	if err := s.Consume(ctx, n.Value); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("second consume: %v", err)
	}
	if err := s.Consume(ctx, "neverIssued123"); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("unknown: %v", err)
	}
	old, _ := s.Issue(ctx, 0) // default TTL
	if !old.ExpiresAt.Equal(now.Add(DefaultNonceTTL)) {
		t.Fatalf("default ttl: %v", old.ExpiresAt)
	}
	mu.Lock()
	now = now.Add(DefaultNonceTTL)
	mu.Unlock()
	if err := s.Consume(ctx, old.Value); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("expired: %v", err)
	}
	// Expired nonces are dropped by a later Issue.
	for i := 0; i < 5; i++ {
		_, _ = s.Issue(ctx, time.Second)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	_, _ = s.Issue(ctx, time.Second)
	if s.Len() != 1 {
		t.Fatalf("expired nonces kept: %d", s.Len())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Issue(cctx, 0); err == nil {
		t.Fatal("Issue with a cancelled context")
	}
}

func TestMemoryNonceStoreConcurrentConsumeOnce(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryNonceStore(nil)
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		n, err := s.Issue(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if seen[n.Value] {
			t.Fatal("duplicate nonce")
		}
		seen[n.Value] = true
		var wins atomic.Int32
		var wg sync.WaitGroup
		for j := 0; j < 8; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.Consume(ctx, n.Value) == nil {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("nonce consumed %d times", wins.Load())
		}
	}
}

func TestMemoryNonceStoreCap(t *testing.T) {
	s := NewMemoryNonceStore(nil)
	s.max = 3
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := s.Issue(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Issue(ctx, time.Minute); !errors.Is(err, ErrTooManyNonces) {
		t.Fatalf("cap: %v", err)
	}
	s.randRead = func([]byte) (int, error) { return 0, errors.New("no entropy") }
	if _, err := s.Issue(ctx, time.Minute); err == nil {
		t.Fatal("entropy failure ignored")
	}
}
