package authserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/redislimit"
	"github.com/c13f5054/moralis-go/internal/telemetry"
)

// DefaultMaxBodyBytes is the request body limit of the Handler (64 KiB).
const DefaultMaxBodyBytes = 64 << 10

// DefaultCookieName is the name of the session cookie the Handler sets.
const DefaultCookieName = "moralis_session"

// DefaultClockSkew is how far in the future a SIWE message's Issued At may be before it is refused.
const DefaultClockSkew = 30 * time.Second

// DefaultChainID is the EIP-155 chain id of SIWE messages when Config.ChainID is zero (Ethereum mainnet).
const DefaultChainID = 1

// Message styles for EVM sign-in messages (Config.EVMMessageStyle).
const (
	// StyleSIWE is an EIP-4361 Sign-In with Ethereum message (the default for EVM).
	StyleSIWE = "siwe"
	// StyleMoralis is the Moralis-style message: text + "\n\nId: " + appId + ":" + nonce (always used for Solana).
	StyleMoralis = "moralis"
)

// Config configures NewHandler. AppID is required; so is Domain unless EVMMessageStyle is StyleMoralis. Every
// other field has a safe default, taken when it is left zero. NewHandler checks the configuration and copies it
// (AllowedOrigins included): changing it afterwards has no effect.
type Config struct {
	// AppID is the backend application id. Moralis-style messages carry it and must match it; required.
	AppID string
	// Domain (host[:port]) that SIWE messages name and must match, e.g. "app.example.com"; required for SIWE.
	Domain string
	// URI in SIWE messages; default "https://" + Domain. Signed messages must name it exactly.
	URI string
	// ChainID in SIWE messages and required of them; default DefaultChainID (1).
	ChainID uint64
	// SolanaChainID in Sign-In with Solana messages and required of them (one of auth.SIWSChainIDs); default
	// DefaultSolanaChainID. SIWS is on when Domain is set (see siws.go).
	SolanaChainID string
	// Statement is the human-readable text of the messages; default auth.DefaultSigningMessage. It must be one
	// line of printable text, and EIP-4361 text (ASCII letters, digits, spaces, URI punctuation) for SIWE.
	Statement string
	// EVMMessageStyle is StyleSIWE (default) or StyleMoralis.
	EVMMessageStyle string
	// Nonces issues and consumes one-time nonces; default a new MemoryNonceStore (one process only), or, when
	// Redis or RedisURL is set, nonces in that Redis, shared by every instance over it (one key per nonce, expired
	// by Redis, consumed by one atomic script). BackendNonceStore keeps them in the backend instead (no Redis
	// needed, three more backend requests per sign-in).
	Nonces NonceStore
	// NonceTTL is how long an issued message may be signed and used; default DefaultNonceTTL; negative is an
	// error.
	NonceTTL time.Duration
	// ClockSkew tolerated on SIWE Issued At / Not Before; default DefaultClockSkew; negative means none.
	ClockSkew time.Duration
	// CookieName of the session cookie; default DefaultCookieName. It must be a valid cookie name.
	CookieName string
	// CookiePath of the session cookie; default "/".
	CookiePath string
	// InsecureCookie leaves the Secure attribute off the session cookie. The cookie is Secure by default (browsers
	// and Go's cookie jar treat http://localhost and loopback addresses as secure, so local development needs no
	// change); set this only to serve plain HTTP on another host name during development.
	InsecureCookie bool
	// TokenInBody adds "sessionToken" to the answer of POST /signin. Off by default: the session then lives only in
	// the HttpOnly cookie, out of reach of page scripts. Turn it on for non-browser clients that send the token as
	// "Authorization: Bearer".
	TokenInBody bool
	// CookieMaxAge is the cookie lifetime; default 0, a browser-session cookie; negative is an error.
	CookieMaxAge time.Duration
	// AllowedOrigins lists the origins ("https://app.example.com") that may call the handler with credentials,
	// besides the origin of URI, which is always allowed; default none. Same-origin is judged from this
	// configuration only, never from the request's Host header (which the caller chooses). A request with any
	// other Origin is refused with 403 when it changes state (POST) and gets no CORS headers otherwise. "*" is
	// not supported. With StyleMoralis and no URI, list the site's own origin here.
	AllowedOrigins []string
	// RateLimit limits each client over every route; requests over it get 429 with Retry-After. Default
	// DefaultRateBurst requests at once, one more per DefaultRateEvery; NoRateLimit turns it off.
	RateLimit RateLimit
	// SignInRateLimit limits each client over GET /message, POST /signin and POST /link together, on top of
	// RateLimit. Default DefaultSignInRateBurst at once, one more per DefaultSignInRateEvery; NoRateLimit: off. A
	// nil ClientKey takes RateLimit's.
	SignInRateLimit RateLimit
	// LiveRateLimit limits each client's stream openings through Live (or GuardLive), on top of RateLimit. Default
	// DefaultLiveRateBurst at once, one more per DefaultLiveRateEvery; NoRateLimit: off. A nil ClientKey takes
	// RateLimit's.
	LiveRateLimit RateLimit
	// LiveStreamsPerSession caps the streams one session holds open through Live (or GuardLive) at once; over it, 429
	// {"code":155}. Default DefaultLiveStreamsPerSession; negative: no cap.
	LiveStreamsPerSession int
	// LiveStreamsPerUser caps the streams one user (the account behind the session, however many sessions and
	// addresses it signs in with) holds open through Live (or GuardLive) at once; over it, 429 {"code":155}. Default
	// DefaultLiveStreamsPerUser; negative: no cap.
	LiveStreamsPerUser int
	// LiveStreamsPerClient caps the streams one client (LiveRateLimit's ClientKey, the remote address by default)
	// holds open through Live or GuardLive at once, whatever users it signs in as; over it, 429 {"code":155}.
	// Default DefaultLiveStreamsPerClient; negative: no cap.
	LiveStreamsPerClient int
	// MaxLiveStreams caps the streams this Handler (this instance) holds open through Live and GuardLive at once,
	// whoever holds them; over it, 503 {"code":1} with Retry-After. Default DefaultMaxLiveStreams, half of
	// ServerConfig's default MaxConns, so that streams never take every connection; negative: no cap.
	MaxLiveStreams int
	// NoncesPerClient caps the nonces one client (RateLimit's ClientKey) may hold: each nonce GET /message issues
	// counts until it expires (NonceTTL); over the cap, 429. Default DefaultNoncesPerClient; negative: no cap.
	NoncesPerClient int
	// SessionCacheTTL is how long the endpoint trusts a session the backend confirmed (users/me) before asking
	// again, for GuardLive and the data proxy alike (one cache, which POST /signout empties); default
	// DefaultSessionCacheTTL; negative: ask every time.
	SessionCacheTTL time.Duration
	// MaxBodyBytes limits request bodies; default DefaultMaxBodyBytes; negative is an error. Larger bodies get 413.
	MaxBodyBytes int64
	// Now is the clock; default time.Now. It must be safe for concurrent use.
	Now func() time.Time
	// OnError, when set, is told about backend failures (for logging); the caller only sees a sanitized answer.
	// Default nil. It is called from the request's goroutine and must be safe for concurrent use.
	OnError func(r *http.Request, err error)
	// Redis, when set, keeps the endpoint's guards in this Redis, shared by every endpoint instance that uses it:
	// the rate limits (RateLimit, SignInRateLimit, LiveRateLimit and DataProxyConfig.RateLimit, as GCRA limits
	// on Redis's clock), the nonce quota (NoncesPerClient), the live-stream caps (per session, per user, per
	// client) and session revocation: a sign-out through any instance refuses the session on every instance at
	// once (each confirmed-session request asks Redis, one EXISTS) and ends its live streams on every instance
	// (pub/sub), whatever SessionCacheTTL says. The guards fail closed: while Redis cannot be reached, requests
	// they guard are answered 503 {"code":1,"error":"Limit store unavailable"} (or "Session store unavailable")
	// with Retry-After, never let through, and they recover by themselves when Redis is back. Give the client
	// short timeouts (for example 500 ms reads): a guard waits for Redis as long as the client lets it. The
	// Handler does not close it. One Redis node, or a primary behind Sentinel: not Redis Cluster, as several
	// guards are one script over several keys (a request's two rate limits, a nonce and its index, the stream
	// caps). nil (default), with RedisURL empty: the guards are in memory, for one process:
	// with N instances a client gets N times every limit and a sign-out reaches only the instance it went
	// through. Call Handler.Close when done with a Handler that uses Redis.
	Redis redis.UniversalClient
	// RedisURL is Redis as a URL (redis://[user:password@]host:port/db, or rediss:// for TLS) instead of a client:
	// NewHandler makes a client with short timeouts (dial 1 s, reads and writes 500 ms, one retry) and does no I/O;
	// Handler.Close closes it. Setting both Redis and RedisURL is an error. Default "": see Redis.
	RedisURL string
	// Sessions that roll (sessions.go; ClientBackend with a master key). SessionIdleTTL is how long a session lives
	// unused: a confirmed request more than half way to its end extends it to now + SessionIdleTTL; default
	// DefaultSessionIdleTTL; negative is an error. SessionMaxAge caps a session's life from its sign-in, however
	// active; default DefaultSessionMaxAge; negative is an error, and so is a SessionIdleTTL above it.
	SessionIdleTTL time.Duration
	SessionMaxAge  time.Duration
	// Chain, when set, lets smart-contract wallets sign in: EVM signatures that do not recover to the address
	// are checked by eth_call on this chain (ERC-1271, and ERC-6492 for accounts not deployed yet; see
	// auth.VerifyEthSignatureContext). It must serve the chain of ChainID; give the same chain to
	// BackendConfig.Chain. nil (default): EOA signatures only.
	Chain auth.ContractCaller

	// TracerProvider, when set, gets a server span per request (named by method and route: "POST /signin",
	// "GET /data/chain/balance", "live"), with child spans for its steps (the session check, the signature and
	// nonce check, the backend call) and, for a refusal, its reason word, Parse code and status. Default nil: no
	// spans. No session token, cookie, key, signature, message or URL is ever recorded.
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, gets moralis.endpoint.requests (by route and outcome; the data proxy's routes are
	// /data/...), .refusals (by route, reason, code, status), .request.duration and .live.opened, .live.closed,
	// .live.active. Default nil: none.
	MeterProvider metric.MeterProvider
	// Logger, when set, logs each refusal (Info; Warn for a 5xx) with its route, reason, code and status, and
	// live streams opened and closed (Debug). Default nil: no logs.
	Logger *slog.Logger
}

// Handler is the thin sign-in endpoint for browsers (the React hooks). Mount it under any prefix with
// http.StripPrefix. Routes, relative to the mount point:
//
//	GET  /message?address=ADDR&chain=evm|solana  -> 200 {"message","nonce","expiresAt"}
//	POST /signin  {chain,address,message,signature} -> 200 {"user":{...}} + HttpOnly; Secure; SameSite=Lax cookie
//	POST /link    {chain,address,message,signature} -> 200 {"user":{...}}   (needs a session)
//	POST /unlink  {chain,address}                   -> 200 {"user":{...}}   (needs a session)
//	POST /signout                                   -> 200 {}               (clears the cookie)
//	GET  /me                                        -> 200 {"user":{...}} or 401 {"code":209,...}
//
// The answers with a user also say when the session ends, when the Backend knows it ("session": SessionEnd).
// Every refusal ({code, error} JSON with a 4xx status) happens before any Backend call. The session comes from
// the cookie or an "Authorization: Bearer" header. Per-client rate limits and a per-client nonce quota are on by
// default (see Config). Live serves query/live's stream through the same pipeline (GuardLive puts it in front of a
// stream handler of your own), and NewServer serves it all with time-outs and a connection cap. A Handler is
// immutable and safe for concurrent use.
type Handler struct {
	backend     Backend
	o           Config
	policy      *policy
	signInLimit limit
	liveLimit   limit
	liveSlots   chan struct{} // a slot per open live stream of this instance (MaxLiveStreams); nil: no cap
	nonceQuota  limit
	mux         *http.ServeMux
	redis       *redislimit.Store // nil: the in-memory stores
	closeRedis  func() error      // closes what NewHandler opened for Redis
}

// NewHandler checks cfg and makes a Handler that calls backend (required: a ClientBackend, or your own) for
// requests that pass every local check. An invalid configuration is an error that names the field.
func NewHandler(backend Backend, cfg Config) (*Handler, error) {
	o := cfg
	o.AllowedOrigins = append([]string(nil), cfg.AllowedOrigins...)
	if backend == nil {
		return nil, errors.New("authserver: NewHandler needs a Backend")
	}
	if o.AppID == "" || strings.ContainsAny(o.AppID, "\r\n") {
		return nil, errors.New("authserver: Config.AppID is required")
	}
	switch o.EVMMessageStyle {
	case "":
		o.EVMMessageStyle = StyleSIWE
	case StyleSIWE, StyleMoralis:
	default:
		return nil, fmt.Errorf("authserver: unknown Config.EVMMessageStyle %q", o.EVMMessageStyle)
	}
	if o.Statement == "" {
		o.Statement = auth.DefaultSigningMessage
	}
	if !validStatement(o.Statement) {
		return nil, errors.New("authserver: Config.Statement must be one line of printable text")
	}
	if o.ChainID == 0 {
		o.ChainID = DefaultChainID
	}
	if o.EVMMessageStyle == StyleSIWE {
		if o.URI == "" {
			o.URI = "https://" + o.Domain
		}
		if err := checkSIWEConfig(o); err != nil {
			return nil, err
		}
	}
	if err := checkSIWSConfig(&o); err != nil {
		return nil, err
	}
	if err := checkSessionLife(&o); err != nil {
		return nil, err
	}
	switch {
	case o.NonceTTL < 0:
		return nil, errors.New("authserver: Config.NonceTTL must not be negative")
	case o.CookieMaxAge < 0:
		return nil, errors.New("authserver: Config.CookieMaxAge must not be negative")
	case o.MaxBodyBytes < 0:
		return nil, errors.New("authserver: Config.MaxBodyBytes must not be negative")
	}
	for _, rl := range []struct {
		name string
		rl   RateLimit
	}{{"RateLimit", o.RateLimit}, {"SignInRateLimit", o.SignInRateLimit}, {"LiveRateLimit", o.LiveRateLimit}} {
		if rl.rl.Every < 0 {
			return nil, fmt.Errorf("authserver: Config.%s.Every must not be negative", rl.name)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	nonceDefault := o.Nonces == nil
	if nonceDefault {
		o.Nonces = NewMemoryNonceStore(o.Now)
	}
	if o.NonceTTL == 0 {
		o.NonceTTL = DefaultNonceTTL
	}
	if o.ClockSkew == 0 {
		o.ClockSkew = DefaultClockSkew
	} else if o.ClockSkew < 0 {
		o.ClockSkew = 0
	}
	if o.CookieName == "" {
		o.CookieName = DefaultCookieName
	}
	if o.CookiePath == "" {
		o.CookiePath = "/"
	}
	if err := (&http.Cookie{Name: o.CookieName, Value: "x", Path: o.CookiePath}).Valid(); err != nil {
		return nil, errors.New("authserver: Config.CookieName or CookiePath is not valid in a cookie")
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	o.RateLimit = o.RateLimit.withDefault(DefaultRateBurst, DefaultRateEvery, remoteIP)
	o.SignInRateLimit = o.SignInRateLimit.withDefault(DefaultSignInRateBurst, DefaultSignInRateEvery, o.RateLimit.ClientKey)
	o.LiveRateLimit = o.LiveRateLimit.withDefault(DefaultLiveRateBurst, DefaultLiveRateEvery, o.RateLimit.ClientKey)
	if o.NoncesPerClient == 0 {
		o.NoncesPerClient = DefaultNoncesPerClient
	}
	if o.SessionCacheTTL == 0 {
		o.SessionCacheTTL = DefaultSessionCacheTTL
	}
	if o.LiveStreamsPerSession == 0 {
		o.LiveStreamsPerSession = DefaultLiveStreamsPerSession
	}
	if o.LiveStreamsPerUser == 0 {
		o.LiveStreamsPerUser = DefaultLiveStreamsPerUser
	}
	if o.LiveStreamsPerClient == 0 {
		o.LiveStreamsPerClient = DefaultLiveStreamsPerClient
	}
	if o.MaxLiveStreams == 0 {
		o.MaxLiveStreams = DefaultMaxLiveStreams
	}
	if hb, ok := backend.(handlerBound); ok {
		backend = hb.withHandler(lifeOf(o), o.Logger)
	}
	origins := map[string]bool{}
	for _, org := range o.AllowedOrigins {
		n, ok := normalizeOrigin(org)
		if !ok {
			return nil, fmt.Errorf("authserver: Config.AllowedOrigins: %q is not an origin like https://host[:port]", org)
		}
		origins[n] = true
	}
	if n, ok := originOfURI(o.URI); ok {
		origins[n] = true
	}
	h := &Handler{backend: backend, o: o, closeRedis: func() error { return nil }}
	if o.MaxLiveStreams > 0 {
		h.liveSlots = make(chan struct{}, o.MaxLiveStreams)
	}
	if err := h.openRedis(); err != nil {
		return nil, err
	}
	sessions := newMemorySessions(o.SessionCacheTTL, o.Now)
	lim := streamLimits{perSession: o.LiveStreamsPerSession, perUser: o.LiveStreamsPerUser,
		perClient: o.LiveStreamsPerClient, key: o.LiveRateLimit.ClientKey}
	h.policy = &policy{backend: backend, origins: origins, limit: limit{h.limiter("all", o.RateLimit), o.RateLimit.ClientKey},
		sessions: sessions, streams: newMemoryStreamCaps(lim), open: newOpenStreams(),
		cookie: cookieRules{name: o.CookieName, path: o.CookiePath, insecure: o.InsecureCookie,
			maxAge: o.CookieMaxAge, now: o.Now},
		onError: o.OnError,
		tel:     telemetry.NewEndpoint(telemetry.Providers{Tracer: o.TracerProvider, Meter: o.MeterProvider, Logger: o.Logger})}
	h.signInLimit = limit{h.limiter("signin", o.SignInRateLimit), o.SignInRateLimit.ClientKey}
	h.liveLimit = limit{h.limiter("live", o.LiveRateLimit), o.LiveRateLimit.ClientKey}
	h.nonceQuota = limit{newNonceQuota(o.NoncesPerClient, o.NonceTTL, o.Now), o.RateLimit.ClientKey}
	if h.redis != nil {
		if nonceDefault {
			h.o.Nonces = redisNonceStore{s: h.redis, max: DefaultMaxOutstandingNonces, now: o.Now, newValue: auth.NewNonceValue}
		}
		if o.NoncesPerClient > 0 {
			h.nonceQuota.store = redisQuota{s: h.redis, max: o.NoncesPerClient, ttl: o.NonceTTL}
		}
		h.policy.sessions = redisSessions{local: sessions, s: h.redis, revokeTTL: max(2*o.SessionCacheTTL, time.Minute)}
		if !lim.off() {
			h.policy.streams = &redisStreamCaps{s: h.redis, lim: lim, report: o.OnError}
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			revocationWatch(ctx, h.redis, sessions, h.policy.open)
		}()
		closeClient := h.closeRedis
		h.closeRedis = func() error {
			cancel()
			<-done
			return closeClient()
		}
	}
	h.mux = h.routes()
	return h, nil
}

// openRedis sets h.redis from Config.Redis or Config.RedisURL (none: the in-memory stores).
func (h *Handler) openRedis() error {
	switch {
	case h.o.Redis != nil && h.o.RedisURL != "":
		return errors.New("authserver: set Config.Redis or Config.RedisURL, not both")
	case h.o.Redis != nil:
		s, err := redislimit.New(h.o.Redis, redislimit.Options{})
		if err != nil {
			return fmt.Errorf("authserver: Config.Redis: %w", err)
		}
		h.redis = s
	case h.o.RedisURL != "":
		s, rdb, err := redislimit.Open(h.o.RedisURL, redislimit.Options{})
		if err != nil {
			return fmt.Errorf("authserver: Config.RedisURL: %w", err)
		}
		h.redis, h.closeRedis = s, rdb.Close
	}
	return nil
}

// limiter returns the rate limit cfg named name: in Redis when the Handler has it, else in memory; nil when cfg is
// off.
func (h *Handler) limiter(name string, cfg RateLimit) rateLimiter {
	if h.redis != nil {
		return newRedisLimiter(h.redis, name, cfg)
	}
	return newLimiter(cfg, h.o.Now)
}

// Close stops what a Handler that uses Redis runs in the background (the revocation watch) and closes the Redis
// client NewHandler opened from Config.RedisURL (not Config.Redis, the caller's). Without Redis it does nothing.
// The Handler must not serve requests after Close.
func (h *Handler) Close() error { return h.closeRedis() }

// routes are the Handler's routes on the pipeline (pipeline.go): GET /message and POST /signin and /link take
// the sign-in rate limit besides the policy's.
func (h *Handler) routes() *http.ServeMux {
	p, mux := h.policy, http.NewServeMux()
	post := route{method: http.MethodPost, body: bodyJSON, maxBody: h.o.MaxBodyBytes}
	signIn, link := post, post
	signIn.limit, link.limit, link.session = h.signInLimit, h.signInLimit, sessionPresent
	unlink := post
	unlink.session = sessionPresent
	signOut := post
	signOut.body = bodyOptional
	handle(p, mux, "/message", route{method: http.MethodGet, limit: h.signInLimit}, h.message)
	handle(p, mux, "/signin", signIn, h.signIn)
	handle(p, mux, "/link", link, h.link)
	handle(p, mux, "/unlink", unlink, h.unlink)
	handle(p, mux, "/signout", signOut, h.signOut)
	handle(p, mux, "/me", route{method: http.MethodGet, session: sessionPresent}, h.me)
	notFound(p, mux, originLax)
	return mux
}

// ServeHTTP serves the routes of the Handler, each through the one pipeline: the policy (rate limits, origin,
// method, session), the body, the route, the answer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// validStatement accepts one line of printable text (the handler's message text; SIWE statements are narrower:
// checkSIWEConfig).
func validStatement(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return s != ""
}

// validNonce accepts the suffix of a Moralis-style message the handler issued: 8 to 128 ASCII letters or digits.
func validNonce(n string) bool {
	if len(n) < 8 || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkSIWEConfig checks, field by field, that Domain, Statement and URI fit in a SIWE message: each is put into an
// otherwise valid message, which auth.SIWEMessage.Validate (the EIP's ABNF) must accept.
func checkSIWEConfig(o Config) error {
	probe := func(edit func(m *auth.SIWEMessage)) bool {
		m := auth.SIWEMessage{Domain: "example.com", Address: "0x0000000000000000000000000000000000000000",
			URI: "https://example.com", ChainID: 1, Nonce: "00000000", IssuedAt: time.Unix(0, 0).UTC()}
		edit(&m)
		return m.Validate() == nil
	}
	if !probe(func(m *auth.SIWEMessage) { m.Domain = o.Domain }) {
		return errors.New("authserver: Config.Domain must be host[:port] for SIWE messages")
	}
	if !probe(func(m *auth.SIWEMessage) { m.Statement = o.Statement }) {
		return errors.New("authserver: Config.Statement must be EIP-4361 text for SIWE messages (ASCII letters, digits, spaces, URI punctuation)")
	}
	if !probe(func(m *auth.SIWEMessage) { m.URI = o.URI }) {
		return errors.New("authserver: Config.URI must be an absolute URI")
	}
	return nil
}

func normalizeOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", false
	}
	host := strings.ToLower(u.Host)
	if u.Scheme == "https" {
		host = strings.TrimSuffix(host, ":443")
	} else {
		host = strings.TrimSuffix(host, ":80")
	}
	return strings.ToLower(u.Scheme) + "://" + host, true
}

// originOfURI returns the origin (scheme://host[:port]) of an absolute http(s) URI.
func originOfURI(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "", false
	}
	return normalizeOrigin(u.Scheme + "://" + u.Host)
}
