// Package telemetrytest captures everything moralis-go reports through OpenTelemetry and log/slog, in memory, so
// that tests can read it: finished spans (the SDK's in-memory exporter), metrics (a manual reader) and log records
// (a JSON slog handler at Debug level).
package telemetrytest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Capture holds the providers and logger to configure, and what they received.
type Capture struct {
	Tracer *sdktrace.TracerProvider
	Meter  *sdkmetric.MeterProvider
	Logger *slog.Logger

	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	logs   *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// New makes a Capture whose providers are shut down when t ends.
func New(t testing.TB) *Capture {
	c := &Capture{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader(), logs: &lockedBuffer{}}
	c.Tracer = sdktrace.NewTracerProvider(sdktrace.WithSyncer(c.spans), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	c.Meter = sdkmetric.NewMeterProvider(sdkmetric.WithReader(c.reader))
	c.Logger = slog.New(slog.NewJSONHandler(c.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(func() {
		_ = c.Tracer.Shutdown(context.Background())
		_ = c.Meter.Shutdown(context.Background())
	})
	return c
}

// Spans returns the finished spans.
func (c *Capture) Spans() tracetest.SpanStubs { return c.spans.GetSpans() }

// SpansNamed returns the finished spans of the given name.
func (c *Capture) SpansNamed(name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range c.spans.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Attr returns a span's attribute of key (and whether it has one).
func Attr(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// Metrics collects the metrics now.
func (c *Capture) Metrics(t testing.TB) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := c.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// Sum returns the total of the int64 counter name over the data points whose attributes include every one of
// attrs, and whether the metric exists.
func (c *Capture) Sum(t testing.TB, name string, attrs ...attribute.KeyValue) (int64, bool) {
	t.Helper()
	var total int64
	found := false
	for _, sm := range c.Metrics(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			found = true
			if s, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range s.DataPoints {
					if hasAll(dp.Attributes, attrs) {
						total += dp.Value
					}
				}
			}
		}
	}
	return total, found
}

func hasAll(set attribute.Set, attrs []attribute.KeyValue) bool {
	for _, kv := range attrs {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// Logs returns the log records written, as JSON lines.
func (c *Capture) Logs() string { return c.logs.String() }

// Dump writes out every span (name, attributes, events and their attributes, status, scope), every metric (name,
// description, every data point's attributes) and every log line: everything an exporter or a log handler got.
func (c *Capture) Dump(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	for _, s := range c.spans.GetSpans() {
		fmt.Fprintf(&b, "span %q kind=%v status=%v %q scope=%s\n", s.Name, s.SpanKind, s.Status.Code, s.Status.Description, s.InstrumentationScope.Name)
		writeAttrs(&b, "  attr ", s.Attributes)
		for _, e := range s.Events {
			fmt.Fprintf(&b, "  event %q\n", e.Name)
			writeAttrs(&b, "    attr ", e.Attributes)
		}
		for _, l := range s.Links {
			writeAttrs(&b, "  link ", l.Attributes)
		}
	}
	for _, sm := range c.Metrics(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			fmt.Fprintf(&b, "metric %q %q unit=%q\n", m.Name, m.Description, m.Unit)
			for _, set := range pointAttrs(m.Data) {
				writeAttrs(&b, "  point ", set.ToSlice())
			}
			// Whatever the data holds, printed whole as well.
			fmt.Fprintf(&b, "  data %+v\n", m.Data)
		}
	}
	b.WriteString(c.logs.String())
	return b.String()
}

func writeAttrs(b *strings.Builder, prefix string, kvs []attribute.KeyValue) {
	lines := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		lines = append(lines, fmt.Sprintf("%s%s=%s", prefix, kv.Key, kv.Value.String()))
	}
	sort.Strings(lines)
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
}

func pointAttrs(data metricdata.Aggregation) []attribute.Set {
	var out []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	case metricdata.Sum[float64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	}
	return out
}

// AssertNoSecrets fails t for every secret found in anything the capture received, and shows where.
func (c *Capture) AssertNoSecrets(t testing.TB, secrets ...string) {
	t.Helper()
	dump := c.Dump(t)
	for _, s := range secrets {
		if s == "" {
			t.Fatal("telemetrytest: an empty secret proves nothing")
		}
		if i := strings.Index(dump, s); i >= 0 {
			lo, hi := max(0, i-200), min(len(dump), i+len(s)+80)
			t.Errorf("secret %q reached the telemetry: ...%s...", s, dump[lo:hi])
		}
	}
}
