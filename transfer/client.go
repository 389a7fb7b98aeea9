package transfer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/c13f5054/moralis-go/signer"
)

// DefaultReceiptPollInterval is how often Client polls for a receipt when
// TxOptions.Wait is set and Config.ReceiptPollInterval is zero.
const DefaultReceiptPollInterval = time.Second

// Config configures a Client. The zero value is usable.
type Config struct {
	// Signer signs transactions (a *signer.Key, or any wallet that implements
	// signer.EthereumTx). It may be nil (the default) for a client that only
	// makes view calls; Transfer then fails with ErrSenderNotFound and
	// state-changing ExecuteFunction calls with ErrFromRequired.
	Signer signer.EthereumTx
	// ChainID, when set, is the chain the caller expects; every transaction
	// first checks that the backend reports the same id and fails otherwise.
	ChainID *big.Int
	// ReceiptPollInterval is the receipt polling period when waiting; default
	// DefaultReceiptPollInterval.
	ReceiptPollInterval time.Duration
}

// Client sends transfers and contract calls through a Backend. It is immutable
// after New and safe for concurrent use.
type Client struct {
	backend Backend
	signer  signer.EthereumTx
	chainID *big.Int
	poll    time.Duration
}

// New makes a Client on backend. A nil backend or a negative poll interval is
// an error. The Config is copied.
func New(backend Backend, cfg Config) (*Client, error) {
	if backend == nil {
		return nil, errors.New("transfer: backend is nil")
	}
	if cfg.ReceiptPollInterval < 0 {
		return nil, errors.New("transfer: negative receipt poll interval")
	}
	c := &Client{backend: backend, signer: cfg.Signer, poll: cfg.ReceiptPollInterval}
	if c.poll == 0 {
		c.poll = DefaultReceiptPollInterval
	}
	if cfg.ChainID != nil {
		c.chainID = new(big.Int).Set(cfg.ChainID)
	}
	return c, nil
}

// TxOptions are per-transaction settings. A nil *TxOptions, or any zero field,
// means "work it out": nonce from the pending state, gas estimated, EIP-1559
// fees from the node (tip = SuggestGasTipCap, fee cap = tip + 2 × head base
// fee), or a legacy gas price from SuggestGasPrice when the head block has no
// base fee. The options are never modified.
type TxOptions struct {
	Nonce     *uint64  // default: pending nonce of the signer
	GasLimit  uint64   // default: EstimateGas
	GasTipCap *big.Int // EIP-1559 priority fee; default SuggestGasTipCap
	GasFeeCap *big.Int // EIP-1559 max fee; default tip + 2 × base fee
	GasPrice  *big.Int // when set, a legacy transaction with this price is sent
	// Wait blocks until the transaction is mined and fills Result.Receipt. A
	// mined transaction that failed gives a *RevertError with the Result.
	Wait bool
	// DryRun builds and signs the transaction but does not send it.
	DryRun bool
}

// Result is what a sent (or dry-run) transaction produced.
type Result struct {
	Tx      *types.Transaction // the signed transaction
	From    common.Address
	Sent    bool           // false for a dry run
	Receipt *types.Receipt // set when TxOptions.Wait was set and the tx was mined
}

// Hash is the transaction hash.
func (r *Result) Hash() common.Hash { return r.Tx.Hash() }

// Transfer validates p, then sends the transfer it describes from the
// client's signer: a value transfer (native), transfer(to, amount) (erc20),
// safeTransferFrom(from, to, tokenId) (erc721) or safeTransferFrom(from, to,
// id, amount, "") (erc1155). Invalid input gives a *ValidationError and no
// network call is made; a missing signer gives ErrSenderNotFound.
func (c *Client) Transfer(ctx context.Context, p Params, opts *TxOptions) (*Result, error) {
	v, err := p.validate()
	if err != nil {
		return nil, err
	}
	from, err := c.sender(ErrSenderNotFound)
	if err != nil {
		return nil, err
	}
	var (
		to    common.Address
		value *big.Int
		data  []byte
	)
	switch v.typ {
	case Native:
		to, value = v.receiver, v.amount
	case ERC20:
		to = v.contract
		data, err = tokenABI.Pack("transfer", v.receiver, v.amount)
	case ERC721:
		to = v.contract
		data, err = tokenABI.Pack("safeTransferFrom", from, v.receiver, v.tokenID)
	case ERC1155:
		to = v.contract
		data, err = erc1155ABI.Pack("safeTransferFrom", from, v.receiver, v.tokenID, v.amount, []byte{})
	}
	if err != nil {
		return nil, fmt.Errorf("transfer: encode %s call: %w", v.typ, err)
	}
	return c.transact(ctx, from, to, value, data, opts)
}

