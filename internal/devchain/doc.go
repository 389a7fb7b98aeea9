// Command devchain runs a local EVM development chain: go-ethereum's simulated
// backend with its JSON-RPC served over HTTP on 127.0.0.1, a block mined as
// soon as a transaction is pending (like geth --dev), a funded dev account and,
// by default, the OpenZeppelin ERC-20/721/1155 presets deployed and minted to it.
//
//	go run ./internal/devchain -addr 127.0.0.1:0 -state DIR
//
// When ready it writes DIR/chain.env (shell syntax):
//
//	MORALIS_RPC_URL=http://127.0.0.1:PORT
//	MORALIS_CHAIN_ID=1337
//	MORALIS_DEV_KEY=0x<hex private key>
//	MORALIS_DEV_ADDRESS=0x...
//	MORALIS_ERC20=0x...   MORALIS_ERC721=0x...   MORALIS_ERC1155=0x...
//
// and DIR/devchain.pid. Both are removed on SIGINT/SIGTERM. The chain lives in
// memory only; the dev key is a throw-away key for this local chain.
package main
