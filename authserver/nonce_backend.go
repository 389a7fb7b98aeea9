package authserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// DefaultNonceClass is the backend class BackendNonceStore keeps its nonces in.
const DefaultNonceClass = "MoralisAuthNonce"

// BackendNonceStore keeps nonces in the backend itself, so several endpoint instances share them with no new
// server: each nonce is one object of a class readable by the master key only (empty ACL; the local stack also
// gives the class master-key-only class-level permissions). The nonce is the object's id followed by a random
// secret; Bind stores the chain, address and message it was issued with; Consume compares them (the message byte
// for byte) and deletes the object, and the database lets exactly one of two concurrent deletes succeed (the other
// gets "object not found"), so a nonce is accepted at most once across every instance. Expired objects are refused
// by Consume and removed by PurgeExpired.
//
// These nonces are the endpoint's own: the backend's wallet adapters never accept them. After a sign-in passes the
// endpoint, ClientBackend hands the backend a one-time ticket of its own (auth.IssueTicket).
//
// A Redis-backed store plugs in the same way: Issue = SET key "" EX ttl NX, Bind = SET key binding XX KEEPTTL,
// Consume = GETDEL key and compare (one winner).
//
// It is safe for concurrent use.
type BackendNonceStore struct {
	c     *client.Client
	class string
	now   func() time.Time
}

// NewBackendNonceStore makes a store over c, which must have a master key configured (the store uses it for its
// class only, through c.WithMasterKey). Nonces live in class DefaultNonceClass.
func NewBackendNonceStore(c *client.Client) (*BackendNonceStore, error) {
	if c == nil || !c.HasMasterKey() {
		return nil, errors.New("authserver: BackendNonceStore needs a client with the master key")
	}
	return &BackendNonceStore{c: c.WithMasterKey(), class: DefaultNonceClass, now: time.Now}, nil
}

// Issue creates a nonce valid for ttl (DefaultNonceTTL when ttl <= 0). The value is alphanumeric, as EIP-4361
// requires.
func (s *BackendNonceStore) Issue(ctx context.Context, ttl time.Duration) (Nonce, error) {
	if ttl <= 0 {
		ttl = DefaultNonceTTL
	}
	secret, err := auth.NewNonceValue()
	if err != nil {
		return Nonce{}, err
	}
	exp := s.now().Add(ttl).UTC()
	o := parse.NewObject(s.class)
	o.Set("secret", secret)
	o.Set("expiresAt", exp)
	o.SetACL(parse.NewACL())
	if err := s.c.Objects.Save(ctx, o); err != nil {
		return Nonce{}, fmt.Errorf("authserver: issuing a nonce: %w", err)
	}
	if len(o.ID()) == 0 {
		return Nonce{}, errors.New("authserver: issuing a nonce: the backend answered no id")
	}
	return Nonce{Value: o.ID() + secret, ExpiresAt: exp}, nil
}

// Bind stores what nonce was issued for (one update of its object). It fails with ErrNonceInvalid for a value that
// is not a nonce of this store.
func (s *BackendNonceStore) Bind(ctx context.Context, nonce string, b NonceBinding) error {
	id, _, ok := splitBackendNonce(nonce)
	if !ok {
		return ErrNonceInvalid
	}
	o := parse.NewObjectWithID(s.class, id)
	o.Set("chain", string(b.Chain))
	o.Set("address", b.Address)
	o.Set("message", b.Message)
	if err := s.c.Objects.Save(ctx, o); err != nil {
		if errors.Is(err, parse.ErrObjectNotFound) {
			return ErrNonceInvalid
		}
		return fmt.Errorf("authserver: binding a nonce: %w", err)
	}
	return nil
}

// splitBackendNonce splits a nonce into its object id and secret; ok is false for anything but 32 ASCII letters
// and digits.
func splitBackendNonce(nonce string) (id, secret string, ok bool) {
	if len(nonce) != 32 {
		return "", "", false
	}
	for _, r := range nonce {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return "", "", false
		}
	}
	return nonce[:10], nonce[10:], true
}

// Consume accepts a nonce once: it must exist, match its secret, be unexpired and bound to exactly b (else
// ErrNonceMismatch, and it stays), and this call must be the one that deletes it.
func (s *BackendNonceStore) Consume(ctx context.Context, nonce string, b NonceBinding) error {
	id, secret, ok := splitBackendNonce(nonce)
	if !ok {
		return ErrNonceInvalid
	}
	o, err := s.c.Objects.Get(ctx, s.class, id)
	if errors.Is(err, parse.ErrObjectNotFound) || errors.Is(err, parse.ErrInvalidClassName) {
		return ErrNonceInvalid
	}
	if err != nil {
		return fmt.Errorf("authserver: checking a nonce: %w", err)
	}
	if o.String("secret") != secret || !s.now().Before(o.Time("expiresAt")) || o.String("message") == "" {
		return ErrNonceInvalid
	}
	if o.String("chain") != string(b.Chain) || o.String("address") != b.Address || o.String("message") != b.Message {
		return ErrNonceMismatch
	}
	if err := s.c.Objects.Destroy(ctx, o); err != nil {
		if errors.Is(err, parse.ErrObjectNotFound) {
			return ErrNonceInvalid // another instance consumed it first
		}
		return fmt.Errorf("authserver: consuming a nonce: %w", err)
	}
	return nil
}

// PurgeExpired deletes expired nonces and returns how many.
func (s *BackendNonceStore) PurgeExpired(ctx context.Context) (int, error) {
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	where := map[string]any{"expiresAt": map[string]any{"$lt": map[string]any{"__type": "Date", "iso": parse.FormatDate(s.now())}}}
	if err := s.c.Request(ctx, "GET", "classes/"+s.class, map[string]any{"where": where, "limit": 1000, "keys": "objectId"}, &resp); err != nil {
		if errors.Is(err, parse.ErrInvalidClassName) {
			return 0, nil
		}
		return 0, err
	}
	objs := make([]*parse.Object, 0, len(resp.Results))
	for _, r := range resp.Results {
		id, _ := r["objectId"].(string)
		objs = append(objs, parse.NewObjectWithID(s.class, id))
	}
	if len(objs) == 0 {
		return 0, nil
	}
	if err := s.c.Objects.DestroyAll(ctx, objs); err != nil {
		return 0, err
	}
	return len(objs), nil
}
