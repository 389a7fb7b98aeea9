// Package web3apitest is a stand-in for the hosted chain-data API, for tests of code that uses package web3api
// (in the spirit of net/http/httptest).
//
//	srv := web3apitest.NewServer(t)
//	c, _ := web3api.New(web3api.WithAPIKey(srv.APIKey), web3api.WithBaseURL(srv.URL))
//
// Every request is checked against the reference (known path and method, known parameters of the right type,
// required parameters present, the API key): a mismatch fails the test with t.Errorf and gets a 400 answer.
// Answers are realistic bodies built from the published examples. The server can be told to answer 429 or an
// error for an endpoint, to serve long synthetic listings with cursor paging, and, given a Chain (an
// *ethclient.Client or the simulated backend's client), to answer the chain-backed endpoints from that chain:
// blocks, date to block, transactions, native balances, logs, contract calls, ERC-20 metadata, allowances,
// balances and transfers, and ERC-721/1155 NFTs, owners, transfers and metadata.
//
// Handler serves the same outside tests (see cmd/web3apiserver).
package web3apitest
