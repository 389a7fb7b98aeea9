package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
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
	// Nonces issues and consumes one-time nonces; default a new MemoryNonceStore (one process only: several
	// endpoint instances need a shared store such as BackendNonceStore).
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
	// LiveRateLimit limits each client's stream openings through GuardLive, on top of RateLimit. Default
	// DefaultLiveRateBurst at once, one more per DefaultLiveRateEvery; NoRateLimit: off. A nil ClientKey takes
	// RateLimit's.
	LiveRateLimit RateLimit
	// NoncesPerClient caps the nonces one client (RateLimit's ClientKey) may hold: each nonce GET /message issues
	// counts until it expires (NonceTTL); over the cap, 429. Default DefaultNoncesPerClient; negative: no cap.
	NoncesPerClient int
	// SessionCacheTTL is how long GuardLive trusts a session the backend confirmed (users/me) before asking
	// again; default DefaultSessionCacheTTL; negative: ask every time.
	SessionCacheTTL time.Duration
	// MaxBodyBytes limits request bodies; default DefaultMaxBodyBytes; negative is an error. Larger bodies get 413.
	MaxBodyBytes int64
	// Now is the clock; default time.Now. It must be safe for concurrent use.
	Now func() time.Time
	// OnError, when set, is told about backend failures (for logging); the caller only sees a sanitized answer.
	// Default nil. It is called from the request's goroutine and must be safe for concurrent use.
	OnError func(r *http.Request, err error)
	// Chain, when set, lets smart-contract wallets sign in: EVM signatures that do not recover to the address
	// are checked by eth_call on this chain (ERC-1271, and ERC-6492 for accounts not deployed yet; see
	// auth.VerifyEthSignatureContext). It must serve the chain of ChainID; give the same chain to
	// BackendConfig.Chain. nil (default): EOA signatures only.
	Chain auth.ContractCaller
}

// Handler is the thin sign-in endpoint for browsers (the React hooks). Mount it under any prefix with
// http.StripPrefix. Routes, relative to the mount point:
//
//	GET  /message?address=ADDR&chain=evm|solana  -> 200 {"message","nonce","expiresAt"}
//	GET  /message?address=ADDR&chain=solana&style=siws -> 200 {"message","nonce","expiresAt","signInInput"} (siws.go)
//	POST /signin  {chain,address,message,signature} -> 200 {"user":{...}} + HttpOnly; Secure; SameSite=Lax cookie
//	POST /link    {chain,address,message,signature} -> 200 {"user":{...}}   (needs a session)
//	POST /unlink  {chain,address}                   -> 200 {"user":{...}}   (needs a session)
//	POST /signout                                   -> 200 {}               (clears the cookie)
//	GET  /me                                        -> 200 {"user":{...}} or 401 {"code":209,...}
//
// Every refusal ({code, error} JSON with a 4xx status) happens before any Backend call. The session comes from
// the cookie or an "Authorization: Bearer" header. Per-client rate limits and a per-client nonce quota are on by
// default (see Config). GuardLive puts the same policy in front of a live-query stream handler, and NewServer
// serves it all with time-outs and a connection cap. A Handler is immutable and safe for concurrent use.
type Handler struct {
	backend     Backend
	o           Config
	origins     map[string]bool
	limit       *limiter
	signInLimit *limiter
	liveLimit   *limiter
	nonceQuota  *nonceQuota
	sessions    *sessionCache
	mux         *http.ServeMux
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
	if o.Nonces == nil {
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
	h := &Handler{backend: backend, o: o, origins: map[string]bool{}, limit: newLimiter(o.RateLimit, o.Now),
		signInLimit: newLimiter(o.SignInRateLimit, o.Now), liveLimit: newLimiter(o.LiveRateLimit, o.Now),
		nonceQuota: newNonceQuota(o.NoncesPerClient, o.NonceTTL, o.Now, o.RateLimit.ClientKey),
		sessions:   newSessionCache(o.SessionCacheTTL, o.Now)}
	for _, org := range o.AllowedOrigins {
		n, ok := normalizeOrigin(org)
		if !ok {
			return nil, fmt.Errorf("authserver: Config.AllowedOrigins: %q is not an origin like https://host[:port]", org)
		}
		h.origins[n] = true
	}
	if n, ok := originOfURI(o.URI); ok {
		h.origins[n] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/message", h.message)
	mux.HandleFunc("/signin", h.signIn)
	mux.HandleFunc("/link", h.link)
	mux.HandleFunc("/unlink", h.unlink)
	mux.HandleFunc("/signout", h.signOut)
	mux.HandleFunc("/me", h.me)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, CodeInvalidJSON, "not found")
	})
	h.mux = mux
	return h, nil
}

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

