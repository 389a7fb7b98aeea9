package transfer_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
)

// Validation happens before any network call, so this runs offline: the
// backend is never used.
func ExampleClient_Transfer_validation() {
	key, _ := signer.NewKeyFromHex("0x" + "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	c, _ := transfer.New(offline{}, transfer.Config{Signer: key})

	_, err := c.Transfer(context.TODO(), transfer.Params{Type: transfer.ERC1155, TokenID: "-3"}, nil)
	var ve *transfer.ValidationError
	if errors.As(err, &ve) {
		for _, msg := range ve.Messages() {
			fmt.Println(msg)
		}
	}
	_, err = c.Transfer(context.TODO(), transfer.Params{Type: "erc777"}, nil)
	fmt.Println(err, errors.Is(err, transfer.ErrUnsupportedType))
	// Output:
	// contractAddress is required
	// receiver is required
	// Invalid token Id
	// amount is required
	// Unsupported type true
}

func ExampleNodeURL() {
	u, _ := transfer.NodeURL("polygon", "my-node-key", "")
	fmt.Println(u)
	id, _ := transfer.ResolveChainID("bsc testnet")
	fmt.Println(id, hexutil.EncodeUint64(id))
	// Output:
	// https://speedy-nodes-nyc.moralis.io/my-node-key/polygon/mainnet
	// 97 0x61
}

// offline is a Backend that must never be reached.
type offline struct{ transfer.Backend }

// An overloaded name must be given with its types; the error lists them.
func ExampleClient_ExecuteFunction_overloads() {
	c, _ := transfer.New(offline{}, transfer.Config{})
	const abiJSON = `[
	 {"type":"function","name":"safeTransferFrom","stateMutability":"nonpayable","outputs":[],
	  "inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}]},
	 {"type":"function","name":"safeTransferFrom","stateMutability":"nonpayable","outputs":[],
	  "inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"},{"name":"data","type":"bytes"}]}]`
	_, err := c.ExecuteFunction(context.TODO(), transfer.FunctionCall{
		ContractAddress: "0x000000000000000000000000000000000000dEaD", ABI: abiJSON, FunctionName: "safeTransferFrom"}, nil)
	fmt.Println(err)
	_, err = c.ExecuteFunction(context.TODO(), transfer.FunctionCall{
		ContractAddress: "0x000000000000000000000000000000000000dEaD", ABI: abiJSON,
		FunctionName: "safeTransferFrom(address,address,uint256)", Params: map[string]any{"tokenId": 1}}, nil)
	fmt.Println(err)
	// Output:
	// Multiple function definitions found in the abi: safeTransferFrom(address,address,uint256), safeTransferFrom(address,address,uint256,bytes)
	// from is required; to is required
}
