// Package httpx is the one place in moralis-go that sends HTTP requests. It wraps a resty v2 client with the
// retry policy of the original client (wait round(125ms x random[0,1) x 2^attempts) and try again, up to a limit of
// attempts, stopping at once when the context is done) and with one rule, shouldRetry, that decides whether an
// attempt may be sent again. That rule never repeats a write that the server may already have applied unless
// repeating it is provably harmless: see Replay. Callers (the backend transport, the chain-data client, the
// analytics tracker) build Requests; nothing else in the module talks to net/http or resty directly.
//
// A Client is safe for concurrent use once made.
package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/go-resty/resty/v2"
)

// DefaultMaxAttempts is the attempt limit when none is configured (the spec's default of 5).
const DefaultMaxAttempts = 5

// DefaultBackoffBase is the base of the back-off: 125 ms, multiplied by a random factor and 2^attempts.
const DefaultBackoffBase = 125 * time.Millisecond

// Replay says when a request may be sent again after an attempt whose outcome is unknown: the connection failed
// after the request was written, the answer was cut short or never came, or the answer was a 5xx (a proxy's 502
// or the server's own 500 can both follow a write that was applied). A request that provably never reached the
// server (the dial failed, or the request was not completely written) is always sent again, whatever its Replay.
type Replay int

const (
	// ReplayByMethod, the zero value, is ReplayAlways for GET, HEAD, OPTIONS and DELETE and ReplayNever for
	// every other method.
	ReplayByMethod Replay = iota
	// ReplayAlways: sending the request twice has the effect of sending it once (a read, a delete, a create whose
	// object id the client chose, a write the caller knows to be idempotent).
	ReplayAlways
	// ReplayIfConfirmed: the request carries an id the server may deduplicate by. It is sent again only when
	// Request.Confirm says the server does deduplicate; otherwise it is left in doubt.
	ReplayIfConfirmed
	// ReplayNever: a write that could be applied twice. Its outcome is left in doubt after an ambiguous failure.
	ReplayNever
)

func (r Replay) resolve(method string) Replay {
	if r != ReplayByMethod {
		return r
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodDelete:
		return ReplayAlways
	}
	return ReplayNever
}

// Request is one logical HTTP request. Body is sent as is on every attempt, so a retry resends the same bytes.
// Do never changes the Request, its Header included (one Header may serve many requests).
type Request struct {
	Method string
	URL    string
	Header http.Header
	Query  url.Values
	Body   []byte
	// NoRetry turns the retry loop off for this request (one attempt only).
	NoRetry bool
	// Replay says whether the request may be sent again after an attempt that may have reached the server.
	Replay Replay
	// Write marks a request that changes state on the server (for a POST carrying a read, leave it false and set
	// Replay to ReplayAlways). A write whose outcome stays unknown is reported with InDoubt set.
	Write bool
	// Confirm, for ReplayIfConfirmed, is asked at each ambiguous failure whether the server deduplicates this
	// request (callers cache the answer). false or an error leaves the request in doubt.
	Confirm func(ctx context.Context) (bool, error)
	// Op and Route name the call for telemetry (Policy.Observer): the logical method ("" for none) and the route
	// as the caller knows it (a path, an endpoint name), made into an operation name by the observer only when
	// telemetry is on. Never a URL.
	Op, Route string
}

// Response is a complete HTTP response, its body read.
type Response struct {
	Status   int
	Header   http.Header
	Body     []byte
	Attempts int
	// MaybeAppliedBefore is true when an attempt before the one answered may have reached the server (its
	// outcome was unknown and the request was sent again). A "duplicate request" answer then means the server
	// saw an earlier attempt.
	MaybeAppliedBefore bool
	// InDoubt is true when this answer (a 5xx) leaves the outcome of a write unknown and the write was not sent
	// again (it may not be repeated safely, or the attempts ran out).
	InDoubt bool
}

// NoResponseError is returned when no attempt got an HTTP response (connection refused, reset, truncated body,
// time-out). Err is the last transport error; Attempts how many attempts were made. InDoubt is true when the
// request is a write that may have reached the server: it may or may not have been applied.
type NoResponseError struct {
	Attempts int
	Err      error
	InDoubt  bool
}

func (e *NoResponseError) Error() string {
	if e.InDoubt {
		return fmt.Sprintf("no response after %d attempt(s), the write may or may not have been applied: %v", e.Attempts, e.Err)
	}
	return fmt.Sprintf("no response after %d attempt(s): %v", e.Attempts, e.Err)
}

func (e *NoResponseError) Unwrap() error { return e.Err }

