// Package transfer sends native, ERC-20, ERC-721 and ERC-1155 transfers and
// calls arbitrary contract functions on an EVM chain.
//
// The package talks to the chain through the small Backend interface, which
// both *ethclient.Client and the client of go-ethereum's simulated backend
// satisfy; it never dials a node itself (see NodeURL and ResolveChainID for the
// hosted node endpoints). Signing is injected through Config.Signer, a
// signer.EthereumTx (a *signer.Key from hex, a keystore file or a go-ethereum
// key, or your own wallet); the package never holds or writes keys itself.
//
// Inputs are validated before any network call. The validation messages are
// the product's: "{field} is required", "Unsupported type", "Invalid token Id",
// "Sender address not found", "From address is required", "Function does not
// exist in abi" and "Multiple function definitions found in the abi".
//
// A Client is immutable and safe for concurrent use; transactions sent
// concurrently from one account may race for the same pending nonce unless
// TxOptions.Nonce is set.
package transfer
