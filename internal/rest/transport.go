// Package rest is the backend's wire protocol: every call is a POST to {serverURL}/{path} whose JSON body carries
// the real method in _method, the application id, the JavaScript key or the master key, the client version, the
// installation id, the session token and an optional context. Files are the exception (real HTTP requests with
// X-Parse-* headers). Requests go through internal/httpx (resty), with its retry and back-off.
package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/google/uuid"
)

// ClientVersion is the client version the SDK reports: the original's 1.5.5 with a prefix naming the Go client.
const ClientVersion = "go1.5.5"

// Config configures a Transport.
type Config struct {
	ServerURL      string
	AppID          string
	JavaScriptKey  string
	MasterKey      string
	InstallationID string
	// Idempotency makes POST and PUT carry X-Parse-Request-Id, one UUID per logical call, the same on every retry;
	// such a write is sent again after an ambiguous failure only once the server has been seen to deduplicate
	// its route (see Transport.Deduplicates).
	Idempotency bool
	HTTPClient  *http.Client
	Policy      httpx.Policy
	// NewRequestID makes request ids; nil uses random UUIDs (inject for tests).
	NewRequestID func() string
}

// Transport sends backend calls. It is safe for concurrent use.
type Transport struct {
	cfg       Config
	base      *url.URL
	mountPath string
	http      *httpx.Client
	dedup     dedupCache
}

