package telemetry

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of the endpoint's spans and metrics.
const (
	KeyRoute  = "http.route"             // "/signin", "/data/chain/balance", "live"
	KeyCode   = "moralis.code"           // the Parse code of a refusal
	KeyRefuse = "moralis.refusal.reason" // a fixed word: invalid_session, rate_limited, forbidden, ...
	KeyStep   = "moralis.endpoint.step"  // session, verify, backend, ...
)

// Endpoint observes the sign-in endpoint (package authserver): a server span per request with child spans for its
// steps, and the metrics moralis.endpoint.requests, .refusals, .request.duration, .live.opened, .live.closed and
// .live.active. A nil *Endpoint is off. It is safe for concurrent use.
type Endpoint struct {
	base
	requests, refusals, opened, closed metric.Int64Counter
	active                             metric.Int64UpDownCounter
	duration                           metric.Float64Histogram
}

// NewEndpoint returns the endpoint's observer, or nil when p is off.
func NewEndpoint(p Providers) *Endpoint {
	if p.off() {
		return nil
	}
	b, m := newBase("authserver", p)
	return &Endpoint{
		base:     b,
		requests: counter(m, "moralis.endpoint.requests", "{request}", "Requests answered, by route and outcome (the data proxy's routes are /data/...)."),
		refusals: counter(m, "moralis.endpoint.refusals", "{request}", "Requests refused, by route, reason, Parse code and status."),
		opened:   counter(m, "moralis.endpoint.live.opened", "{stream}", "Live streams opened through GuardLive."),
		closed:   counter(m, "moralis.endpoint.live.closed", "{stream}", "Live streams closed."),
		active:   upDown(m, "moralis.endpoint.live.active", "{stream}", "Live streams open now."),
		duration: seconds(m, "moralis.endpoint.request.duration", "Duration of a request, from the policy to the answer."),
	}
}

// Route is one route's observation setup, made once when the route is registered.
type Route struct {
	e     *Endpoint
	name  string // span name: "POST /signin"
	route attribute.KeyValue
}

// Route returns the observation of the route path served with method ("" for any method).
func (e *Endpoint) Route(method, path string) *Route {
	name := path
	if method != "" {
		name = method + " " + path
	}
	return &Route{e: e, name: name, route: attribute.String(KeyRoute, path)}
}

// Request is one request being observed.
type Request struct {
	r     *Route
	span  trace.Span
	start time.Time
}

// Start starts observing one request.
func (rt *Route) Start(ctx context.Context) (context.Context, *Request) {
	q := &Request{r: rt, start: time.Now()}
	ctx, q.span = rt.e.start(ctx, rt.name, trace.SpanKindServer, rt.route)
	return ctx, q
}

// Step starts a child span for one step of the request (the session check, the signature check, the backend
// call); the returned function ends it, failed or not. With tracing off it does nothing.
func (q *Request) Step(ctx context.Context, step string) (context.Context, func(failed bool)) {
	if q == nil || q.r.e.tracer == nil {
		return ctx, func(bool) {}
	}
	ctx, span := q.r.e.start(ctx, "moralis.endpoint."+step, trace.SpanKindInternal, attribute.String(KeyStep, step))
	return ctx, func(failed bool) { endSpan(span, failed, step) }
}

// End ends the request with its status (0: the route answered itself, e.g. a stream), and for a refusal or a
// failure its Parse code and a reason word.
func (q *Request) End(ctx context.Context, status, code int, reason string) {
	e := q.r.e
	outcome := "ok"
	switch {
	case status >= 500:
		outcome = "failed"
	case status >= 400:
		outcome = "refused"
	}
	oc := attribute.String(KeyOutcome, outcome)
	add(ctx, e.requests, 1, q.r.route, oc)
	record(ctx, e.duration, time.Since(q.start).Seconds(), q.r.route, oc)
	if outcome != "ok" {
		add(ctx, e.refusals, 1, q.r.route, attribute.String(KeyRefuse, reason), attribute.Int(KeyCode, code), attribute.Int(KeyStatus, status))
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelWarn
		}
		e.log(ctx, level, "moralis: endpoint refused a request", slog.String(KeyRoute, q.r.route.Value.AsString()),
			slog.String(KeyRefuse, reason), slog.Int(KeyCode, code), slog.Int(KeyStatus, status))
	}
	if q.span == nil {
		return
	}
	attrs := []attribute.KeyValue{oc}
	if status != 0 {
		attrs = append(attrs, attribute.Int(KeyStatus, status))
	}
	if outcome != "ok" {
		attrs = append(attrs, attribute.String(KeyRefuse, reason), attribute.Int(KeyCode, code))
	}
	endSpan(q.span, status >= 500, reason, attrs...)
}

// StreamOpened counts a live stream opened through the endpoint; the returned function counts it closed.
func (e *Endpoint) StreamOpened(ctx context.Context) func() {
	add(ctx, e.opened, 1)
	if e.active != nil {
		e.active.Add(ctx, 1)
	}
	e.log(ctx, slog.LevelDebug, "moralis: live stream opened")
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("live.opened")
	}
	return func() {
		add(ctx, e.closed, 1)
		if e.active != nil {
			e.active.Add(ctx, -1)
		}
		e.log(ctx, slog.LevelDebug, "moralis: live stream closed")
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			span.AddEvent("live.closed")
		}
	}
}
