package transfer_test

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/transfer"
)

// laggingHead answers a receipt in block 12 while its latest block stays at 11 for the first few header calls, as a
// node does when it serves the receipt a moment before the block is its head.
type laggingHead struct {
	transfer.Backend
	headCalls atomic.Int32
	lagFor    int32
}

func (l *laggingHead) TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error) {
	return &types.Receipt{Status: types.ReceiptStatusSuccessful, BlockNumber: big.NewInt(12)}, nil
}

func (l *laggingHead) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	if l.headCalls.Add(1) <= l.lagFor {
		return &types.Header{Number: big.NewInt(11)}, nil
	}
	return &types.Header{Number: big.NewInt(12)}, nil
}

// WaitMined returns only once the latest block has reached the receipt's, so a read right after it sees the
// transaction. Fails when WaitMined returns at the first receipt (the flake of the simulated-chain tests: a balance
// read after Wait still showed the old value).
func TestWaitMinedWaitsForTheHeadToReachTheReceipt(t *testing.T) {
	b := &laggingHead{lagFor: 3}
	c, err := transfer.New(b, transfer.Config{ReceiptPollInterval: time.Millisecond})
	require.NoError(t, err)
	rcpt, err := c.WaitMined(context.Background(), common.Hash{1})
	require.NoError(t, err)
	require.Equal(t, int64(12), rcpt.BlockNumber.Int64())
	require.Equal(t, int32(4), b.headCalls.Load(), "three lagging heads, then the receipt's block")

	// A head that never catches up ends with the context, not a receipt.
	stuck := &laggingHead{lagFor: 1 << 30}
	c, err = transfer.New(stuck, transfer.Config{ReceiptPollInterval: time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.WaitMined(ctx, common.Hash{1})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}
