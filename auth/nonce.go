package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/internal/randid"
)

// ErrNonceInvalid is returned by NonceStore.Consume for a nonce that was never issued, was already consumed,
// or has expired. The three cases are deliberately one error: a caller learns nothing by probing.
var ErrNonceInvalid = errors.New("auth: nonce unknown, used or expired")

// DefaultNonceTTL is how long a nonce issued by the handler stays valid when no TTL is configured.
const DefaultNonceTTL = 5 * time.Minute

// Nonce is a server-issued one-time value and its expiry.
type Nonce struct {
	Value     string
	ExpiresAt time.Time
}

// NonceStore issues one-time nonces and consumes them, so a captured signature cannot be replayed.
// Implementations must be safe for concurrent use, and Consume must succeed at most once per nonce even when
// called concurrently (a shared store, e.g. Redis or SQL, is needed when several servers answer).
type NonceStore interface {
	// Issue makes a new nonce valid for ttl (DefaultNonceTTL when ttl <= 0).
	Issue(ctx context.Context, ttl time.Duration) (Nonce, error)
	// Consume marks nonce used. It returns ErrNonceInvalid when nonce is unknown, used or expired.
	Consume(ctx context.Context, nonce string) error
}

// MemoryNonceStore is the in-memory NonceStore. The zero value is not usable; make one with
// NewMemoryNonceStore. It is safe for concurrent use. Expired nonces are dropped on every Issue, so memory
// stays bounded by the number of nonces issued within one TTL; MaxOutstanding caps it.
type MemoryNonceStore struct {
	mu       sync.Mutex
	nonces   map[string]time.Time
	now      func() time.Time
	max      int
	lastGC   time.Time
	randRead func([]byte) (int, error)
}

// DefaultMaxOutstandingNonces caps how many unexpired nonces a MemoryNonceStore keeps.
const DefaultMaxOutstandingNonces = 100000

// ErrTooManyNonces is returned by MemoryNonceStore.Issue when the cap of outstanding nonces is reached.
var ErrTooManyNonces = errors.New("auth: too many outstanding nonces")

// NewMemoryNonceStore makes an in-memory store. now is the clock (nil: time.Now); it is a parameter so tests can
// move time. At most DefaultMaxOutstandingNonces unexpired nonces are kept.
func NewMemoryNonceStore(now func() time.Time) *MemoryNonceStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryNonceStore{nonces: map[string]time.Time{}, now: now, max: DefaultMaxOutstandingNonces, randRead: rand.Read}
}

// NewNonceValue returns 22 random alphanumeric characters (about 131 bits), valid as a SIWE nonce.
func NewNonceValue() (string, error) { return newNonceValue(rand.Read) }

func newNonceValue(read func([]byte) (int, error)) (string, error) { return randid.Alnum(read, 22) }

// Issue makes a nonce valid for ttl (DefaultNonceTTL when ttl <= 0).
func (s *MemoryNonceStore) Issue(ctx context.Context, ttl time.Duration) (Nonce, error) {
	if err := ctx.Err(); err != nil {
		return Nonce{}, err
	}
	if ttl <= 0 {
		ttl = DefaultNonceTTL
	}
	v, err := newNonceValue(s.randRead)
	if err != nil {
		return Nonce{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.nonces) >= s.max || now.Sub(s.lastGC) > time.Minute {
		for k, exp := range s.nonces {
			if !now.Before(exp) {
				delete(s.nonces, k)
			}
		}
		s.lastGC = now
	}
	if len(s.nonces) >= s.max {
		return Nonce{}, ErrTooManyNonces
	}
	exp := now.Add(ttl)
	s.nonces[v] = exp
	return Nonce{Value: v, ExpiresAt: exp}, nil
}

// Consume marks nonce used; it fails with ErrNonceInvalid when it is unknown, used or expired.
func (s *MemoryNonceStore) Consume(ctx context.Context, nonce string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.nonces[nonce]
	if !ok {
		return ErrNonceInvalid
	}
	delete(s.nonces, nonce)
	if !s.now().Before(exp) {
		return ErrNonceInvalid
	}
	return nil
}

// Len reports how many nonces are held (expired ones not yet dropped included); for tests and metrics.
func (s *MemoryNonceStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nonces)
}