// apiError is a refusal: status, Parse-style code and message.
type apiError struct {
	status int
	code   int
	msg    string
}

// Error returns the refusal text.
func (e *apiError) Error() string { return e.msg }

func refuse(status, code int, msg string) *apiError {
	return &apiError{status: status, code: code, msg: msg}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "error": msg})
}

func writeAPIError(w http.ResponseWriter, e *apiError) { writeError(w, e.status, e.code, e.msg) }

// ServeHTTP applies the rate limit and CORS policy, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.allow(w, r) {
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		allowed := h.originAllowed(r, origin)
		if allowed {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Access-Control-Allow-Credentials", "true")
		}
		w.Header().Add("Vary", "Origin")
		if r.Method == http.MethodOptions {
			if !allowed {
				writeError(w, http.StatusForbidden, CodeOperationForbidden, "Origin not allowed")
				return
			}
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
			w.Header().Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if !allowed && r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusForbidden, CodeOperationForbidden, "Origin not allowed")
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// originAllowed reports whether origin is configured (AllowedOrigins or URI's origin). The Host header plays no
// part: a DNS-rebinding page sends its own name there.
func (h *Handler) originAllowed(_ *http.Request, origin string) bool {
	n, ok := normalizeOrigin(origin)
	return ok && h.origins[n]
}

// readJSON enforces method POST, a JSON content type and the size limit, and decodes the body strictly.
func (h *Handler) readJSON(w http.ResponseWriter, r *http.Request, into *Request) *apiError {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		return refuse(http.StatusMethodNotAllowed, CodeInvalidJSON, "Method not allowed")
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return refuse(http.StatusUnsupportedMediaType, CodeInvalidJSON, "Content-Type must be application/json")
	}
	if r.ContentLength > h.o.MaxBodyBytes {
		return refuse(http.StatusRequestEntityTooLarge, CodeInvalidJSON, "Request body too large")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return refuse(http.StatusRequestEntityTooLarge, CodeInvalidJSON, "Request body too large")
		}
		return refuse(http.StatusBadRequest, CodeInvalidJSON, "Could not read request body")
	}
	req, err := DecodeRequest(body)
	if err != nil {
		return refuse(http.StatusBadRequest, CodeInvalidJSON, err.Error())
	}
	*into = *req
	return nil
}

// Request is the JSON body of POST /signin, /link and /unlink (see DecodeRequest). Message and Signature are empty
// for /unlink. It is a plain value.
type Request struct {
	// Chain is "evm" or "solana".
	Chain string `json:"chain"`
	// Address is the 0x address (any case) or the base58 Solana public key.
	Address string `json:"address"`
	// Message is the text from GET /message, exactly as signed.
	Message string `json:"message"`
	// Signature is 0x hex (EVM, 65 bytes) or base58 (Solana, 64 bytes).
	Signature string `json:"signature"`
}

// DecodeRequest decodes a POST body of the handler strictly: one JSON object, only the fields chain, address,
// message and signature spelled exactly so (names match case-sensitively, unlike encoding/json), each at most once,
// all strings (or null), nothing after it. It never panics; the error text is safe to show. It is safe for
// concurrent use.
func DecodeRequest(body []byte) (*Request, error) { return decodeRequestStrict(body) }

