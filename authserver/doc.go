// Package authserver is the thin sign-in endpoint for browsers (the React hooks): an http.Handler over the
// sign-in flow of package auth, hardened by default, and a server to run it.
//
// Give it the backend's keys (the master key stays on this server), mount it, and serve it:
//
//	backend, err := authserver.NewClientBackend(authserver.BackendConfig{Client: client.Config{
//		ServerURL: serverURL, AppID: appID, JavaScriptKey: jsKey, MasterKey: masterKey}})
//	h, err := authserver.NewHandler(backend, authserver.Config{AppID: appID, Domain: "app.example.com"})
//	defer h.Close()
//	mux := http.NewServeMux()
//	mux.Handle("/auth/", http.StripPrefix("/auth", h)) // the React hooks' default endpoint path
//	srv, err := authserver.NewServer(mux, authserver.ServerConfig{})
//	srv.Addr = ":8080"
//	err = srv.ListenAndServeTLS(certFile, keyFile)
//
// The browser side is the npm package in react-hooks/; examples/authserver is this wiring with the live-query
// bridge and the data proxy, as make demo runs it.
//
// # The endpoint
//
// NewHandler(backend, Config{...}) returns a *Handler for GET /message, POST /signin, /link, /unlink, /signout and
// GET /me, mountable under any prefix with http.StripPrefix (the wire contract is in ENDPOINT.md). Every request is
// checked locally (signature, address, nonce, domain or app id, times, content type, size, origin, rate) before
// the Backend is called; ClientBackend is the Backend over the backend's REST API, made with
// NewClientBackend(BackendConfig{...}), and keys never leave the server. Refusals are {"code", "error"} JSON
// (ErrorResponse) with package parse's codes; a Backend tells the Handler what to answer with a *BackendError.
//
// # One pipeline
//
// Every route (the sign-in routes, Live and GuardLive, the data proxy's) is a function that gets the request after the
// policy and its decoded body and returns its answer (a typed struct of wire.go) or an error. One adapter
// (pipeline.go) serves them all: the policy in one order (the per-client rate limits, every route's then the
// route's own; the origin and CORS, with one preflight answer; the method, by ServeMux method patterns, 405
// with Allow otherwise; the session the route needs, confirmed with the backend where it acts as the user; the
// per-user limit), then the body by one rule (a JSON content type or 415, at most the route's limit or 413, an
// unreadable body 400), then the route, then the answer with the security headers (no-store, nosniff).
//
// The policy keeps its state in small stores, each an interface with an in-memory default: the rate limits and
// the nonce quota (rateLimiter), the confirmed sessions with their users (sessionStore: one bounded TTL cache,
// which sign-out empties for every route), the open live streams per session, per user and per client (streamCaps).
// With Config.Redis (or RedisURL) set, NewHandler gives the policy the Redis forms of the same stores, shared by
// every endpoint instance on that Redis: GCRA rate limits, the nonce quota, stream caps as leases, and session
// revocation (a sign-out anywhere is refused everywhere at once, and ends the session's streams on every instance);
// a fault of Redis is answered 503, never let through (see Config.Redis). No route changes.
//
// # Errors
//
// One translator (answerOf) turns every error into the answer, and one table (statusOf) gives the status of a
// Parse code: 101 (a refused sign-in) and 209 (a missing, ended or refused session) are 401, 119 is 403, 137 and
// 208 are 409, 155 is 429, every other code 400. Two kinds keep the status of their cause: failures (code 1: 502,
// 503 unavailable, 504 no answer in time) and refusals of the HTTP request itself (code 107: 404, 405, 413, 415).
// 401 is kept for the session: on a route of a signed-in user (/link, /unlink, /me, live streams, the data proxy)
// 101 (a signature that does not match, a used nonce, an address never linked, an object not found) is 404 and the
// session stands, so a client may end its session on any 401 of such a route. Nothing of an upstream failure
// reaches the caller, nor the text of a backend answer with code 141 on the sign-in routes (any error cloud code
// throws has that code: "Cloud code failed" is shown).
//
// # The wire contract
//
// The request and answer of every route are Go types (wire.go, PublicUser); the React hooks' TypeScript types
// (react-hooks/src/core/wire.gen.ts: the same names, parse's codes, the chain-data routes ChainDataKinds) are
// generated from them by go generate, and a test fails when that file is stale.
//
// # Nonces
//
// A NonceStore issues one-time nonces with an expiry and binds each to the chain, address and exact text it was
// handed out with; a signed message is accepted once, only with that text. The in-memory MemoryNonceStore is the
// default (one process); BackendNonceStore shares them between endpoint instances through the backend's database.
// After its own checks and nonce, ClientBackend hands the backend a one-time ticket for the message (an HMAC
// keyed by the master key, made without a round trip; see ClientBackend), so the endpoint stays the one door in.
//
// # One sign-in flow, and a backend that is told, not broken
//
// ClientBackend signs a wallet in by one path: with the master key, a returning wallet in one request of
// SignInFunction (moralis-go's server package), whose answer is a session, the app's definite refusal or "use the
// login"; anything else it does (an error, lost answers, absence) is logged with its reason and the wallet signs in by
// parse-server's login, whose session RecordSessionFunction records. Before its first sign-in or session check (or
// at start-up, with CheckBackend) it asks the backend what it offers (ServerInfoFunction, getServerTime, idempotency,
// LiveQuery) and logs one line of what is missing and what that costs; a stock parse-server or an original Moralis
// v1 server keeps working at the guarantee it allows, and is asked again every RecheckInterval. The session record
// and the ticket are defined once (internal/formatgen) and generated for Go (formats.gen.go) and for the server
// package (server/lib/formats.gen.js); a test fails when either is stale.
//
// # Sessions that roll
//
// A session ClientBackend made (with a master key) lives while it is used, up to a cap: Config.SessionIdleTTL
// after it was made or last extended (a confirmed request more than half way to its end extends it), never more
// than Config.SessionMaxAge after its sign-in, and only while the address and chain id it was signed for still hold
// (see sessions.go). Its end is kept in its record and in the backend's _Session; the cookie expires with it.
//
// # Hardening, on by default
//
// The session lives only in an HttpOnly, Secure, SameSite=Lax cookie (Config.TokenInBody and InsecureCookie opt
// out). Per-client rate limits cover every route, with a tighter one for /message, /signin and /link and one for
// live streams; each client holds at most NoncesPerClient unexpired nonces, and Live lets each user hold at most
// LiveStreamsPerUser open streams, each client LiveStreamsPerClient (however many sessions re-signing gives) and the
// instance MaxLiveStreams. Allowed origins come from the configuration (URI and AllowedOrigins), never from the Host
// header; request bodies are decoded with case-sensitive, non-repeated field names (DecodeRequest). Live serves
// query/live's stream through the same pipeline: the limits, the origin policy and a session checked with the
// backend (cached briefly) come first, so a fake session never reaches the live-query server. NewServer(handler,
// ServerConfig{...}) serves all of it with time-outs, a header limit and a connection cap, overall and per client
// (behind a balancer, per client the balancer names: ServerConfig.ProxyProtocol). Options exist to trade this safety
// away (NoRateLimit, InsecureCookie), never to gain it.
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
// # Observability
//
// Config.TracerProvider, MeterProvider and Logger (nil: off) report every request from the pipeline: a server span
// named by method and route with child spans for its steps (the session check, the signature and nonce check, the
// backend call), refusals counted and logged by a reason word, Parse code and status taken from the one status
// table, the data proxy's routes, and live streams opened, closed and open. No session token, cookie, key,
// signature, message, nonce or URL is ever recorded.
//
// # Configuration and concurrency
//
// Types are made from a configuration struct value (Config, DataProxyConfig, BackendConfig, ServerConfig), by one
// rule for every field: zero is the default; negative turns the field off where off makes sense (a rate limit's
// Burst, NoncesPerClient, LiveStreamsPerSession, LiveStreamsPerUser, LiveStreamsPerClient, SessionCacheTTL, ClockSkew,
// DataProxyConfig.CacheTTL, ServerConfig.MaxConns and MaxConnsPerClient) and is an error everywhere else; an invalid value is an error, when the type is made, that
// names the field. The value is copied. A Handler, a ClientBackend, the nonce stores and a Server are safe for
// concurrent use.
package authserver
