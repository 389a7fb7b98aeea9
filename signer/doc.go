// Package signer holds keys and signs with them, for sign-in (package auth) and for transactions (package
// transfer). The rest of the module never owns a key: it takes one of four small interfaces, and an application
// injects what implements it, in the manner of go-ethereum's bind.SignerFn.
//
//   - Ethereum signs messages with personal_sign (EIP-191), as a browser wallet does: auth.SignInEthereum.
//   - EthereumTx signs transactions: transfer.Config.Signer.
//   - Solana signs messages with ed25519, as a Solana wallet's signMessage does: auth.SignInSolana.
//   - EthereumTypedData signs EIP-712 typed data, as eth_signTypedData_v4 does: auth.VerifyTypedData checks it.
//
// Two in-memory implementations are provided. *Key is a secp256k1 key (every EVM chain) and implements both
// Ethereum interfaces; make it from a go-ethereum key (NewKey), hex (NewKeyFromHex), a keystore file and its
// passphrase (NewKeyFromKeystore, NewKeyFromKeystoreFile) or at random (GenerateKey). *Ed25519Key is a Solana key;
// make it from an ed25519.PrivateKey (NewEd25519Key), a base58 secret of 32 or 64 bytes as Phantom and
// solana-keygen export it (NewEd25519KeyFromBase58) or at random (GenerateEd25519Key). A hardware wallet, a KMS or
// a remote signer plugs in by implementing the interface it serves.
//
// # Typed data (EIP-712)
//
// TypedData is go-ethereum's apitypes.TypedData; ParseTypedData reads its JSON (numbers exactly) and TypedDataHash
// gives the digest a wallet signs. The encoding is go-ethereum's, a well-kept implementation; TypedDataHash first
// checks the whole document and refuses, with ErrInvalidTypedData, what go-ethereum alone would hash or panic on:
// intN values outside intN's range, [N] arrays of another length or depth, null array elements, empty integer
// strings, mixed-case addresses with a bad EIP-55 checksum, cyclic types, duplicate fields, names that are not
// identifiers, an EIP712Domain type that does not match the domain. Its digests are tested against ethers v6's
// TypedDataEncoder.hash over a generated corpus (make test-react).
//
// Keys are immutable and safe for concurrent use. Nothing in this package writes a key anywhere: String shows
// the address only, and no error contains a key, a secret or a passphrase. Methods of a nil key return an error
// (or the zero address), never panic.
package signer
