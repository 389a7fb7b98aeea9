package web3api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/google/uuid"
)

// DefaultBaseURL is the chain-data API base used when WithBaseURL is not given.
const DefaultBaseURL = "https://deep-index.moralis.io/api/v2"

// DefaultChain is the chain sent to backend functions when a call names none.
const DefaultChain = "eth"

// ClientVersion is sent as _ClientVersion to the backend.
const ClientVersion = rest.ClientVersion

// Client calls the chain-data API, directly with an API key or through the backend's cloud functions. Make one
// with New. A Client is immutable after New and safe for concurrent use; With* methods return changed copies.
type Client struct {
	Services
	common service
	cfg    config
	hc     *httpx.Client
	// backend sends the no-key calls to the backend's cloud functions (nil without a server URL); backendErr is
	// its configuration error, returned by those calls.
	backend    *rest.Transport
	backendErr error
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

type config struct {
	apiKey         string
	baseURL        string
	serverURL      string
	appID          string
	jsKey          string
	sessionToken   string
	installationID string
	defaultAddress []func() string
	httpClient     *http.Client
	maxAttempts    int
	policy         httpx.Policy
}

// Option configures a Client in New.
type Option func(*config) error

// WithAPIKey sets the API key sent as the x-api-key header. With a key, calls go to the API directly.
func WithAPIKey(key string) Option {
	return func(c *config) error { c.apiKey = key; return nil }
}

// WithBaseURL changes the API base (default DefaultBaseURL); a trailing slash is dropped.
func WithBaseURL(u string) Option {
	return func(c *config) error {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return errors.New("web3api: base URL must start with http:// or https://")
		}
		c.baseURL = strings.TrimRight(u, "/")
		return nil
	}
}

// WithServer sets the backend (Parse Server) URL and application id used when there is no API key.
func WithServer(serverURL, appID string) Option {
	return func(c *config) error {
		if serverURL != "" && !strings.HasPrefix(serverURL, "http://") && !strings.HasPrefix(serverURL, "https://") {
			return errors.New("web3api: server URL must start with http:// or https://")
		}
		c.serverURL = strings.TrimRight(serverURL, "/")
		c.appID = appID
		return nil
	}
}

// WithJavaScriptKey sets the backend's JavaScript key (_JavaScriptKey), if the server requires one.
func WithJavaScriptKey(key string) Option {
	return func(c *config) error { c.jsKey = key; return nil }
}

// WithSessionToken sets the session token (_SessionToken) sent to backend functions.
func WithSessionToken(tok string) Option {
	return func(c *config) error { c.sessionToken = tok; return nil }
}

// WithInstallationID sets the installation id (_InstallationId) sent to backend functions.
func WithInstallationID(id string) Option {
	return func(c *config) error { c.installationID = id; return nil }
}

// WithDefaultAddress supplies the address used when a call leaves its "address" path parameter empty. The
// functions are tried in order and the first non-empty answer wins: pass the current user's ethAddress first and
// the connected wallet account second. They may be called from several goroutines at once.
func WithDefaultAddress(fns ...func() string) Option {
	return func(c *config) error {
		for _, f := range fns {
			if f != nil {
				c.defaultAddress = append(c.defaultAddress, f)
			}
		}
		return nil
	}
}

// WithHTTPClient sets the *http.Client (default: a shared keep-alive client without overall time-out; deadlines
// come from the context).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error { c.httpClient = hc; return nil }
}

// WithMaxAttempts sets how many times a request is tried on a 5xx status or no response (default 5; 1 = no
// retry). Waits follow the spec's back-off: 125 ms x random x 2^attempt.
func WithMaxAttempts(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return errors.New("web3api: max attempts must be at least 1")
		}
		c.maxAttempts = n
		return nil
	}
}

// ErrNotConfigured is returned by New when neither an API key nor a server URL is given.
var ErrNotConfigured = errors.New("Web3Api.initialize failed: initialize with apiKey or serverUrl")

// ErrNotInitialized is returned by a call through the backend when no server URL is configured (for example on
// a zero Client).
var ErrNotInitialized = errors.New("Web3Api not initialized, run Moralis.start() first")

// New makes a Client. It needs WithAPIKey or WithServer, else it returns ErrNotConfigured.
func New(opts ...Option) (*Client, error) {
	cfg := config{baseURL: DefaultBaseURL}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.apiKey == "" && cfg.serverURL == "" {
		return nil, ErrNotConfigured
	}
	if cfg.serverURL != "" && cfg.installationID == "" {
		cfg.installationID = uuid.NewString() // made once, kept by every copy
	}
	return build(cfg), nil
}

func build(cfg config) *Client {
	c := &Client{cfg: cfg}
	c.common.client = c
	pol := cfg.policy
	if cfg.maxAttempts > 0 {
		pol.MaxAttempts = cfg.maxAttempts
	}
	c.hc = httpx.New(cfg.httpClient, pol)
	if cfg.serverURL != "" {
		c.backend, c.backendErr = rest.New(rest.Config{ServerURL: cfg.serverURL, AppID: cfg.appID, JavaScriptKey: cfg.jsKey,
			InstallationID: cfg.installationID, HTTPClient: cfg.httpClient, Policy: pol})
	}
	c.initServices()
	return c
}

// WithSessionToken returns a copy of c that sends tok as the backend session token. c is not changed.
func (c *Client) WithSessionToken(tok string) *Client {
	cfg := c.cfg
	cfg.defaultAddress = append([]func() string(nil), c.cfg.defaultAddress...)
	cfg.sessionToken = tok
	return build(cfg)
}

// UsesAPIKey reports whether calls go to the API directly (true) or through the backend (false).
func (c *Client) UsesAPIKey() bool { return c != nil && c.cfg.apiKey != "" }

func (c *Client) defaultAddr() string {
	for _, f := range c.cfg.defaultAddress {
		if a := f(); a != "" {
			return a
		}
	}
	return ""
}
