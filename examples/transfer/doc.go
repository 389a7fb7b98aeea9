// Command transfer sends a native, ERC-20, ERC-721 or ERC-1155 transfer with
// the moralis-go transfer package and prints the transaction and its receipt
// as JSON.
//
// The node is -rpc (or $MORALIS_RPC_URL), or the hosted node of -chain with
// -node-key ($MORALIS_SPEEDY_NODE_KEY). The signer is -key / $MORALIS_PRIVATE_KEY /
// $MORALIS_DEV_KEY (hex), or -keyfile with -password / $MORALIS_KEYSTORE_PASSWORD.
//
// Against the local dev chain (go run ./internal/devchain -state .devchain):
//
//	set -a; . .devchain/chain.env; set +a
//	go run ./examples/transfer -to 0x...beef -amount 1000000000000000000
//	go run ./examples/transfer -type erc20 -contract $MORALIS_ERC20 -to 0x...beef -amount 5
//	go run ./examples/transfer -all -to 0x...beef   # one of each kind, contracts from MORALIS_ERC20/721/1155
package main