// sender returns the signer's address or errNone when there is none.
func (c *Client) sender(errNone error) (common.Address, error) {
	if c.signer == nil {
		return common.Address{}, errNone
	}
	a := c.signer.Address()
	if a == (common.Address{}) {
		return common.Address{}, errNone
	}
	return a, nil
}

// transact builds, signs and (unless a dry run) sends one transaction.
func (c *Client) transact(ctx context.Context, from, to common.Address, value *big.Int, data []byte, opts *TxOptions) (*Result, error) {
	var o TxOptions
	if opts != nil {
		o = *opts
	}
	if value == nil {
		value = new(big.Int)
	}
	chainID, err := c.backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("transfer: chain id: %w", err)
	}
	if c.chainID != nil && c.chainID.Cmp(chainID) != 0 {
		return nil, fmt.Errorf("transfer: node is on chain %s, expected chain %s", chainID, c.chainID)
	}
	var nonce uint64
	if o.Nonce != nil {
		nonce = *o.Nonce
	} else if nonce, err = c.backend.PendingNonceAt(ctx, from); err != nil {
		return nil, fmt.Errorf("transfer: pending nonce: %w", err)
	}

	msg := ethereum.CallMsg{From: from, To: &to, Value: value, Data: data}
	legacy := o.GasPrice != nil
	var tip, feeCap, gasPrice *big.Int
	if legacy {
		gasPrice = new(big.Int).Set(o.GasPrice)
	} else {
		head, err := c.backend.HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("transfer: latest header: %w", err)
		}
		if head.BaseFee == nil {
			legacy = true
			if gasPrice, err = c.backend.SuggestGasPrice(ctx); err != nil {
				return nil, fmt.Errorf("transfer: suggest gas price: %w", err)
			}
		} else {
			if o.GasTipCap != nil {
				tip = new(big.Int).Set(o.GasTipCap)
			} else if tip, err = c.backend.SuggestGasTipCap(ctx); err != nil {
				return nil, fmt.Errorf("transfer: suggest gas tip: %w", err)
			}
			if o.GasFeeCap != nil {
				feeCap = new(big.Int).Set(o.GasFeeCap)
			} else {
				feeCap = new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
			}
			if feeCap.Cmp(tip) < 0 {
				return nil, fmt.Errorf("transfer: max fee %s is below the tip %s", feeCap, tip)
			}
		}
	}
	if legacy {
		msg.GasPrice = gasPrice
	} else {
		msg.GasTipCap, msg.GasFeeCap = tip, feeCap
	}

	gas := o.GasLimit
	if gas == 0 {
		if gas, err = c.backend.EstimateGas(ctx, msg); err != nil {
			return nil, revertFrom("estimate gas", err)
		}
	}

	var unsigned *types.Transaction
	if legacy {
		unsigned = types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: gasPrice, Gas: gas, To: &to, Value: value, Data: data})
	} else {
		unsigned = types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
			Gas: gas, To: &to, Value: value, Data: data})
	}
	signed, err := c.signer.SignTx(ctx, unsigned, chainID)
	if err != nil {
		return nil, fmt.Errorf("transfer: sign: %w", err)
	}
	if got, err := types.Sender(types.LatestSignerForChainID(chainID), signed); err != nil || got != from {
		return nil, fmt.Errorf("transfer: signer returned a transaction not signed by %s", from.Hex())
	}
	res := &Result{Tx: signed, From: from}
	if o.DryRun {
		return res, nil
	}
	if err := c.backend.SendTransaction(ctx, signed); err != nil {
		return nil, fmt.Errorf("transfer: send %s: %w", signed.Hash().Hex(), err)
	}
	res.Sent = true
	if !o.Wait {
		return res, nil
	}
	rcpt, err := c.WaitMined(ctx, signed.Hash())
	if err != nil {
		return res, err
	}
	res.Receipt = rcpt
	if rcpt.Status != types.ReceiptStatusSuccessful {
		msg.Gas = signed.Gas()
		return res, c.failedReason(ctx, msg, rcpt)
	}
	return res, nil
}

