package transfer_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/transfer"
)

func TestExecuteFunctionView(t *testing.T) {
	e := testEnv(t)
	c, cb := e.client(t, nil) // a view call needs no signer
	ctx := ctxT(t)

	res, err := c.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: e.presets.ERC20.Hex(), ABI: string(e.erc20.RawABI),
		FunctionName: "balanceOf", Params: map[string]any{"account": e.chain.DevAddr.Hex()}}, nil)
	require.NoError(t, err)
	want := e.view(t, e.erc20, e.presets.ERC20, "balanceOf", e.chain.DevAddr)[0].(*big.Int)
	require.Len(t, res.Outputs, 1)
	require.Equal(t, "0", res.Outputs[0].Name, "unnamed output is positional")
	require.Equal(t, "uint256", res.Outputs[0].Type)
	require.Equal(t, want.String(), res.Outputs[0].Value.(*big.Int).String())
	require.Nil(t, res.Tx)
	require.Zero(t, cb.sends.Load())

	res, err = c.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: e.presets.ERC20.Hex(), ABI: string(e.erc20.RawABI),
		FunctionName: "symbol"}, nil)
	require.NoError(t, err)
	v, ok := res.Value("0")
	require.True(t, ok)
	require.Equal(t, "DEV", v)

	// Named output, via a hand-written ABI fragment.
	frag := `[{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"name":"d","type":"uint8"}]}]`
	res, err = c.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: e.presets.ERC20.Hex(), ABI: frag, FunctionName: "decimals"}, nil)
	require.NoError(t, err)
	v, ok = res.Value("d")
	require.True(t, ok)
	require.Equal(t, uint8(18), v)

	// Reverting view call: the reason comes back.
	res, err = c.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: e.presets.ERC721.Hex(), ABI: string(e.erc721.RawABI),
		FunctionName: "ownerOf", Params: map[string]any{"tokenId": 999}}, nil)
	var re *transfer.RevertError
	require.ErrorAs(t, err, &re, "got %v %v", res, err)
	require.Equal(t, "ERC721: invalid token ID", re.Reason)
}

