// Package web3api is a typed client for the hosted chain-data API (Web3 API v2): blocks, transactions, logs,
// balances, ERC-20 tokens, NFTs, ENS and Unstoppable domains, DeFi pairs, IPFS uploads and market data.
//
// All 56 endpoints of the reference are methods on one service per group, with typed parameters and typed
// responses (amounts are decimal strings or json.Number, never floats):
//
//	c, err := web3api.New(web3api.Config{APIKey: key})
//	nfts, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: "0x…", Chain: "eth"})
//	for nft, err := range c.Account.GetNFTsIter(ctx, &web3api.GetNFTsParams{Address: "0x…", Limit: new(100)}) { … }
//
// Config holds every setting, each documented with its default; New checks them all and copies the Config. A
// Client is immutable and safe for concurrent use.
//
// With an API key every call goes to the API (base https://deep-index.moralis.io/api/v2, header x-api-key).
// Without a key but with a backend server (Config.ServerURL), every call becomes POST
// {server}/functions/{endpoint} with the same parameters, chain defaulting to eth, and the current user's
// session token (Config.SessionToken); the answer is read from "result". The backend's cloud code forwards it
// to the API. Either way, an endpoint with an "address" parameter left empty takes Config.DefaultAddress.
//
// Parameters are sent as the original JavaScript client (moralis-v1, through axios) sent them, which is what
// the API reads:
//   - arrays as name[]=v1&name[]=v2, even with one element;
//   - numbers and booleans are pointer fields, so that an explicit 0 or false is sent (new(0), new(false)) and
//     nil is left out; an empty string is left out;
//   - parameters the reference does not list go in a params struct's Extra map (or any name in Args, with
//     Client.Call) and are sent in the query string;
//   - a POST or PUT with body parameters sends a JSON body with only the set fields, {} when none is set.
//
// Iterators (the ...Iter methods, Pages) follow a non-empty "cursor"; an answer without one that has page,
// page_size and total is followed by offset = (page+1) x (limit or 500), as the original's next() did.
//
// Errors carry the original client's texts: *RateLimitError for HTTP 429 ("This Moralis Server is rate-limited
// …" with the rate headers as JSON), *APIError for other API failures (the answer's message, else "Request
// failed with status code N"), *FunctionError for backend function failures (the answer's error field, else
// the same status text); use errors.As. No error or log message ever contains the API key.
//
// Package web3apitest provides a test server that checks requests against the reference and answers with
// realistic bodies, optionally from a real (simulated) chain.
//
// The endpoint methods, parameter structs and response types (endpoints_gen.go), the per-endpoint test
// (endpoints_gen_test.go) and the backend's cloud code (server/cloud/web3.gen.js, in the server package) are generated from
// internal/ref/endpoints.json, itself merged from the shared reference by internal/ref/merge.py:
//
//	python3 web3api/internal/ref/merge.py /work/shared/reference > web3api/internal/ref/endpoints.json
//	go generate ./web3api/
package web3api
