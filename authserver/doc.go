// Package authserver is the thin sign-in endpoint for browsers (the React hooks): an http.Handler over the
// sign-in flow of package auth, hardened by default, and a server to run it.
//
// # The endpoint
//
// NewHandler(backend, Config{...}) returns a *Handler for GET /message, POST /signin, /link, /unlink, /signout and
// GET /me, mountable under any prefix with http.StripPrefix (the wire contract is in ENDPOINT.md). Every request is
// checked locally (signature, address, nonce, domain or app id, times, content type, size, origin, rate) before
// the Backend is called; ClientBackend is the Backend over the backend's REST API, made with
// NewClientBackend(BackendConfig{...}), and keys never leave the server. Refusals are {"code", "error"} JSON with
// a 4xx status and the Code* constants; a Backend tells the Handler what to answer with a *BackendError.
//
// # Nonces
//
// A NonceStore issues one-time nonces with an expiry and binds each to the chain, address and exact text it was
// handed out with; a signed message is accepted once, only with that text. The in-memory MemoryNonceStore is the
// default (one process); BackendNonceStore shares them between endpoint instances through the backend's database.
// After its own checks and nonce, ClientBackend hands the backend a one-time ticket for the message
// (auth.IssueTicket), so the endpoint stays the one door in.
//
// # Hardening, on by default
//
// The session lives only in an HttpOnly, Secure, SameSite=Lax cookie (Config.TokenInBody and InsecureCookie opt
// out). Per-client rate limits cover every route, with a tighter one for /message, /signin and /link and one for
// live streams; each client holds at most NoncesPerClient unexpired nonces. Allowed origins come from the
// configuration (URI and AllowedOrigins), never from the Host header; request bodies are decoded with
// case-sensitive, non-repeated field names (DecodeRequest). GuardLive puts the limits, the origin policy and a
// session checked with the backend (cached briefly) in front of a live-query stream handler, so a fake session
// never reaches the live-query server. NewServer(handler, ServerConfig{...}) serves all of it with time-outs, a
// header limit and a connection cap, overall and per client. Options exist to trade this safety away (NoRateLimit,
// InsecureCookie), never to gain it.
//
// # Data for the browser, keys kept here
//
// Handler.DataProxy(DataProxyConfig{...}) serves the React data hooks under /data: backend queries and listed cloud
// functions run as the signed-in user (never with the master key), and chain data (native and token balances, NFTs,
// transactions) is fetched with the server's chain-data API key, which never reaches the browser. The session is
// checked before any backend or API work; each user has one rate limit (however many sessions), answers are bounded
// in size, and chain data is cached briefly (DefaultDataCacheTTL, at most DataCacheMaxBytes) with identical calls
// in flight shared.
//
// # Configuration and concurrency
//
// Types are made from a Config struct value (Config, BackendConfig, ServerConfig): every field is documented, its
// zero value is the default, the value is checked when the type is made (an invalid field is an error that names
// it) and copied. A Handler, a ClientBackend, the nonce stores and a Server are safe for concurrent use.
package authserver
