package signer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Ethereum signs messages the way a wallet's personal_sign does (EIP-191): Keccak-256 of
// "\x19Ethereum Signed Message:\n" + len(msg) + msg, signed with the account's secp256k1 key. Package auth signs
// users in with it. *Key implements it; a hardware wallet, a remote signer or a browser wallet bridge can too.
//
// Implementations must be safe for concurrent use. SignMessage may block (a wallet asking its user) but must
// return when ctx is done, with ctx's error.
type Ethereum interface {
	// Address is the signing account; the zero address means "no account" (callers refuse it).
	Address() common.Address
	// SignMessage returns the 65-byte [R || S || V] personal_sign signature of msg, V being 27 or 28 (as wallets
	// return it; 0 or 1 is accepted too). It must not change msg.
	SignMessage(ctx context.Context, msg []byte) ([]byte, error)
}

// EthereumTx signs transactions for one account. Package transfer sends with it. *Key implements it.
//
// Implementations must be safe for concurrent use. SignTx may block (a wallet asking its user) but must return
// when ctx is done, with ctx's error.
type EthereumTx interface {
	// Address is the sending account; the zero address means "no account" (callers refuse it).
	Address() common.Address
	// SignTx returns a copy of tx signed for chainID (EIP-155 and later rules). It must not send anything and
	// must not change tx.
	SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

// Solana signs messages the way a Solana wallet's signMessage does: a plain ed25519 signature over the bytes.
// Package auth signs users in with it. *Ed25519Key implements it.
//
// Implementations must be safe for concurrent use. SignMessage may block (a wallet asking its user) but must
// return when ctx is done, with ctx's error.
type Solana interface {
	// PublicKey is the base58 address (the ed25519 public key); "" means "no account" (callers refuse it).
	PublicKey() string
	// SignMessage returns the 64-byte ed25519 signature of msg. It must not change msg.
	SignMessage(ctx context.Context, msg []byte) ([]byte, error)
}

// The implementations of this package.
var (
	_ Ethereum   = (*Key)(nil)
	_ EthereumTx = (*Key)(nil)
	_ Solana     = (*Ed25519Key)(nil)
)
