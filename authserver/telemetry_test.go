package authserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/c13f5054/moralis-go/internal/telemetry/telemetrytest"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
	"go.opentelemetry.io/otel/attribute"
)

// TestTelemetryEndpointAndNoSecrets walks the endpoint with telemetry on: a sign-in (message, signature, cookie),
// /me, refusals of several kinds, a data-proxy chain call with the server's API key, and a live stream. Each
// request has a server span with its steps, refusals are counted by reason, streams by opening and closing, and
// no session token, cookie, signature, message, nonce, API key or upstream URL reaches a span, a metric or a log.
func TestTelemetryEndpointAndNoSecrets(t *testing.T) {
	cap := telemetrytest.New(t)
	e := newTestEnv(t, func(c *Config) {
		c.TracerProvider, c.MeterProvider, c.Logger = cap.Tracer, cap.Meter, cap.Logger
	})
	// The data proxy over the chain-data test server, its client reporting too.
	api := web3apitest.NewServer(t)
	w3, err := web3api.New(web3api.Config{APIKey: api.APIKey, BaseURL: api.URL, MaxAttempts: 1,
		TracerProvider: cap.Tracer, MeterProvider: cap.Meter, Logger: cap.Logger})
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := e.h.DataProxy(DataProxyConfig{Chain: w3})
	if err != nil {
		t.Fatal(err)
	}
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("data: hello\n\n"))
	})
	mux := http.NewServeMux()
	mux.Handle("/auth/data/", http.StripPrefix("/auth", proxy))
	mux.Handle("/auth/live", e.h.GuardLive(stream))
	mux.Handle("/auth/", http.StripPrefix("/auth", e.h))
	e.srv.Config.Handler = mux

	// Sign in.
	s, _ := signer.GenerateKey()
	addr := ethAddr(s)
	msg, nonce := e.getMessage("evm", addr)
	sig := ethSign(t, s, msg)
	a := e.postJSON("/signin", body("evm", addr, msg, sig), nil)
	tok := sessionOf(a)
	if a.status != 200 || tok == "" {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	if a := e.do("GET", "/me", "", "", cookie(tok)); a.status != 200 {
		t.Fatalf("me: %d %s", a.status, a.raw)
	}
	// Refusals: a replayed signature (the nonce is spent), no session, a session the backend does not know, a
	// wrong content type, an unknown route.
	if a := e.postJSON("/signin", body("evm", addr, msg, sig), nil); a.status != 401 {
		t.Fatalf("replay: %d %s", a.status, a.raw)
	}
	if a := e.do("GET", "/me", "", "", nil); a.status != 401 {
		t.Fatalf("me without session: %d", a.status)
	}
	forged := "r:FORGEDsecret0006"
	if a := e.do("GET", "/data/chain/balance", "", "", cookie(forged)); a.status != 401 {
		t.Fatalf("forged session: %d %s", a.status, a.raw)
	}
	if a := e.do("POST", "/signin", "text/plain", "{}", nil); a.status != 415 {
		t.Fatalf("text/plain: %d", a.status)
	}
	if a := e.do("GET", "/nowhere", "", "", nil); a.status != 404 {
		t.Fatalf("unknown route: %d", a.status)
	}
	// Data proxy with the server's API key, and a live stream.
	if a := e.do("GET", "/data/chain/balance", "", "", cookie(tok)); a.status != 200 {
		t.Fatalf("chain balance: %d %s", a.status, a.raw)
	}
	if a := e.do("GET", "/live", "", "", cookie(tok)); a.status != 200 || !strings.Contains(a.raw, "hello") {
		t.Fatalf("live: %d %s", a.status, a.raw)
	}

	// Spans: one server span per request, the sign-in's steps as its children.
	signins := cap.SpansNamed("POST /signin")
	if len(signins) != 3 {
		t.Fatalf("POST /signin spans: %d, want 3\n%s", len(signins), cap.Dump(t))
	}
	first := signins[0].SpanContext.SpanID()
	steps := map[string]bool{}
	for _, sp := range cap.Spans() {
		if sp.Parent.SpanID() == first {
			steps[sp.Name] = true
		}
	}
	if !steps["moralis.endpoint.verify"] || !steps["moralis.endpoint.backend"] {
		t.Errorf("sign-in steps: %v, want verify and backend", steps)
	}
	if v, _ := telemetrytest.Attr(signins[1], telemetry.KeyRefuse); v.AsString() != "not_authorized" {
		t.Errorf("replayed sign-in: reason %q, want not_authorized", v.AsString())
	}
	if n := len(cap.SpansNamed("GET /{param}/balance")); n != 1 {
		t.Errorf("chain-data client spans: %d, want 1\n%s", n, cap.Dump(t))
	}
	// Metrics: refusals by reason, requests by route, streams opened and closed.
	route := func(r string) attribute.KeyValue { return attribute.String(telemetry.KeyRoute, r) }
	reason := func(r string) attribute.KeyValue { return attribute.String(telemetry.KeyRefuse, r) }
	for _, w := range []struct {
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{"moralis.endpoint.requests", []attribute.KeyValue{route("/signin")}, 3},
		{"moralis.endpoint.requests", []attribute.KeyValue{route("/data/chain/balance"), attribute.String(telemetry.KeyOutcome, "ok")}, 1},
		{"moralis.endpoint.refusals", []attribute.KeyValue{reason("not_authorized"), attribute.Int(telemetry.KeyCode, 101)}, 1},
		{"moralis.endpoint.refusals", []attribute.KeyValue{reason("invalid_session")}, 2},
		{"moralis.endpoint.refusals", []attribute.KeyValue{reason("not_json"), attribute.Int(telemetry.KeyStatus, 415)}, 1},
		{"moralis.endpoint.refusals", []attribute.KeyValue{reason("not_found"), route("unknown route")}, 1},
		{"moralis.endpoint.live.opened", nil, 1},
		{"moralis.endpoint.live.closed", nil, 1},
		{"moralis.endpoint.live.active", nil, 0},
		{"moralis.web3api.calls", nil, 1},
	} {
		got, ok := cap.Sum(t, w.name, w.attrs...)
		if !ok || got != w.want {
			t.Errorf("%s %v = %d (found %v), want %d", w.name, w.attrs, got, ok, w.want)
		}
	}
	if logs := cap.Logs(); !strings.Contains(logs, `"moralis.refusal.reason":"not_authorized"`) {
		t.Errorf("no refusal logged:\n%s", logs)
	}
	nonceSecret := nonce
	cap.AssertNoSecrets(t, tok, forged, sig, strings.TrimPrefix(sig, "0x")[:40], nonceSecret, msg, api.APIKey, api.URL,
		strings.TrimPrefix(api.URL, "http://"), e.srv.URL, addr)
}

// TestTelemetryOffByDefault checks that a Handler made without providers reports nothing and has no observer.
func TestTelemetryOffByDefault(t *testing.T) {
	e := newTestEnv(t, nil)
	if e.h.policy.tel != nil {
		t.Fatal("telemetry on without providers")
	}
}
