// Package devnet runs go-ethereum's simulated chain in-process for tests and
// for the devchain program: a funded dev account, optional JSON-RPC over HTTP
// on 127.0.0.1, automatic mining of pending transactions (like geth --dev) and
// deployment of the OpenZeppelin preset token contracts.
//
// It imports go-ethereum's simulated backend (several hundred packages), so
// only tests and the devchain program may import it, never library code.
// A *Chain is safe for concurrent use.
package devnet
