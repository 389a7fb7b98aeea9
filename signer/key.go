package signer

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// errNoKey is what the methods of a nil *Key or *Ed25519Key return.
var errNoKey = errors.New("signer: no key")

// Key is a secp256k1 private key held in memory: an Ethereum (or any EVM chain) account that signs messages
// (Ethereum, for sign-in) and transactions (EthereumTx, for transfers). Make one with NewKey, NewKeyFromHex,
// NewKeyFromKeystore, NewKeyFromKeystoreFile or GenerateKey; the zero value and a nil *Key have no key (Address is
// the zero address, signing fails). A Key is immutable and safe for concurrent use. It never writes the key
// anywhere: String and GoString show the address only, and no error holds the key or a passphrase.
type Key struct {
	key  *ecdsa.PrivateKey // a pointer, so that printing a Key value shows an address, not the key
	addr common.Address
}

// NewKey makes a Key from a go-ethereum secp256k1 private key (crypto.HexToECDSA, crypto.GenerateKey,
// keystore.DecryptKey). The key is copied: changing key afterwards does not change the Key. A nil key, a key of
// another curve or a scalar out of range is an error.
func NewKey(key *ecdsa.PrivateKey) (*Key, error) {
	//lint:ignore SA1019 go-ethereum's keys are *ecdsa.PrivateKey with D set; a nil D would panic in crypto.FromECDSA
	if key == nil || key.D == nil {
		return nil, errors.New("signer: private key is nil")
	}
	if key.Curve != crypto.S256() {
		return nil, errors.New("signer: private key is not a secp256k1 key")
	}
	b := crypto.FromECDSA(key)
	defer clear(b)
	k, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, errors.New("signer: invalid secp256k1 private key")
	}
	return &Key{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}, nil
}

// NewKeyFromHex makes a Key from a hex private key: 64 hex digits, "0x" prefix optional, surrounding spaces
// ignored. The error never contains the key.
func NewKeyFromHex(hexKey string) (*Key, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(hexKey), "0x"), "0X")
	if len(h) != 64 {
		return nil, errors.New("signer: private key must be 32 bytes in hex")
	}
	if _, err := hex.DecodeString(h); err != nil {
		return nil, errors.New("signer: private key must be 32 bytes in hex")
	}
	key, err := crypto.HexToECDSA(h)
	if err != nil {
		return nil, errors.New("signer: invalid secp256k1 private key")
	}
	return NewKey(key)
}

// NewKeyFromKeystore decrypts a go-ethereum / Web3 Secret Storage ("V3") keystore file's JSON with passphrase.
// Decryption is deliberately slow (scrypt), so it is done once, here. The error never contains the passphrase.
func NewKeyFromKeystore(keyJSON []byte, passphrase string) (*Key, error) {
	k, err := keystore.DecryptKey(keyJSON, passphrase)
	if err != nil {
		// The underlying errors ("could not decrypt key with given password", bad JSON) hold no secrets.
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	return NewKey(k.PrivateKey)
}

// NewKeyFromKeystoreFile reads a keystore file and decrypts it with passphrase (see NewKeyFromKeystore).
func NewKeyFromKeystoreFile(path, passphrase string) (*Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	return NewKeyFromKeystore(b, passphrase)
}

// GenerateKey makes a Key from a fresh random key (crypto/rand), for development and tests.
func GenerateKey() (*Key, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("signer: generate key: %w", err)
	}
	return NewKey(key)
}

// Address returns the key's account; the zero address for a nil *Key.
func (k *Key) Address() common.Address {
	if k == nil {
		return common.Address{}
	}
	return k.addr
}

// String names the key by its EIP-55 address only.
func (k *Key) String() string {
	if k == nil || k.key == nil {
		return "signer.Key(none)"
	}
	return "signer.Key(" + k.addr.Hex() + ")"
}

// GoString is String, so that %#v does not print the key either.
func (k *Key) GoString() string { return k.String() }

// SignMessage signs accounts.TextHash(msg) (EIP-191 personal_sign) and returns [R || S || V] with V = 27 or 28,
// as wallets do. It fails with ctx's error when ctx is done.
func (k *Key) SignMessage(ctx context.Context, msg []byte) ([]byte, error) {
	if k == nil || k.key == nil {
		return nil, errNoKey
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(accounts.TextHash(msg), k.key)
	if err != nil {
		return nil, fmt.Errorf("signer: sign: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

// SignTx returns a copy of tx signed with the latest signer rules for chainID (types.LatestSignerForChainID).
// A nil tx or chainID is an error; so is a done ctx.
func (k *Key) SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	if k == nil || k.key == nil {
		return nil, errNoKey
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if tx == nil {
		return nil, errors.New("signer: transaction is nil")
	}
	if chainID == nil {
		return nil, errors.New("signer: chain id is required to sign")
	}
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(chainID), k.key)
	if err != nil {
		return nil, fmt.Errorf("signer: sign transaction: %w", err)
	}
	return signed, nil
}
