package authserver

import (
	"context"
	"crypto/sha256"
	"errors"
	"github.com/c13f5054/moralis-go/internal/telemetry"
	"net/http"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// The stores of the policy. Each is a small interface with an in-memory default (one process); a store shared by
// several endpoint instances (Redis, say) implements the same interface and is given to the policy, and no route
// changes. See the package doc, "One pipeline".

// rateLimiter takes one request of a client (key) or answers how long to wait. The token buckets (limiter), the
// nonce quota (nonceQuota) and their Redis forms (redisLimiter, redisQuota) implement it. err is a fault of the
// store (a *storeError): the request is refused, never let through.
type rateLimiter interface {
	allow(ctx context.Context, key string) (ok bool, wait time.Duration, err error)
}

// sessionStore remembers, briefly, sessions the backend confirmed and their users, and forgets one at sign-out
// (memorySessions; redisSessions also revokes it on every instance). lookup's error refuses the request: a
// revoked session (errNoSession) or a fault of the store (*storeError).
type sessionStore interface {
	lookup(ctx context.Context, token string) (PublicUser, bool, error)
	remember(ctx context.Context, token string, u PublicUser)
	forget(ctx context.Context, token string) error
}

// streamCaps admits one more live stream of a request (per session, per user, per client address), or refuses
// it; release is called when the stream ends. end ends the stream early (a shared store calls it when it can no
// longer vouch for the stream's slot). The default is memoryStreamCaps; redisStreamCaps counts over every
// instance.
type streamCaps interface {
	open(ctx context.Context, r *http.Request, token string, user *PublicUser, end func()) (release func(), err error)
}

// limit is a rate limiter with the function that names the client of a request; a nil store is no limit.
type limit struct {
	store rateLimiter
	key   func(*http.Request) string
}

// take takes one request of r's client, or is the 429 to answer.
func (l limit) take(r *http.Request) error {
	if l.store == nil {
		return nil
	}
	ok, wait, err := l.store.allow(r.Context(), l.key(r))
	switch {
	case err != nil:
		return err
	case !ok:
		return tooManyRequests(wait)
	}
	return nil
}

// memorySessions is the in-memory sessionStore: a ttlCache keyed by the token's SHA-256 (never the token).
// Refusals are not cached, so random tokens cannot fill it; when it is full, confirmed sessions are not cached
// until expired ones make room (the check still runs, only uncached).
type memorySessions struct {
	c *ttlCache[[32]byte, PublicUser]
}

// maxCachedSessions bounds the session cache.
const maxCachedSessions = 10000

func newMemorySessions(ttl time.Duration, now func() time.Time) memorySessions {
	return memorySessions{c: newTTLCache[[32]byte, PublicUser](ttl, maxCachedSessions, now)}
}

func (s memorySessions) lookup(_ context.Context, tok string) (PublicUser, bool, error) {
	u, ok := s.c.get(sha256.Sum256([]byte(tok)))
	return u, ok, nil
}

func (s memorySessions) remember(_ context.Context, tok string, u PublicUser) {
	s.c.put(sha256.Sum256([]byte(tok)), u)
}

func (s memorySessions) forget(_ context.Context, tok string) error {
	if tok != "" {
		s.c.remove(sha256.Sum256([]byte(tok)))
	}
	return nil
}

// policy is the one policy step of the endpoint, run in front of every route in this order: the per-client rate
// limits (every route's, then the route's own), the origin (CORS, preflight), then the session the route needs
// (and, after it, the per-user limit).
type policy struct {
	backend  Backend
	origins  map[string]bool
	limit    limit // every route
	sessions sessionStore
	streams  streamCaps
	open     *openStreams // the live streams open on this instance, by session, to end at sign-out
	cookie   cookieRules
	onError  func(r *http.Request, err error)
	tel      *telemetry.Endpoint // nil: telemetry off (Config.TracerProvider, MeterProvider, Logger)
}

// originRule is how a route treats a request from an origin that is not allowed.
type originRule int

const (
	// originLax answers a GET or HEAD without the CORS headers (the browser hides the answer from the page) and
	// refuses anything else with 403: the sign-in routes.
	originLax originRule = iota
	// originStrict refuses every request from an origin that is not allowed with 403: the routes that act with
	// the session on the backend or the chain-data API (live streams, data).
	originStrict
)

// sessionRule is what a route needs of the session.
type sessionRule int

const (
	// sessionNone: the route reads the session itself, if at all.
	sessionNone sessionRule = iota
	// sessionPresent: a session token must be there (the Backend checks it).
	sessionPresent
	// sessionConfirmed: the backend must have confirmed the session (users/me, cached in the sessionStore); the
	// route gets its user.
	sessionConfirmed
)

// preflightHeaders are the request headers a browser may send cross-origin (Cache-Control: the chain-data hooks'
// fresh reads).
const preflightHeaders = "Content-Type, Authorization, Cache-Control"

// checkOrigin applies the origin rule; done is true when it answered a preflight (204).
func (p *policy) checkOrigin(w http.ResponseWriter, r *http.Request, rule originRule) (done bool, err error) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false, nil
	}
	w.Header().Add("Vary", "Origin")
	allowed := p.originAllowed(origin)
	if allowed {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Allow-Credentials", "true")
	}
	switch {
	case !allowed && (rule == originStrict || r.Method != http.MethodGet && r.Method != http.MethodHead):
		return false, errOriginRefused
	case r.Method == http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", preflightHeaders)
		w.Header().Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true, nil
	}
	return false, nil
}

