// Package auth signs users in with crypto wallets against the backend, and serves a thin sign-in endpoint for
// browsers.
//
// # Sign-in from Go
//
// The flows follow the original client. SignInEthereum asks the backend for its time (getServerTime), builds
// the message "Moralis Authentication\n\nId: {appId}:{serverTime}" (the text is configurable), has an injected
// EthSigner sign it with personal_sign (EIP-191), and logs in through POST users with
// authData.moralisEth = {id: lower-cased address, signature: 0x hex, data: message}. The user is then saved with
// ethAddress, accounts (AddUnique) and an ACL for the user alone. SignInSolana does the same with a SolSigner
// (ed25519, base58) and the moralisSol provider, keeping solAccounts and solAddress. Link and Unlink add and
// remove further addresses. Keys stay with the caller: PrivateKeySigner (hex key or a keystore file) and
// Ed25519Signer are provided, and any wallet or remote signer can implement the interfaces.
//
// # Verification
//
// VerifyEthSignature recovers a personal_sign signer with go-ethereum (v = 27/28 or 0/1; high-s signatures are
// refused). VerifySolSignature checks ed25519 signatures over base58 keys. Solana keys and signatures are plain
// base58 strings and crypto/ed25519 values in this API: the package does not depend on solana-go, whose module
// graph (about 25 modules, among them mongo-driver and zap) would be forced on every user of sign-in; a caller
// that uses solana-go converts with solana.PublicKeyFromBase58(addr) or PublicKey.String().
//
// # Sign-In with Ethereum and nonces
//
// SIWEMessage builds, ParseSIWE strictly parses and Verify checks EIP-4361 messages (domain, URI, chain id,
// nonce, issued-at, expiration, not-before). A NonceStore issues one-time nonces with an expiry; the in-memory
// MemoryNonceStore is the default.
//
// # The endpoint
//
// NewHandler returns an http.Handler for browsers (the React hooks): GET /message, POST /signin, /link,
// /unlink, /signout and GET /me, mountable under any prefix with http.StripPrefix. Every request is checked
// locally (signature, address, nonce, domain or app id, times, content type, size, origin, rate) before the
// Backend is called; ClientBackend is the Backend over the REST client, and keys never leave the server.
package auth
