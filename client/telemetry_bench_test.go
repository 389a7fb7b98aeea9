package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/c13f5054/moralis-go/internal/telemetry/telemetrytest"
)

// BenchmarkTelemetry is the cost of telemetry on one client call (a Get of one object from a local server): off
// (the default, no providers), and on with the SDK's tracer (every span sampled and exported to memory), a meter
// and a JSON logger. `make bench` runs it; compare allocs/op and B/op of the two.
func BenchmarkTelemetry(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"objectId":"abc1234567","score":1,"createdAt":"2026-11-22T00:00:00.000Z","updatedAt":"2026-11-22T00:00:00.000Z"}`)
	}))
	b.Cleanup(srv.Close)
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			cfg := Config{ServerURL: srv.URL + "/parse", AppID: "app1", JavaScriptKey: "js1", InstallationID: "inst-1", HTTPClient: srv.Client()}
			if mode == "on" {
				cap := telemetrytest.New(b)
				cfg.TracerProvider, cfg.MeterProvider, cfg.Logger = cap.Tracer, cap.Meter, cap.Logger
			}
			c, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Objects.Get(ctx, "GameScore", "abc1234567"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
