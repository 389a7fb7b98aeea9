package authserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/auth"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/web3api"
)

// Defaults of DataProxyConfig.
const (
	// DefaultDataRateBurst is how many data requests one session may make at once.
	DefaultDataRateBurst = 30
	// DefaultDataRateEvery is the time to refill one data request of a session.
	DefaultDataRateEvery = 2 * time.Second
	// DefaultDataCacheTTL is how long a chain-data answer is served from the cache.
	DefaultDataCacheTTL = 10 * time.Second
	// DefaultDataCacheEntries bounds the chain-data cache.
	DefaultDataCacheEntries = 1000
	// DefaultDataMaxResponseBytes bounds an answer the proxy relays (larger: 502, not cached).
	DefaultDataMaxResponseBytes = 1 << 20
	// DefaultDataMaxBodyBytes bounds a request body of the proxy.
	DefaultDataMaxBodyBytes = 16 << 10
	// DefaultDataTimeout bounds one upstream call.
	DefaultDataTimeout = 15 * time.Second
	// DefaultDataChain is the chain of chain-data requests that name none.
	DefaultDataChain = "eth"
	// DataCacheMaxBytes bounds the bytes of all chain-data answers in the cache together.
	DataCacheMaxBytes = 64 << 20
	// MaxDataQueryLimit is the largest limit a proxied backend query may ask for.
	MaxDataQueryLimit = 1000
)

// ChainData is the chain-data API as the proxy calls it. *web3api.Client (made with the API key, on the server)
// satisfies it. Implementations must be safe for concurrent use.
type ChainData interface {
	Raw(ctx context.Context, method, path string, query url.Values, body any, out any) error
}

// DataBackend runs a signed-in user's backend requests with that user's session token, so the backend's ACLs and
// class-level permissions apply. ClientDataBackend implements it; tests use fakes. Safe for concurrent use.
type DataBackend interface {
	RunQuery(ctx context.Context, sessionToken string, req *parse.QueryRequest) (*parse.QueryResponse, error)
	CallFunction(ctx context.Context, sessionToken, name string, params map[string]any) (json.RawMessage, error)
}

// ClientDataBackend is the DataBackend over a *client.Client (its JavaScript key, never its master key: each call
// goes out as the user, through WithSessionToken). A client with a master key configured is refused (a
// WithMasterKey view would send it on every call, whatever the session): give one made without it.
type ClientDataBackend struct{ c *client.Client }

// NewClientDataBackend returns a DataBackend over c.
func NewClientDataBackend(c *client.Client) *ClientDataBackend { return &ClientDataBackend{c: c} }

var errDataBackendMasterKey = errors.New("auth: ClientDataBackend: the client has a master key; give it a client made without one")

// check refuses a missing client or one that holds the master key.
func (b *ClientDataBackend) check() error {
	if b == nil || b.c == nil {
		return errors.New("auth: ClientDataBackend: no client")
	}
	if b.c.HasMasterKey() {
		return errDataBackendMasterKey
	}
	return nil
}

// RunQuery runs req as the user of sessionToken.
func (b *ClientDataBackend) RunQuery(ctx context.Context, tok string, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	r := *req
	r.UseMasterKey = false
	return b.c.WithSessionToken(tok).RunQuery(ctx, &r)
}

