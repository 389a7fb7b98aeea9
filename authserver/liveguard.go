package authserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/c13f5054/moralis-go/query/live"
)

// DefaultSessionCacheTTL is how long the endpoint trusts a session the backend confirmed (GuardLive and the data
// proxy) before asking again.
const DefaultSessionCacheTTL = 10 * time.Second

type verifiedSessionKey struct{}

// Live returns the handler of GET /live?class=NAME&where=JSON, the live-query stream of the signed-in user
// (query/live's server-sent events, the React hooks' useLiveQuery), served by bridge through the Handler's one
// pipeline, as every other route: one method (GET; another is 405 with Allow), one error writer ({"code","error"}
// with the status of the one table) and one set of stream caps. Before the bridge opens any websocket:
//
//   - the per-client rate limits (RateLimit, then LiveRateLimit): 429 with Retry-After;
//   - the origin: a request whose Origin is not allowed (see Config.AllowedOrigins) gets 403, an allowed one gets the
//     CORS headers for credentials;
//   - the session (cookie or Bearer, as for /me) is checked against the backend (Backend.Me, i.e. users/me), the
//     answer cached for SessionCacheTTL: no session, or one the backend does not know, gets 401
//     {"code":209,"error":"Invalid session token"}, so a fake token never reaches the live-query server;
//   - the open streams: a session already holding LiveStreamsPerSession streams, a user already holding
//     LiveStreamsPerUser (over all its sessions), or a client already holding LiveStreamsPerClient (over all its
//     users) gets 429 {"code":155}; this instance already holding MaxLiveStreams gets 503 {"code":1} with
//     Retry-After; a stream's slots come back when it ends;
//   - then the bridge's own refusals of the query (a class or a where it does not take: 400, 403 or 413) and of the
//     live-query server (502), through the same writer.
//
// A sign-out (POST /signout) ends the session's open streams on this instance; with Config.Redis, on every
// instance, and no instance opens another from its cache. Such a stream's last event says why, so that a browser
// tab learns of the sign-out from its own stream instead of reconnecting or asking /me:
//
//	event: error
//	data: {"code":209,"error":"Invalid session token","reason":"signedOut"}
//
// Mount it beside the Handler: mux.Handle("/auth/live", http.StripPrefix("/auth", h.Live(bridge))). The returned
// handler is safe for concurrent use.
func (h *Handler) Live(bridge *live.SSEBridge) http.Handler {
	mux := http.NewServeMux()
	rt := route{method: http.MethodGet, limit: h.liveLimit, origin: originStrict, session: sessionConfirmed}
	handle(h.policy, mux, "/live", rt, func(c *call, _ struct{}) (struct{}, error) {
		return struct{}{}, h.stream(c, func(r *http.Request) error {
			err := bridge.Serve(c.w, r, c.token)
			var le *live.StreamError
			if errors.As(err, &le) && le.Status < 500 {
				return answerOf(err, "") // the caller's query refused: an answer, not a failure to report
			}
			if err == nil && errors.Is(context.Cause(r.Context()), errStreamSignedOut) {
				signedOutEvent(c.w)
			}
			return err
		})
	})
	notFound(h.policy, mux, originStrict)
	return mux
}

// GuardLive wraps a live stream handler of your own with the policy of Live: the rate limits, the origin, the
// confirmed session and the stream caps, in that order, before next runs; next reads the confirmed token with
// VerifiedSession. Only GET is let through (another method is 405 with Allow). For query/live's bridge use Live,
// which also answers the bridge's refusals through the endpoint's one error writer and ends a stream whose session
// signed out with an event saying so (next's stream just ends: its request's context is cancelled). The returned handler is safe
// for concurrent use.
func (h *Handler) GuardLive(next http.Handler) http.Handler {
	rt := route{method: http.MethodGet, limit: h.liveLimit, origin: originStrict, session: sessionConfirmed, name: "live"}
	return serve(h.policy, rt, func(c *call, _ struct{}) (struct{}, error) {
		return struct{}{}, h.stream(c, func(r *http.Request) error {
			next.ServeHTTP(c.w, r.WithContext(context.WithValue(r.Context(), verifiedSessionKey{}, c.token)))
			return nil
		})
	})
}

// stream runs one live stream of call c, within the stream caps: serve gets c's request with a context that ends
// with the request, at a sign-out of its session (through any instance, with Redis), or when the stream caps'
// store can no longer vouch for its slot. It returns serve's refusal, or errAnswered once the stream ran.
func (h *Handler) stream(c *call, serve func(r *http.Request) error) error {
	ctx, endCause := context.WithCancelCause(c.r.Context())
	end := func() { endCause(nil) }
	defer end()
	if h.liveSlots != nil {
		select {
		case h.liveSlots <- struct{}{}:
			defer func() { <-h.liveSlots }()
		default:
			return errInstanceStreams
		}
	}
	if h.policy.streams != nil {
		release, err := h.policy.streams.open(c.ctx, c.r, c.token, c.user, end)
		if err != nil {
			return err
		}
		defer release()
	}
	defer h.policy.open.add(c.token, func() { endCause(errStreamSignedOut) })()
	if h.policy.tel != nil {
		defer h.policy.tel.StreamOpened(c.ctx)()
	}
	if err := serve(c.r.WithContext(ctx)); err != nil {
		return err
	}
	return errAnswered
}

// errStreamSignedOut is the cause of a live stream's end at a sign-out of its session.
var errStreamSignedOut = errors.New("authserver: the stream's session signed out")

// signedOutEventText is the last event of a Live stream that a sign-out of its session ended.
const signedOutEventText = "event: error\ndata: {\"code\":209,\"error\":\"Invalid session token\",\"reason\":\"signedOut\"}\n\n"

// signedOutEvent writes signedOutEventText to a stream whose session signed out, within a second: a browser that
// stopped reading does not hold the handler.
func signedOutEvent(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(w, signedOutEventText); err == nil {
		_ = rc.Flush()
	}
}

// VerifiedSession returns the session token that GuardLive confirmed with the backend for r, and false when r
// did not pass through GuardLive.
func VerifiedSession(r *http.Request) (string, bool) {
	tok, ok := r.Context().Value(verifiedSessionKey{}).(string)
	return tok, ok && tok != ""
}