// New checks cfg and makes a Transport.
func New(cfg Config) (*Transport, error) {
	if strings.TrimSpace(cfg.ServerURL) == "" {
		return nil, errors.New("moralis: ServerURL is required")
	}
	if strings.TrimSpace(cfg.AppID) == "" {
		return nil, errors.New("moralis: AppID is required")
	}
	u, err := url.Parse(strings.TrimRight(cfg.ServerURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("moralis: ServerURL must be an absolute http(s) URL, got %q", redactURL(cfg.ServerURL))
	}
	if cfg.InstallationID == "" {
		cfg.InstallationID = uuid.NewString()
	}
	if cfg.NewRequestID == nil {
		cfg.NewRequestID = uuid.NewString
	}
	return &Transport{cfg: cfg, base: u, mountPath: u.Path, http: httpx.New(cfg.HTTPClient, cfg.Policy)}, nil
}

// Config returns the transport's configuration (keys included: do not log it).
func (t *Transport) Config() Config { return t.cfg }

// MountPath is the server URL's path, e.g. "/parse"; batch sub-requests must carry it.
func (t *Transport) MountPath() string { return t.mountPath }

// ServerURL is the server URL without a trailing slash.
func (t *Transport) ServerURL() string { return t.base.String() }

// HasMasterKey reports whether a master key is configured.
func (t *Transport) HasMasterKey() bool { return t.cfg.MasterKey != "" }

// Call is one backend call.
type Call struct {
	Method       string // GET, POST, PUT, DELETE
	Path         string // e.g. "classes/GameScore"
	Params       map[string]any
	SessionToken string
	UseMasterKey bool
	// Context is sent as _context (parse-server gives it to cloud code as request.context). Nil: the call
	// context set on the call's context.Context with WithCallContext, if any.
	Context map[string]any
	// NoIdempotency leaves out the request id even when idempotency is on.
	NoIdempotency bool
	// RequestID, when set, is sent as X-Parse-Request-Id (POST/PUT only).
	RequestID string
	// Replay overrides when the call may be sent again after an ambiguous failure. The zero value derives it:
	// GET and DELETE always; a POST or PUT carrying a request id on a route the server deduplicates once the
	// server is seen to do so; any other write never. Set httpx.ReplayAlways only for a write that is harmless
	// to repeat (a create with a client-chosen object id, a /batch of such sub-requests).
	Replay httpx.Replay
}

// Result is a successful answer.
type Result struct {
	Status   int
	Header   http.Header
	Body     []byte
	Attempts int
	// MaybeAppliedBefore is true when an earlier attempt of the call may have reached the server.
	MaybeAppliedBefore bool
}

// Do sends c and returns the answer, or an *Error for an error answer or no answer. A write whose outcome is
// unknown gives an *Error with InDoubt set (errors.Is(err, ErrWriteInDoubt)).
func (t *Transport) Do(ctx context.Context, c Call) (*Result, error) {
	op := c.Method + " " + c.Path
	var cc json.RawMessage
	if c.Context == nil {
		raw, err := callContextOf(ctx)
		if err != nil {
			return nil, fmt.Errorf("moralis: %s: %w", op, err)
		}
		cc = raw
	}
	body, err := t.body(c, cc)
	if err != nil {
		return nil, fmt.Errorf("moralis: %s: %w", op, err)
	}
	header := http.Header{}
	header.Set("Content-Type", "text/plain")
	write := c.Method != http.MethodGet
	reqID := ""
	if t.cfg.Idempotency && !c.NoIdempotency && (c.Method == http.MethodPost || c.Method == http.MethodPut) {
		reqID = c.RequestID
		if reqID == "" {
			reqID = t.cfg.NewRequestID() // once per logical call, before the retry loop
		}
		header.Set("X-Parse-Request-Id", reqID)
	}
	req := &httpx.Request{
		Method: http.MethodPost,
		URL:    t.base.String() + "/" + strings.TrimLeft(c.Path, "/"),
		Header: header,
		Body:   body,
		Write:  write,
		Replay: c.Replay,
	}
	if req.Replay == httpx.ReplayByMethod {
		switch {
		case !write || c.Method == http.MethodDelete:
			req.Replay = httpx.ReplayAlways
		case reqID != "" && dedupRoute(c.Method, c.Path) != "":
			req.Replay = httpx.ReplayIfConfirmed
			method, path := c.Method, c.Path
			req.Confirm = func(ctx context.Context) (bool, error) { return t.Deduplicates(ctx, method, path) }
		default:
			req.Replay = httpx.ReplayNever
		}
	}
	resp, err := t.http.Do(ctx, req)
	if err != nil {
		return nil, t.transportError(ctx, op, err)
	}
	if resp.Status >= 400 || resp.Status < 200 {
		perr := DecodeError(op, resp.Status, resp.Body)
		perr.InDoubt = resp.InDoubt
		perr.MaybeAppliedBefore = resp.MaybeAppliedBefore
		if perr.Code == CodeDuplicateRequest && reqID != "" && resp.MaybeAppliedBefore {
			// The server saw an earlier attempt of this call: it was applied, or failed, or is still running.
			perr.InDoubt = true
		}
		return nil, perr
	}
	return &Result{Status: resp.Status, Header: resp.Header, Body: resp.Body, Attempts: resp.Attempts, MaybeAppliedBefore: resp.MaybeAppliedBefore}, nil
}

// DoJSON sends c and decodes a successful answer's JSON into out (skipped when out is nil).
func (t *Transport) DoJSON(ctx context.Context, c Call, out any) error {
	return t.DoJSONPeek(ctx, c, out, nil)
}

// DoJSONPeek is DoJSON that first shows a successful answer's body to peek (when set), before decoding it. peek
// must not keep or change the bytes.
func (t *Transport) DoJSONPeek(ctx context.Context, c Call, out any, peek func(body []byte)) error {
	res, err := t.Do(ctx, c)
	if err != nil {
		return err
	}
	if peek != nil {
		peek(res.Body)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		// A write the server answered with a 2xx was applied, whatever its unreadable answer says: in doubt.
		return &Error{Code: CodeInvalidJSON, Message: "Received an error with invalid JSON from Parse: " + truncate(string(res.Body), 512), Status: res.Status, Op: c.Method + " " + c.Path,
			InDoubt: c.Method != http.MethodGet}
	}
	return nil
}

func (t *Transport) transportError(ctx context.Context, op string, err error) error {
	var nre0 *httpx.NoResponseError
	if ctx.Err() != nil && !(errors.As(err, &nre0) && nre0.InDoubt) {
		return fmt.Errorf("moralis: %s: %w", op, ctx.Err())
	}
	var nre *httpx.NoResponseError
	if errors.As(err, &nre) {
		if nre.Attempts > 1 {
			return &Error{Code: CodeConnectionFailed, Message: ErrUnableToConnect, Op: op, Err: nre, InDoubt: nre.InDoubt}
		}
		return &Error{Code: CodeConnectionFailed, Message: "XMLHttpRequest failed: " + nre.Err.Error(), Op: op, Err: nre, InDoubt: nre.InDoubt}
	}
	return &Error{Code: CodeConnectionFailed, Message: "XMLHttpRequest failed: " + err.Error(), Op: op, Err: err}
}

// body is the JSON body of c; cc is the call context's JSON, sent as _context when c has no Context of its own.
func (t *Transport) body(c Call, cc json.RawMessage) ([]byte, error) {
	m := make(map[string]any, len(c.Params)+8)
	for k, v := range c.Params {
		m[k] = v
	}
	if c.Method != http.MethodPost {
		m["_method"] = c.Method
	}
	m["_ApplicationId"] = t.cfg.AppID
	if c.UseMasterKey {
		if t.cfg.MasterKey == "" {
			return nil, ErrMasterKeyRequired
		}
		m["_MasterKey"] = t.cfg.MasterKey
	} else if t.cfg.JavaScriptKey != "" {
		m["_JavaScriptKey"] = t.cfg.JavaScriptKey
	}
	m["_ClientVersion"] = ClientVersion
	m["_InstallationId"] = t.cfg.InstallationID
	if c.SessionToken != "" {
		m["_SessionToken"] = c.SessionToken
	}
	if c.Context != nil {
		m["_context"] = c.Context
	} else if cc != nil {
		m["_context"] = cc
	}
	return json.Marshal(m)
}

// ErrMasterKeyRequired is returned, before any request, when a call needs the master key and none is configured.
var ErrMasterKeyRequired = errors.New("this call needs the master key, and none is configured (Config.MasterKey)")

// FileRequest is a real HTTP request for the files endpoints.
type FileRequest struct {
	Method       string // POST (upload) or DELETE
	Name         string
	ContentType  string
	Body         []byte
	SessionToken string
	UseMasterKey bool
}

// DoFile sends a files request with X-Parse-* headers and returns the answer.
func (t *Transport) DoFile(ctx context.Context, f FileRequest) (*Result, error) {
	op := f.Method + " files/" + f.Name
	h := http.Header{}
	h.Set("X-Parse-Application-Id", t.cfg.AppID)
	if f.UseMasterKey {
		if t.cfg.MasterKey == "" {
			return nil, fmt.Errorf("moralis: %s: %w", op, ErrMasterKeyRequired)
		}
		h.Set("X-Parse-Master-Key", t.cfg.MasterKey)
	} else if t.cfg.JavaScriptKey != "" {
		h.Set("X-Parse-JavaScript-Key", t.cfg.JavaScriptKey)
	}
	if f.SessionToken != "" {
		h.Set("X-Parse-Session-Token", f.SessionToken)
	}
	h.Set("X-Parse-Installation-Id", t.cfg.InstallationID)
	if f.ContentType != "" {
		h.Set("Content-Type", f.ContentType)
	}
	resp, err := t.http.Do(ctx, &httpx.Request{
		Method: f.Method,
		URL:    t.base.String() + "/files/" + url.PathEscape(f.Name),
		Header: h,
		Body:   f.Body,
		// An upload is not deduplicated by the server (a second one stores a second file), so it is sent again
		// only when it provably never arrived; a delete is always safe to repeat.
		Write: true,
	})
	if err != nil {
		return nil, t.transportError(ctx, op, err)
	}
	if resp.Status >= 400 {
		perr := DecodeError(op, resp.Status, resp.Body)
		perr.InDoubt = resp.InDoubt
		return nil, perr
	}
	return &Result{Status: resp.Status, Header: resp.Header, Body: resp.Body, Attempts: resp.Attempts}, nil
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}
