// Package web3apitest is a stand-in for the hosted chain-data API, for tests of code that uses package web3api
// (in the spirit of net/http/httptest).
//
//	srv := web3apitest.NewServer(t)
//	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})
//
// Every request is checked against the reference (known path and method, known parameters of the right type,
// arrays sent as name[]=v1&name[]=v2 as the API reads them, required parameters present, a JSON body with
// Content-Type application/json exactly when the endpoint takes one, the API key): a mismatch fails the test
// with t.Errorf and gets a 400 answer. Parameters the reference does not list are accepted, as the API accepts
// them. LastRequest gives the last accepted request of an endpoint as sent (query string and body bytes).
// Answers are realistic bodies built from the published examples. The server can be told to answer 429 or an
// error for an endpoint, to serve long synthetic listings with cursor paging (or, per endpoint, in the older
// form paged by offset), and, given a Chain (an *ethclient.Client or the simulated backend's client), to
// answer the chain-backed endpoints from that chain: blocks, date to block, transactions, native balances,
// logs, contract calls, ERC-20 metadata, allowances, balances and transfers, and ERC-721/1155 NFTs, owners,
// transfers and metadata.
//
// Handler serves the same outside tests (see cmd/web3apiserver).
package web3apitest
