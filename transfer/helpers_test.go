package transfer_test

import (
	"context"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/internal/contracts"
	"github.com/c13f5054/moralis-go/internal/devchain/devnet"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
)

// countingBackend wraps a Backend and counts every call, so tests can prove
// that validation failures reach no node at all.
type countingBackend struct {
	transfer.Backend
	calls atomic.Int64
	sends atomic.Int64
	// noBaseFee makes HeaderByNumber report a pre-London head.
	noBaseFee bool
}

func (b *countingBackend) ChainID(ctx context.Context) (*big.Int, error) {
	b.calls.Add(1)
	return b.Backend.ChainID(ctx)
}
func (b *countingBackend) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	b.calls.Add(1)
	h, err := b.Backend.HeaderByNumber(ctx, n)
	if err == nil && b.noBaseFee {
		h = types.CopyHeader(h)
		h.BaseFee = nil
	}
	return h, err
}
func (b *countingBackend) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	b.calls.Add(1)
	return b.Backend.PendingNonceAt(ctx, a)
}
func (b *countingBackend) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	b.calls.Add(1)
	return b.Backend.SuggestGasTipCap(ctx)
}
func (b *countingBackend) SuggestGasPrice(ctx context.Context) (*big.Int, error) {
	b.calls.Add(1)
	return b.Backend.SuggestGasPrice(ctx)
}
func (b *countingBackend) EstimateGas(ctx context.Context, m ethereum.CallMsg) (uint64, error) {
	b.calls.Add(1)
	return b.Backend.EstimateGas(ctx, m)
}
func (b *countingBackend) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	b.calls.Add(1)
	b.sends.Add(1)
	return b.Backend.SendTransaction(ctx, tx)
}
func (b *countingBackend) CallContract(ctx context.Context, m ethereum.CallMsg, n *big.Int) ([]byte, error) {
	b.calls.Add(1)
	return b.Backend.CallContract(ctx, m, n)
}
func (b *countingBackend) TransactionReceipt(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	b.calls.Add(1)
	return b.Backend.TransactionReceipt(ctx, h)
}

// env is one simulated chain shared by the tests of this package, with the
// preset token contracts deployed and minted to the dev account.
type env struct {
	chain   *devnet.Chain
	presets *devnet.Presets
	signer  *signer.Key
	erc20   *contracts.Artifact
	erc721  *contracts.Artifact
	erc1155 *contracts.Artifact
}

var (
	sharedOnce sync.Once
	shared     *env
	sharedErr  error
)

func testEnv(t *testing.T) *env {
	t.Helper()
	sharedOnce.Do(func() {
		chain, err := devnet.Start(devnet.Config{AutoMine: 10 * time.Millisecond})
		if err != nil {
			sharedErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		presets, err := chain.DeployPresets(ctx)
		if err != nil {
			sharedErr = err
			return
		}
		e := &env{chain: chain, presets: presets}
		if e.signer, err = signer.NewKey(chain.DevKey); err != nil {
			sharedErr = err
			return
		}
		for name, dst := range map[string]**contracts.Artifact{contracts.ERC20: &e.erc20, contracts.ERC721: &e.erc721, contracts.ERC1155: &e.erc1155} {
			if *dst, err = contracts.Load(name); err != nil {
				sharedErr = err
				return
			}
		}
		shared = e
	})
	if sharedErr != nil {
		t.Fatalf("simulated chain: %v", sharedErr)
	}
	return shared
}

// client makes a transfer client on a fresh counting wrapper of the chain.
func (e *env) client(t *testing.T, s signer.EthereumTx) (*transfer.Client, *countingBackend) {
	t.Helper()
	cb := &countingBackend{Backend: e.chain.Client}
	c, err := transfer.New(cb, transfer.Config{Signer: s, ReceiptPollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, cb
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newAddr returns a fresh address with no history on the chain.
func newAddr(t *testing.T) common.Address {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey)
}

// view calls a view function of an artifact directly, independent of the
// package under test, and returns its outputs.
func (e *env) view(t *testing.T, art *contracts.Artifact, at common.Address, method string, args ...any) []any {
	t.Helper()
	data, err := art.ABI.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.chain.Client.CallContract(ctxT(t), ethereum.CallMsg{To: &at, Data: data}, nil)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	vals, err := art.ABI.Unpack(method, out)
	if err != nil {
		t.Fatal(err)
	}
	return vals
}

func (e *env) balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := e.chain.Client.BalanceAt(ctxT(t), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventsOf decodes the receipt's logs emitted by contract with the artifact's ABI.
func eventsOf(t *testing.T, art *contracts.Artifact, contract common.Address, rcpt *types.Receipt) []decodedEvent {
	t.Helper()
	var out []decodedEvent
	for _, l := range rcpt.Logs {
		if l.Address != contract || len(l.Topics) == 0 {
			continue
		}
		ev, err := art.ABI.EventByID(l.Topics[0])
		if err != nil {
			t.Fatalf("unknown event %s", l.Topics[0])
		}
		fields := map[string]any{}
		if err := ev.Inputs.UnpackIntoMap(fields, l.Data); err != nil {
			t.Fatal(err)
		}
		var indexed abi.Arguments
		for _, in := range ev.Inputs {
			if in.Indexed {
				indexed = append(indexed, in)
			}
		}
		if err := abi.ParseTopicsIntoMap(fields, indexed, l.Topics[1:]); err != nil {
			t.Fatal(err)
		}
		out = append(out, decodedEvent{Name: ev.Name, Fields: fields})
	}
	return out
}

type decodedEvent struct {
	Name   string
	Fields map[string]any
}
