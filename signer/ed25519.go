package signer

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/mr-tron/base58"
)

// Ed25519Key is an ed25519 private key held in memory: a Solana account that signs messages (Solana). Make one
// with NewEd25519Key, NewEd25519KeyFromBase58 or GenerateEd25519Key; the zero value and a nil *Ed25519Key have no
// key (PublicKey is "", signing fails). An Ed25519Key is immutable and safe for concurrent use. String and
// GoString show the public key only, and no error holds the key.
type Ed25519Key struct {
	key *ed25519.PrivateKey // a pointer, so that printing an Ed25519Key value shows an address, not the key
	pub string
}

// NewEd25519Key makes a key from a 64-byte ed25519 private key (seed || public key). The public half must be the
// one the seed gives: a key whose halves disagree would sign for another address than it shows, and is refused.
// The key is copied.
func NewEd25519Key(key ed25519.PrivateKey) (*Ed25519Key, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("signer: ed25519 private key must be 64 bytes")
	}
	k := ed25519.NewKeyFromSeed(key[:ed25519.SeedSize])
	if !k.Equal(key) {
		return nil, errors.New("signer: ed25519 private key's public half does not match its seed")
	}
	return &Ed25519Key{key: &k, pub: base58.Encode(k.Public().(ed25519.PublicKey))}, nil
}

// NewEd25519KeyFromBase58 makes a key from a base58 secret key of 64 bytes (seed || public key: the form Phantom
// and solana-keygen export) or a base58 seed of 32 bytes. Surrounding spaces are ignored. The error never
// contains the secret.
func NewEd25519KeyFromBase58(secret string) (*Ed25519Key, error) {
	b, err := base58.Decode(strings.TrimSpace(secret))
	if err != nil {
		return nil, errors.New("signer: secret key is not base58")
	}
	defer clear(b)
	switch len(b) {
	case ed25519.SeedSize:
		return NewEd25519Key(ed25519.NewKeyFromSeed(b))
	case ed25519.PrivateKeySize:
		return NewEd25519Key(ed25519.PrivateKey(b))
	default:
		return nil, errors.New("signer: secret key must be 32 or 64 bytes")
	}
}

// GenerateEd25519Key makes a key from a fresh random seed (crypto/rand), for development and tests.
func GenerateEd25519Key() (*Ed25519Key, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("signer: generate key: %w", err)
	}
	return NewEd25519Key(k)
}

// PublicKey returns the base58 address; "" for a nil *Ed25519Key.
func (k *Ed25519Key) PublicKey() string {
	if k == nil {
		return ""
	}
	return k.pub
}

// String names the key by its public key only.
func (k *Ed25519Key) String() string {
	if k == nil || k.key == nil {
		return "signer.Ed25519Key(none)"
	}
	return "signer.Ed25519Key(" + k.pub + ")"
}

// GoString is String, so that %#v does not print the key either.
func (k *Ed25519Key) GoString() string { return k.String() }

// SignMessage returns the ed25519 signature of msg. It fails with ctx's error when ctx is done.
func (k *Ed25519Key) SignMessage(ctx context.Context, msg []byte) ([]byte, error) {
	if k == nil || k.key == nil {
		return nil, errNoKey
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ed25519.Sign(*k.key, msg), nil
}
