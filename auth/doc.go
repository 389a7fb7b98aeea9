// Package auth is wallet sign-in from Go: the messages a wallet signs, their verification (EOAs and smart-contract
// accounts), the backend's one-time tickets, and the sign-in, link and unlink flows against the backend. The
// browser-facing HTTP endpoint built on it is package authserver; keys and signing are package signer.
//
// A Go program signs a wallet in against the backend with a *client.Client and a key (or any signer.Ethereum):
//
//	key, err := signer.NewKeyFromHex(hexKey)        // or a keystore file, a hardware wallet, a remote signer
//	u, err := auth.SignInEthereum(ctx, c, key, nil) // signed up the first time, logged in after
//	me := c.WithSessionToken(u.SessionToken())      // a client acting as the wallet's user
//	err = auth.LinkSolana(ctx, me, u, solKey, nil)  // one more address on the same user
//
// A server that checks signatures itself uses the verifiers (VerifyEthSignature, VerifySolSignature, ParseSIWE and
// SIWEMessage.Verify, VerifySIWS, VerifyTypedData) without a backend.
//
// # Sign-in from Go
//
// The flows follow the original client, with one-time tickets. SignInEthereum asks the backend for the message to
// sign (RequestMessage: "Moralis Authentication\n\nId: {appId}:{one-time secret}", the text is configurable, and
// the ticket that goes with it; an original Moralis server without that function gives the server time instead),
// has an injected signer.Ethereum sign it with personal_sign (EIP-191), and logs in through POST users with
// authData.moralisEth = {id: lower-cased address, signature: 0x hex, data: message, ticket}. The user is then saved
// with ethAddress, accounts (AddUnique) and an ACL for the user alone. SignInSolana does the same with a
// signer.Solana (ed25519, base58) and the moralisSol provider, keeping solAccounts and solAddress. SignIn is the
// loop under both, for messages signed elsewhere; LogIn is one login with a SignedMessage. Link and Unlink (and
// their Ethereum and Solana forms) add and remove further addresses. Keys stay with the caller: signer.Key (hex,
// keystore file) and signer.Ed25519Key are provided, and any wallet or remote signer can implement the
// interfaces.
//
// Per-call settings come in an *Options (nil: the defaults); the flows never change it. Every function is safe
// for concurrent use (with a signer that is).
//
// # Verification
//
// VerifyEthSignature recovers a personal_sign signer with go-ethereum (v = 27/28 or 0/1; high-s signatures are
// refused). VerifySolSignature checks ed25519 signatures over base58 keys, refusing what can be forged without a
// private key: the 8 small-order public keys (11111111111111111111111111111111 among them), small-order R,
// non-canonical point encodings and S >= L (filippo.io/edwards25519 does the point checks). Solana keys and
// signatures are plain base58 strings and crypto/ed25519 values in this API: the package does not depend on
// solana-go, whose module graph (about 25 modules, among them mongo-driver and zap) would be forced on every user
// of sign-in; a caller that uses solana-go converts with solana.PublicKeyFromBase58(addr) or PublicKey.String().
//
// # Smart-contract wallets
//
// VerifyEthSignatureContext and VerifyEthHash take a ContractCaller (an *ethclient.Client, nil by default) and then
// also accept signatures of contract accounts: ERC-1271 isValidSignature for deployed ones and ERC-6492 wrapped
// signatures (WrapERC6492Signature) for accounts a factory has not deployed yet. An ECDSA signature that recovers
// to the address is accepted first, with no chain call; otherwise one eth_call without a "to" runs a small
// hand-assembled validator (its listing is in contractwallet.go) that makes the factory call if needed and asks
// the account, all in simulation. authserver.Config.Chain turns this on for the endpoint.
//
// # Typed data (EIP-712)
//
// VerifyTypedData checks eth_signTypedData_v4 signatures of a signer.TypedData document the same way: the digest
// is signer.TypedDataHash's, an ECDSA signature that recovers to the address is accepted without the chain, and
// with a ContractCaller ERC-1271 and ERC-6492 accounts are asked by the same single eth_call.
//
// # Sign-In with Ethereum
//
// SIWEMessage builds, ParseSIWE parses to the letter of the EIP's ABNF and Verify checks EIP-4361 messages
// (domain, URI, chain id, nonce, issued-at, expiration, not-before); String of a parsed message is the parsed
// text byte for byte. NewNonceValue makes a nonce; the endpoint's nonce stores (authserver.NonceStore) issue them
// once each, bound to the chain, address and exact text they were handed out with.
//
// # Sign-In with Solana
//
// SIWSMessage builds and ParseSIWS parses Sign-In with Solana messages as wallets write them (the wallet-standard
// solana:signIn feature, Phantom's ABNF); String of a parsed message is the signed text byte for byte. VerifySIWS
// checks a sign-in: expected domain and chain (required), nonce, version and issued-at present, issued-at within
// DefaultSIWSIssuedAtWindow of now, expiration and not-before, the named address equal to the signing key, the
// signature (VerifySolSignature's strict rules), and last a one-time nonce through SIWSVerifyOptions.ConsumeNonce
// (the endpoint passes its authserver.NonceStore).
//
// # Tickets: the backend's one door
//
// A signature alone would let a captured authData sign in again forever. This project's backend adapters (the
// moralis-go-server package, server/lib/auth.js) also require a one-time ticket issued by the deployment for
// exactly that chain, address and text, and consume it with one database DELETE (one winner on every instance;
// expired tickets are refused). SDK clients get theirs with the message (RequestMessage); the endpoint's authserver.ClientBackend
// issues one per sign-in or link with the master key (IssueTicket), after its own checks and nonce, marking it for
// a contract account only after verifying the signature on the chain (TicketOptions.Chain).
package auth
