package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/c13f5054/moralis-go/internal/telemetry/telemetrytest"
	"github.com/c13f5054/moralis-go/parse"
	"go.opentelemetry.io/otel/attribute"
)

// Secrets the telemetry test sends; none may reach a span, a metric or a log.
const (
	telMasterKey = "MASTERKEYsecret0001"
	telJSKey     = "JSKEYsecret0002"
	telSession   = "r:SESSIONsecret0003"
	telPassword  = "PASSWORDsecret0004"
	telPathToken = "PATHsecret0005" // in the server URL, as a key in an RPC-style URL
)

// telemetryBackend answers like a backend having a bad day: a read that fails once with 503, a cloud function
// that always answers 502 (a write left in doubt), a class that is rate-limited (429, Retry-After: 7), and a login
// that answers at once.
func telemetryBackend(t *testing.T) *httptest.Server {
	var reads atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/"+telPathToken+"/parse/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), telJSKey) && !strings.Contains(string(body), telMasterKey) {
			t.Errorf("%s: no key in the body", r.URL.Path)
		}
		path := strings.TrimPrefix(r.URL.Path, "/"+telPathToken+"/parse/")
		switch {
		case path == "classes/GameScore/abc1234567":
			if reads.Add(1) == 1 {
				reply(w, 503, `{"code":1,"error":"busy"}`)
				return
			}
			reply(w, 200, `{"objectId":"abc1234567","score":1}`)
		case path == "functions/payout":
			reply(w, 502, `<html>bad gateway</html>`)
		case path == "classes/Limited/abc1234567":
			w.Header().Set("Retry-After", "7")
			reply(w, 429, `{"code":155,"error":"Too many requests"}`)
		case path == "login":
			reply(w, 200, `{"objectId":"u1","username":"alice","sessionToken":"`+telSession+`"}`)
		case path == "users/me":
			reply(w, 200, `{"objectId":"u1","username":"alice","sessionToken":"`+telSession+`"}`)
		default:
			reply(w, 404, `{"code":1,"error":"unexpected"}`)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestTelemetryCallsAttemptsAndNoSecrets runs real calls through an HTTP backend with telemetry on: a span per
// call and per attempt with the retry reason, the in-doubt outcome and the rate-limit wait; the metrics count
// them; and no key, session token, password or URL reaches a span, a metric or a log.
func TestTelemetryCallsAttemptsAndNoSecrets(t *testing.T) {
	srv := telemetryBackend(t)
	cap := telemetrytest.New(t)
	c, err := New(Config{
		ServerURL: srv.URL + "/" + telPathToken + "/parse", AppID: "app1", JavaScriptKey: telJSKey, MasterKey: telMasterKey,
		Retry:          RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		TracerProvider: cap.Tracer, MeterProvider: cap.Meter, Logger: cap.Logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Users.LogIn(ctx, "alice", telPassword); err != nil {
		t.Fatal(err)
	}
	u := c.WithSessionToken(telSession)
	if _, err := u.Users.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Objects.Get(ctx, "GameScore", "abc1234567"); err != nil {
		t.Fatal(err)
	}
	if err := u.WithMasterKey().Cloud.Call(ctx, "payout", map[string]any{"to": "x"}, nil); !errors.Is(err, parse.ErrWriteInDoubt) {
		t.Fatalf("payout: want a write in doubt, got %v", err)
	}
	if _, err := u.Objects.Get(ctx, "Limited", "abc1234567"); err == nil {
		t.Fatal("Limited: want the 429")
	}
	// A server that is gone: no answer, every attempt, and the URL (with its secret) in the Go error only.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	d, err := New(Config{ServerURL: deadURL + "/" + telPathToken + "/parse", AppID: "app1", JavaScriptKey: telJSKey,
		Retry:          RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
		TracerProvider: cap.Tracer, MeterProvider: cap.Meter, Logger: cap.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Objects.Get(ctx, "GameScore", "abc1234567"); err == nil || !strings.Contains(err.Error(), "connect") && !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "Unable") {
		t.Fatalf("dead server: %v", err)
	}

	// One span per call, named by route template, and one child span per attempt.
	get := cap.SpansNamed("GET classes/GameScore/{objectId}")
	if len(get) != 2 {
		t.Fatalf("want 2 spans of GET classes/GameScore/{objectId} (live and dead server), got %d:\n%s", len(get), cap.Dump(t))
	}
	attempts := map[string][]telemetrytestSpan{}
	for _, s := range cap.SpansNamed("moralis.attempt") {
		attempts[s.Parent.SpanID().String()] = append(attempts[s.Parent.SpanID().String()], telemetrytestSpan{s.Attributes})
	}
	live := attempts[get[0].SpanContext.SpanID().String()]
	if len(live) != 2 {
		t.Fatalf("want 2 attempts under the GET, got %d", len(live))
	}
	if v := attrOf(live[0].attrs, telemetry.KeyReason); v != "status_5xx" {
		t.Errorf("first attempt's reason = %q, want status_5xx", v)
	}
	if v := attrOf(live[0].attrs, telemetry.KeyRetried); v != "true" {
		t.Errorf("first attempt retried = %q", v)
	}
	if v, _ := telemetrytest.Attr(get[0], telemetry.KeyAttempts); v.AsInt64() != 2 {
		t.Errorf("call attempts = %v, want 2", v.AsInt64())
	}
	deadAttempts := attempts[get[1].SpanContext.SpanID().String()]
	if len(deadAttempts) != DefaultMaxAttempts || attrOf(deadAttempts[0].attrs, telemetry.KeyReason) != "not_sent" {
		t.Errorf("dead server: %d attempts, first reason %q; want %d, not_sent", len(deadAttempts),
			attrOf(deadAttempts[0].attrs, telemetry.KeyReason), DefaultMaxAttempts)
	}
	pay := cap.SpansNamed("POST functions/payout")
	if len(pay) != 1 {
		t.Fatalf("want 1 payout span, got %d", len(pay))
	}
	if v, _ := telemetrytest.Attr(pay[0], telemetry.KeyInDoubt); !v.AsBool() {
		t.Errorf("payout span not in doubt:\n%s", cap.Dump(t))
	}
	lim := cap.SpansNamed("GET classes/Limited/{objectId}")
	if len(lim) != 1 {
		t.Fatalf("want 1 Limited span, got %d", len(lim))
	}
	la := attempts[lim[0].SpanContext.SpanID().String()]
	if len(la) != 1 || attrOf(la[0].attrs, telemetry.KeyRetryAfter) != "7" {
		t.Errorf("Limited: attempts %d, rate-limit wait %q; want 1 attempt and 7 s", len(la), attrOf(la[0].attrs, telemetry.KeyRetryAfter))
	}

	// Metrics.
	op := func(s string) attribute.KeyValue { return attribute.String(telemetry.KeyOperation, s) }
	for _, w := range []struct {
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		// Six calls, and the two probes the in-doubt payout made to learn whether the server deduplicates
		// (functions/moralisGoIdempotencyProbe, answered 404 here): calls of their own, with spans of their own.
		{"moralis.client.calls", nil, 8},
		{"moralis.client.calls", []attribute.KeyValue{op("POST functions/moralisGoIdempotencyProbe")}, 2},
		{"moralis.client.attempts", []attribute.KeyValue{op("GET classes/GameScore/{objectId}")}, 2 + DefaultMaxAttempts},
		{"moralis.client.retries", []attribute.KeyValue{attribute.String(telemetry.KeyReason, "status_5xx")}, 1},
		{"moralis.client.in_doubt", []attribute.KeyValue{op("POST functions/payout")}, 1},
		{"moralis.client.rate_limited", nil, 1},
		{"moralis.client.calls", []attribute.KeyValue{attribute.String(telemetry.KeyOutcome, "in_doubt")}, 1},
	} {
		if got, ok := cap.Sum(t, w.name, w.attrs...); !ok || got != w.want {
			t.Errorf("%s %v = %d (found %v), want %d\n%s", w.name, w.attrs, got, ok, w.want, cap.Dump(t))
		}
	}
	logs := cap.Logs()
	if !strings.Contains(logs, `"msg":"moralis: retrying"`) || !strings.Contains(logs, `"msg":"moralis: write in doubt"`) {
		t.Errorf("logs lack the retry or the in-doubt record:\n%s", logs)
	}

	cap.AssertNoSecrets(t, telMasterKey, telJSKey, telSession, telPassword, telPathToken, srv.URL, deadURL,
		strings.TrimPrefix(srv.URL, "http://"), strings.TrimPrefix(deadURL, "http://"))
}

type telemetrytestSpan struct{ attrs []attribute.KeyValue }

func attrOf(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}