// check validates chain and address (lower-casing EVM addresses); message and signature when needSigned.
func (req *Request) check(needSigned bool) (auth.SignedMessage, *apiError) {
	m := auth.SignedMessage{Chain: auth.Chain(req.Chain), Address: strings.TrimSpace(req.Address), Message: req.Message, Signature: strings.TrimSpace(req.Signature)}
	switch m.Chain {
	case auth.ChainEVM:
		if m.Address == "" {
			return m, refuse(http.StatusBadRequest, CodeValidationError, "Address not found")
		}
		a, err := auth.NormalizeEthAddress(m.Address)
		if err != nil {
			return m, refuse(http.StatusBadRequest, CodeValidationError, "Invalid address")
		}
		m.Address = a
	case auth.ChainSolana:
		if m.Address == "" {
			return m, refuse(http.StatusBadRequest, CodeValidationError, "Address not found")
		}
		if _, err := auth.DecodeSolPublicKey(m.Address); err != nil {
			return m, refuse(http.StatusBadRequest, CodeValidationError, "Invalid address")
		}
	default:
		return m, refuse(http.StatusBadRequest, CodeValidationError, `chain must be "evm" or "solana"`)
	}
	if needSigned && (m.Message == "" || m.Signature == "") {
		return m, refuse(http.StatusBadRequest, CodeValidationError, "Data not signed")
	}
	return m, nil
}

// verify runs every local check of a signed message: the message's form, domain or app id, times, address,
// signature, and finally consumes its nonce. Only then may the backend be called.
func (h *Handler) verify(ctx context.Context, m auth.SignedMessage) *apiError {
	if m.Chain == auth.ChainSolana && isSIWSText(m.Message) {
		return h.verifySIWS(ctx, m)
	}
	now := h.o.Now()
	var nonce string
	if m.Chain == auth.ChainEVM && h.o.EVMMessageStyle == StyleSIWE {
		sm, err := auth.ParseSIWE(m.Message)
		if err != nil {
			return refuse(http.StatusBadRequest, CodeValidationError, "Invalid sign-in message")
		}
		err = sm.Verify(auth.SIWEVerifyOptions{Domain: h.o.Domain, URI: h.o.URI, ChainID: h.o.ChainID, Address: m.Address,
			Now: now, ClockSkew: h.o.ClockSkew, MaxAge: h.o.NonceTTL + h.o.ClockSkew})
		switch {
		case err == nil:
		case errors.Is(err, auth.ErrSIWEDomain), errors.Is(err, auth.ErrSIWEURI):
			return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Message is for another domain")
		case errors.Is(err, auth.ErrSIWEChain):
			return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Message is for another chain")
		case errors.Is(err, auth.ErrSIWEAddress):
			return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Message is for another address")
		case errors.Is(err, auth.ErrSIWEExpired):
			return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Message has expired")
		case errors.Is(err, auth.ErrSIWENotYetValid):
			return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Message is not valid yet")
		default:
			return refuse(http.StatusBadRequest, CodeValidationError, "Invalid sign-in message")
		}
		nonce = sm.Nonce
	} else {
		text, suffix, err := auth.ParseMoralisMessage(m.Message, h.o.AppID)
		if err != nil {
			return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Message is for another app")
		}
		if text != h.o.Statement || !validNonce(suffix) {
			return refuse(http.StatusBadRequest, CodeValidationError, "Invalid sign-in message")
		}
		nonce = suffix
	}
	var err error
	if m.Chain == auth.ChainSolana {
		err = auth.VerifySolSignature(m.Address, []byte(m.Message), m.Signature)
	} else {
		err = auth.VerifyEthSignatureContext(ctx, h.o.Chain, m.Address, []byte(m.Message), m.Signature)
	}
	switch {
	case err == nil:
	case errors.Is(err, auth.ErrSignatureMismatch):
		return refuse(http.StatusUnauthorized, CodeObjectNotFound, "Signature does not match address")
	case errors.Is(err, auth.ErrChainUnavailable):
		return refuse(http.StatusServiceUnavailable, CodeInternal, "Chain unavailable")
	default:
		return refuse(http.StatusBadRequest, CodeValidationError, "Invalid signature")
	}
	// Last, the nonce: live, unused, and issued with exactly this text (byte for byte) for this address and chain.
	if err := h.o.Nonces.Consume(ctx, nonce, NonceBinding{Chain: m.Chain, Address: m.Address, Message: m.Message}); err != nil {
		return nonceRefusal(err)
	}
	return nil
}

