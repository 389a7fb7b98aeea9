// Package httpx is the one place in moralis-go that sends HTTP requests. It wraps a resty v2 client with the
// retry policy of the original client: on a status of 500 or more, or on no response at all, it waits
// round(125ms x random[0,1) x 2^attempt) and tries again, up to a limit of attempts, stopping at once when the
// context is done. Callers (the backend transport, the chain-data client) build Requests; nothing else in the
// module talks to net/http or resty directly.
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
	"net/url"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"
)

// DefaultMaxAttempts is the attempt limit when none is configured (the spec's default of 5).
const DefaultMaxAttempts = 5

// DefaultBackoffBase is the base of the back-off: 125 ms, multiplied by a random factor and 2^attempt.
const DefaultBackoffBase = 125 * time.Millisecond

// Request is one logical HTTP request. Body is sent as is on every attempt, so a retry resends the same bytes.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Query  url.Values
	Body   []byte
	// NoRetry turns the retry loop off for this request (one attempt only).
	NoRetry bool
}

// Response is a complete HTTP response, its body read.
type Response struct {
	Status   int
	Header   http.Header
	Body     []byte
	Attempts int
}

// NoResponseError is returned when no attempt got an HTTP response (connection refused, reset, truncated body,
// time-out). Err is the last transport error; Attempts how many attempts were made.
type NoResponseError struct {
	Attempts int
	Err      error
}

func (e *NoResponseError) Error() string {
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
}

func (p Policy) maxAttempts() int {
	if p.MaxAttempts <= 0 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

// Backoff returns the wait before the retry that follows attempt number attempt (0-based):
// round(base x r x 2^attempt) rounded to the millisecond, r in [0,1).
func (p Policy) Backoff(attempt int) time.Duration {
	base := p.Base
	if base <= 0 {
		base = DefaultBackoffBase
	}
	r := rand.Float64
	if p.Rand != nil {
		r = p.Rand
	}
	ms := math.Round(float64(base.Milliseconds()) * r() * math.Pow(2, float64(attempt)))
	return time.Duration(ms) * time.Millisecond
}

// ShouldRetry says whether an attempt that ended with (status, err) is worth another try, and why.
// It never retries once ctx is done, and never on a status below 500.
func ShouldRetry(ctx context.Context, status int, err error) (bool, string) {
	if ctx.Err() != nil {
		return false, "context done"
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, "context done"
		}
		return true, "no response: " + err.Error()
	}
	if status >= 500 || status == 0 {
		return true, fmt.Sprintf("status %d", status)
	}
	return false, ""
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

// Do sends req, retrying as the policy says. It returns the last response whatever its status (the caller
// decodes error bodies); it returns an error only when no attempt got a response (*NoResponseError) or when ctx
// ended first (the context's error, wrapped).
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	if ctx == nil {
		return nil, errors.New("httpx: nil context")
	}
	max := c.policy.maxAttempts()
	if req.NoRetry {
		max = 1
	}
	sleep := c.policy.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	var lastErr error
	var last *Response
	for attempt := 0; attempt < max; attempt++ {
		resp, err := c.once(ctx, req)
		if resp != nil {
			resp.Attempts = attempt + 1
		}
		status := 0
		if resp != nil {
			status = resp.Status
		}
		retry, reason := ShouldRetry(ctx, status, err)
		if err != nil {
			lastErr = err
			last = nil
		} else {
			last = resp
		}
		if !retry || attempt == max-1 {
			break
		}
		wait := c.policy.Backoff(attempt)
		if c.policy.OnRetry != nil {
			c.policy.OnRetry(attempt+1, reason, wait)
		}
		if serr := sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("httpx: giving up after %d attempt(s): %w", attempt+1, serr)
		}
	}
	if last != nil {
		return last, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("httpx: %w", ctx.Err())
	}
	return nil, &NoResponseError{Attempts: max, Err: redactURLError(lastErr)}
}

func (c *Client) once(ctx context.Context, req *Request) (*Response, error) {
	r := c.rc.R().SetContext(ctx)
	for k, vs := range req.Header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if req.Query != nil {
		r.SetQueryParamsFromValues(req.Query)
	}
	if req.Body != nil {
		r.SetBody(bytes.NewReader(req.Body))
	}
	resp, err := r.Execute(req.Method, req.URL)
	if err != nil {
		return nil, err
	}
	raw := resp.RawResponse
	if raw == nil {
		return nil, io.ErrUnexpectedEOF
	}
	return &Response{Status: resp.StatusCode(), Header: raw.Header, Body: resp.Body()}, nil
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
