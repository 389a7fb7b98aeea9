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
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/wirejson"
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
	baseURL   string // base.String(), made once
	mountPath string
	http      *httpx.Client
	dedup     dedupCache
	// envJS and envMaster are the members every body ends with, encoded once: the application id, the JavaScript
	// key (envJS) or the master key (envMaster, nil without one), the client version and the installation id.
	envJS, envMaster []byte
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
	t := &Transport{cfg: cfg, base: u, baseURL: u.String(), mountPath: u.Path, http: httpx.New(cfg.HTTPClient, cfg.Policy)}
	t.envJS = envelope(cfg.AppID, "_JavaScriptKey", cfg.JavaScriptKey, cfg.InstallationID)
	if cfg.MasterKey != "" {
		t.envMaster = envelope(cfg.AppID, "_MasterKey", cfg.MasterKey, cfg.InstallationID)
	}
	return t, nil
}

// envelope encodes the members every call's body carries: the application id, a key (left out when empty), the
// client version and the installation id.
func envelope(appID, keyName, key, installationID string) []byte {
	b := append([]byte(`"_ApplicationId":`), wirejson.AppendString(nil, appID)...)
	if key != "" {
		b = append(b, `,"`+keyName+`":`...)
		b = wirejson.AppendString(b, key)
	}
	b = append(b, `,"_ClientVersion":"`+ClientVersion+`","_InstallationId":`...)
	return wirejson.AppendString(b, installationID)
}

// Config returns the transport's configuration (keys included: do not log it).
func (t *Transport) Config() Config { return t.cfg }

// MountPath is the server URL's path, e.g. "/parse"; batch sub-requests must carry it.
func (t *Transport) MountPath() string { return t.mountPath }

// ServerURL is the server URL without a trailing slash.
func (t *Transport) ServerURL() string { return t.baseURL }

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
	// CloseConnection asks the server to close the connection once it has answered (Connection: close), so that no
	// later call is written onto it. For calls after which a server is known to drop the connection without
	// saying so: parse-server destroys it after answering a rolled-back transaction, and a call written onto it
	// in that moment is reset after the server may have read it, which leaves a write sent once in doubt.
	CloseConnection bool
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
	var cc json.RawMessage
	if c.Context == nil {
		raw, err := callContextOf(ctx)
		if err != nil {
			return nil, fmt.Errorf("moralis: %s %s: %w", c.Method, c.Path, err)
		}
		cc = raw
	}
	body, err := t.body(c, cc)
	if err != nil {
		return nil, fmt.Errorf("moralis: %s %s: %w", c.Method, c.Path, err)
	}
	header := plainHeader // shared and never changed: httpx copies it into each attempt's request
	write := c.Method != http.MethodGet
	reqID := ""
	if t.cfg.Idempotency && !c.NoIdempotency && (c.Method == http.MethodPost || c.Method == http.MethodPut) {
		reqID = c.RequestID
		if reqID == "" {
			reqID = requestIDOf(ctx) // a write replayed from a durable queue keeps its first id
		}
		if reqID == "" {
			reqID = t.cfg.NewRequestID() // once per logical call, before the retry loop
		}
		header = http.Header{"Content-Type": textPlain, "X-Parse-Request-Id": {reqID}}
	}
	if c.CloseConnection {
		header = header.Clone()
		header.Set("Connection", "close")
	}
	req := &httpx.Request{
		Method: http.MethodPost,
		URL:    t.baseURL + "/" + strings.TrimLeft(c.Path, "/"),
		Header: header,
		Body:   body,
		Write:  write,
		Replay: c.Replay,
		Op:     c.Method,
		Route:  c.Path,
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
		return nil, t.transportError(ctx, c.Method+" "+c.Path, err)
	}
	if resp.Status >= 400 || resp.Status < 200 {
		perr := DecodeError(c.Method+" "+c.Path, resp.Status, resp.Body)
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
	if err := decodeJSON(res.Body, out); err != nil {
		// A write the server answered with a 2xx was applied, whatever its unreadable answer says: in doubt.
		return &Error{Code: CodeInvalidJSON, Message: "Received an error with invalid JSON from Parse: " + truncate(string(res.Body), 512), Status: res.Status, Op: c.Method + " " + c.Path,
			InDoubt: c.Method != http.MethodGet}
	}
	return nil
}