// SessionToken returns the session token a request carries (a Bearer Authorization header, else the session
// cookie), or "". It does not check the token: the backend does. Other handlers mounted next to this one (the live
// query bridge) use it to act as the same user.
func (h *Handler) SessionToken(r *http.Request) string { return h.sessionToken(r) }

// sessionToken reads the session from the Authorization header (Bearer) or the cookie.
func (h *Handler) sessionToken(r *http.Request) string {
	if a := r.Header.Get("Authorization"); a != "" {
		if len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
			return strings.TrimSpace(a[7:])
		}
		return ""
	}
	if c, err := r.Cookie(h.o.CookieName); err == nil {
		return c.Value
	}
	return ""
}

var errNoSession = refuse(http.StatusUnauthorized, CodeInvalidSessionToken, "Invalid session token")

func (h *Handler) setCookie(w http.ResponseWriter, token string) {
	c := &http.Cookie{Name: h.o.CookieName, Value: token, Path: h.o.CookiePath, HttpOnly: true,
		Secure: !h.o.InsecureCookie, SameSite: http.SameSiteLaxMode}
	if h.o.CookieMaxAge > 0 {
		c.MaxAge = int(h.o.CookieMaxAge / time.Second)
		c.Expires = h.o.Now().Add(h.o.CookieMaxAge).UTC()
	}
	http.SetCookie(w, c)
}

func (h *Handler) clearCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: h.o.CookieName, Value: "", Path: h.o.CookiePath, HttpOnly: true,
		Secure: !h.o.InsecureCookie, SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// backendFailure turns a Backend error into an answer without leaking details.
func (h *Handler) backendFailure(w http.ResponseWriter, r *http.Request, err error) {
	if h.o.OnError != nil {
		h.o.OnError(r, err)
	}
	var be *BackendError
	if errors.As(err, &be) {
		status := be.Status
		if status < 400 || status > 599 {
			status = http.StatusBadGateway
		}
		if be.Code == CodeInvalidSessionToken {
			h.clearCookie(w)
		}
		writeError(w, status, be.Code, be.Message)
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		writeError(w, http.StatusGatewayTimeout, CodeInternal, "Backend did not answer in time")
		return
	}
	writeError(w, http.StatusBadGateway, CodeInternal, "Backend error")
}

