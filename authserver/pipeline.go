package authserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/c13f5054/moralis-go/parse"
)

// route is what the pipeline needs to know of one route: its method and the policy it takes.
type route struct {
	// method is the route's HTTP method; any other is answered 405 with Allow. "" for any method.
	method string
	// limit is the route's own rate limit, on top of the policy's (sign-in, live).
	limit limit
	// origin is how a request from an origin that is not allowed is treated.
	origin originRule
	// session is what the route needs of the session.
	session sessionRule
	// userLimit is the per-user rate limit, taken after the session is confirmed (data); its key is the user's.
	userLimit rateLimiter
	// timeout bounds the session check and the route (data); 0: the request's own context.
	timeout time.Duration
	// body is how the route takes a body (POST routes); maxBody bounds it.
	body    bodyRule
	maxBody int64
	// maxAnswer bounds the answer; a larger one is a 502 (data). 0: no bound.
	maxAnswer int
	// upstream names what failed in a failure's text ("Backend", "Upstream").
	upstream string
	// name is the route's path for telemetry ("/signin"); "" for the fallback (404) route.
	name string
}

// bodyRule is how a route takes a request body.
type bodyRule int

const (
	bodyNone     bodyRule = iota // none is read (GET)
	bodyJSON                     // a JSON object, decoded into the route's input
	bodyOptional                 // none, or a JSON body that is read (within the limit) and ignored
)

// call is one request as a route sees it, after the policy: its context (bounded by the route's timeout), the
// session token and, for sessionConfirmed, the user of this request.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	ctx   context.Context
	token string
	user  *PublicUser
	obs   *telemetry.Request // nil: telemetry off
	// answer is the refusal or failure the pipeline answered with (nil: the route's value, or errAnswered).
	answer *apiError
	// slid is where the Backend reports that it extended the session during this request (sessions.go).
	slid *slideSink
}

// endObserved ends the call's telemetry with its answer: the status, and for a refusal its code and reason word.
func (c *call) endObserved() {
	if c.answer == nil {
		c.obs.End(c.ctx, http.StatusOK, 0, "")
		return
	}
	c.obs.End(c.ctx, c.answer.statusCode(), int(c.answer.code), c.answer.reason())
}

// step starts a telemetry span for one step of the call and points c.ctx at it; the returned function ends it and
// gives c.ctx back. With telemetry off it does nothing.
func (c *call) step(name string) func(err error) {
	if c.obs == nil {
		return func(error) {}
	}
	outer := c.ctx
	var done func(bool)
	c.ctx, done = c.obs.Step(outer, name)
	return func(err error) { done(err != nil); c.ctx = outer }
}

// refreshCookie sets the session cookie again when the Backend extended the session during c (once, and only for
// a session that came in the cookie: a Bearer token's holder keeps it itself).
func (p *policy) refreshCookie(c *call) {
	if c.slid.until.IsZero() || c.token == "" || c.r.Header.Get("Authorization") != "" {
		return
	}
	p.cookie.set(c.w, c.token, c.slid.until)
	c.slid.until = time.Time{}
}

// rawJSON is an answer that is JSON already (the chain-data API's), written as it is.
type rawJSON []byte

// errAnswered is returned by a step that wrote the answer itself (a preflight, a live stream).
var errAnswered = errors.New("authserver: answered")

// strictBody is an input that decodes itself (SignedRequest's exact field names).
type strictBody interface{ decodeStrict(body []byte) error }

// handle registers the route pattern "METHOD path" on mux, and path for every other method (the preflight and
// the 405), both through the pipeline.
func handle[In, Out any](p *policy, mux *http.ServeMux, path string, rt route, fn func(c *call, in In) (Out, error)) {
	rt.name = path
	h := serve(p, rt, fn)
	mux.Handle(rt.method+" "+path, h)
	mux.Handle(path, h)
}

// notFound registers the fallback of mux: the policy (rate limits, origin, preflight), then 404.
func notFound(p *policy, mux *http.ServeMux, origin originRule) {
	mux.Handle("/", serve(p, route{origin: origin}, func(*call, struct{}) (struct{}, error) {
		return struct{}{}, errNotFound
	}))
}

