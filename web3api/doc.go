// Package web3api is a typed client for the hosted chain-data API (Web3 API v2): blocks, transactions, logs,
// balances, ERC-20 tokens, NFTs, ENS and Unstoppable domains, DeFi pairs, IPFS uploads and market data.
//
// All 56 endpoints of the reference are methods on one service per group, with typed parameters and typed
// responses (amounts are decimal strings or json.Number, never floats):
//
//	c, err := web3api.New(web3api.WithAPIKey(key))
//	nfts, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: "0x…", Chain: "eth"})
//	for nft, err := range c.Account.GetNFTsIter(ctx, &web3api.GetNFTsParams{Address: "0x…"}) { … }
//
// With an API key every call goes to the API (base https://deep-index.moralis.io/api/v2, header x-api-key).
// Without a key but with a backend server (WithServer), every call becomes POST {server}/functions/{endpoint}
// with the same parameters, chain defaulting to eth, and the answer read from "result"; the backend's cloud
// code forwards it to the API.
//
// Errors: *RateLimitError for HTTP 429, *APIError for other API failures, *FunctionError for backend function
// failures; use errors.As. No error or log message ever contains the API key.
//
// Package web3apitest provides a test server that checks requests against the reference and answers with
// realistic bodies, optionally from a real (simulated) chain.
//
// The endpoint methods, parameter structs and response types (endpoints_gen.go), the per-endpoint test
// (endpoints_gen_test.go) and the backend's cloud code (internal/devstack/server/cloud/web3.js) are generated from
// internal/ref/endpoints.json, itself merged from the shared reference by internal/ref/merge.py:
//
//	python3 web3api/internal/ref/merge.py /work/shared/reference > web3api/internal/ref/endpoints.json
//	go generate ./web3api/
package web3api
