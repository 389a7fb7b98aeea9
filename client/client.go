package client

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/telemetry"
	"github.com/c13f5054/moralis-go/parse"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Version is the client version reported to the server (the original's 1.5.5, prefixed for Go).
const Version = rest.ClientVersion

// Defaults.
const (
	// DefaultMaxAttempts is the request attempt limit when Config.MaxAttempts is 0.
	DefaultMaxAttempts = httpx.DefaultMaxAttempts
	// DefaultBatchSize is the number of sub-requests in one /batch call.
	DefaultBatchSize = 20
	// DefaultBatchConcurrency is how many /batch calls SaveAll and DestroyAll keep in flight.
	DefaultBatchConcurrency = 4
	// DefaultChain is the chain the cloud chain helpers use when none is given.
	DefaultChain = "eth"
	// DefaultOrder is the transaction order the cloud chain helpers use when none is given.
	DefaultOrder = "desc"
)

// Config configures a Client. ServerURL and AppID are required.
type Config struct {
	// ServerURL is the backend's URL including its mount path, e.g. "http://127.0.0.1:1337/parse".
	ServerURL string
	// AppID is the application id.
	AppID string
	// JavaScriptKey is the client key sent with every call (optional on servers that do not require one).
	JavaScriptKey string
	// MasterKey, when set, is sent instead of the JavaScript key by calls that ask for it (WithMasterKey,
	// schemas, jobs, aggregate). Never configure it in code that runs on a user's device.
	MasterKey string
	// InstallationID identifies this device. Empty: one is read from Storage, or made and kept there.
	InstallationID string
	// MaxAttempts is the number of attempts per request (0 = 5). A read or a delete is sent again after no answer,
	// a cut answer or a 5xx; a write only when sending it again cannot apply it twice (see the package doc,
	// "Exactly-once writes"), else its error matches ErrWriteInDoubt.
	MaxAttempts int
	// DisableIdempotency stops POST and PUT from carrying X-Parse-Request-Id. By default every write carries one
	// id, the same on every attempt, and after an ambiguous failure it is sent again only once the server has been
	// seen to deduplicate its route (a server with idempotencyOptions listing that route); without ids such a
	// write is reported in doubt instead of being sent again.
	DisableIdempotency bool
	// ClientObjectIDs makes Save and SaveAll choose each new object's id themselves (10 random letters and
	// digits, like the server's) instead of leaving it to the server. By default (false) a create carries no
	// objectId, so cloud code sees it as a create (in a beforeSave trigger request.object.isNew() is true,
	// request.object.id is unset), and it is kept exactly-once by its request id: sent again after an ambiguous
	// failure only where the server deduplicates creates (idempotencyOptions); when the outcome stays unknown
	// the object is held until the app settles it (ObjectsService.Settle). With ClientObjectIDs a create is
	// harmless to send again on any server that allows custom ids (the server refuses a second object with the
	// same id, and the SDK loads the one that exists), so a create in doubt settles itself (Save again, or
	// Fetch), SaveAll sends creates through /batch (fewer, faster calls), and a queue may replay a create long
	// after the server forgot its request id; but the server sees every create arrive with an id: in a
	// beforeSave trigger request.object.isNew() is false and request.object.id is set (see the README, "Cloud
	// code triggers"). A server that does not allow custom ids (allowCustomObjectId off) is detected at the
	// first create, and the client falls back to server ids. Users are always created by the server.
	ClientObjectIDs bool
	// BatchSize is the number of sub-requests per /batch call (0 = 20).
	BatchSize int
	// BatchConcurrency is how many /batch calls run at once (0 = 4).
	BatchConcurrency int
	// DefaultACL, when set, is given to every new object saved without an ACL of its own (a copy each time).
	DefaultACL *parse.ACL
	// Storage is where New reads (or makes and keeps) the installation id when InstallationID is empty. Nil: in
	// memory for this process. The signed-in user is kept apart, by a CurrentUser (it may share this Storage).
	Storage Storage
	// HTTPClient is the HTTP client to use (nil: a shared keep-alive client). Deadlines come from contexts.
	HTTPClient *http.Client
	// Retry tunes the back-off (tests make it deterministic); the zero value is the original's. MaxAttempts
	// above wins over Retry.MaxAttempts.
	Retry RetryPolicy
	// NewRequestID makes idempotency request ids (nil: random UUIDs).
	NewRequestID func() string

	// TracerProvider, when set, gets one span per call (named by its method and route, ids left out: "PUT
	// classes/GameScore/{objectId}") and a child span per attempt, with the retry reason, the back-off wait, a
	// 429's Retry-After and whether a write is in doubt. Default nil: no spans. See the package doc,
	// "Observability"; no key, session token, body or URL is ever recorded.
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, gets the metrics moralis.client.calls, .attempts, .retries, .in_doubt,
	// .rate_limited and .call.duration. Default nil: none.
	MeterProvider metric.MeterProvider
	// Logger, when set, logs each retry (Info) and each write left in doubt (Warn). Default nil: no logs.
	Logger *slog.Logger
}

// RetryPolicy tunes the back-off between attempts: round(Base x Rand() x 2^attempts), the count already 1 at the
// first wait. The zero value is the original client's: 5 attempts, a 125 ms base, math/rand/v2, a real sleep that
// ends with the context. Which requests may be sent again is not a policy: see the package doc.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts (1 = no retry); 0 means DefaultMaxAttempts.
	MaxAttempts int
	// Base is the back-off base; 0 means 125 ms.
	Base time.Duration
	// Rand returns a number in [0,1); nil uses math/rand/v2.
	Rand func() float64
	// Sleep waits d or until ctx is done; nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, is told about every retry (attempt number, reason, wait); it never sees bodies or keys.
	OnRetry func(attempt int, reason string, wait time.Duration)
}

