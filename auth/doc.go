// Package auth signs users in with crypto wallets against the backend, and serves a thin sign-in endpoint for
// browsers.
//
// # Sign-in from Go
//
// The flows follow the original client, with one-time tickets. SignInEthereum asks the backend for the message to
// sign (RequestMessage: "Moralis Authentication\n\nId: {appId}:{one-time secret}", the text is configurable, and
// the ticket that goes with it; an original Moralis server without that function gives the server time instead),
// has an injected EthSigner sign it with personal_sign (EIP-191), and logs in through POST users with
// authData.moralisEth = {id: lower-cased address, signature: 0x hex, data: message, ticket}. The user is then saved with
// ethAddress, accounts (AddUnique) and an ACL for the user alone. SignInSolana does the same with a SolSigner
// (ed25519, base58) and the moralisSol provider, keeping solAccounts and solAddress. Link and Unlink add and
// remove further addresses. Keys stay with the caller: PrivateKeySigner (hex key or a keystore file) and
// Ed25519Signer are provided, and any wallet or remote signer can implement the interfaces.
//
// # Verification
//
// VerifyEthSignature recovers a personal_sign signer with go-ethereum (v = 27/28 or 0/1; high-s signatures are
// refused). VerifySolSignature checks ed25519 signatures over base58 keys, refusing what can be forged without a
// private key: the 8 small-order public keys (11111111111111111111111111111111 among them), small-order R,
// non-canonical point encodings and S >= L (filippo.io/edwards25519 does the point checks). Solana keys and signatures are plain
// base58 strings and crypto/ed25519 values in this API: the package does not depend on solana-go, whose module
// graph (about 25 modules, among them mongo-driver and zap) would be forced on every user of sign-in; a caller
// that uses solana-go converts with solana.PublicKeyFromBase58(addr) or PublicKey.String().
//
// # Smart-contract wallets
//
// VerifyEthSignatureContext and VerifyEthHash take a ContractCaller (an *ethclient.Client, nil by default) and then
// also accept signatures of contract accounts: ERC-1271 isValidSignature for deployed ones and ERC-6492 wrapped
// signatures (WrapERC6492Signature) for accounts a factory has not deployed yet. An ECDSA signature that recovers
// to the address is accepted first, with no chain call; otherwise one eth_call without a "to" runs a small
// hand-assembled validator (its listing is in contractwallet.go) that makes the factory call if needed and asks
// the account, all in simulation. HandlerOptions.Chain turns this on for the endpoint.
//
// # Sign-In with Ethereum and nonces
//
// SIWEMessage builds, ParseSIWE parses to the letter of the EIP's ABNF and Verify checks EIP-4361 messages
// (domain, URI, chain id, nonce, issued-at, expiration, not-before); String of a parsed message is the parsed
// text byte for byte. A NonceStore issues one-time nonces with an expiry and binds each to the chain, address and
// exact text it was handed out with; the in-memory MemoryNonceStore is the default, BackendNonceStore shares them
// between endpoint instances through the backend.
//
// # Tickets: the backend's one door
//
// A signature alone would let a captured authData sign in again forever. This project's backend adapters
// (internal/devstack/server/auth.js) also require a one-time ticket issued by the deployment for exactly that
// chain, address and text, and consume it with one database DELETE (one winner on every instance; expired tickets
// are refused). The endpoint's ClientBackend issues one per sign-in or link with the master key (IssueTicket), after
// its own checks and nonce; SDK clients get theirs with the message (RequestMessage).
//
// # The endpoint
//
// NewHandler returns an http.Handler for browsers (the React hooks): GET /message, POST /signin, /link,
// /unlink, /signout and GET /me, mountable under any prefix with http.StripPrefix. Every request is checked
// locally (signature, address, nonce, domain or app id, times, content type, size, origin, rate) before the
// Backend is called; ClientBackend is the Backend over the REST client, and keys never leave the server.
//
// # Hardening, on by default
//
// The session lives only in an HttpOnly, Secure, SameSite=Lax cookie (HandlerOptions.TokenInBody and
// InsecureCookie opt out). Per-client rate limits cover every route, with a tighter one for /message, /signin and
// /link and one for live streams; each client holds at most NoncesPerClient unexpired nonces. Allowed origins
// come from the configuration (URI and AllowedOrigins), never from the Host header; request bodies are decoded
// with case-sensitive, non-repeated field names. GuardLive puts the limits, the origin policy and a session
// checked with the backend (cached briefly) in front of a live-query stream handler, so a fake session never
// reaches the live-query server. NewServer serves all of it with time-outs, a header limit and a connection cap,
// overall and per client.
package auth