func (h *Handler) message(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, CodeInvalidJSON, "Method not allowed")
		return
	}
	q := r.URL.Query()
	req := Request{Chain: q.Get("chain"), Address: q.Get("address")}
	if req.Chain == "" {
		req.Chain = string(auth.ChainEVM)
	}
	m, aerr := req.check(false)
	if aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	if ok, wait := h.nonceQuota.take(r); !ok {
		tooManyRequests(w, wait)
		return
	}
	n, err := h.o.Nonces.Issue(r.Context(), h.o.NonceTTL)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, CodeInternal, "Nonce store unavailable")
		return
	}
	var text string
	var signInInput map[string]string
	if m.Chain == auth.ChainSolana && q.Get("style") == styleSIWS && h.o.Domain != "" {
		text, signInInput = h.siwsMessage(m.Address, n)
	} else if m.Chain == auth.ChainEVM && h.o.EVMMessageStyle == StyleSIWE {
		now := h.o.Now()
		sm := &auth.SIWEMessage{Domain: h.o.Domain, Address: m.Address, Statement: h.o.Statement, URI: h.o.URI,
			Version: "1", ChainID: h.o.ChainID, Nonce: n.Value, IssuedAt: now.UTC(), ExpirationTime: n.ExpiresAt.UTC()}
		text = sm.String()
	} else {
		text = auth.BuildMoralisMessage(h.o.Statement, h.o.AppID, n.Value)
	}
	// The nonce is good only with this exact text, for this address and chain.
	if err := h.o.Nonces.Bind(r.Context(), n.Value, NonceBinding{Chain: m.Chain, Address: m.Address, Message: text}); err != nil {
		writeError(w, http.StatusServiceUnavailable, CodeInternal, "Nonce store unavailable")
		return
	}
	res := map[string]any{"message": text, "nonce": n.Value, "expiresAt": auth.FormatServerTime(n.ExpiresAt)}
	if signInInput != nil {
		res["signInInput"] = signInInput
	}
	writeJSON(w, http.StatusOK, res)
}

func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	var req Request
	if aerr := h.readJSON(w, r, &req); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	m, aerr := req.check(true)
	if aerr == nil {
		aerr = h.verify(r.Context(), m)
	}
	if aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	s, err := h.backend.SignIn(r.Context(), m)
	if err != nil {
		h.backendFailure(w, r, err)
		return
	}
	if s == nil || s.User.ObjectID == "" || s.SessionToken == "" {
		writeError(w, http.StatusBadGateway, CodeObjectNotFound, "Could not get user")
		return
	}
	h.setCookie(w, s.SessionToken)
	answer := map[string]any{"user": s.User}
	if h.o.TokenInBody {
		answer["sessionToken"] = s.SessionToken
	}
	writeJSON(w, http.StatusOK, answer)
}

func (h *Handler) link(w http.ResponseWriter, r *http.Request) {
	var req Request
	if aerr := h.readJSON(w, r, &req); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	tok := h.sessionToken(r)
	if tok == "" {
		writeAPIError(w, errNoSession)
		return
	}
	m, aerr := req.check(true)
	if aerr == nil {
		aerr = h.verify(r.Context(), m)
	}
	if aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	u, err := h.backend.Link(r.Context(), tok, m)
	if err != nil {
		h.backendFailure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": u})
}

func (h *Handler) unlink(w http.ResponseWriter, r *http.Request) {
	var req Request
	if aerr := h.readJSON(w, r, &req); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	tok := h.sessionToken(r)
	if tok == "" {
		writeAPIError(w, errNoSession)
		return
	}
	m, aerr := req.check(false)
	if aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	u, err := h.backend.Unlink(r.Context(), tok, m.Chain, m.Address)
	if err != nil {
		h.backendFailure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": u})
}

func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, CodeInvalidJSON, "Method not allowed")
		return
	}
	// The body is optional here; when present it must still be JSON and small.
	if r.ContentLength != 0 {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, CodeInvalidJSON, "Content-Type must be application/json")
			return
		}
		if _, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, h.o.MaxBodyBytes)); err != nil {
			writeError(w, http.StatusRequestEntityTooLarge, CodeInvalidJSON, "Request body too large")
			return
		}
	}
	tok := h.sessionToken(r)
	h.clearCookie(w)
	h.sessions.remove(tok)
	if tok != "" {
		if err := h.backend.SignOut(r.Context(), tok); err != nil {
			var be *BackendError
			if !errors.As(err, &be) || be.Code != CodeInvalidSessionToken {
				h.backendFailure(w, r, err)
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (h *Handler) me(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, CodeInvalidJSON, "Method not allowed")
		return
	}
	tok := h.sessionToken(r)
	if tok == "" {
		writeAPIError(w, errNoSession)
		return
	}
	u, err := h.backend.Me(r.Context(), tok)
	if err != nil {
		h.backendFailure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": u})
}