// Client talks to the backend through a few services, one per area, as in
//
//	err := c.Objects.Save(ctx, o)
//	u, err := c.Users.LogIn(ctx, "alice", "secret")
//
// A Client is immutable after New and safe for concurrent use. WithSessionToken and WithMasterKey return cheap
// views that share its connections; nothing a view does changes the client it came from. The signed-in user of an
// app is kept outside the client, in a CurrentUser.
type Client struct {
	t            *rest.Transport
	cfg          Config
	sessionToken string
	useMaster    bool
	server       *serverTraits // what was learned of the server, shared by every view

	// Objects saves, fetches and deletes objects, one at a time or in batches.
	Objects *ObjectsService
	// Users signs users up and in, links wallet and other auth data, and asks for password and email mails.
	Users *UsersService
	// Sessions lists, reads and revokes sessions.
	Sessions *SessionsService
	// Roles reads and saves roles and walks their hierarchy.
	Roles *RolesService
	// Schemas reads and changes class schemas, their indexes and class-level permissions (master key).
	Schemas *SchemasService
	// Files uploads, downloads and deletes files.
	Files *FilesService
	// Cloud calls cloud functions and starts jobs, and reads the server's time and plugins.
	Cloud *CloudService
	// Config reads and updates the app's Parse Config parameters.
	Config *ConfigService
}

// serverTraits holds what the client learned of the server as it went. It is shared by every view of a client
// and safe for concurrent use.
type serverTraits struct {
	// noCustomIDs is set once the server refused a client-chosen object id (allowCustomObjectId off).
	noCustomIDs atomic.Bool
	// info is what the backend's moralis-go-server package said it offers (moralisGoServerInfo).
	info serverInfo
}

