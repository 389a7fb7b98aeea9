package authserver

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/ed25519vec"
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
	b := testBinding(n.Value)
	if err := s.Bind(ctx, n.Value, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(ctx, n.Value, b); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("second bind: %v", err)
	}
	if err := s.Consume(ctx, n.Value, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Consume(ctx, n.Value, b); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("second consume: %v", err)
	}
	if err := s.Consume(ctx, "neverIssued123", b); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("unknown: %v", err)
	}
	old, _ := s.Issue(ctx, 0) // default TTL
	if !old.ExpiresAt.Equal(now.Add(DefaultNonceTTL)) {
		t.Fatalf("default ttl: %v", old.ExpiresAt)
	}
	if err := s.Bind(ctx, old.Value, testBinding(old.Value)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(DefaultNonceTTL)
	mu.Unlock()
	if err := s.Consume(ctx, old.Value, testBinding(old.Value)); !errors.Is(err, ErrNonceInvalid) {
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
		if err := s.Bind(ctx, n.Value, testBinding(n.Value)); err != nil {
			t.Fatal(err)
		}
		var wins atomic.Int32
		var wg sync.WaitGroup
		for j := 0; j < 8; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.Consume(ctx, n.Value, testBinding(n.Value)) == nil {
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
	s.newValue = func() (string, error) { return "", errors.New("no entropy") }
	if _, err := s.Issue(ctx, time.Minute); err == nil {
		t.Fatal("entropy failure ignored")
	}
}

// testBinding is a binding of nonce to a Solana message for a fixed address.
func testBinding(nonce string) NonceBinding {
	return NonceBinding{Chain: auth.ChainSolana, Address: ed25519vec.KATPub58, Message: auth.BuildMoralisMessage("", "testAppId", nonce)}
}

// A nonce is accepted only with exactly what it was bound to: another text (one byte more, or another statement),
// address or chain is refused with ErrNonceMismatch and leaves it usable; an unbound nonce is never accepted.
func TestMemoryNonceStoreBinding(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryNonceStore(nil)
	n, _ := s.Issue(ctx, time.Minute)
	b := testBinding(n.Value)
	if err := s.Consume(ctx, n.Value, b); !errors.Is(err, ErrNonceInvalid) {
		t.Fatalf("unbound nonce: %v", err)
	}
	n, _ = s.Issue(ctx, time.Minute)
	b = testBinding(n.Value)
	if err := s.Bind(ctx, n.Value, b); err != nil {
		t.Fatal(err)
	}
	for name, other := range map[string]NonceBinding{
		"text + byte":   {Chain: b.Chain, Address: b.Address, Message: b.Message + " "},
		"other text":    {Chain: b.Chain, Address: b.Address, Message: auth.BuildMoralisMessage("Welcome", "testAppId", n.Value)},
		"other address": {Chain: b.Chain, Address: "FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96a", Message: b.Message},
		"other chain":   {Chain: auth.ChainEVM, Address: b.Address, Message: b.Message},
	} {
		if err := s.Consume(ctx, n.Value, other); !errors.Is(err, ErrNonceMismatch) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := s.Consume(ctx, n.Value, b); err != nil {
		t.Fatalf("own binding after the refusals: %v", err)
	}
}
