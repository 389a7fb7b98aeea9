package web3api

import (
	"context"
	"errors"
	"testing"

	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/c13f5054/moralis-go/internal/telemetry/telemetrytest"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

// TestTelemetrySpanPerCallAndAttempt: with telemetry on, a call the API answers 503 twice has one span and two
// attempt spans (reason status_5xx), a 429 reports its Retry-After, and the API key, the address and the URL
// appear nowhere.
func TestTelemetrySpanPerCallAndAttempt(t *testing.T) {
	const key = "APIKEYsecret0007"
	const addr = "0x3333333333333333333333333333333333333333"
	api := web3apitest.NewServer(t, web3apitest.WithAPIKey(key),
		web3apitest.WithFailure("getNativeBalance", 503, `{"message":"busy"}`),
		web3apitest.WithRateLimit("getTokenBalances", "9", nil))
	cap := telemetrytest.New(t)
	c, err := New(Config{APIKey: key, BaseURL: api.URL, MaxAttempts: 2,
		TracerProvider: cap.Tracer, MeterProvider: cap.Meter, Logger: cap.Logger})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Call(ctx, "getNativeBalance", Args{"address": addr}, nil); err == nil {
		t.Fatal("want the 503")
	}
	var rl *RateLimitError
	if err := c.Call(ctx, "getTokenBalances", Args{"address": addr}, nil); !errors.As(err, &rl) {
		t.Fatalf("want a RateLimitError, got %v", err)
	}
	calls := cap.SpansNamed("GET getNativeBalance")
	if len(calls) != 1 {
		t.Fatalf("getNativeBalance spans: %d\n%s", len(calls), cap.Dump(t))
	}
	var attempts, limited int
	for _, s := range cap.SpansNamed("moralis.attempt") {
		if s.Parent.SpanID() == calls[0].SpanContext.SpanID() {
			attempts++
			if v, _ := telemetrytest.Attr(s, telemetry.KeyReason); v.AsString() != "status_5xx" {
				t.Errorf("attempt reason %q", v.AsString())
			}
		}
		if v, ok := telemetrytest.Attr(s, telemetry.KeyRetryAfter); ok && v.AsFloat64() == 9 {
			limited++
		}
	}
	if attempts != 2 || limited != 1 {
		t.Errorf("attempts under the call: %d (want 2); 429 attempts with a 9 s wait: %d (want 1)", attempts, limited)
	}
	if n, _ := cap.Sum(t, "moralis.web3api.retries"); n != 1 {
		t.Errorf("retries = %d, want 1", n)
	}
	cap.AssertNoSecrets(t, key, addr, api.URL)
}
