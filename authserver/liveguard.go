package authserver

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// DefaultSessionCacheTTL is how long GuardLive trusts a session the backend confirmed before asking again.
const DefaultSessionCacheTTL = 10 * time.Second

// maxCachedSessions bounds the session cache; when it is full, confirmed sessions are not cached until expired
// entries make room (the check still runs, only uncached).
const maxCachedSessions = 10000

type verifiedSessionKey struct{}

// GuardLive wraps a handler that streams live queries for the signed-in user (the /auth/live bridge:
// query/live.NewSSEHandler) with the Handler's policy, in this order, before next runs:
//
//   - the per-client rate limits (RateLimit, then LiveRateLimit): 429 with Retry-After;
//   - the origin: a request whose Origin is not allowed (see Config.AllowedOrigins) gets 403, an allowed
//     one gets the CORS headers for credentials;
//   - the session (cookie or Bearer, as for /me) is checked against the backend (Backend.Me, i.e. users/me), the
//     answer cached for SessionCacheTTL: no session, or one the backend does not know, gets 401
//     {"code":209,"error":"Invalid session token"}, so a fake token never reaches the live-query server.
//
// next reads the confirmed token with VerifiedSession. A revoked session may keep opening streams for up to
// SessionCacheTTL. The returned handler is safe for concurrent use.
func (h *Handler) GuardLive(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := h.limit.allow(r)
		if ok {
			ok, wait = h.liveLimit.allow(r)
		}
		if !ok {
			tooManyRequests(w, wait)
			return
		}
		if !h.credentialedOrigin(w, r) {
			return
		}
		tok := h.sessionToken(r)
		if tok == "" {
			writeAPIError(w, errNoSession)
			return
		}
		if err := h.checkSession(r.Context(), tok); err != nil {
			h.sessionCheckFailure(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedSessionKey{}, tok)))
	})
}

// sessionCheckFailure answers a request whose session the backend did not confirm: a refused session (invalid
// token, or 401) clears the cookie and is errNoSession; anything else is a backend failure.
func (h *Handler) sessionCheckFailure(w http.ResponseWriter, r *http.Request, err error) {
	var be *BackendError
	if errors.As(err, &be) && (be.Code == CodeInvalidSessionToken || be.Status == http.StatusUnauthorized) {
		h.clearCookie(w)
		writeAPIError(w, errNoSession)
		return
	}
	h.backendFailure(w, r, err)
}

// VerifiedSession returns the session token that GuardLive confirmed with the backend for r, and false when r
// did not pass through GuardLive.
func VerifiedSession(r *http.Request) (string, bool) {
	tok, ok := r.Context().Value(verifiedSessionKey{}).(string)
	return tok, ok && tok != ""
}

// checkSession asks the backend whether tok is a live session, unless it confirmed it within SessionCacheTTL.
func (h *Handler) checkSession(ctx context.Context, tok string) error {
	if h.sessions.valid(tok) {
		return nil
	}
	if _, err := h.backend.Me(ctx, tok); err != nil {
		return err
	}
	h.sessions.add(tok)
	return nil
}

// sessionCache remembers, briefly, session tokens the backend confirmed (by their SHA-256, not the token).
// Refusals are not cached, so random tokens cannot fill it. Safe for concurrent use; nil caches nothing.
type sessionCache struct {
	mu  sync.Mutex
	ttl time.Duration
	now func() time.Time
	m   map[[32]byte]time.Time
}

func newSessionCache(ttl time.Duration, now func() time.Time) *sessionCache {
	if ttl <= 0 {
		return nil
	}
	return &sessionCache{ttl: ttl, now: now, m: map[[32]byte]time.Time{}}
}

func (c *sessionCache) valid(tok string) bool {
	if c == nil {
		return false
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.m[k]
	if ok && !c.now().Before(exp) {
		delete(c.m, k)
		return false
	}
	return ok
}

func (c *sessionCache) add(tok string) {
	if c == nil {
		return
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.m) >= maxCachedSessions {
		for key, exp := range c.m {
			if !now.Before(exp) {
				delete(c.m, key)
			}
		}
		if len(c.m) >= maxCachedSessions {
			return
		}
	}
	c.m[k] = now.Add(c.ttl)
}

// originOfURI returns the origin (scheme://host[:port]) of an absolute http(s) URI.
func originOfURI(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "", false
	}
	return normalizeOrigin(u.Scheme + "://" + u.Host)
}

// remove forgets tok (on sign-out), so GuardLive asks the backend again at once.
func (c *sessionCache) remove(tok string) {
	if c == nil || tok == "" {
		return
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	delete(c.m, k)
	c.mu.Unlock()
}

// credentialedOrigin applies the origin policy of the routes that read the session cookie beside the Handler's own
// (GuardLive, DataProxy): a request without Origin passes; one from an allowed origin passes with the CORS headers
// that let it carry credentials; any other is answered 403 and false is returned.
func (h *Handler) credentialedOrigin(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	w.Header().Add("Vary", "Origin")
	if !h.originAllowed(r, origin) {
		writeError(w, http.StatusForbidden, CodeOperationForbidden, "Origin not allowed")
		return false
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
	w.Header().Set("Access-Control-Allow-Credentials", "true")
	return true
}
