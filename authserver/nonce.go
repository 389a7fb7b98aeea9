package authserver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/auth"
)

// ErrNonceInvalid is returned by NonceStore.Consume for a nonce that was never issued, was already consumed,
// or has expired. The three cases are deliberately one error: a caller learns nothing by probing.
var ErrNonceInvalid = errors.New("authserver: nonce unknown, used or expired")

// DefaultNonceTTL is how long a nonce stays valid when no TTL is given (Config.NonceTTL, NonceStore.Issue).
const DefaultNonceTTL = 5 * time.Minute

// Nonce is a server-issued one-time value and its expiry. It is a plain value.
type Nonce struct {
	// Value is the nonce: ASCII letters and digits, at least 8 (a valid SIWE nonce).
	Value string
	// ExpiresAt is when the nonce stops being accepted.
	ExpiresAt time.Time
}

// ErrNonceMismatch is returned by NonceStore.Consume for a live nonce that was issued for another message, address
// or chain than the one presented. The nonce is not consumed: it stays good for what it was issued for.
var ErrNonceMismatch = errors.New("authserver: nonce was issued for another message, address or chain")

// NonceBinding is what a nonce was issued for: the chain, the address (canonical: lower-case 0x for EVM, base58
// for Solana) and the exact text of the message that carries it. It is a plain, comparable value.
type NonceBinding struct {
	// Chain is the wallet family the nonce was issued for.
	Chain auth.Chain
	// Address is the canonical address: lower-case 0x for EVM, base58 for Solana.
	Address string
	// Message is the exact text handed out with the nonce (compared byte for byte).
	Message string
}

// NonceStore issues one-time nonces, remembers what each was issued for, and consumes them, so a captured
// signature cannot be replayed and a nonce cannot be moved to another text, address or chain.
// Implementations must be safe for concurrent use, and Consume must succeed at most once per nonce even when
// called concurrently (a shared store, e.g. Redis or SQL, is needed when several servers answer).
type NonceStore interface {
	// Issue makes a new nonce valid for ttl (DefaultNonceTTL when ttl <= 0).
	Issue(ctx context.Context, ttl time.Duration) (Nonce, error)
	// Bind records what an issued nonce was issued for. The Handler calls it once, right after Issue, with the
	// message it is about to hand out. A nonce that is not bound is never accepted.
	Bind(ctx context.Context, nonce string, b NonceBinding) error
	// Consume marks nonce used when it is live and was bound to exactly b (the message compared byte for byte).
	// It returns ErrNonceInvalid when nonce is unknown, used, expired or unbound, and ErrNonceMismatch (without
	// consuming it) when it was bound to something else.
	Consume(ctx context.Context, nonce string, b NonceBinding) error
}

// boundIssuer is a NonceStore that issues a nonce already bound, in one step (the Redis store: one round trip
// instead of two): bind(n) returns what n is for. The Handler uses it when its NonceStore has it, else Issue and
// Bind.
type boundIssuer interface {
	issueBound(ctx context.Context, ttl time.Duration, bind func(Nonce) NonceBinding) (Nonce, error)
}

// MemoryNonceStore is the in-memory NonceStore, the Handler's default: good for one endpoint process (several
// instances behind a load balancer need a shared store, such as BackendNonceStore). The zero value is not
// usable; make one with NewMemoryNonceStore. It is safe for concurrent use. Expired nonces are dropped as Issue
// goes, so memory stays bounded by the nonces issued within one TTL; DefaultMaxOutstandingNonces caps it.
type MemoryNonceStore struct {
	mu       sync.Mutex
	nonces   map[string]memoryNonce
	now      func() time.Time
	max      int
	lastGC   time.Time
	newValue func() (string, error) // auth.NewNonceValue; tests make it fail
}

// memoryNonce is an issued nonce: its expiry and, once bound, what it was issued for.
type memoryNonce struct {
	exp   time.Time
	bound bool
	b     NonceBinding
}

// DefaultMaxOutstandingNonces caps how many unexpired nonces a MemoryNonceStore keeps, and how many the Redis store
// (the default with Config.Redis or RedisURL) keeps over all the instances together; beyond it GET /message answers
// 503 "Nonce store unavailable" until nonces are used or expire.
const DefaultMaxOutstandingNonces = 100000

// ErrTooManyNonces is returned by MemoryNonceStore.Issue when the cap of outstanding nonces is reached.
var ErrTooManyNonces = errors.New("authserver: too many outstanding nonces")

// NewMemoryNonceStore makes an in-memory store. now is the clock (nil: time.Now); it is a parameter so tests can
// move time. At most DefaultMaxOutstandingNonces unexpired nonces are kept.
func NewMemoryNonceStore(now func() time.Time) *MemoryNonceStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryNonceStore{nonces: map[string]memoryNonce{}, now: now, max: DefaultMaxOutstandingNonces,
		newValue: auth.NewNonceValue}
}

// Issue makes a nonce valid for ttl (DefaultNonceTTL when ttl <= 0).
func (s *MemoryNonceStore) Issue(ctx context.Context, ttl time.Duration) (Nonce, error) {
	if err := ctx.Err(); err != nil {
		return Nonce{}, err
	}
	if ttl <= 0 {
		ttl = DefaultNonceTTL
	}
	v, err := s.newValue()
	if err != nil {
		return Nonce{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.nonces) >= s.max || now.Sub(s.lastGC) > time.Minute {
		for k, n := range s.nonces {
			if !now.Before(n.exp) {
				delete(s.nonces, k)
			}
		}
		s.lastGC = now
	}
	if len(s.nonces) >= s.max {
		return Nonce{}, ErrTooManyNonces
	}
	exp := now.Add(ttl)
	s.nonces[v] = memoryNonce{exp: exp}
	return Nonce{Value: v, ExpiresAt: exp}, nil
}

// Bind records what nonce was issued for; it fails with ErrNonceInvalid when nonce is unknown, expired or bound
// already.
func (s *MemoryNonceStore) Bind(ctx context.Context, nonce string, b NonceBinding) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nonces[nonce]
	if !ok || n.bound || !s.now().Before(n.exp) {
		return ErrNonceInvalid
	}
	n.bound, n.b = true, b
	s.nonces[nonce] = n
	return nil
}

// Consume marks nonce used when it is live and bound to exactly b. It fails with ErrNonceInvalid when it is
// unknown, used, expired or unbound, and with ErrNonceMismatch (leaving it unused) when it is bound to another
// message, address or chain.
func (s *MemoryNonceStore) Consume(ctx context.Context, nonce string, b NonceBinding) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nonces[nonce]
	if !ok {
		return ErrNonceInvalid
	}
	if !s.now().Before(n.exp) || !n.bound {
		delete(s.nonces, nonce)
		return ErrNonceInvalid
	}
	if n.b != b {
		return ErrNonceMismatch
	}
	delete(s.nonces, nonce)
	return nil
}

// Len reports how many nonces are held (expired ones not yet dropped included); for tests and metrics.
func (s *MemoryNonceStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nonces)
}
