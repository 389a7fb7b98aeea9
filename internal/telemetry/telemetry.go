// Package telemetry is the one place where moralis-go talks to OpenTelemetry and log/slog. Each package that
// reports (client through internal/httpx, web3api, authserver) takes a TracerProvider, a MeterProvider and a
// *slog.Logger on its configuration and hands them here; nil for all three is off, and off is a nil pointer that the
// callers check before doing anything (no span, no attribute, no allocation).
//
// What is reported is chosen here, so that one rule holds everywhere: spans, metrics and logs carry operation names
// made from route templates (no object ids, no addresses), statuses, Parse codes, counts, durations and fixed reason
// words. They never carry a URL, a header, a body, an error's text, a key, a session token, a cookie or a
// signature. Everything that reaches an exporter or a log handler goes through the functions of this package.
package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopePrefix is the instrumentation scope of every tracer and meter: it is followed by the package path.
const ScopePrefix = "github.com/c13f5054/moralis-go/"

// Version is reported as the instrumentation scope's version.
const Version = "1.5.5"

// Providers is what a package's configuration carries. The zero value is off.
type Providers struct {
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
	Logger *slog.Logger
}

// off reports whether nothing is configured.
func (p Providers) off() bool { return p.Tracer == nil && p.Meter == nil && p.Logger == nil }

// base is what every observer holds: a tracer (nil: no spans), a meter's instruments are the observer's own, and a
// logger (nil: no logs).
type base struct {
	tracer trace.Tracer
	logger *slog.Logger
}

func newBase(pkg string, p Providers) (base, metric.Meter) {
	b := base{logger: p.Logger}
	if p.Tracer != nil {
		b.tracer = p.Tracer.Tracer(ScopePrefix+pkg, trace.WithInstrumentationVersion(Version))
	}
	var m metric.Meter
	if p.Meter != nil {
		m = p.Meter.Meter(ScopePrefix+pkg, metric.WithInstrumentationVersion(Version))
	}
	return b, m
}

// start starts a span when tracing is on; the span is nil otherwise.
func (b *base) start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if b.tracer == nil {
		return ctx, nil
	}
	return b.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// log writes one record when a logger is set. Only the attributes given here are written: callers pass fixed words,
// operation names, numbers and Parse codes.
func (b *base) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if b.logger == nil || !b.logger.Enabled(ctx, level) {
		return
	}
	b.logger.LogAttrs(ctx, level, msg, attrs...)
}

// endSpan ends span (nil: no-op) with attrs, marking it an error when failed.
func endSpan(span trace.Span, failed bool, errType string, attrs ...attribute.KeyValue) {
	if span == nil {
		return
	}
	span.SetAttributes(attrs...)
	if failed {
		if errType != "" {
			span.SetAttributes(attribute.String("error.type", errType))
		}
		span.SetStatus(codes.Error, errType)
	}
	span.End()
}

// counter makes an Int64Counter, or a nil one when metrics are off or the meter refuses it.
func counter(m metric.Meter, name, unit, desc string) metric.Int64Counter {
	if m == nil {
		return nil
	}
	c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		return nil
	}
	return c
}

func upDown(m metric.Meter, name, unit, desc string) metric.Int64UpDownCounter {
	if m == nil {
		return nil
	}
	c, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		return nil
	}
	return c
}

func seconds(m metric.Meter, name, desc string) metric.Float64Histogram {
	if m == nil {
		return nil
	}
	h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc))
	if err != nil {
		return nil
	}
	return h
}

func add(ctx context.Context, c metric.Int64Counter, n int64, attrs ...attribute.KeyValue) {
	if c != nil {
		c.Add(ctx, n, metric.WithAttributes(attrs...))
	}
}

func record(ctx context.Context, h metric.Float64Histogram, v float64, attrs ...attribute.KeyValue) {
	if h != nil {
		h.Record(ctx, v, metric.WithAttributes(attrs...))
	}
}
