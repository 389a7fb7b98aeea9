package web3apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// DefaultAPIKey is the key NewServer expects when WithAPIKey is not given.
const DefaultAPIKey = "web3apitest-key"

// DefaultPageSize is the page size of listings when the request sets no limit.
const DefaultPageSize = 100

// TB is the part of testing.TB the server uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Option configures a Handler or Server.
type Option func(*Handler)

// WithAPIKey sets the API key the server expects in x-api-key ("" accepts any request, with or without key).
func WithAPIKey(key string) Option { return func(h *Handler) { h.apiKey = key } }

// WithChain makes the chain-backed endpoints answer from c.
func WithChain(c Chain) Option {
	return func(h *Handler) {
		if c != nil {
			h.chain = &logCache{Chain: c}
		}
	}
}

// WithReporter sets where request mismatches are reported (NewServer reports to t.Errorf; NewHandler logs).
func WithReporter(f func(msg string)) Option { return func(h *Handler) { h.report = f } }

// WithFailure makes endpoint (a reference name such as "getNFTs") answer status with body.
func WithFailure(endpoint string, status int, body string) Option {
	return func(h *Handler) { h.SetFailure(endpoint, status, body) }
}

// WithRateLimit makes endpoint answer 429 with the given rate headers and Retry-After (empty: not sent).
func WithRateLimit(endpoint string, retryAfter string, headers map[string]string) Option {
	return func(h *Handler) { h.SetRateLimit(endpoint, retryAfter, headers) }
}

// WithItems makes the paged endpoint answer a synthetic listing of n distinct items (see SetItems).
func WithItems(endpoint string, n int) Option { return func(h *Handler) { h.SetItems(endpoint, n) } }

// WithOffsetPaging makes the endpoint answer in the older paged form (see SetOffsetPaging).
func WithOffsetPaging(endpoint string) Option {
	return func(h *Handler) { h.SetOffsetPaging(endpoint, true) }
}

type failure struct {
	status  int
	body    string
	headers map[string]string
}

// Handler is the fake API as an http.Handler. It is safe for concurrent use. Paths are matched at the root and
// under /api/v2.
type Handler struct {
	apiKey string
	chain  Chain
	report func(string)

	mu       sync.Mutex
	failures map[string]failure
	items    map[string]int
	offset   map[string]bool
	last     map[string][]byte
	requests map[string]Request
	counts   map[string]int
}

// Request is a request the server accepted, as it came: the query string exactly as sent (RawQuery) and the
// body bytes.
type Request struct {
	Method      string
	Path        string
	RawQuery    string
	ContentType string
	Body        []byte
}

// NewHandler makes a Handler; mismatches are logged unless WithReporter says otherwise.
func NewHandler(opts ...Option) *Handler {
	h := &Handler{apiKey: DefaultAPIKey, failures: map[string]failure{}, items: map[string]int{},
		offset: map[string]bool{}, last: map[string][]byte{}, requests: map[string]Request{}, counts: map[string]int{}}
	h.report = func(m string) { log.Print("web3apitest: " + m) }
	for _, o := range opts {
		o(h)
	}
	return h
}

// Server is a Handler listening on 127.0.0.1 for the length of a test.
type Server struct {
	*Handler
	// URL is the base URL to give web3api.Config.BaseURL.
	URL string
	// APIKey is the key to give web3api.Config.APIKey.
	APIKey string
	srv    *httptest.Server
}

