package web3api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// DefaultBaseURL is the chain-data API base used when Config.BaseURL is empty.
const DefaultBaseURL = "https://deep-index.moralis.io/api/v2"

// DefaultChain is the chain sent to backend functions when a call names none.
const DefaultChain = "eth"

// DefaultMaxAttempts is the number of attempts per request when Config.MaxAttempts is 0.
const DefaultMaxAttempts = httpx.DefaultMaxAttempts

// ClientVersion is sent as _ClientVersion to the backend.
const ClientVersion = rest.ClientVersion

// Config configures a Client; pass it to New. Every field is optional, but a Client needs APIKey or ServerURL.
// The zero value of each field means its default. New copies the Config: changing it afterwards does not change
// the Client. The two hooks, DefaultAddress and SessionToken, are called from whichever goroutines make calls, so
// they must be safe for concurrent use.
type Config struct {
	// APIKey is the chain-data API key, sent as the x-api-key header. With a key every call goes to the API at
	// BaseURL; without one every call goes to the backend at ServerURL. Default: none.
	APIKey string
	// BaseURL is the API base, an absolute http:// or https:// URL (a trailing slash is dropped). Default:
	// DefaultBaseURL.
	BaseURL string

	// ServerURL is the backend (Parse Server) URL with its mount path, e.g. "http://127.0.0.1:1337/parse", used
	// when there is no APIKey: each call then becomes POST {ServerURL}/functions/{endpoint}. Default: none.
	ServerURL string
	// AppID is the backend's application id, sent as _ApplicationId; required with ServerURL.
	AppID string
	// JavaScriptKey is the backend's JavaScript key (_JavaScriptKey), if the server requires one. Default: none.
	JavaScriptKey string
	// InstallationID is sent as _InstallationId to the backend. Default: a random UUID made once by New.
	InstallationID string
	// SessionToken, when set, gives the current user's session token for the calls through the backend (no
	// APIKey); it is asked once per call and sent as _SessionToken unless it returns "". Default: no session
	// token. Client.WithSessionToken overrides it with a fixed token.
	SessionToken func(ctx context.Context) string

	// DefaultAddress, when set, gives the address used by a call to an endpoint that has an "address" parameter
	// when the call leaves it empty: the current user's ethAddress (or the connected wallet account). It is asked
	// only then, once per call; "" leaves the address unset (the call then fails with "required param address
	// not provided") and an error fails the call before anything is sent. Default: no default address.
	DefaultAddress func(ctx context.Context) (string, error)

	// HTTPClient is the HTTP client to use. Default: a shared keep-alive client without an overall time-out
	// (deadlines come from the context). It is used, never changed.
	HTTPClient *http.Client
	// MaxAttempts is how many times a request is tried on a 5xx answer or no answer (1 = no retry); waits
	// follow the spec's back-off, 125 ms x random x 2^attempt. A 429 is never retried. Default (0):
	// DefaultMaxAttempts, 5. Negative values are refused.
	MaxAttempts int

	// TracerProvider, when set, gets one span per call (named by its method and endpoint, "GET getNativeBalance",
	// or "POST functions/getNativeBalance" through the backend) and a child span per attempt, with the retry
	// reason, the back-off wait and a 429's Retry-After. Default nil: no spans. No key, session token, address,
	// body or URL is ever recorded.
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, gets the metrics moralis.web3api.calls, .attempts, .retries, .in_doubt,
	// .rate_limited and .call.duration. Default nil: none.
	MeterProvider metric.MeterProvider
	// Logger, when set, logs each retry (Info) and each write left in doubt (Warn). Default nil: no logs.
	Logger *slog.Logger
}

// Client calls the chain-data API, directly with an API key or through the backend's cloud functions. Make one
// with New. A Client is immutable after New and safe for concurrent use; WithSessionToken returns a changed copy.
// A zero Client is not usable: its calls return ErrNotInitialized.
type Client struct {
	Services
	common service
	cfg    Config
	hc     *httpx.Client
	// backend sends the no-key calls to the backend's cloud functions (nil with an API key or without a server).
	backend *rest.Transport
}

type service struct{ client *Client }

// cl is the service's client, nil for the services of a zero Client (whose calls then give ErrNotInitialized
// instead of panicking).
func (s *service) cl() *Client {
	if s == nil {
		return nil
	}
	return s.client
}