// WaitMined polls for the receipt of hash until it is mined or ctx is done.
// It returns the receipt whatever its status, once the node's latest block has
// reached the receipt's block: a node can answer the receipt a moment before
// the block it is in becomes the latest one (go-ethereum's simulated chain
// does while it seals; a load-balanced RPC endpoint may send the two calls to
// nodes at different heights), and a balance read right after WaitMined must
// see the transaction.
func (c *Client) WaitMined(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	t := time.NewTicker(c.poll)
	defer t.Stop()
	for {
		rcpt, err := c.backend.TransactionReceipt(ctx, hash)
		if err == nil && rcpt != nil {
			if err := c.waitHead(ctx, hash, rcpt.BlockNumber, t.C); err != nil {
				return nil, err
			}
			return rcpt, nil
		}
		if err != nil && !notMinedYet(err) {
			return nil, fmt.Errorf("transfer: receipt of %s: %w", hash.Hex(), err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("transfer: waiting for %s: %w", hash.Hex(), ctx.Err())
		case <-t.C:
		}
	}
}

// waitHead polls the latest block until it is at least n (nil: no wait).
func (c *Client) waitHead(ctx context.Context, hash common.Hash, n *big.Int, tick <-chan time.Time) error {
	if n == nil {
		return nil
	}
	for {
		head, err := c.backend.HeaderByNumber(ctx, nil)
		if err != nil {
			return fmt.Errorf("transfer: latest header after the receipt of %s: %w", hash.Hex(), err)
		}
		if head.Number != nil && head.Number.Cmp(n) >= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("transfer: waiting for block %s of %s: %w", n, hash.Hex(), ctx.Err())
		case <-tick:
		}
	}
}

// notMinedYet reports whether a receipt lookup error means "try again later":
// not found yet, or the node's transaction index still being built.
func notMinedYet(err error) bool {
	return errors.Is(err, ethereum.NotFound) || strings.Contains(err.Error(), "transaction indexing is in progress")
}

// failedReason replays a mined, failed transaction as a call on the state
// before its block (with the transaction's gas limit) to recover the revert
// reason.
func (c *Client) failedReason(ctx context.Context, msg ethereum.CallMsg, rcpt *types.Receipt) error {
	var at *big.Int
	if rcpt.BlockNumber != nil && rcpt.BlockNumber.Sign() > 0 {
		at = new(big.Int).Sub(rcpt.BlockNumber, big.NewInt(1))
	}
	if _, err := c.backend.CallContract(ctx, msg, at); err != nil {
		if re := revertFrom("transaction", err); errors.As(re, new(*RevertError)) {
			return re
		}
	}
	return &RevertError{Op: "transaction", Reason: fmt.Sprintf("transaction %s failed (status 0)", rcpt.TxHash.Hex())}
}

// dataError is implemented by go-ethereum's RPC errors that carry revert data.
type dataError interface {
	ErrorData() interface{}
}

// revertFrom turns a node error into a *RevertError when it is a revert, else
// wraps it.
func revertFrom(op string, err error) error {
	var data []byte
	var de dataError
	if errors.As(err, &de) {
		switch d := de.ErrorData().(type) {
		case string:
			data, _ = hexutil.Decode(d)
		case []byte:
			data = d
		}
	}
	msg := err.Error()
	i := strings.Index(msg, "execution reverted")
	if len(data) == 0 && i < 0 {
		return fmt.Errorf("transfer: %s: %w", op, err)
	}
	re := &RevertError{Op: op, Data: data, Err: err}
	if reason, uerr := abi.UnpackRevert(data); uerr == nil {
		re.Reason = reason
	} else if i >= 0 {
		re.Reason = strings.TrimPrefix(strings.TrimPrefix(msg[i:], "execution reverted"), ": ")
	}
	if re.Reason == "" {
		re.Reason = "(no reason given)"
		if len(data) > 0 {
			re.Reason = "custom error " + hexutil.Encode(data)
		}
	}
	return re
}