// decodeJSON is json.Unmarshal, without reflection for the shapes answers are read into most: a map, or any.
func decodeJSON(body []byte, out any) error {
	switch p := out.(type) {
	case *map[string]any:
		m, err := wirejson.DecodeObject(body)
		if err != nil {
			return err
		}
		if *p == nil || m == nil {
			*p = m
			return nil
		}
		maps.Copy(*p, m) // as json.Unmarshal fills a map that is there already
		return nil
	case *any:
		if *p != nil {
			break // what it holds (a pointer, say) is json.Unmarshal's to fill or replace
		}
		v, err := wirejson.Decode(body)
		if err != nil {
			return err
		}
		*p = v
		return nil
	}
	return json.Unmarshal(body, out)
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

// textPlain is the Content-Type of every call: the body is JSON, sent as text/plain as the original client sends it
// (a simple request for browsers). Shared, never changed.
var textPlain = []string{"text/plain"}

// plainHeader is the header of a call without a request id.
var plainHeader = http.Header{"Content-Type": textPlain}

// bodyBuffers holds the buffers bodies are encoded in; a body is copied out at its exact size.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// body encodes a call's JSON body: its parameters, then _method (unless POST), the application id, the key, the
// client version, the installation id, the session token and the context (c's own, else cc: the call context carried
// by ctx, see WithCallContext). A parameter of the same name as one of those is left out (those win, as they always
// have).
func (t *Transport) body(c Call, cc json.RawMessage) ([]byte, error) {
	env := t.envJS
	if c.UseMasterKey {
		if t.envMaster == nil {
			return nil, ErrMasterKeyRequired
		}
		env = t.envMaster
	}
	params := c.Params
	for _, k := range []string{"_method", "_ApplicationId", "_JavaScriptKey", "_MasterKey", "_ClientVersion", "_InstallationId", "_SessionToken", "_context"} {
		if _, dup := params[k]; dup && t.writes(c, cc, k) {
			params = maps.Clone(params)
			delete(params, k)
		}
	}
	bp := bodyBuffers.Get().(*[]byte)
	defer bodyBuffers.Put(bp)
	b := append((*bp)[:0], '{')
	var err error
	if len(params) > 0 {
		// The parameters' members, without the object's braces.
		start := len(b)
		if b, err = wirejson.AppendObject(b, params, nil); err != nil {
			return nil, err
		}
		copy(b[start:], b[start+1:len(b)-1])
		b = append(b[:len(b)-2], ',')
	}
	if c.Method != http.MethodPost {
		b = append(b, `"_method":`...)
		b = wirejson.AppendString(b, c.Method)
		b = append(b, ',')
	}
	b = append(b, env...)
	if c.SessionToken != "" {
		b = append(b, `,"_SessionToken":`...)
		b = wirejson.AppendString(b, c.SessionToken)
	}
	if c.Context != nil {
		b = append(b, `,"_context":`...)
		if b, err = wirejson.Append(b, c.Context); err != nil {
			return nil, err
		}
	} else if cc != nil {
		b = append(b, `,"_context":`...)
		b = append(b, cc...)
	}
	b = append(b, '}')
	*bp = b
	return append(make([]byte, 0, len(b)), b...), nil
}

// writes reports whether body writes the envelope member k for c.
func (t *Transport) writes(c Call, cc json.RawMessage, k string) bool {
	switch k {
	case "_method":
		return c.Method != http.MethodPost
	case "_JavaScriptKey":
		return !c.UseMasterKey && t.cfg.JavaScriptKey != ""
	case "_MasterKey":
		return c.UseMasterKey
	case "_SessionToken":
		return c.SessionToken != ""
	case "_context":
		return c.Context != nil || cc != nil
	}
	return true
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
		Op:    f.Method,
		Route: "files/{name}",
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

// Template is the operation name of a backend path for telemetry: the path with its object ids, user ids and file
// names replaced by placeholders ("classes/GameScore/{objectId}", "files/{name}"), so that operations stay few and
// hold nothing a user typed. Class, function and job names are kept: the app's code chooses them.
func Template(path string) string {
	path = strings.Trim(path, "/")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	seg := strings.Split(path, "/")
	idAt := -1
	switch seg[0] {
	case "classes", "aggregate":
		idAt = 2
	case "users", "sessions", "roles", "installations":
		idAt = 1
	case "files":
		if len(seg) > 1 {
			return "files/{name}"
		}
	}
	if idAt > 0 && len(seg) > idAt && seg[idAt] != "me" {
		seg[idAt] = "{objectId}"
	}
	if len(seg) > 4 {
		seg = seg[:4]
	}
	return strings.Join(seg, "/")
}
