package telemetry

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of the HTTP clients' spans and metrics.
const (
	KeyOperation  = "moralis.operation"         // "GET classes/GameScore/{objectId}", "getNativeBalance"
	KeyAttempt    = "moralis.attempt"           // 1 for the first attempt
	KeyAttempts   = "moralis.attempts"          // attempts a call made
	KeyOutcome    = "moralis.outcome"           // ok, refused, failed, in_doubt
	KeyInDoubt    = "moralis.in_doubt"          // a write whose outcome is unknown
	KeySent       = "moralis.request_sent"      // the attempt's request was completely written
	KeyReason     = "moralis.retry.reason"      // why an attempt was retried or ended the call (a fixed word)
	KeyRetried    = "moralis.retry.retried"     // the attempt is followed by another
	KeyWait       = "moralis.retry.wait_ms"     // the back-off before the next attempt
	KeyRetryAfter = "moralis.rate_limit.wait_s" // the wait a 429 asked for (Retry-After), in seconds
	KeyStatus     = "http.response.status_code"
	KeyMethod     = "http.request.method"
)

// HTTP observes one package's calls through internal/httpx: a span per call, a child span per attempt, and the
// metrics {prefix}.calls, .attempts, .retries, .in_doubt and .call.duration. A nil *HTTP is off. It is safe for
// concurrent use.
type HTTP struct {
	base
	template                                  func(route string) string
	calls, attempts, retries, inDoubt, limits metric.Int64Counter
	duration                                  metric.Float64Histogram
}

// NewHTTP returns the observer of package pkg ("client", "web3api"), whose metrics are named prefix+".calls" and
// so on, or nil when p is off. template turns a caller's route into an operation name without ids (nil: the route
// as it is).
func NewHTTP(pkg, prefix string, p Providers, template func(route string) string) *HTTP {
	if p.off() {
		return nil
	}
	b, m := newBase(pkg, p)
	if template == nil {
		template = func(r string) string { return r }
	}
	return &HTTP{
		base:     b,
		template: template,
		calls:    counter(m, prefix+".calls", "{call}", "Calls made, by operation and outcome."),
		attempts: counter(m, prefix+".attempts", "{attempt}", "HTTP attempts made, by operation."),
		retries:  counter(m, prefix+".retries", "{retry}", "Attempts sent again, by operation and reason."),
		inDoubt:  counter(m, prefix+".in_doubt", "{call}", "Writes whose outcome is unknown (neither applied nor refused for sure)."),
		limits:   counter(m, prefix+".rate_limited", "{answer}", "429 answers received (never retried)."),
		duration: seconds(m, prefix+".call.duration", "Duration of a call, every attempt and wait included."),
	}
}

// Call is one logical call being observed.
type Call struct {
	h        *HTTP
	ctx      context.Context
	span     trace.Span
	op       attribute.KeyValue
	start    time.Time
	attempts int
}

// StartCall starts observing a call: method is the logical method (GET, POST, ...), route what the caller names
// the call by (a path, an endpoint name), made into an operation name by the observer's template.
func (h *HTTP) StartCall(ctx context.Context, method, route string) (context.Context, *Call) {
	op := h.template(route)
	if method != "" {
		op = method + " " + op
	}
	c := &Call{h: h, op: attribute.String(KeyOperation, op), start: time.Now()}
	ctx, c.span = h.start(ctx, op, trace.SpanKindClient, c.op, attribute.String(KeyMethod, method))
	c.ctx = ctx
	return ctx, c
}

// Attempt is one attempt of a call.
type Attempt struct {
	c    *Call
	span trace.Span
	n    int
}

// StartAttempt starts the next attempt; its span is a child of the call's.
func (c *Call) StartAttempt(ctx context.Context) (context.Context, *Attempt) {
	c.attempts++
	a := &Attempt{c: c, n: c.attempts}
	ctx, a.span = c.h.start(ctx, "moralis.attempt", trace.SpanKindInternal, attribute.Int(KeyAttempt, a.n))
	add(ctx, c.h.attempts, 1, c.op)
	return ctx, a
}