// NewServer starts a Server that reports mismatches to t.Errorf and closes when the test ends.
func NewServer(t TB, opts ...Option) *Server {
	t.Helper()
	h := NewHandler(append([]Option{WithReporter(func(m string) { t.Errorf("web3apitest: %s", m) })}, opts...)...)
	s := &Server{Handler: h, APIKey: h.apiKey}
	s.srv = httptest.NewServer(h)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the server (also done at the end of the test).
func (s *Server) Close() { s.srv.Close() }

// SetFailure makes endpoint answer status with body from now on; status 0 clears it.
func (h *Handler) SetFailure(endpoint string, status int, body string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if status == 0 {
		delete(h.failures, endpoint)
		return
	}
	h.failures[endpoint] = failure{status: status, body: body}
}

// SetRateLimit makes endpoint answer 429 with the headers and Retry-After (empty: not sent).
func (h *Handler) SetRateLimit(endpoint, retryAfter string, headers map[string]string) {
	hd := map[string]string{}
	for k, v := range headers {
		hd[k] = v
	}
	if retryAfter != "" {
		hd["Retry-After"] = retryAfter
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures[endpoint] = failure{status: http.StatusTooManyRequests, headers: hd,
		body: `{"message":"Rate limit exceeded."}`}
}

// SetItems makes the paged endpoint answer a synthetic listing of n items, each a copy of the example item made
// distinct by its index (hashes end in the index, token_id and block_number are the index), served
// newest-first in pages of limit (default DefaultPageSize) with an opaque cursor.
func (h *Handler) SetItems(endpoint string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items[endpoint] = n
}

// SetOffsetPaging makes the endpoint's listings (synthetic or from the chain) answer in the older form the
// reference documents for some endpoints: page, page_size and total without any cursor, the next page asked for
// with an offset parameter (accepted on every endpoint). By default a listing carries a cursor whenever the
// endpoint takes one.
func (h *Handler) SetOffsetPaging(endpoint string, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on {
		h.offset[endpoint] = true
	} else {
		delete(h.offset, endpoint)
	}
}

// LastRequest returns the last request endpoint accepted (ok is false when there was none): the test of a
// client can check the exact query string and body it sent.
func (h *Handler) LastRequest(endpoint string) (r Request, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok = h.requests[endpoint]
	r.Body = append([]byte(nil), r.Body...)
	return r, ok
}

// Count returns how many valid requests endpoint has had.
func (h *Handler) Count(endpoint string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[endpoint]
}

// LastBody returns the last successful answer body sent for endpoint.
func (h *Handler) LastBody(endpoint string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last[endpoint]
}

// CheckDecoded fails t unless v (a decoded answer of endpoint) holds every non-null value of the last body sent
// for endpoint: it proves the typed response loses nothing.
func (h *Handler) CheckDecoded(t TB, endpoint string, v any) {
	t.Helper()
	body := h.LastBody(endpoint)
	if body == nil {
		t.Errorf("web3apitest: no answer sent yet for %s", endpoint)
		return
	}
	var sent, got any
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Errorf("web3apitest: %s: sent body is not JSON: %v", endpoint, err)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Errorf("web3apitest: %s: %v", endpoint, err)
		return
	}
	_ = json.Unmarshal(b, &got)
	if diff := covers(got, sent, "$"); diff != "" {
		t.Errorf("web3apitest: %s: decoded value lost data: %s", endpoint, diff)
	}
}

// covers reports where got lacks a non-null value of want.
func covers(got, want any, at string) string {
	switch w := want.(type) {
	case nil:
		return ""
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return at + ": not an object"
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := covers(g[k], w[k], at+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return at + ": array differs"
		}
		for i := range w {
			if d := covers(g[i], w[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s: got %v, want %v", at, got, want)
	}
	return ""
}

// match finds the endpoint for method and path: literal segments must match and the most literal wins.
func match(method, path string) (ep *ref.Endpoint, params map[string]string, methodMismatch bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best := -1
	for i := range ref.Endpoints() {
		e := &ref.Endpoints()[i]
		es := strings.Split(strings.Trim(e.Path, "/"), "/")
		if len(es) != len(segs) {
			continue
		}
		lit := 0
		ok := true
		pp := map[string]string{}
		for j, s := range es {
			if strings.HasPrefix(s, ":") {
				if segs[j] == "" {
					ok = false
					break
				}
				pp[s[1:]] = segs[j]
				continue
			}
			if s != segs[j] {
				ok = false
				break
			}
			lit++
		}
		if !ok {
			continue
		}
		if e.Method != method {
			methodMismatch = true
			continue
		}
		if lit > best {
			best, ep, params = lit, e, pp
		}
	}
	if ep != nil {
		methodMismatch = false
	}
	return ep, params, methodMismatch
}

type request struct {
	ep    *ref.Endpoint
	path  map[string]string
	query map[string][]string
	body  any
	raw   []byte // the body as sent
	r     *http.Request
	// offsetPaging answers listings without a cursor (SetOffsetPaging).
	offsetPaging bool
}

func (q *request) str(name string) string {
	if v, ok := q.path[name]; ok {
		return v
	}
	if vs := q.query[name]; len(vs) > 0 {
		return vs[0]
	}
	if vs := q.query[name+"[]"]; len(vs) > 0 {
		return vs[0]
	}
	if m, ok := q.body.(map[string]any); ok {
		if s, ok := m[name].(string); ok {
			return s
		}
	}
	return ""
}

// list returns the values of the array parameter name, sent as name[]=v1&name[]=v2.
func (q *request) list(name string) []string {
	var out []string
	for _, v := range q.query[name+"[]"] {
		if s := strings.TrimSpace(v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (q *request) intParam(name string, def int) int {
	if s := q.str(name); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	return def
}

func (h *Handler) fail(w http.ResponseWriter, status int, msg string) {
	h.report(msg)
	writeJSON(w, status, map[string]any{"message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) []byte {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
	return b
}

// ServeHTTP checks the request against the reference and answers it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/api/v2")
	if h.apiKey != "" && r.Header.Get("x-api-key") != h.apiKey {
		h.report(fmt.Sprintf("%s %s: missing or wrong x-api-key", r.Method, path))
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Invalid API key"})
		return
	}
	ep, pp, wrongMethod := match(r.Method, path)
	if ep == nil {
		if wrongMethod {
			h.fail(w, http.StatusBadRequest, fmt.Sprintf("%s %s: wrong method for this path", r.Method, path))
			return
		}
		h.fail(w, http.StatusBadRequest, fmt.Sprintf("%s %s: no such endpoint in the reference", r.Method, path))
		return
	}
	q := &request{ep: ep, path: pp, query: r.URL.Query(), r: r}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		h.fail(w, http.StatusBadRequest, fmt.Sprintf("%s %s (%s): reading the body: %v", r.Method, path, ep.Name, err))
		return
	}
	q.raw = raw
	if msg := h.validate(q); msg != "" {
		h.fail(w, http.StatusBadRequest, fmt.Sprintf("%s %s (%s): %s", r.Method, path, ep.Name, msg))
		return
	}
	h.mu.Lock()
	h.counts[ep.Name]++
	h.requests[ep.Name] = Request{Method: r.Method, Path: path, RawQuery: r.URL.RawQuery,
		ContentType: r.Header.Get("Content-Type"), Body: raw}
	f, failing := h.failures[ep.Name]
	n, synthetic := h.items[ep.Name]
	q.offsetPaging = h.offset[ep.Name]
	h.mu.Unlock()
	if failing {
		for k, v := range f.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(f.status)
		io.WriteString(w, f.body)
		return
	}
	var ans any
	switch {
	case synthetic:
		ans, err = syntheticPage(q, n)
	case h.chain != nil && chainBacked[ep.Name] != nil:
		ans, err = chainBacked[ep.Name](r.Context(), h.chain, q)
	default:
		ans = exampleValue(ep.Response)
		if p, ok := ans.(map[string]any); ok {
			if items, isList := p["result"].([]any); isList && hasField(ep.Response, "page") {
				// A listing of the example items: one consistent last page, in the documented shape.
				var pg map[string]any
				pg, err = paginate(q, items)
				for k := range pg {
					if !hasField(ep.Response, k) {
						delete(pg, k)
					}
				}
				ans = pg
			} else if _, has := p["cursor"]; has {
				p["cursor"] = ""
			}
		}
	}
	if err != nil {
		var he *httpError
		if asHTTPError(err, &he) {
			writeJSON(w, he.status, map[string]any{"message": he.msg})
			return
		}
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	b := writeJSON(w, http.StatusOK, ans)
	h.mu.Lock()
	h.last[ep.Name] = b
	h.mu.Unlock()
}

func (h *Handler) validate(q *request) string {
	ep := q.ep
	names := make([]string, 0, len(q.query))
	for name := range q.query {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		vs := q.query[name]
		base, brackets := strings.CutSuffix(name, "[]")
		p, ok := ep.Param(base)
		if !ok || p.In != "query" {
			// Parameters the reference does not list are accepted, as the API accepts them (the original client
			// forwards any parameter it is given, and the API reads some the reference leaves out).
			continue
		}
		switch {
		case p.Type == "array" && !brackets:
			return fmt.Sprintf("array parameter %q sent as %s=…; the API reads an array only as %s[]=v1&%s[]=v2", p.Name, p.Name, p.Name, p.Name)
		case p.Type != "array" && brackets:
			return fmt.Sprintf("parameter %q is not an array, but was sent as %s[]", p.Name, p.Name)
		case p.Type != "array" && len(vs) > 1:
			return fmt.Sprintf("parameter %q sent %d times", p.Name, len(vs))
		}
		for _, v := range vs {
			if msg := checkType(p, v); msg != "" {
				return msg
			}
		}
	}
	var bodyMap map[string]any
	hasBodyParams, whole := false, false
	for _, p := range ep.Params {
		if p.In == "body" {
			hasBodyParams = true
			whole = whole || p.WholeBody
		}
	}
	if len(q.raw) > 0 {
		if !hasBodyParams {
			return "a body was sent to an endpoint that takes none"
		}
		if ct := q.r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			return fmt.Sprintf("body sent with Content-Type %q, want application/json", ct)
		}
		if err := json.Unmarshal(q.raw, &q.body); err != nil {
			return "body is not JSON: " + err.Error()
		}
	} else if hasBodyParams {
		return "no body; the API wants a JSON body ({} when no body parameter is set)"
	}
	if hasBodyParams {
		bodyMap, _ = q.body.(map[string]any)
		if !whole {
			if bodyMap == nil {
				return "body must be a JSON object"
			}
			for k := range bodyMap {
				if p, ok := ep.Param(k); !ok || p.In != "body" {
					return fmt.Sprintf("unknown body field %q", k)
				}
			}
		}
		if msg := checkBody(ep.Name, q.body); msg != "" {
			return msg
		}
	}
	for _, p := range ep.Params {
		if !p.Required {
			continue
		}
		switch p.In {
		case "query":
			name := p.Name
			if p.Type == "array" {
				name += "[]"
			}
			if len(q.query[name]) == 0 || q.query[name][0] == "" {
				return fmt.Sprintf("required query parameter %q missing", p.Name)
			}
		case "body":
			if p.WholeBody {
				if q.body == nil {
					return fmt.Sprintf("required body %q missing", p.Name)
				}
			} else if bodyMap == nil || bodyMap[p.Name] == nil {
				return fmt.Sprintf("required body field %q missing", p.Name)
			}
		}
	}
	return ""
}

// checkBody checks the parts of bodies the reference leaves untyped, as the API types them.
func checkBody(endpoint string, body any) string {
	m, _ := body.(map[string]any)
	items := func(v any, what string) ([]map[string]any, string) {
		arr, ok := v.([]any)
		if !ok {
			return nil, what + " must be an array"
		}
		out := make([]map[string]any, len(arr))
		for i, x := range arr {
			if out[i], ok = x.(map[string]any); !ok {
				return nil, fmt.Sprintf("%s[%d] must be an object", what, i)
			}
		}
		return out, ""
	}
	str := func(o map[string]any, at, k string, required bool) string {
		v, ok := o[k]
		if !ok {
			if required {
				return fmt.Sprintf("%s.%s missing", at, k)
			}
			return ""
		}
		if s, isStr := v.(string); !isStr || s == "" {
			return fmt.Sprintf("%s.%s must be a non-empty string, got %v", at, k, v)
		}
		return ""
	}
	switch endpoint {
	case "getMultipleTokenPrices":
		toks, msg := items(m["tokens"], "tokens")
		if msg != "" {
			return msg
		}
		for i, t := range toks {
			at := fmt.Sprintf("tokens[%d]", i)
			if msg := str(t, at, "token_address", true) + str(t, at, "exchange", false); msg != "" {
				return msg
			}
			if v, ok := t["to_block"]; ok {
				if _, isNum := v.(float64); !isNum {
					return fmt.Sprintf("%s.to_block must be a number, got %v", at, v)
				}
			}
		}
	case "getMultipleNFTs":
		toks, msg := items(m["tokens"], "tokens")
		if msg != "" {
			return msg
		}
		for i, t := range toks {
			at := fmt.Sprintf("tokens[%d]", i)
			if msg := str(t, at, "token_address", true) + str(t, at, "token_id", true); msg != "" {
				return msg
			}
		}
		for _, k := range []string{"normalizeMetadata", "media_items"} {
			if v, ok := m[k]; ok {
				if _, isBool := v.(bool); !isBool {
					return fmt.Sprintf("%s must be a boolean, got %v", k, v)
				}
			}
		}
	case "reviewContracts":
		cs, msg := items(m["contracts"], "contracts")
		if msg != "" {
			return msg
		}
		for i, c := range cs {
			at := fmt.Sprintf("contracts[%d]", i)
			for _, k := range []string{"contract_address", "reason", "report_type"} {
				if msg := str(c, at, k, true); msg != "" {
					return msg
				}
			}
			if v, ok := c["contract_type"]; ok && v != "ERC20" && v != "NFT" {
				return fmt.Sprintf("%s.contract_type must be ERC20 or NFT, got %v", at, v)
			}
		}
	case "uploadFolder":
		if _, isObj := body.(map[string]any); isObj && len(body.(map[string]any)) == 0 {
			return "" // {}: no data
		}
		files, msg := items(body, "body")
		if msg != "" {
			return msg
		}
		for i, f := range files {
			at := fmt.Sprintf("body[%d]", i)
			if msg := str(f, at, "path", true); msg != "" {
				return msg
			}
			if _, ok := f["content"]; !ok {
				return at + ".content missing"
			}
		}
	}
	return ""
}

func checkType(p ref.Param, v string) string {
	switch p.Type {
	case "number":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return fmt.Sprintf("parameter %q must be a number, got %q", p.Name, v)
		}
	case "boolean":
		if v != "true" && v != "false" {
			return fmt.Sprintf("parameter %q must be true or false, got %q", p.Name, v)
		}
	}
	if len(p.Enum) > 0 {
		for _, e := range p.Enum {
			if e == v {
				return ""
			}
		}
		return fmt.Sprintf("parameter %q must be one of %v, got %q", p.Name, p.Enum, v)
	}
	return ""
}

type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func asHTTPError(err error, out **httpError) bool {
	he, ok := err.(*httpError)
	if ok {
		*out = he
	}
	return ok
}

func badRequest(format string, a ...any) error {
	return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) error {
	return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf(format, a...)}
}