// New checks cfg and makes a Client. A missing ServerURL or AppID is an error.
func New(cfg Config) (*Client, error) {
	if cfg.Storage == nil {
		cfg.Storage = NewMemoryStorage()
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.BatchConcurrency <= 0 {
		cfg.BatchConcurrency = DefaultBatchConcurrency
	}
	if cfg.MaxAttempts < 0 {
		return nil, errors.New("moralis: MaxAttempts must not be negative")
	}
	policy := httpx.Policy{MaxAttempts: cfg.Retry.MaxAttempts, Base: cfg.Retry.Base, Rand: cfg.Retry.Rand, Sleep: cfg.Retry.Sleep, OnRetry: cfg.Retry.OnRetry,
		Observer: telemetry.NewHTTP("client", "moralis.client", telemetry.Providers{Tracer: cfg.TracerProvider, Meter: cfg.MeterProvider, Logger: cfg.Logger}, rest.Template)}
	if cfg.MaxAttempts > 0 {
		policy.MaxAttempts = cfg.MaxAttempts
	}
	if cfg.InstallationID == "" && cfg.ServerURL != "" && cfg.AppID != "" {
		id, err := installationID(cfg.Storage, cfg.AppID)
		if err != nil {
			return nil, err
		}
		cfg.InstallationID = id
	}
	t, err := rest.New(rest.Config{
		ServerURL:      cfg.ServerURL,
		AppID:          cfg.AppID,
		JavaScriptKey:  cfg.JavaScriptKey,
		MasterKey:      cfg.MasterKey,
		InstallationID: cfg.InstallationID,
		Idempotency:    !cfg.DisableIdempotency,
		HTTPClient:     cfg.HTTPClient,
		Policy:         policy,
		NewRequestID:   cfg.NewRequestID,
	})
	if err != nil {
		return nil, err
	}
	return (&Client{t: t, cfg: cfg, server: &serverTraits{}}).init(), nil
}

// init points the services at c and returns c.
func (c *Client) init() *Client {
	c.Objects = &ObjectsService{client: c}
	c.Users = &UsersService{client: c}
	c.Sessions = &SessionsService{client: c}
	c.Roles = &RolesService{client: c}
	c.Schemas = &SchemasService{client: c}
	c.Files = &FilesService{client: c}
	c.Cloud = &CloudService{client: c}
	c.Config = &ConfigService{client: c}
	return c
}

// view returns a copy of c with its own services.
func (c *Client) view() *Client {
	return (&Client{t: c.t, cfg: c.cfg, sessionToken: c.sessionToken, useMaster: c.useMaster, server: c.server}).init()
}

// WithSessionToken returns a view of c whose calls act as the user of token. It is cheap and shares c's
// connections; c itself is unchanged.
func (c *Client) WithSessionToken(token string) *Client {
	v := c.view()
	v.sessionToken = token
	return v
}

// WithMasterKey returns a view of c whose calls send the master key (calls fail before any request when none is
// configured). c itself is unchanged.
func (c *Client) WithMasterKey() *Client {
	v := c.view()
	v.useMaster = true
	return v
}

// SessionToken is the view's session token ("" when none).
func (c *Client) SessionToken() string { return c.sessionToken }

// AppID is the configured application id.
func (c *Client) AppID() string { return c.cfg.AppID }

// ServerURL is the configured server URL without a trailing slash.
func (c *Client) ServerURL() string { return c.t.ServerURL() }

// InstallationID is the id this client sends as _InstallationId.
func (c *Client) InstallationID() string { return c.cfg.InstallationID }

// HasMasterKey reports whether a master key is configured.
func (c *Client) HasMasterKey() bool { return c.t.HasMasterKey() }

func (c *Client) call(method, path string, params map[string]any) rest.Call {
	return rest.Call{Method: method, Path: path, Params: params, SessionToken: c.sessionToken, UseMasterKey: c.useMaster}
}

func (c *Client) do(ctx context.Context, rc rest.Call, out any) error {
	return c.doPeek(ctx, rc, out, nil)
}

// doPeek is do that first shows a successful answer's body to peek (when set), before decoding it.
func (c *Client) doPeek(ctx context.Context, rc rest.Call, out any, peek func(body []byte)) error {
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	return c.t.DoJSONPeek(ctx, rc, out, peek)
}

// ErrMasterKeyRequired is returned before any request when a call needs the master key and none is configured.
var ErrMasterKeyRequired = rest.ErrMasterKeyRequired