// serve is the one pipeline: the policy (rate limits, origin, method, session, per-user limit), the body, the
// route, then the answer: the value as JSON, or the error through answerOf. Every answer gets the security
// headers.
func serve[In, Out any](p *policy, rt route, fn func(c *call, in In) (Out, error)) http.Handler {
	upstream := rt.upstream
	if upstream == "" {
		upstream = "Backend"
	}
	var obs *telemetry.Route
	if p.tel != nil {
		name := rt.name
		if name == "" {
			name = "unknown route"
		}
		obs = p.tel.Route(rt.method, name)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r, ctx: r.Context()}
		if obs != nil {
			c.ctx, c.obs = obs.Start(c.ctx)
			defer c.endObserved()
		}
		c.ctx, c.slid = withSlideSink(c.ctx)
		out, err := run(p, rt, c, fn)
		if err == errAnswered {
			return
		}
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) && p.onError != nil {
				p.onError(r, err)
			}
			ae = answerOf(err, upstream).forRoute(rt)
			c.answer = ae
			if ae.code == parse.CodeInvalidSessionToken && c.token != "" {
				p.cookie.clear(w) // a session the backend refused leaves the browser
			}
			writeError(w, ae)
			return
		}
		p.refreshCookie(c)
		switch v := any(out).(type) {
		case rawJSON:
			writeBody(w, http.StatusOK, v)
		default:
			b, err := json.Marshal(v)
			if err != nil || (rt.maxAnswer > 0 && len(b) > rt.maxAnswer) {
				c.answer = errAnswerTooLarge
				writeError(w, errAnswerTooLarge)
				return
			}
			writeBody(w, http.StatusOK, append(b, '\n'))
		}
	})
}

// run applies the policy and the body rule, then calls the route.
func run[In, Out any](p *policy, rt route, c *call, fn func(c *call, in In) (Out, error)) (Out, error) {
	var zero Out
	var in In
	r := c.r
	if err := takeBoth(r, p.limit, rt.limit); err != nil { // every route's limit, then the route's own
		return zero, err
	}
	if done, err := p.checkOrigin(c.w, r, rt.origin); err != nil || done {
		if done {
			return zero, errAnswered
		}
		return zero, err
	}
	if rt.method != "" && r.Method != rt.method {
		c.w.Header().Set("Allow", rt.method)
		return zero, protocolError(http.StatusMethodNotAllowed, "Method not allowed")
	}
	if rt.session != sessionNone {
		if c.token = p.sessionToken(r); c.token == "" {
			return zero, errNoSession
		}
	}
	if rt.timeout > 0 {
		var cancel context.CancelFunc
		c.ctx, cancel = context.WithTimeout(c.ctx, rt.timeout)
		defer cancel()
	}
	if rt.session == sessionConfirmed {
		done := c.step("session")
		u, err := p.confirm(c.ctx, c.token)
		done(err)
		if err != nil {
			return zero, err
		}
		c.user = u
		p.refreshCookie(c) // before the route, which may write its answer itself (GuardLive)
		if rt.userLimit != nil {
			if ok, wait, err := rt.userLimit.allow(c.ctx, "user:"+u.ObjectID); err != nil || !ok {
				if err != nil {
					return zero, err
				}
				return zero, tooManyRequests(wait)
			}
		}
	}
	if rt.body != bodyNone {
		body, err := readBody(c.w, r, rt.maxBody, rt.body == bodyOptional)
		if err != nil {
			return zero, err
		}
		if rt.body == bodyJSON {
			if err := decodeBody(body, &in); err != nil {
				return zero, err
			}
		}
	}
	return fn(c, in)
}

// readBody is the one body rule: a JSON content type (415) and at most max bytes (413, also when Content-Length
// says more); an optional body may be absent.
func readBody(w http.ResponseWriter, r *http.Request, max int64, optional bool) ([]byte, error) {
	if optional && r.ContentLength == 0 {
		return nil, nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, errNotJSON
	}
	if r.ContentLength > max {
		return nil, errBodyTooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errBodyTooLarge
		}
		return nil, protocolError(http.StatusBadRequest, "Could not read request body")
	}
	return body, nil
}

// decodeBody decodes one JSON object into in: with its own strict decoder when it has one, else refusing unknown
// fields, with numbers kept as json.Number, and nothing after the object.
func decodeBody(body []byte, in any) error {
	if s, ok := in.(strictBody); ok {
		if err := s.decodeStrict(body); err != nil {
			return refuse(parse.CodeInvalidJSON, err.Error())
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(in); err != nil || dec.More() {
		return refuse(parse.CodeInvalidJSON, "Invalid JSON body")
	}
	return nil
}
