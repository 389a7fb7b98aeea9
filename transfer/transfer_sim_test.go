package transfer_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
)

func TestNativeTransferMovesExactlyTheAmount(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	to := newAddr(t)
	fromBefore := e.balance(t, e.chain.DevAddr)

	res, err := c.Transfer(ctxT(t), transfer.Params{Type: transfer.Native, Receiver: to.Hex(), Amount: "1234567890123456789"},
		&transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.True(t, res.Sent)
	require.Equal(t, types.ReceiptStatusSuccessful, res.Receipt.Status)
	require.Equal(t, uint8(types.DynamicFeeTxType), res.Tx.Type(), "EIP-1559 chain gets a dynamic-fee tx")
	require.Equal(t, "1234567890123456789", e.balance(t, to).String())

	fee := new(big.Int).Mul(new(big.Int).SetUint64(res.Receipt.GasUsed), res.Receipt.EffectiveGasPrice)
	spent := new(big.Int).Sub(fromBefore, e.balance(t, e.chain.DevAddr))
	require.Equal(t, new(big.Int).Add(fee, big.NewInt(1234567890123456789)).String(), spent.String())
}

func TestNativeTransferHexAmountAndDefaultType(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	to := newAddr(t)
	_, err := c.Transfer(ctxT(t), transfer.Params{Receiver: strings.ToLower(to.Hex()), Amount: "0x3e8"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.Equal(t, "1000", e.balance(t, to).String())
}

func TestERC20TransferChangesBalancesAndEmitsTransfer(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	to := newAddr(t)
	before := e.view(t, e.erc20, e.presets.ERC20, "balanceOf", e.chain.DevAddr)[0].(*big.Int)

	res, err := c.Transfer(ctxT(t), transfer.Params{Type: transfer.ERC20, ContractAddress: e.presets.ERC20.Hex(),
		Receiver: to.Hex(), Amount: "250000000000000000000"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	amount, _ := new(big.Int).SetString("250000000000000000000", 10)

	require.Equal(t, amount.String(), e.view(t, e.erc20, e.presets.ERC20, "balanceOf", to)[0].(*big.Int).String())
	after := e.view(t, e.erc20, e.presets.ERC20, "balanceOf", e.chain.DevAddr)[0].(*big.Int)
	require.Equal(t, new(big.Int).Sub(before, amount).String(), after.String())

	evs := eventsOf(t, e.erc20, e.presets.ERC20, res.Receipt)
	require.Len(t, evs, 1)
	require.Equal(t, "Transfer", evs[0].Name)
	require.Equal(t, e.chain.DevAddr, evs[0].Fields["from"])
	require.Equal(t, to, evs[0].Fields["to"])
	require.Equal(t, amount.String(), evs[0].Fields["value"].(*big.Int).String())
}

func TestERC721TransferChangesOwnerAndEmitsTransfer(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	to := newAddr(t)
	id := big.NewInt(1)
	require.Equal(t, e.chain.DevAddr, e.view(t, e.erc721, e.presets.ERC721, "ownerOf", id)[0])

	res, err := c.Transfer(ctxT(t), transfer.Params{Type: transfer.ERC721, ContractAddress: e.presets.ERC721.Hex(),
		Receiver: to.Hex(), TokenID: "1"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.Equal(t, to, e.view(t, e.erc721, e.presets.ERC721, "ownerOf", id)[0])
	require.Equal(t, "1", e.view(t, e.erc721, e.presets.ERC721, "balanceOf", to)[0].(*big.Int).String())

	evs := eventsOf(t, e.erc721, e.presets.ERC721, res.Receipt)
	var transfers []decodedEvent
	for _, ev := range evs {
		if ev.Name == "Transfer" {
			transfers = append(transfers, ev)
		}
	}
	require.Len(t, transfers, 1)
	require.Equal(t, e.chain.DevAddr, transfers[0].Fields["from"])
	require.Equal(t, to, transfers[0].Fields["to"])
	require.Equal(t, "1", transfers[0].Fields["tokenId"].(*big.Int).String())

	// The token is gone now: a second transfer of it reverts with the contract's reason.
	_, err = c.Transfer(ctxT(t), transfer.Params{Type: transfer.ERC721, ContractAddress: e.presets.ERC721.Hex(),
		Receiver: to.Hex(), TokenID: "1"}, nil)
	var re *transfer.RevertError
	require.ErrorAs(t, err, &re)
	require.Equal(t, "ERC721: caller is not token owner or approved", re.Reason)
}

func TestERC1155TransferChangesBalancesAndEmitsTransferSingle(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	to := newAddr(t)
	id := big.NewInt(1)
	before := e.view(t, e.erc1155, e.presets.ERC1155, "balanceOf", e.chain.DevAddr, id)[0].(*big.Int)

	res, err := c.Transfer(ctxT(t), transfer.Params{Type: transfer.ERC1155, ContractAddress: e.presets.ERC1155.Hex(),
		Receiver: to.Hex(), TokenID: "1", Amount: "7"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.Equal(t, "7", e.view(t, e.erc1155, e.presets.ERC1155, "balanceOf", to, id)[0].(*big.Int).String())
	after := e.view(t, e.erc1155, e.presets.ERC1155, "balanceOf", e.chain.DevAddr, id)[0].(*big.Int)
	require.Equal(t, new(big.Int).Sub(before, big.NewInt(7)).String(), after.String())

	evs := eventsOf(t, e.erc1155, e.presets.ERC1155, res.Receipt)
	require.Len(t, evs, 1)
	require.Equal(t, "TransferSingle", evs[0].Name)
	require.Equal(t, e.chain.DevAddr, evs[0].Fields["operator"])
	require.Equal(t, e.chain.DevAddr, evs[0].Fields["from"])
	require.Equal(t, to, evs[0].Fields["to"])
	require.Equal(t, "1", evs[0].Fields["id"].(*big.Int).String())
	require.Equal(t, "7", evs[0].Fields["value"].(*big.Int).String())
}

func TestTransferMoreThanBalanceSurfacesRevertReason(t *testing.T) {
	e := testEnv(t)
	to := newAddr(t)
	over := new(big.Int).Add(e.view(t, e.erc20, e.presets.ERC20, "balanceOf", e.chain.DevAddr)[0].(*big.Int), big.NewInt(1))
	p := transfer.Params{Type: transfer.ERC20, ContractAddress: e.presets.ERC20.Hex(), Receiver: to.Hex(), Amount: over.String()}

	t.Run("estimate", func(t *testing.T) {
		c, cb := e.client(t, e.signer)
		_, err := c.Transfer(ctxT(t), p, &transfer.TxOptions{Wait: true})
		var re *transfer.RevertError
		require.ErrorAs(t, err, &re)
		require.Equal(t, "ERC20: transfer amount exceeds balance", re.Reason)
		require.Contains(t, err.Error(), "ERC20: transfer amount exceeds balance")
		require.Zero(t, cb.sends.Load(), "nothing is sent when the estimate reverts")
	})
	t.Run("mined", func(t *testing.T) {
		// With a fixed gas limit the estimate is skipped, the transaction is
		// mined and fails; the reason is recovered by replaying it.
		c, cb := e.client(t, e.signer)
		res, err := c.Transfer(ctxT(t), p, &transfer.TxOptions{Wait: true, GasLimit: 200_000})
		var re *transfer.RevertError
		require.ErrorAs(t, err, &re)
		require.Equal(t, "ERC20: transfer amount exceeds balance", re.Reason)
		require.EqualValues(t, 1, cb.sends.Load())
		require.NotNil(t, res)
		require.Equal(t, types.ReceiptStatusFailed, res.Receipt.Status)
		require.Equal(t, "0", e.view(t, e.erc20, e.presets.ERC20, "balanceOf", to)[0].(*big.Int).String())
	})
	t.Run("native", func(t *testing.T) {
		poor, err := signer.NewKeyFromHex("0x" + strings.Repeat("11", 32))
		require.NoError(t, err)
		c, cb := e.client(t, poor)
		_, err = c.Transfer(ctxT(t), transfer.Params{Receiver: to.Hex(), Amount: "1"}, nil)
		require.Error(t, err)
		require.Contains(t, err.Error(), "insufficient funds")
		require.Zero(t, cb.sends.Load())
	})
}

func TestDryRunSignsButSendsNothing(t *testing.T) {
	e := testEnv(t)
	c, cb := e.client(t, e.signer)
	ctx := ctxT(t)
	nonce, err := e.chain.Client.PendingNonceAt(ctx, e.chain.DevAddr)
	require.NoError(t, err)
	to := newAddr(t)

	res, err := c.Transfer(ctx, transfer.Params{Receiver: to.Hex(), Amount: "5"}, &transfer.TxOptions{DryRun: true, Wait: true})
	require.NoError(t, err)
	require.False(t, res.Sent)
	require.Nil(t, res.Receipt)
	require.Zero(t, cb.sends.Load())
	require.Equal(t, nonce, res.Tx.Nonce())
	sender, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), res.Tx)
	require.NoError(t, err)
	require.Equal(t, e.chain.DevAddr, sender)

	after, err := e.chain.Client.PendingNonceAt(ctx, e.chain.DevAddr)
	require.NoError(t, err)
	require.Equal(t, nonce, after, "nonce unchanged")
	require.Zero(t, e.balance(t, to).Sign())
	_, err = e.chain.Client.TransactionReceipt(ctx, res.Tx.Hash())
	require.Error(t, err, "the dry-run transaction is unknown to the chain")
}

func TestLegacyGasPriceWhenHeadHasNoBaseFee(t *testing.T) {
	e := testEnv(t)
	cb := &countingBackend{Backend: e.chain.Client, noBaseFee: true}
	c, err := transfer.New(cb, transfer.Config{Signer: e.signer, ReceiptPollInterval: 10e6})
	require.NoError(t, err)
	to := newAddr(t)
	res, err := c.Transfer(ctxT(t), transfer.Params{Receiver: to.Hex(), Amount: "42"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.Equal(t, uint8(types.LegacyTxType), res.Tx.Type())
	require.Equal(t, "42", e.balance(t, to).String())
}

func TestExplicitFeesAndNonceAreUsed(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	ctx := ctxT(t)
	nonce, err := e.chain.Client.PendingNonceAt(ctx, e.chain.DevAddr)
	require.NoError(t, err)
	opts := &transfer.TxOptions{Nonce: &nonce, GasLimit: 21000, GasTipCap: big.NewInt(2e9), GasFeeCap: big.NewInt(50e9), Wait: true}
	res, err := c.Transfer(ctx, transfer.Params{Receiver: newAddr(t).Hex(), Amount: "1"}, opts)
	require.NoError(t, err)
	require.Equal(t, nonce, res.Tx.Nonce())
	require.EqualValues(t, 21000, res.Tx.Gas())
	require.Equal(t, "2000000000", res.Tx.GasTipCap().String())
	require.Equal(t, "50000000000", res.Tx.GasFeeCap().String())
	require.Equal(t, uint64(2e9), opts.GasTipCap.Uint64(), "options are not modified")
}

func TestChainIDMismatchIsRefused(t *testing.T) {
	e := testEnv(t)
	cb := &countingBackend{Backend: e.chain.Client}
	c, err := transfer.New(cb, transfer.Config{Signer: e.signer, ChainID: big.NewInt(1)})
	require.NoError(t, err)
	_, err = c.Transfer(ctxT(t), transfer.Params{Receiver: newAddr(t).Hex(), Amount: "1"}, nil)
	require.ErrorContains(t, err, "node is on chain 1337, expected chain 1")
	require.Zero(t, cb.sends.Load())
}

func TestKeystoreSignerSendsTransfer(t *testing.T) {
	e := testEnv(t)
	keyJSON := encryptedDevKey(t, e, "correct horse")
	_, err := signer.NewKeyFromKeystore(keyJSON, "wrong")
	require.Error(t, err)
	require.NotContains(t, err.Error(), "wrong")

	s, err := signer.NewKeyFromKeystore(keyJSON, "correct horse")
	require.NoError(t, err)
	require.Equal(t, e.chain.DevAddr, s.Address())
	c, _ := e.client(t, s)
	to := newAddr(t)
	_, err = c.Transfer(ctxT(t), transfer.Params{Receiver: to.Hex(), Amount: "99"}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.Equal(t, "99", e.balance(t, to).String())
}

func TestWaitMinedHonoursContext(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	ctx, cancel := contextWithCancel(t)
	cancel()
	_, err := c.WaitMined(ctx, common.HexToHash("0x01"))
	require.True(t, errors.Is(err, ctx.Err()), "got %v", err)
}