// originAllowed reports whether origin is configured (AllowedOrigins or URI's origin). The Host header plays no
// part: a DNS-rebinding page sends its own name there.
func (p *policy) originAllowed(origin string) bool {
	n, ok := normalizeOrigin(origin)
	return ok && p.origins[n]
}

// confirm returns the user of tok, from the sessionStore or else from the backend (users/me), and remembers a
// confirmed one. A session the backend refused (its code 209, or a 401) is errNoSession.
func (p *policy) confirm(ctx context.Context, tok string) (*PublicUser, error) {
	if u, ok, err := p.sessions.lookup(ctx, tok); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return &u, nil
	}
	u, err := p.backend.Me(ctx, tok)
	var be *BackendError
	switch {
	case errors.As(err, &be) && (be.Code == int(parse.CodeInvalidSessionToken) || be.Status == http.StatusUnauthorized):
		return nil, errNoSession
	case err != nil:
		return nil, err
	case u == nil || u.ObjectID == "":
		return nil, failure(http.StatusBadGateway, "Could not get user")
	}
	p.sessions.remember(ctx, tok, *u)
	return u, nil
}

// sessionToken reads the session from the Authorization header (Bearer) or the cookie.
func (p *policy) sessionToken(r *http.Request) string {
	if a := r.Header.Get("Authorization"); a != "" {
		if len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
			return strings.TrimSpace(a[7:])
		}
		return ""
	}
	if c, err := r.Cookie(p.cookie.name); err == nil {
		return c.Value
	}
	return ""
}

// cookieRules are the attributes of the session cookie.
type cookieRules struct {
	name, path string
	insecure   bool
	maxAge     time.Duration
	now        func() time.Time
}

// set sets the session cookie to token; it expires at until (the session's end, when known), or after maxAge
// when that is sooner, else with the browser session.
func (c cookieRules) set(w http.ResponseWriter, token string, until time.Time) {
	k := &http.Cookie{Name: c.name, Value: token, Path: c.path, HttpOnly: true, Secure: !c.insecure,
		SameSite: http.SameSiteLaxMode}
	life := c.maxAge
	if !until.IsZero() {
		if d := until.Sub(c.now()); life <= 0 || d < life {
			life = max(d, time.Second)
		}
	}
	if life > 0 {
		k.MaxAge = int(life / time.Second)
		k.Expires = c.now().Add(life).UTC()
	}
	http.SetCookie(w, k)
}

func (c cookieRules) clear(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: c.name, Value: "", Path: c.path, HttpOnly: true, Secure: !c.insecure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}