// Policy decides retries. The zero value means: DefaultMaxAttempts, DefaultBackoffBase, a process-wide random
// source and a real, context-aware sleep.
type Policy struct {
	// MaxAttempts is the total number of attempts (1 = no retry). 0 means DefaultMaxAttempts.
	MaxAttempts int
	// Base is the back-off base; 0 means DefaultBackoffBase.
	Base time.Duration
	// Rand returns a number in [0,1); nil uses math/rand/v2. Inject it to make waits deterministic in tests.
	Rand func() float64
	// Sleep waits d or until ctx is done; nil uses a timer. Inject it in tests to record waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, is told about every retry (attempt number, the reason, the wait). Messages never hold
	// request bodies or headers.
	OnRetry func(attempt int, reason string, wait time.Duration)
	// Observer, when set, gets a span per call and per attempt and the calls' metrics and logs (see
	// internal/telemetry). Nil is off, and off costs one pointer test per call and per attempt.
	Observer *telemetry.HTTP
}

func (p Policy) maxAttempts() int {
	if p.MaxAttempts <= 0 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

// Backoff returns the wait after the given number of attempts (1 after the first): round(base x r x 2^attempts)
// to the millisecond, r in [0,1). As in the original client, the count is already 1 when the first wait is drawn,
// so the waits are up to 250 ms, 500 ms, 1 s, 2 s with the default base.
func (p Policy) Backoff(attempts int) time.Duration {
	base := p.Base
	if base <= 0 {
		base = DefaultBackoffBase
	}
	r := rand.Float64
	if p.Rand != nil {
		r = p.Rand
	}
	ms := math.Round(float64(base.Milliseconds()) * r() * math.Pow(2, float64(attempts)))
	return time.Duration(ms) * time.Millisecond
}

// attempt is what one try of a request ended with.
type attempt struct {
	status int   // the answer's status; 0 without an answer
	err    error // the transport error when there was no complete answer
	sent   bool  // the request was completely written to a connection
}

// ambiguous reports whether the attempt may have reached the server and been applied without us learning its
// outcome: no complete answer after the request was written, or a 5xx answer.
func (a attempt) ambiguous() bool {
	if a.err != nil {
		return a.sent
	}
	return a.status >= 500
}

// shouldRetry is the one retry rule. It says whether req may be sent again after a, whether its outcome is in
// doubt if it is not, and why (for Policy.OnRetry and errors):
//   - never once ctx is done, and never after a definite answer (a status below 500);
//   - always when the request provably never reached the server (not completely written);
//   - after an ambiguous failure, by the request's Replay: always for ReplayAlways; for ReplayIfConfirmed only
//     when Confirm says the server deduplicates it; never for ReplayNever, and then a write is in doubt.
func shouldRetry(ctx context.Context, req *Request, a attempt) (retry, inDoubt bool, reason string) {
	if ctx.Err() != nil || errors.Is(a.err, context.Canceled) || errors.Is(a.err, context.DeadlineExceeded) {
		return false, req.Write && a.sent, "context done"
	}
	if a.err == nil && a.status < 500 {
		return false, false, ""
	}
	what := fmt.Sprintf("status %d", a.status)
	if a.err != nil {
		what = "no response: " + a.err.Error()
	}
	if !a.ambiguous() {
		return true, false, "not sent (" + what + ")"
	}
	switch req.Replay.resolve(req.Method) {
	case ReplayAlways:
		return true, false, what
	case ReplayIfConfirmed:
		if req.Confirm != nil {
			ok, err := req.Confirm(ctx)
			if err == nil && ok {
				return true, false, what + "; the server deduplicates this request"
			}
			if err != nil {
				return false, req.Write, what + "; could not learn whether the server deduplicates it: " + err.Error()
			}
		}
		return false, req.Write, what + "; the server does not deduplicate this request, so it is not sent again"
	}
	return false, req.Write, what + "; a write that may have been applied is not sent again"
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Client sends Requests with retries. Make one with New.
type Client struct {
	rc     *resty.Client
	policy Policy
}

var (
	sharedOnce sync.Once
	sharedHTTP *http.Client
)

// DefaultHTTPClient is a process-wide *http.Client with keep-alive connections and enough idle connections per
// host for parallel batches. It has no overall timeout: deadlines come from the caller's context.
func DefaultHTTPClient() *http.Client {
	sharedOnce.Do(func() {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = 256
		tr.MaxIdleConnsPerHost = 64
		sharedHTTP = &http.Client{Transport: tr}
	})
	return sharedHTTP
}

// New makes a Client over hc (nil: DefaultHTTPClient) with policy p.
func New(hc *http.Client, p Policy) *Client {
	if hc == nil {
		hc = DefaultHTTPClient()
	}
	rc := resty.NewWithClient(hc)
	rc.SetRetryCount(0)
	rc.SetLogger(discardLogger{})
	rc.SetDisableWarn(true)
	return &Client{rc: rc, policy: p}
}

// Policy returns the client's retry policy.
func (c *Client) Policy() Policy { return c.policy }

// Do sends req, retrying as shouldRetry allows. It returns the last response whatever its status (the caller
// decodes error bodies; Response.InDoubt marks a 5xx that leaves a write's outcome unknown); it returns an error
// only when no attempt got a response (*NoResponseError, with InDoubt for a write that may have been applied) or
// when ctx ended first (the context's error, wrapped).
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	if ctx == nil {
		return nil, errors.New("httpx: nil context")
	}
	if c.policy.Observer == nil {
		return c.do(ctx, req, nil)
	}
	ctx, call := c.policy.Observer.StartCall(ctx, req.Op, req.Route)
	resp, err := c.do(ctx, req, call)
	endCall(call, resp, err)
	return resp, err
}

// endCall ends a call's observation with the kind of its outcome (fixed words, never an error's text).
func endCall(call *telemetry.Call, resp *Response, err error) {
	if resp != nil {
		call.End(resp.Status, resp.InDoubt, "")
		return
	}
	var nre *NoResponseError
	switch {
	case errors.As(err, &nre):
		call.End(0, nre.InDoubt, "no_response")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		call.End(0, false, "context_done")
	default:
		call.End(0, false, "error")
	}
}

// do is the retry loop; call, when not nil, observes it.
func (c *Client) do(ctx context.Context, req *Request, call *telemetry.Call) (*Response, error) {
	max := c.policy.maxAttempts()
	if req.NoRetry {
		max = 1
	}
	sleep := c.policy.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	var (
		lastErr      error
		last         *Response
		maybeApplied bool // an earlier attempt may have been applied
		inDoubt      bool
		attempts     int
		ctxStopped   bool // the loop stopped because ctx ended, not because of an answer
	)
	for attempts < max {
		actx, at := ctx, (*telemetry.Attempt)(nil)
		if call != nil {
			actx, at = call.StartAttempt(ctx)
		}
		resp, a := c.once(actx, req)
		attempts++
		retry, doubt, reason := shouldRetry(ctx, req, a)
		if resp != nil {
			resp.Attempts = attempts
			resp.MaybeAppliedBefore = maybeApplied
			last, lastErr = resp, nil
		} else {
			last, lastErr = nil, a.err
		}
		if a.ambiguous() {
			maybeApplied = true
		}
		inDoubt = doubt || (req.Write && maybeApplied && (retry && attempts == max))
		ctxStopped = reason == "context done"
		if !retry || attempts == max {
			if at != nil {
				at.End(actx, attemptEnd(ctx, a, resp, false, req.Write && maybeApplied && (inDoubt || resp == nil), 0))
			}
			break
		}
		wait := c.policy.Backoff(attempts)
		if at != nil {
			at.End(actx, attemptEnd(ctx, a, resp, true, false, wait))
		}
		if c.policy.OnRetry != nil {
			c.policy.OnRetry(attempts, reason, wait)
		}
		if serr := sleep(ctx, wait); serr != nil {
			if req.Write && maybeApplied {
				return nil, &NoResponseError{Attempts: attempts, Err: fmt.Errorf("httpx: giving up: %w", serr), InDoubt: true}
			}
			return nil, fmt.Errorf("httpx: giving up after %d attempt(s): %w", attempts, serr)
		}
	}
	if last != nil && ctxStopped && last.Status >= 500 && !inDoubt {
		// A 5xx that would have been retried had ctx not ended: the caller's cancellation is the answer.
		return nil, fmt.Errorf("httpx: %w", ctx.Err())
	}
	if last != nil {
		last.InDoubt = inDoubt && last.Status >= 500
		return last, nil
	}
	if req.Write && maybeApplied {
		inDoubt = true
	}
	if ctx.Err() != nil && !inDoubt {
		return nil, fmt.Errorf("httpx: %w", ctx.Err())
	}
	return nil, &NoResponseError{Attempts: attempts, Err: redactURLError(lastErr), InDoubt: inDoubt}
}

// attemptEnd describes an attempt for telemetry, with a reason word made from its kind only: never the text of
// its error, which may hold a URL.
func attemptEnd(ctx context.Context, a attempt, resp *Response, retry, inDoubt bool, wait time.Duration) telemetry.AttemptEnd {
	e := telemetry.AttemptEnd{Status: a.status, Sent: a.sent, Retry: retry, InDoubt: inDoubt, Wait: wait}
	if resp != nil {
		e.Header = resp.Header
	}
	switch {
	case ctx.Err() != nil || errors.Is(a.err, context.Canceled) || errors.Is(a.err, context.DeadlineExceeded):
		e.Reason = "context_done"
	case a.err != nil && !a.sent:
		e.Reason = "not_sent"
	case a.err != nil:
		e.Reason = "no_answer"
	case a.status >= 500:
		e.Reason = "status_5xx"
	case a.status == http.StatusTooManyRequests:
		e.Reason = "rate_limited"
	}
	return e
}

// once sends one attempt. It tells, through an httptrace hook, whether the request was completely written: a
// request that was not cannot have been acted on by the server.
func (c *Client) once(ctx context.Context, req *Request) (*Response, attempt) {
	w := &wroteHook{}
	w.trace.WroteRequest = w.wrote
	r := c.rc.R().SetContext(httptrace.WithClientTrace(ctx, &w.trace))
	// resty sets headers of its own (User-Agent, Accept) in r.Header: a map of our own keeps the caller's
	// unchanged; the value slices are shared, as resty only ever replaces them.
	r.Header = make(http.Header, len(req.Header)+2)
	for k, vs := range req.Header {
		r.Header[k] = vs
	}
	if req.Query != nil {
		r.SetQueryParamsFromValues(req.Query)
	}
	if req.Body != nil {
		r.SetBody(bytes.NewReader(req.Body))
	}
	// The body is read here, at its announced length, rather than by resty, which would also run its response
	// middlewares (a regular expression on the Content-Type, looking for a result to decode) on every answer.
	r.SetDoNotParseResponse(true)
	resp, err := r.Execute(req.Method, req.URL)
	var body []byte
	if err == nil && resp.RawResponse != nil {
		body, err = readBody(resp.RawResponse)
	}
	a := attempt{sent: w.sent.Load()}
	if err != nil {
		if serverClosedIdle(err) {
			// The server had closed the kept-alive connection (its FIN crossed our request) before reading
			// anything of it, so nothing was acted on, although the request may have been written into the
			// connection's buffer (which fires WroteRequest) before the flush failed. Seen after parse-server's
			// answer to a rolled-back transaction.
			a.sent = false
		}
		a.err = err
		return nil, a
	}
	raw := resp.RawResponse
	if raw == nil {
		a.err = io.ErrUnexpectedEOF
		return nil, a
	}
	a.status = raw.StatusCode
	return &Response{Status: a.status, Header: raw.Header, Body: body}, a
}

// serverClosedIdleText is the text of net/http's errServerClosedIdle.
const serverClosedIdleText = "http: server closed idle connection"

// serverClosedIdle reports whether err is, or wraps, net/http's errServerClosedIdle: the connection taken from the
// idle pool was found closed by the server before this request was read, and net/http itself resends idempotent
// requests on it for that reason. net/http does not export the error, so it is known by its exact text, here
// only: TestServerClosedIdleIsNetHTTPsError makes the real error and checks this function against it (a Go release
// that changed the text fails that test).
func serverClosedIdle(err error) bool {
	for err != nil {
		if err.Error() == serverClosedIdleText {
			return true
		}
		if many, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range many.Unwrap() {
				if serverClosedIdle(e) {
					return true
				}
			}
			return false
		}
		err = errors.Unwrap(err)
	}
	return false
}

// readBody reads and closes a response's body, in one allocation when its length is announced.
func readBody(raw *http.Response) ([]byte, error) {
	defer raw.Body.Close()
	if n := raw.ContentLength; n >= 0 && n <= 64<<20 {
		b := make([]byte, n, n+1) // one byte more, so that a body longer than announced shows as a read
		if _, err := io.ReadFull(raw.Body, b); err != nil {
			return nil, err
		}
		// Reading on to EOF lets the connection be reused.
		if m, err := raw.Body.Read(b[n : n+1]); m > 0 || (err != nil && err != io.EOF) {
			if err == nil {
				err = errors.New("httpx: the body is longer than its Content-Length")
			}
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(raw.Body)
}

// wroteHook records, for one attempt, that the request was completely written.
type wroteHook struct {
	trace httptrace.ClientTrace
	sent  atomic.Bool
}

func (w *wroteHook) wrote(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		w.sent.Store(true)
	}
}

// redactURLError drops the query string from a *url.Error so that no key sent in a query leaks into messages.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			u.User = nil
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}

type discardLogger struct{}

func (discardLogger) Errorf(string, ...interface{}) {}
func (discardLogger) Warnf(string, ...interface{})  {}
func (discardLogger) Debugf(string, ...interface{}) {}
