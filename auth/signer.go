package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mr-tron/base58"
)

// EthSigner signs messages the way a wallet's personal_sign does (EIP-191). The library never owns keys: an
// application injects a signer (a private key, a keystore file, a hardware wallet, a remote signer).
// Implementations must be safe for concurrent use.
type EthSigner interface {
	// Address returns the signer's address (any case; it is lower-cased before use).
	Address() string
	// SignMessage returns the 65-byte [R || S || V] personal_sign signature of msg; V may be 0/1 or 27/28.
	SignMessage(ctx context.Context, msg []byte) ([]byte, error)
}

// SolSigner signs messages the way a Solana wallet's signMessage does (plain ed25519 over the bytes).
// Implementations must be safe for concurrent use.
type SolSigner interface {
	// PublicKey returns the base58 address (the ed25519 public key).
	PublicKey() string
	// SignMessage returns the 64-byte ed25519 signature of msg.
	SignMessage(ctx context.Context, msg []byte) ([]byte, error)
}

// PrivateKeySigner is an EthSigner holding a secp256k1 private key in memory. It is safe for concurrent use.
// Its String method never prints the key.
type PrivateKeySigner struct {
	key  *ecdsa.PrivateKey
	addr string
}

// NewPrivateKeySigner makes a signer from a hex private key (64 hex digits, 0x prefix optional).
func NewPrivateKeySigner(hexKey string) (*PrivateKeySigner, error) {
	k := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(hexKey), "0x"), "0X")
	if len(k) != 64 {
		return nil, errors.New("auth: private key must be 32 bytes in hex")
	}
	if _, err := hex.DecodeString(k); err != nil {
		return nil, errors.New("auth: private key must be 32 bytes in hex")
	}
	key, err := crypto.HexToECDSA(k)
	if err != nil {
		return nil, errors.New("auth: invalid secp256k1 private key")
	}
	return NewECDSASigner(key), nil
}

// NewECDSASigner makes a signer from a go-ethereum private key.
func NewECDSASigner(key *ecdsa.PrivateKey) *PrivateKeySigner {
	return &PrivateKeySigner{key: key, addr: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())}
}

// GenerateEthSigner makes a signer with a fresh random key (for development and tests).
func GenerateEthSigner() (*PrivateKeySigner, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("auth: generate key: %w", err)
	}
	return NewECDSASigner(key), nil
}

// Address returns the lower-cased 0x address.
func (s *PrivateKeySigner) Address() string { return s.addr }

// String names the signer by address only.
func (s *PrivateKeySigner) String() string { return "PrivateKeySigner(" + s.addr + ")" }

// SignMessage signs accounts.TextHash(msg) and returns [R || S || V] with V = 27 or 28, as wallets do.
func (s *PrivateKeySigner) SignMessage(ctx context.Context, msg []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(accounts.TextHash(msg), s.key)
	if err != nil {
		return nil, fmt.Errorf("auth: sign: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

// NewKeystoreSigner decrypts a go-ethereum / Web3 Secret Storage keystore JSON with password and returns a
// signer for its key.
func NewKeystoreSigner(keyJSON []byte, password string) (*PrivateKeySigner, error) {
	k, err := keystore.DecryptKey(keyJSON, password)
	if err != nil {
		// The underlying errors ("could not decrypt key with given password", bad JSON) hold no secrets.
		return nil, fmt.Errorf("auth: keystore: %w", err)
	}
	return NewECDSASigner(k.PrivateKey), nil
}

// NewKeystoreFileSigner reads a keystore file and decrypts it with password.
func NewKeystoreFileSigner(path, password string) (*PrivateKeySigner, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: keystore: %w", err)
	}
	return NewKeystoreSigner(b, password)
}

// Ed25519Signer is a SolSigner holding an ed25519 private key in memory. It is safe for concurrent use.
type Ed25519Signer struct {
	key ed25519.PrivateKey
	pub string
}

// NewEd25519Signer makes a signer from a 64-byte ed25519 private key (seed || public key).
func NewEd25519Signer(key ed25519.PrivateKey) (*Ed25519Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("auth: ed25519 private key must be 64 bytes")
	}
	k := append(ed25519.PrivateKey(nil), key...)
	return &Ed25519Signer{key: k, pub: base58.Encode(k.Public().(ed25519.PublicKey))}, nil
}

// NewSolSignerFromBase58 makes a signer from a base58 secret key of 64 bytes (the form Phantom and
// solana-keygen export) or a base58 seed of 32 bytes.
func NewSolSignerFromBase58(secret string) (*Ed25519Signer, error) {
	b, err := base58.Decode(strings.TrimSpace(secret))
	if err != nil {
		return nil, errors.New("auth: secret key is not base58")
	}
	switch len(b) {
	case ed25519.SeedSize:
		return NewEd25519Signer(ed25519.NewKeyFromSeed(b))
	case ed25519.PrivateKeySize:
		k := ed25519.PrivateKey(b)
		if !ed25519.NewKeyFromSeed(b[:32]).Equal(k) {
			return nil, errors.New("auth: secret key's public half does not match its seed")
		}
		return NewEd25519Signer(k)
	default:
		return nil, errors.New("auth: secret key must be 32 or 64 bytes")
	}
}

// GenerateSolSigner makes a signer with a fresh random key (for development and tests).
func GenerateSolSigner() (*Ed25519Signer, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("auth: generate key: %w", err)
	}
	return NewEd25519Signer(k)
}

// PublicKey returns the base58 address.
func (s *Ed25519Signer) PublicKey() string { return s.pub }

// String names the signer by address only.
func (s *Ed25519Signer) String() string { return "Ed25519Signer(" + s.pub + ")" }

// SignMessage returns the ed25519 signature of msg.
func (s *Ed25519Signer) SignMessage(ctx context.Context, msg []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ed25519.Sign(s.key, msg), nil
}
