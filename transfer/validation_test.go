package transfer_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
)

// zeroSigner has no address.
type zeroSigner struct{}

func (zeroSigner) Address() common.Address { return common.Address{} }
func (zeroSigner) SignTx(context.Context, *types.Transaction, *big.Int) (*types.Transaction, error) {
	panic("must not be called")
}

func TestTransferValidationSendsNothing(t *testing.T) {
	e := testEnv(t)
	addr := newAddr(t).Hex()
	tooBig := new(big.Int).Lsh(big.NewInt(1), 256).String()
	cases := []struct {
		name   string
		p      transfer.Params
		signer signer.EthereumTx
		want   []string
	}{
		{"native missing all", transfer.Params{Type: transfer.Native}, e.signer, []string{"receiver is required", "amount is required"}},
		{"native missing amount", transfer.Params{Receiver: addr}, e.signer, []string{"amount is required"}},
		{"erc20 missing all", transfer.Params{Type: transfer.ERC20}, e.signer,
			[]string{"contractAddress is required", "receiver is required", "amount is required"}},
		{"erc721 missing all", transfer.Params{Type: transfer.ERC721}, e.signer,
			[]string{"contractAddress is required", "receiver is required", "tokenId is required"}},
		{"erc1155 missing all", transfer.Params{Type: transfer.ERC1155}, e.signer,
			[]string{"contractAddress is required", "receiver is required", "tokenId is required", "amount is required"}},
		{"erc1155 missing amount", transfer.Params{Type: transfer.ERC1155, ContractAddress: addr, Receiver: addr, TokenID: "1"}, e.signer,
			[]string{"amount is required"}},
		{"unsupported type", transfer.Params{Type: "erc777", Receiver: addr, Amount: "1"}, e.signer, []string{"Unsupported type"}},
		{"negative token id", transfer.Params{Type: transfer.ERC721, ContractAddress: addr, Receiver: addr, TokenID: "-1"}, e.signer,
			[]string{"Invalid token Id"}},
		{"non-numeric token id", transfer.Params{Type: transfer.ERC721, ContractAddress: addr, Receiver: addr, TokenID: "abc"}, e.signer,
			[]string{"Invalid token Id"}},
		{"fractional token id", transfer.Params{Type: transfer.ERC1155, ContractAddress: addr, Receiver: addr, TokenID: "1.5", Amount: "1"}, e.signer,
			[]string{"Invalid token Id"}},
		{"token id above uint256", transfer.Params{Type: transfer.ERC721, ContractAddress: addr, Receiver: addr, TokenID: tooBig}, e.signer,
			[]string{"Invalid token Id"}},
		{"bad receiver", transfer.Params{Receiver: "0x1234", Amount: "1"}, e.signer, []string{"receiver is not a valid address"}},
		{"bad amount", transfer.Params{Receiver: addr, Amount: "-5"}, e.signer, []string{"amount must be an integer from 0 to 2^256-1"}},
		{"no signer", transfer.Params{Receiver: addr, Amount: "1"}, nil, []string{"Sender address not found"}},
		{"signer without address", transfer.Params{Receiver: addr, Amount: "1"}, zeroSigner{}, []string{"Sender address not found"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, cb := e.client(t, tc.signer)
			res, err := c.Transfer(ctxT(t), tc.p, nil)
			require.Nil(t, res)
			require.Error(t, err)
			var ve *transfer.ValidationError
			if strings.HasPrefix(tc.want[0], "Sender") {
				require.ErrorIs(t, err, transfer.ErrSenderNotFound)
				require.Equal(t, tc.want[0], err.Error())
			} else {
				require.ErrorAs(t, err, &ve)
				require.Equal(t, tc.want, ve.Messages())
				require.Equal(t, strings.Join(tc.want, "; "), err.Error())
			}
			require.Zero(t, cb.calls.Load(), "no network call")
			require.Zero(t, cb.sends.Load(), "no transaction sent")
		})
	}
}

func TestValidationSentinels(t *testing.T) {
	err := transfer.Params{Type: "bogus"}.Validate()
	require.ErrorIs(t, err, transfer.ErrUnsupportedType)
	err = transfer.Params{Type: transfer.ERC721, ContractAddress: "0x0000000000000000000000000000000000000001", Receiver: "0x0000000000000000000000000000000000000002", TokenID: "x"}.Validate()
	require.ErrorIs(t, err, transfer.ErrInvalidTokenID)
	var re *transfer.RequiredError
	require.ErrorAs(t, transfer.Params{}.Validate(), &re)
	require.Equal(t, "receiver", re.Field)
	require.NoError(t, transfer.Params{Type: transfer.ERC1155, ContractAddress: "0x0000000000000000000000000000000000000001",
		Receiver: "0x0000000000000000000000000000000000000002", TokenID: "0", Amount: "0x0"}.Validate())
}

func TestExecuteFunctionValidationSendsNothing(t *testing.T) {
	e := testEnv(t)
	erc20 := string(e.erc20.RawABI)
	contract := e.presets.ERC20.Hex()
	cases := []struct {
		name   string
		call   transfer.FunctionCall
		signer signer.EthereumTx
		want   string
	}{
		{"unknown function", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "steal"}, e.signer,
			"Function does not exist in abi"},
		{"unknown signature", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "transfer(address)"}, e.signer,
			"Function does not exist in abi"},
		{"ambiguous", transfer.FunctionCall{ContractAddress: e.presets.ERC721.Hex(), ABI: string(e.erc721.RawABI), FunctionName: "safeTransferFrom"}, e.signer,
			"Multiple function definitions found in the abi: safeTransferFrom(address,address,uint256), safeTransferFrom(address,address,uint256,bytes)"},
		{"missing inputs", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "transfer"}, e.signer,
			"to is required; amount is required"},
		{"one missing input", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "transfer", Params: map[string]any{"amount": 1}}, e.signer,
			"to is required"},
		{"bad input", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "transfer", Params: map[string]any{"to": "nope", "amount": 1}}, e.signer,
			"to: want an address, got nope"},
		{"no signer for a transaction", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "transfer",
			Params: map[string]any{"to": contract, "amount": 1}}, nil, "From address is required"},
		{"signer without address", transfer.FunctionCall{ContractAddress: contract, ABI: erc20, FunctionName: "transfer",
			Params: map[string]any{"to": contract, "amount": 1}}, zeroSigner{}, "From address is required"},
		{"missing call fields", transfer.FunctionCall{}, e.signer, "contractAddress is required; abi is required; functionName is required"},
		{"bad abi", transfer.FunctionCall{ContractAddress: contract, ABI: "{", FunctionName: "x"}, e.signer, "transfer: invalid abi: unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, cb := e.client(t, tc.signer)
			res, err := c.ExecuteFunction(ctxT(t), tc.call, nil)
			require.Nil(t, res)
			require.EqualError(t, err, tc.want)
			require.Zero(t, cb.calls.Load(), "no network call")
		})
	}
}

func TestNewRejectsNilBackend(t *testing.T) {
	_, err := transfer.New(nil, transfer.Config{})
	require.EqualError(t, err, "transfer: backend is nil")
}
