package authserver

import (
	"context"
	"net/http"
	"time"
)

// DefaultSessionCacheTTL is how long the endpoint trusts a session the backend confirmed (GuardLive and the data
// proxy) before asking again.
const DefaultSessionCacheTTL = 10 * time.Second

type verifiedSessionKey struct{}

// GuardLive wraps a handler that streams live queries for the signed-in user (the /auth/live bridge:
// query/live.NewSSEHandler) with the Handler's policy, in this order, before next runs:
//
//   - the per-client rate limits (RateLimit, then LiveRateLimit): 429 with Retry-After;
//   - the origin: a request whose Origin is not allowed (see Config.AllowedOrigins) gets 403, an allowed
//     one gets the CORS headers for credentials;
//   - the session (cookie or Bearer, as for /me) is checked against the backend (Backend.Me, i.e. users/me), the
//     answer cached for SessionCacheTTL: no session, or one the backend does not know, gets 401
//     {"code":209,"error":"Invalid session token"}, so a fake token never reaches the live-query server;
//   - the open streams: a session already holding LiveStreamsPerSession streams, a user already holding
//     LiveStreamsPerUser (over all its sessions), or a client already holding LiveStreamsPerClient (over all its
//     users), gets 429 {"code":155}, as query/live answers a session over its own cap; a stream's slots come back
//     when it ends.
//
// next reads the confirmed token with VerifiedSession. A sign-out (POST /signout) ends the session's open streams
// on this instance; with Config.Redis, on every instance, and no instance opens another from its cache. Without
// Redis, another instance may keep opening streams for a signed-out session for up to SessionCacheTTL. The returned
// handler is safe for concurrent use.
func (h *Handler) GuardLive(next http.Handler) http.Handler {
	rt := route{limit: h.liveLimit, origin: originStrict, session: sessionConfirmed, name: "live"}
	return serve(h.policy, rt, func(c *call, _ struct{}) (struct{}, error) {
		// The stream ends with the request, at a sign-out of its session (through any instance, with Redis), or
		// when the stream caps' store can no longer vouch for its slot.
		ctx, end := context.WithCancel(c.r.Context())
		defer end()
		if h.policy.streams != nil {
			release, err := h.policy.streams.open(c.ctx, c.r, c.token, c.user, end)
			if err != nil {
				return struct{}{}, err
			}
			defer release()
		}
		defer h.policy.open.add(c.token, end)()
		if h.policy.tel != nil {
			defer h.policy.tel.StreamOpened(c.ctx)()
		}
		next.ServeHTTP(c.w, c.r.WithContext(context.WithValue(ctx, verifiedSessionKey{}, c.token)))
		return struct{}{}, errAnswered
	})
}

// VerifiedSession returns the session token that GuardLive confirmed with the backend for r, and false when r
// did not pass through GuardLive.
func VerifiedSession(r *http.Request) (string, bool) {
	tok, ok := r.Context().Value(verifiedSessionKey{}).(string)
	return tok, ok && tok != ""
}