// CallFunction runs the cloud function name as the user of sessionToken and returns its raw result.
func (b *ClientDataBackend) CallFunction(ctx context.Context, tok, name string, params map[string]any) (json.RawMessage, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	var out json.RawMessage
	if err := b.c.WithSessionToken(tok).Cloud.Call(ctx, name, params, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// DataProxyConfig configure Handler.DataProxy. The zero value of each limit means its default; a negative value
// turns it off (an option may trade safety away, never gain it).
type DataProxyConfig struct {
	// Chain serves GET /data/chain/{balance,tokens,nfts,transactions} with the server's API key; nil: 404.
	Chain ChainData
	// Backend serves POST /data/query and POST /data/function as the user; nil: 404.
	Backend DataBackend
	// DefaultChain is the chain of requests that name none; default DefaultDataChain.
	DefaultChain string
	// AllowedClasses are the classes /data/query may read. Empty: every class whose name does not start with "_"
	// (internal classes such as _User and _Session only when listed).
	AllowedClasses []string
	// AllowedFunctions are the cloud functions /data/function may call; empty: none (404 for every name).
	AllowedFunctions []string
	// AnyAddress lets chain-data requests name any address; by default only the user's own (ethAddress and
	// accounts) may be asked for, so the server's API key is not an open proxy.
	AnyAddress bool
	// RateLimit is per user (the user of the session, so signing in again for more sessions gives no more
	// requests; its ClientKey is not used): default
	// DefaultDataRateBurst at once, one more per DefaultDataRateEvery; NoRateLimit: off. It applies on top of the
	// handler's per-client RateLimit.
	RateLimit RateLimit
	// CacheTTL is how long a chain-data answer is reused (chain data is public; backend answers are never
	// cached); default DefaultDataCacheTTL, negative: no cache.
	CacheTTL time.Duration
	// CacheEntries bounds the cache; default DefaultDataCacheEntries. Whatever it is, the cache holds at most
	// DataCacheMaxBytes of answers (the oldest go first).
	CacheEntries int
	// MaxResponseBytes bounds an upstream answer; default DefaultDataMaxResponseBytes.
	MaxResponseBytes int
	// MaxBodyBytes bounds a request body; default DefaultDataMaxBodyBytes.
	MaxBodyBytes int64
	// Timeout bounds an upstream call; default DefaultDataTimeout.
	Timeout time.Duration
	// AllowRegex lets /data/query use $regex; off by default (a costly pattern is a denial of service).
	AllowRegex bool
}

// DataProxy returns the handler of the React data hooks, to be mounted next to this Handler (same prefix, e.g.
// mux.Handle("/auth/data/", http.StripPrefix("/auth", h.DataProxy(...)))). Routes, relative to the prefix:
//
//	POST /data/query     {className, where?, order?, limit?, skip?, keys?, include?, count?} -> {"results":[...],"count"?}
//	POST /data/function  {name, params?}                                                     -> {"result":...}
//	GET  /data/chain/balance|tokens|nfts|transactions?chain=&address=&cursor=&limit=        -> the chain-data API's JSON
//
// Each request passes, in this order and before any backend or API call: the Handler's per-client rate limit,
// the origin policy, a session (cookie or Bearer) that the backend confirms (users/me, cached SessionCacheTTL),
// the per-user rate limit, then the input checks. The API key never leaves the server. Chain data defaults to
// the user's ethAddress and, unless AnyAddress, only the user's own addresses are served. Chain-data answers are
// cached briefly and concurrent identical calls share one upstream request. The handler is safe for concurrent
// use.
func (h *Handler) DataProxy(opts DataProxyConfig) (http.Handler, error) {
	o := opts
	if cb, ok := o.Backend.(*ClientDataBackend); ok {
		if err := cb.check(); err != nil {
			return nil, err
		}
	}
	o.AllowedClasses = slices.Clone(opts.AllowedClasses)
	o.AllowedFunctions = slices.Clone(opts.AllowedFunctions)
	if o.DefaultChain == "" {
		o.DefaultChain = DefaultDataChain
	}
	if _, ok := normalizeChain(o.DefaultChain); !ok {
		return nil, fmt.Errorf("auth: DataProxyConfig.DefaultChain %q is not a chain name or id", o.DefaultChain)
	}
	for _, c := range o.AllowedClasses {
		if !validClassName(c) {
			return nil, fmt.Errorf("auth: DataProxyConfig.AllowedClasses: %q is not a class name", c)
		}
	}
	for _, f := range o.AllowedFunctions {
		if !functionName.MatchString(f) {
			return nil, fmt.Errorf("auth: DataProxyConfig.AllowedFunctions: %q is not a function name", f)
		}
	}
	o.RateLimit = o.RateLimit.withDefault(DefaultDataRateBurst, DefaultDataRateEvery, nil)
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultDataCacheTTL
	}
	if o.CacheEntries <= 0 {
		o.CacheEntries = DefaultDataCacheEntries
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultDataMaxResponseBytes
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultDataMaxBodyBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultDataTimeout
	}
	p := &dataProxy{h: h, o: o, users: newUserCache(h.o.SessionCacheTTL, h.o.Now),
		cache: newAnswerCache(o.CacheTTL, o.CacheEntries, h.o.Now), inflight: map[string]*flight{}}
	// The per-user limiter keys by the user's id (set on the request context after the session check): every
	// session of one user shares one budget.
	rl := o.RateLimit
	if rl.Burst > 0 {
		rl.ClientKey = func(r *http.Request) string { s, _ := r.Context().Value(dataSessionKey{}).(string); return s }
	}
	p.limit = newLimiter(rl, h.o.Now)
	return p, nil
}

type dataSessionKey struct{}

type dataProxy struct {
	h        *Handler
	o        DataProxyConfig
	limit    *limiter
	users    *userCache
	cache    *answerCache
	mu       sync.Mutex
	inflight map[string]*flight
}

var (
	functionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	chainName    = regexp.MustCompile(`^[a-z][a-z0-9]{1,19}$`)
	cursorChars  = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]+$`)
)

func validClassName(c string) bool {
	if c == "" || len(c) > 64 {
		return false
	}
	for i, r := range c {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// normalizeChain accepts a decimal chain id ("1337"), a hex id ("0x539") or a name ("eth", "polygon") and gives
// the API's form (hex id or name).
func normalizeChain(c string) (string, bool) {
	c = strings.ToLower(strings.TrimSpace(c))
	switch {
	case strings.HasPrefix(c, "0x"):
		n, err := strconv.ParseUint(c[2:], 16, 32)
		if err != nil || n == 0 {
			return "", false
		}
		return "0x" + strconv.FormatUint(n, 16), true
	case c != "" && c[0] >= '0' && c[0] <= '9':
		n, err := strconv.ParseUint(c, 10, 32)
		if err != nil || n == 0 {
			return "", false
		}
		return "0x" + strconv.FormatUint(n, 16), true
	default:
		return c, chainName.MatchString(c)
	}
}

// ServeHTTP applies the policy (see DataProxy) and routes.
func (p *dataProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := p.h
	if !h.allow(w, r) {
		return
	}
	if !h.credentialedOrigin(w, r) {
		return
	}
	if r.Header.Get("Origin") != "" {
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Cache-Control")
			w.Header().Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	route, kind := p.route(r.URL.Path)
	if route == "" {
		writeError(w, http.StatusNotFound, CodeInvalidJSON, "not found")
		return
	}
	want := http.MethodPost
	if route == "chain" {
		want = http.MethodGet
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		writeError(w, http.StatusMethodNotAllowed, CodeInvalidJSON, "Method not allowed")
		return
	}
	// The session first: nothing else happens for a request without a live one.
	tok := h.sessionToken(r)
	if tok == "" {
		writeAPIError(w, errNoSession)
		return
	}
	// Every upstream call, users/me included, is bounded by Timeout.
	uctx, ucancel := context.WithTimeout(r.Context(), p.o.Timeout)
	user, err := p.user(uctx, tok)
	ucancel()
	if err != nil {
		h.sessionCheckFailure(w, r, err)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), dataSessionKey{}, "user:"+user.ObjectID))
	if ok, wait := p.limit.allow(r); !ok {
		tooManyRequests(w, wait)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), p.o.Timeout)
	defer cancel()
	switch route {
	case "query":
		p.query(ctx, w, r, tok)
	case "function":
		p.function(ctx, w, r, tok)
	case "chain":
		p.chain(ctx, w, r, user, kind)
	}
}

// route names the route of path (relative to the mount prefix) and, for chain data, its kind; "" when unknown
// or not configured.
func (p *dataProxy) route(path string) (string, string) {
	switch {
	case path == "/data/query" && p.o.Backend != nil:
		return "query", ""
	case path == "/data/function" && p.o.Backend != nil:
		return "function", ""
	case strings.HasPrefix(path, "/data/chain/") && p.o.Chain != nil:
		kind := strings.TrimPrefix(path, "/data/chain/")
		if _, ok := chainRoutes[kind]; ok {
			return "chain", kind
		}
	}
	return "", ""
}

// user returns the user of tok, asking the backend (users/me) unless it answered within SessionCacheTTL.
func (p *dataProxy) user(ctx context.Context, tok string) (*PublicUser, error) {
	// The Handler's session cache is the one POST /signout clears: a cached user counts only while it holds tok.
	if u := p.users.get(tok); u != nil && p.h.sessions.valid(tok) {
		return u, nil
	}
	u, err := p.h.backend.Me(ctx, tok)
	if err != nil {
		return nil, err
	}
	if u == nil || u.ObjectID == "" {
		return nil, &BackendError{Status: http.StatusBadGateway, Code: CodeObjectNotFound, Message: "Could not get user"}
	}
	p.users.put(tok, u)
	p.h.sessions.add(tok)
	return u, nil
}

// readBody enforces a JSON content type and the size limit, and decodes one JSON object into v, refusing
// unknown fields.
func (p *dataProxy) readBody(w http.ResponseWriter, r *http.Request, v any) *apiError {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return refuse(http.StatusUnsupportedMediaType, CodeInvalidJSON, "Content-Type must be application/json")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, p.o.MaxBodyBytes))
	if err != nil {
		return refuse(http.StatusRequestEntityTooLarge, CodeInvalidJSON, "Request body too large")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return refuse(http.StatusBadRequest, CodeInvalidJSON, "Invalid JSON body")
	}
	if dec.More() {
		return refuse(http.StatusBadRequest, CodeInvalidJSON, "Invalid JSON body")
	}
	return nil
}

type dataQuery struct {
	ClassName string         `json:"className"`
	Where     map[string]any `json:"where"`
	Order     *string        `json:"order"`
	Limit     *json.Number   `json:"limit"`
	Skip      *json.Number   `json:"skip"`
	Keys      []string       `json:"keys"`
	Include   []string       `json:"include"`
	Count     *bool          `json:"count"`
}

func (p *dataProxy) classAllowed(c string) bool {
	if len(p.o.AllowedClasses) > 0 {
		return slices.Contains(p.o.AllowedClasses, c)
	}
	return !strings.HasPrefix(c, "_")
}

// subqueryRefused returns the class of the first subquery ($inQuery, $notInQuery, $select, $dontSelect, at any
// depth) of a where clause that classAllowed refuses.
func (p *dataProxy) subqueryRefused(v any) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			var sub any
			switch k {
			case "$inQuery", "$notInQuery":
				sub = e
			case "$select", "$dontSelect":
				if m, ok := e.(map[string]any); ok {
					sub = m["query"]
				}
			}
			if m, ok := sub.(map[string]any); ok {
				if cn, ok := m["className"].(string); ok && !p.classAllowed(cn) {
					return cn, true
				}
			}
			if cn, bad := p.subqueryRefused(e); bad {
				return cn, true
			}
		}
	case []any:
		for _, e := range x {
			if cn, bad := p.subqueryRefused(e); bad {
				return cn, true
			}
		}
	}
	return "", false
}

// hideIncluded turns every object of a class that classAllowed refuses, included in results through include,
// back into a pointer: include does not read classes /data/query may not.
func (p *dataProxy) hideIncluded(results []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(results))
	for i, raw := range results {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		v, changed := p.hideObjects(v)
		if !changed {
			out[i] = raw
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (p *dataProxy) hideObjects(v any) (any, bool) {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		if x["__type"] == "Object" {
			if cn, _ := x["className"].(string); !p.classAllowed(cn) {
				ptr := map[string]any{"__type": "Pointer", "className": cn}
				if id, ok := x["objectId"]; ok {
					ptr["objectId"] = id
				}
				return ptr, true
			}
		}
		for k, e := range x {
			if e2, c := p.hideObjects(e); c {
				x[k], changed = e2, true
			}
		}
	case []any:
		for i, e := range x {
			if e2, c := p.hideObjects(e); c {
				x[i], changed = e2, true
			}
		}
	}
	return v, changed
}

// usesRegex reports whether a where clause holds a $regex operator (at any depth).
func usesRegex(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "$regex" || usesRegex(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if usesRegex(e) {
				return true
			}
		}
	}
	return false
}

func (p *dataProxy) query(ctx context.Context, w http.ResponseWriter, r *http.Request, tok string) {
	var in dataQuery
	if aerr := p.readBody(w, r, &in); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	if !validClassName(in.ClassName) {
		writeError(w, http.StatusBadRequest, CodeInvalidClassName, "Invalid class name")
		return
	}
	if !p.classAllowed(in.ClassName) {
		writeError(w, http.StatusForbidden, CodeOperationForbidden, "Class not allowed")
		return
	}
	// A subquery reads its own class: $inQuery, $notInQuery, $select and $dontSelect name only allowed ones.
	if cn, bad := p.subqueryRefused(in.Where); bad {
		writeError(w, http.StatusForbidden, CodeOperationForbidden, fmt.Sprintf("Class not allowed in a subquery: %q", truncate(cn, 64)))
		return
	}
	if !p.o.AllowRegex && usesRegex(in.Where) {
		writeError(w, http.StatusBadRequest, CodeInvalidQuery, "$regex is not allowed")
		return
	}
	raw := map[string]any{}
	if in.Where != nil {
		raw["where"] = in.Where
	}
	if in.Order != nil {
		raw["order"] = *in.Order
	}
	if in.Limit != nil {
		n, err := in.Limit.Int64()
		if err != nil || n < 0 || n > MaxDataQueryLimit {
			writeError(w, http.StatusBadRequest, CodeInvalidQuery, fmt.Sprintf("limit must be an integer from 0 to %d", MaxDataQueryLimit))
			return
		}
		raw["limit"] = float64(n)
	}
	if in.Skip != nil {
		f, err := in.Skip.Float64()
		if err != nil {
			writeError(w, http.StatusBadRequest, CodeInvalidQuery, "You can only skip by a positive number")
			return
		}
		raw["skip"] = f
	}
	if in.Keys != nil {
		raw["keys"] = toAnySlice(in.Keys)
	}
	if in.Include != nil {
		raw["include"] = toAnySlice(in.Include)
	}
	if in.Count != nil {
		raw["count"] = *in.Count
	}
	// Numbers inside where came as json.Number; the query package wants what encoding/json gives by default.
	if w2, ok := plainJSON(raw["where"]).(map[string]any); ok {
		raw["where"] = w2
	}
	q, err := query.FromMap[map[string]any](in.ClassName, raw)
	if err == nil {
		err = q.Err()
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, CodeInvalidQuery, strings.TrimPrefix(firstLine(err.Error()), "query: "))
		return
	}
	req, err := q.Request()
	if err != nil {
		writeError(w, http.StatusBadRequest, CodeInvalidQuery, strings.TrimPrefix(firstLine(err.Error()), "query: "))
		return
	}
	res, err := p.o.Backend.RunQuery(ctx, tok, req)
	if err != nil {
		p.dataFailure(w, r, err)
		return
	}
	results := res.Results
	if results == nil {
		results = []json.RawMessage{}
	}
	if len(in.Include) > 0 {
		if results, err = p.hideIncluded(results); err != nil {
			p.dataFailure(w, r, err)
			return
		}
	}
	answer := map[string]any{"results": results}
	if res.HasCount {
		answer["count"] = res.Count
	}
	p.writeBounded(w, answer)
}

type dataFunction struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
}

func (p *dataProxy) function(ctx context.Context, w http.ResponseWriter, r *http.Request, tok string) {
	var in dataFunction
	if aerr := p.readBody(w, r, &in); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	if !functionName.MatchString(in.Name) || !slices.Contains(p.o.AllowedFunctions, in.Name) {
		writeError(w, http.StatusNotFound, CodeScriptFailed, fmt.Sprintf("Invalid function: %q", truncate(in.Name, 64)))
		return
	}
	params, _ := plainJSON(in.Params).(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	out, err := p.o.Backend.CallFunction(ctx, tok, in.Name, params)
	if err != nil {
		p.dataFailure(w, r, err)
		return
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	p.writeBounded(w, map[string]any{"result": out})
}

// chainRoutes maps a chain-data kind to the API path (of the address) and the query parameters it passes on.
var chainRoutes = map[string]struct {
	path  string
	paged bool
}{
	"balance":      {"/%s/balance", false},
	"tokens":       {"/%s/erc20", false},
	"nfts":         {"/%s/nft", true},
	"transactions": {"/%s", true},
}

func (p *dataProxy) chain(ctx context.Context, w http.ResponseWriter, r *http.Request, user *PublicUser, kind string) {
	q := r.URL.Query()
	for k := range q {
		if k != "chain" && k != "address" && k != "cursor" && k != "limit" {
			writeError(w, http.StatusBadRequest, CodeInvalidQuery, fmt.Sprintf("Unknown parameter %q", truncate(k, 32)))
			return
		}
	}
	chain := q.Get("chain")
	if chain == "" {
		chain = p.o.DefaultChain
	}
	chain, ok := normalizeChain(chain)
	if !ok {
		writeError(w, http.StatusBadRequest, CodeInvalidQuery, "Invalid chain")
		return
	}
	address := q.Get("address")
	if address == "" {
		address = user.EthAddress
		if address == "" && len(user.Accounts) > 0 {
			address = user.Accounts[0]
		}
		if address == "" {
			writeError(w, http.StatusBadRequest, CodeValidationError, "Address not found")
			return
		}
	}
	norm, err := auth.NormalizeEthAddress(address)
	if err != nil {
		writeError(w, http.StatusBadRequest, CodeValidationError, "Invalid address")
		return
	}
	if !p.o.AnyAddress && !ownsAddress(user, norm) {
		writeError(w, http.StatusForbidden, CodeOperationForbidden, "Address is not linked to this user")
		return
	}
	rt := chainRoutes[kind]
	params := url.Values{"chain": {chain}}
	if rt.paged {
		if c := q.Get("cursor"); c != "" {
			if len(c) > 1024 || !cursorChars.MatchString(c) {
				writeError(w, http.StatusBadRequest, CodeInvalidQuery, "Invalid cursor")
				return
			}
			params.Set("cursor", c)
		}
		if l := q.Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 || n > 100 {
				writeError(w, http.StatusBadRequest, CodeInvalidQuery, "limit must be an integer from 1 to 100")
				return
			}
			params.Set("limit", strconv.Itoa(n))
		}
	} else if q.Get("cursor") != "" || q.Get("limit") != "" {
		writeError(w, http.StatusBadRequest, CodeInvalidQuery, "cursor and limit apply to nfts and transactions only")
		return
	}
	path := fmt.Sprintf(rt.path, norm)
	key := path + "?" + params.Encode()
	body, cached, err := p.fetchChain(ctx, path, params, key, wantsFresh(r))
	if err != nil {
		p.dataFailure(w, r, err)
		return
	}
	w.Header().Set("X-Cache", map[bool]string{true: "HIT", false: "MISS"}[cached])
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func ownsAddress(u *PublicUser, addr string) bool {
	if strings.EqualFold(u.EthAddress, addr) {
		return true
	}
	for _, a := range u.Accounts {
		if strings.EqualFold(a, addr) {
			return true
		}
	}
	return false
}

var (
	errTooLarge = errors.New("auth: upstream answer too large")
	errNoAnswer = errors.New("auth: upstream gave no answer")
)

// flight is one upstream chain-data call that concurrent identical requests wait for.
type flight struct {
	done chan struct{}
	body []byte
	err  error
}

// wantsFresh reports whether r asks for an answer newer than the cache's (Cache-Control: no-cache, as the React
// hooks send once after a transaction's receipt). It costs an upstream call, so it counts against the same
// per-user rate limit as every request.
func wantsFresh(r *http.Request) bool {
	for _, v := range r.Header.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-cache") {
				return true
			}
		}
	}
	return false
}

// fetchChain answers from the cache, else joins an identical call in flight, else calls the API (bounded by
// MaxResponseBytes) and caches a success. A fresh fetch skips the cache and the calls in flight that began before
// it (they may predate what the caller waits to see); fresh fetches of one key still share one call, and a cached
// answer is only ever replaced by one whose call began later.
func (p *dataProxy) fetchChain(ctx context.Context, path string, params url.Values, key string, fresh bool) ([]byte, bool, error) {
	flightKey := key
	if fresh {
		flightKey = "fresh\x00" + key
	} else if b := p.cache.get(key); b != nil {
		return b, true, nil
	}
	p.mu.Lock()
	if f := p.inflight[flightKey]; f != nil {
		p.mu.Unlock()
		select {
		case <-f.done:
			return f.body, false, f.err
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	p.inflight[flightKey] = f
	p.mu.Unlock()
	started := p.h.o.Now()
	defer func() {
		p.mu.Lock()
		delete(p.inflight, flightKey)
		p.mu.Unlock()
		close(f.done)
	}()
	// The call runs with its own time limit, not the first caller's context: a caller that goes away does not
	// fail the others waiting for the same answer.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.o.Timeout)
	defer cancel()
	// Until Raw returns, the flight has failed: a Raw that panics leaves its waiters an error, not an empty 200.
	f.err = errNoAnswer
	var raw json.RawMessage
	f.err = p.o.Chain.Raw(cctx, http.MethodGet, path, params, nil, &raw)
	switch {
	case f.err != nil:
	case len(raw) == 0:
		f.err = errNoAnswer
	case len(raw) > p.o.MaxResponseBytes:
		f.err = errTooLarge
	}
	if f.err == nil {
		f.body = append([]byte(nil), raw...)
		p.cache.put(key, f.body, started)
	}
	return f.body, false, f.err
}

// writeBounded writes v as JSON unless it is larger than MaxResponseBytes (then 502).
func (p *dataProxy) writeBounded(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusBadGateway, CodeInternal, "Backend error")
		return
	}
	if len(b) > p.o.MaxResponseBytes {
		writeError(w, http.StatusBadGateway, CodeInternal, "Response too large")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// Parse error codes the proxy answers with besides the Handler's.
const (
	CodeInvalidQuery     = 102
	CodeInvalidClassName = 103
	CodeScriptFailed     = 141
)

// dataFailure turns an upstream error into an answer that shows the backend's code and text for its 4xx
// refusals (permission, bad query, a function's error) and nothing of the upstream otherwise (no URL, no key).
func (p *dataProxy) dataFailure(w http.ResponseWriter, r *http.Request, err error) {
	if p.h.o.OnError != nil {
		p.h.o.OnError(r, err)
	}
	var ce *parse.Error
	var be *BackendError
	var rl *web3api.RateLimitError
	switch {
	case errors.Is(err, errTooLarge):
		writeError(w, http.StatusBadGateway, CodeInternal, "Response too large")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		writeError(w, http.StatusGatewayTimeout, CodeInternal, "Upstream did not answer in time")
	case errors.As(err, &be):
		status := be.Status
		if status < 400 || status > 599 {
			status = http.StatusBadGateway
		}
		writeError(w, status, be.Code, be.Message)
	case errors.As(err, &ce) && ce.Code == CodeInvalidSessionToken:
		p.h.clearCookie(w)
		writeAPIError(w, errNoSession)
	case errors.As(err, &ce) && strings.HasPrefix(ce.Message, "Received an error with invalid JSON from Parse"):
		// Not the backend's own refusal but a page of whatever answered (a proxy, a firewall): none of it shown.
		writeError(w, http.StatusBadGateway, CodeInternal, "Backend error")
	case errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 && ce.Code != 0:
		status := http.StatusBadRequest
		switch ce.Code {
		case CodeObjectNotFound:
			status = http.StatusNotFound
		case CodeOperationForbidden:
			status = http.StatusForbidden
		}
		writeError(w, status, int(ce.Code), ce.Message)
	case errors.As(err, &rl):
		secs := int(rl.RetryAfter / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		writeError(w, http.StatusTooManyRequests, CodeRequestLimit, "Chain data rate limit reached")
	default:
		writeError(w, http.StatusBadGateway, CodeInternal, "Upstream error")
	}
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// plainJSON turns json.Number values into float64, as encoding/json decodes by default.
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plainJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = plainJSON(e)
		}
		return s
	}
	return v
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// userCache remembers the user the backend returned for a session (by the token's SHA-256) for ttl. Bounded;
// refusals are not cached. Safe for concurrent use.
type userCache struct {
	mu  sync.Mutex
	ttl time.Duration
	now func() time.Time
	m   map[[32]byte]userEntry
}

type userEntry struct {
	u   PublicUser
	exp time.Time
}

func newUserCache(ttl time.Duration, now func() time.Time) *userCache {
	return &userCache{ttl: ttl, now: now, m: map[[32]byte]userEntry{}}
}

func (c *userCache) get(tok string) *PublicUser {
	if c.ttl <= 0 {
		return nil
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || !c.now().Before(e.exp) {
		delete(c.m, k)
		return nil
	}
	u := e.u
	return &u
}

func (c *userCache) put(tok string, u *PublicUser) {
	if c.ttl <= 0 {
		return
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.m) >= maxCachedSessions {
		for key, e := range c.m {
			if !now.Before(e.exp) {
				delete(c.m, key)
			}
		}
		if len(c.m) >= maxCachedSessions {
			return
		}
	}
	c.m[k] = userEntry{u: *u, exp: now.Add(c.ttl)}
}

// answerCache keeps chain-data answers for ttl, at most max entries and maxBytes of answers (the oldest goes
// first). Safe for concurrent
// use; a negative ttl caches nothing.
type answerCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	now   func() time.Time
	m     map[string]answerEntry
	order []string
	// bytes is the size of the answers in m; maxBytes bounds it.
	bytes, maxBytes int
}

type answerEntry struct {
	body []byte
	exp  time.Time
}

func newAnswerCache(ttl time.Duration, max int, now func() time.Time) *answerCache {
	return &answerCache{ttl: ttl, max: max, maxBytes: DataCacheMaxBytes, now: now, m: map[string]answerEntry{}}
}

func (c *answerCache) get(key string) []byte {
	if c.ttl <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !c.now().Before(e.exp) {
		return nil
	}
	return e.body
}

// put caches body, fetched by a call that began at started, unless the entry cached for key came from a call that
// began later.
func (c *answerCache) put(key string, body []byte, started time.Time) {
	if c.ttl <= 0 || len(body) > c.maxBytes {
		return
	}
	exp := started.Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok {
		if old.exp.After(exp) {
			return
		}
		c.bytes -= len(old.body)
	} else {
		c.order = append(c.order, key)
	}
	c.m[key] = answerEntry{body: body, exp: exp}
	c.bytes += len(body)
	for (len(c.m) > c.max || c.bytes > c.maxBytes) && len(c.order) > 0 {
		if e, ok := c.m[c.order[0]]; ok {
			c.bytes -= len(e.body)
			delete(c.m, c.order[0])
		}
		c.order = c.order[1:]
	}
	// Keep order from growing past the map by keys that were overwritten.
	if len(c.order) > 2*c.max {
		kept := c.order[:0]
		for _, k := range c.order {
			if _, ok := c.m[k]; ok {
				kept = append(kept, k)
			}
		}
		c.order = kept
	}
}