// ErrNotConfigured is returned by New when neither Config.APIKey nor Config.ServerURL is given.
var ErrNotConfigured = errors.New("Web3Api.initialize failed: initialize with apiKey or serverUrl")

// ErrNotInitialized is returned by the calls of a Client that New did not make (for example a zero Client).
var ErrNotInitialized = errors.New("Web3Api not initialized, run Moralis.start() first")

// New checks cfg and makes a Client. It needs cfg.APIKey or cfg.ServerURL (else ErrNotConfigured); every other
// problem (a malformed URL, a ServerURL without AppID, a negative MaxAttempts, a key that cannot go in a header)
// is an error starting with "web3api: ". Nothing is sent by New.
func New(cfg Config) (*Client, error) {
	if cfg.APIKey == "" && cfg.ServerURL == "" {
		return nil, ErrNotConfigured
	}
	if cfg.APIKey != "" && !validHeaderValue(cfg.APIKey) {
		return nil, errors.New("web3api: Config.APIKey holds characters that cannot be sent in an HTTP header")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	base, err := checkURL("BaseURL", cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = base
	if cfg.MaxAttempts < 0 {
		return nil, fmt.Errorf("web3api: Config.MaxAttempts must be 0 (the default, %d) or more, got %d", DefaultMaxAttempts, cfg.MaxAttempts)
	}
	if cfg.ServerURL != "" {
		server, err := checkURL("ServerURL", cfg.ServerURL)
		if err != nil {
			return nil, err
		}
		cfg.ServerURL = server
		if strings.TrimSpace(cfg.AppID) == "" {
			return nil, errors.New("web3api: Config.AppID is required with Config.ServerURL")
		}
		if cfg.InstallationID == "" {
			cfg.InstallationID = uuid.NewString() // made once, kept by every copy
		}
	}
	c := &Client{cfg: cfg}
	c.common.client = c
	pol := httpx.Policy{MaxAttempts: cfg.MaxAttempts,
		Observer: telemetry.NewHTTP("web3api", "moralis.web3api", telemetry.Providers{Tracer: cfg.TracerProvider, Meter: cfg.MeterProvider, Logger: cfg.Logger}, routeTemplate)}
	c.hc = httpx.New(cfg.HTTPClient, pol)
	if cfg.APIKey == "" {
		c.backend, err = rest.New(rest.Config{ServerURL: cfg.ServerURL, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey,
			InstallationID: cfg.InstallationID, HTTPClient: captureErrorBodies(cfg.HTTPClient), Policy: pol})
		if err != nil {
			// Unreachable: the checks above are the transport's. Keep one prefix all the same.
			return nil, errors.New("web3api: " + strings.TrimPrefix(err.Error(), "moralis: "))
		}
	}
	c.initServices()
	return c, nil
}

// checkURL checks an absolute http(s) URL and drops its trailing slashes. The error shows the URL without
// credentials.
func checkURL(field, raw string) (string, error) {
	s := strings.TrimRight(raw, "/")
	u, err := url.Parse(s)
	if err != nil {
		// The parser's error would repeat the URL, credentials included.
		return "", fmt.Errorf("web3api: Config.%s is not a valid absolute http:// or https:// URL", field)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("web3api: Config.%s must be an absolute http:// or https:// URL, got %q", field, u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("web3api: Config.%s must not have a query or a fragment, got %q", field, u.Redacted())
	}
	return s, nil
}

// validHeaderValue reports whether v can be sent as an HTTP header value (no control characters but tab).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// WithSessionToken returns a copy of c that sends tok as the backend session token (Config.SessionToken then
// always answers tok; "" sends none). c is not changed. It is cheap: the copy shares c's connections.
func (c *Client) WithSessionToken(tok string) *Client {
	if c == nil {
		return &Client{} // its calls give ErrNotInitialized, as c's would
	}
	cp := &Client{cfg: c.cfg, hc: c.hc, backend: c.backend}
	cp.cfg.SessionToken = func(context.Context) string { return tok }
	cp.common.client = cp
	cp.initServices()
	return cp
}

// UsesAPIKey reports whether calls go to the API directly (true) or through the backend (false).
func (c *Client) UsesAPIKey() bool { return c != nil && c.cfg.APIKey != "" }

// initialized reports whether New made c.
func (c *Client) initialized() bool { return c != nil && c.hc != nil }

func (c *Client) sessionToken(ctx context.Context) string {
	if c.cfg.SessionToken == nil {
		return ""
	}
	return c.cfg.SessionToken(ctx)
}