func TestExecuteFunctionSendsTransaction(t *testing.T) {
	e := testEnv(t)
	c, cb := e.client(t, e.signer)
	to := newAddr(t)
	res, err := c.ExecuteFunction(ctxT(t), transfer.FunctionCall{ContractAddress: e.presets.ERC20.Hex(), ABI: string(e.erc20.RawABI),
		FunctionName: "transfer", Params: map[string]any{"to": to.Hex(), "amount": "777"}}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.NotNil(t, res.Tx)
	require.True(t, res.Tx.Sent)
	require.EqualValues(t, 1, cb.sends.Load())
	require.Equal(t, "777", e.view(t, e.erc20, e.presets.ERC20, "balanceOf", to)[0].(*big.Int).String())
}

func TestExecuteFunctionOverloads(t *testing.T) {
	e := testEnv(t)
	c, cb := e.client(t, e.signer)
	call := transfer.FunctionCall{ContractAddress: e.presets.ERC721.Hex(), ABI: string(e.erc721.RawABI),
		FunctionName: "safeTransferFrom", Params: map[string]any{"from": e.chain.DevAddr.Hex(), "to": newAddr(t).Hex(), "tokenId": 2}}

	_, err := c.ExecuteFunction(ctxT(t), call, nil)
	require.ErrorIs(t, err, transfer.ErrMultipleFunctions)
	var ae *transfer.AmbiguousFunctionError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, []string{"safeTransferFrom(address,address,uint256)", "safeTransferFrom(address,address,uint256,bytes)"}, ae.Candidates)
	require.Equal(t, "Multiple function definitions found in the abi: safeTransferFrom(address,address,uint256), safeTransferFrom(address,address,uint256,bytes)", err.Error())
	require.Zero(t, cb.calls.Load())

	call.FunctionName = "safeTransferFrom(address, address, uint256)"
	res, err := c.ExecuteFunction(ctxT(t), call, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.True(t, res.Tx.Sent)
	require.Equal(t, call.Params["to"], e.view(t, e.erc721, e.presets.ERC721, "ownerOf", big.NewInt(2))[0].(common.Address).Hex())
}

func TestExecuteFunctionPayableValue(t *testing.T) {
	e := testEnv(t)
	c, cb := e.client(t, e.signer)
	_, err := c.ExecuteFunction(ctxT(t), transfer.FunctionCall{ContractAddress: e.presets.ERC20.Hex(), ABI: string(e.erc20.RawABI),
		FunctionName: "transfer", Params: map[string]any{"to": newAddr(t).Hex(), "amount": 1}, Value: big.NewInt(1)}, nil)
	require.ErrorContains(t, err, "transfer(address,uint256) is not payable")
	require.Zero(t, cb.calls.Load())
}

func TestExecuteFunctionConvertsArraysAndBytes(t *testing.T) {
	e := testEnv(t)
	c, _ := e.client(t, e.signer)
	to := newAddr(t)
	// safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data),
	// with friendly argument forms: strings, []any of mixed integer forms, hex bytes.
	res, err := c.ExecuteFunction(ctxT(t), transfer.FunctionCall{ContractAddress: e.presets.ERC1155.Hex(), ABI: string(e.erc1155.RawABI),
		FunctionName: "safeBatchTransferFrom", Params: map[string]any{
			"from": e.chain.DevAddr.Hex(), "to": to.Hex(),
			"ids": []any{1, "0x2"}, "amounts": []any{uint64(2), big.NewInt(1)}, "data": "0x",
		}}, &transfer.TxOptions{Wait: true})
	require.NoError(t, err)
	require.True(t, res.Tx.Sent)
	require.Equal(t, "2", e.view(t, e.erc1155, e.presets.ERC1155, "balanceOf", to, big.NewInt(1))[0].(*big.Int).String())
	require.Equal(t, "1", e.view(t, e.erc1155, e.presets.ERC1155, "balanceOf", to, big.NewInt(2))[0].(*big.Int).String())
	evs := eventsOf(t, e.erc1155, e.presets.ERC1155, res.Tx.Receipt)
	require.Len(t, evs, 1)
	require.Equal(t, "TransferBatch", evs[0].Name)

	// balanceOfBatch(address[] accounts, uint256[] ids) returns uint256[]: a view with array in and out.
	out, err := c.ExecuteFunction(ctxT(t), transfer.FunctionCall{ContractAddress: e.presets.ERC1155.Hex(), ABI: string(e.erc1155.RawABI),
		FunctionName: "balanceOfBatch", Params: map[string]any{"accounts": []string{to.Hex(), to.Hex()}, "ids": []int{1, 2}}}, nil)
	require.NoError(t, err)
	got := out.Outputs[0].Value.([]*big.Int)
	require.Equal(t, []string{"2", "1"}, []string{got[0].String(), got[1].String()})

	// A value of the wrong shape is a validation error, before any call.
	_, err = c.ExecuteFunction(ctxT(t), transfer.FunctionCall{ContractAddress: e.presets.ERC1155.Hex(), ABI: string(e.erc1155.RawABI),
		FunctionName: "balanceOfBatch", Params: map[string]any{"accounts": to.Hex(), "ids": []int{-1}}}, nil)
	require.EqualError(t, err, "accounts: want a list for address[], got string; ids: [0]: uint256 must not be negative")
}

func TestExecuteFunctionArgumentErrors(t *testing.T) {
	e := testEnv(t)
	c, cb := e.client(t, e.signer)
	call := func(params map[string]any) error {
		_, err := c.ExecuteFunction(ctxT(t), transfer.FunctionCall{ContractAddress: e.presets.ERC1155.Hex(), ABI: string(e.erc1155.RawABI),
			FunctionName: "balanceOfBatch", Params: params}, nil)
		return err
	}
	require.EqualError(t, call(map[string]any{"accounts": []any{nil}, "ids": []any{1.5}}),
		"accounts: [0]: want a value for address, got nothing; ids: [0]: want an exact integer, got 1.5 (pass large numbers as strings)")
	require.EqualError(t, call(map[string]any{"accounts": []any{}, "ids": []any{float64(1 << 60)}}),
		"ids: [0]: want an exact integer, got 1.152921504606847e+18 (pass large numbers as strings)")
	require.EqualError(t, call(map[string]any{"accounts": []any{}, "ids": "0x" + strings.Repeat("f", 70)}),
		"ids: want a list for uint256[], got string")
	require.Zero(t, cb.calls.Load())
}