// AttemptEnd is how an attempt ended. Reason is a fixed word (ReasonOf); nothing of an error's text is taken.
type AttemptEnd struct {
	Status  int  // the answer's status; 0 without an answer
	Sent    bool // the request was completely written
	Retry   bool // another attempt follows
	InDoubt bool // the call stops here with a write in doubt
	Reason  string
	Wait    time.Duration // the back-off before the next attempt
	Header  http.Header   // the answer's header, read only for Retry-After on a 429
}

// End ends the attempt.
func (a *Attempt) End(ctx context.Context, e AttemptEnd) {
	c := a.c
	var retryAfter time.Duration
	if e.Status == http.StatusTooManyRequests {
		retryAfter = RetryAfter(e.Header, time.Now())
		add(ctx, c.h.limits, 1, c.op)
	}
	if e.Retry {
		add(ctx, c.h.retries, 1, c.op, attribute.String(KeyReason, e.Reason))
		c.h.log(ctx, slog.LevelInfo, "moralis: retrying", slog.String(KeyOperation, c.op.Value.AsString()),
			slog.Int(KeyAttempt, a.n), slog.String(KeyReason, e.Reason), slog.Int64(KeyWait, e.Wait.Milliseconds()))
	}
	if a.span == nil {
		return
	}
	attrs := []attribute.KeyValue{attribute.Bool(KeySent, e.Sent), attribute.Bool(KeyRetried, e.Retry)}
	if e.Status != 0 {
		attrs = append(attrs, attribute.Int(KeyStatus, e.Status))
	}
	if e.Reason != "" {
		attrs = append(attrs, attribute.String(KeyReason, e.Reason))
	}
	if e.Retry {
		attrs = append(attrs, attribute.Int64(KeyWait, e.Wait.Milliseconds()))
	}
	if e.InDoubt {
		attrs = append(attrs, attribute.Bool(KeyInDoubt, true))
	}
	if retryAfter > 0 {
		attrs = append(attrs, attribute.Float64(KeyRetryAfter, retryAfter.Seconds()))
	}
	failed := e.Status == 0 || e.Status >= 500
	endSpan(a.span, failed, e.Reason, attrs...)
}

// End ends the call: status is the last answer's (0 without one), inDoubt whether a write's outcome is unknown,
// failed whether no usable answer came (an error without an answer: errType says which kind, a fixed word).
func (c *Call) End(status int, inDoubt bool, errType string) {
	outcome := "ok"
	switch {
	case inDoubt:
		outcome = "in_doubt"
	case errType != "" || status >= 500:
		outcome = "failed"
	case status >= 400:
		outcome = "refused"
	}
	ctx := c.ctx
	oc := attribute.String(KeyOutcome, outcome)
	add(ctx, c.h.calls, 1, c.op, oc)
	record(ctx, c.h.duration, time.Since(c.start).Seconds(), c.op, oc)
	if inDoubt {
		add(ctx, c.h.inDoubt, 1, c.op)
		c.h.log(ctx, slog.LevelWarn, "moralis: write in doubt", slog.String(KeyOperation, c.op.Value.AsString()),
			slog.Int(KeyAttempts, c.attempts))
	}
	if c.span == nil {
		return
	}
	if errType == "" && status >= 400 {
		errType = strconv.Itoa(status)
	}
	attrs := []attribute.KeyValue{attribute.Int(KeyAttempts, c.attempts), attribute.Bool(KeyInDoubt, inDoubt), oc}
	if status != 0 {
		attrs = append(attrs, attribute.Int(KeyStatus, status))
	}
	endSpan(c.span, outcome != "ok", errType, attrs...)
}

// RetryAfter reads a Retry-After header (delay-seconds or an HTTP date) as a wait from now; 0 when absent or
// unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
