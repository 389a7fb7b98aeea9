package transfer

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Backend is the part of an Ethereum JSON-RPC client the package needs. Both
// *ethclient.Client and the client of go-ethereum's simulated backend
// (ethclient/simulated) satisfy it. A nil block number means the latest block.
// Implementations must be safe for concurrent use.
type Backend interface {
	ChainID(ctx context.Context) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	SuggestGasPrice(ctx context.Context) (*big.Int, error)
	EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
}

// Signer signs transactions for one account. Implementations must be safe for
// concurrent use. A wallet that asks its user may block in SignTx until ctx is done.
type Signer interface {
	// Address is the account that signs; the zero address means "no account".
	Address() common.Address
	// SignTx returns tx signed for chainID. It must not send anything.
	SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

// PrivateKeySigner signs with a private key held in memory. It never writes
// the key anywhere. Safe for concurrent use.
type PrivateKeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewPrivateKeySigner wraps key. It returns an error for a nil key.
func NewPrivateKeySigner(key *ecdsa.PrivateKey) (*PrivateKeySigner, error) {
	if key == nil {
		return nil, errors.New("transfer: private key is nil")
	}
	return &PrivateKeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}, nil
}

// NewHexKeySigner parses a hex private key (64 hex digits, "0x" optional).
// The error never contains the key.
func NewHexKeySigner(hexKey string) (*PrivateKeySigner, error) {
	h := strings.TrimPrefix(strings.TrimSpace(hexKey), "0x")
	key, err := crypto.HexToECDSA(h)
	if err != nil {
		return nil, errors.New("transfer: invalid hex private key")
	}
	return NewPrivateKeySigner(key)
}

// NewKeystoreSigner decrypts a go-ethereum/web3 "V3" keystore file (its JSON
// content) with passphrase. Decryption is deliberately slow (scrypt), so it is
// done once here. The error never contains the passphrase.
func NewKeystoreSigner(keyJSON []byte, passphrase string) (*PrivateKeySigner, error) {
	k, err := keystore.DecryptKey(keyJSON, passphrase)
	if err != nil {
		return nil, fmt.Errorf("transfer: keystore: %w", err)
	}
	return NewPrivateKeySigner(k.PrivateKey)
}

// Address returns the signer's account.
func (s *PrivateKeySigner) Address() common.Address {
	if s == nil {
		return common.Address{}
	}
	return s.addr
}

// SignTx signs tx with the latest signer rules for chainID.
func (s *PrivateKeySigner) SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	if s == nil || s.key == nil {
		return nil, ErrSenderNotFound
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if chainID == nil {
		return nil, errors.New("transfer: chain id is required to sign")
	}
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), s.key)
}
