package authserver

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// The data proxy of the React data hooks, in four files: this one (configuration and routes),
// dataproxy_backend.go (the backend as the user), dataproxy_query.go (POST /data/query and /data/function) and
// dataproxy_chain.go (GET /data/chain/..., its cache and shared calls).

// Defaults of DataProxyConfig.
const (
	// DefaultDataRateBurst is how many data requests one user (all its sessions together) may make at once.
	DefaultDataRateBurst = 30
	// DefaultDataRateEvery is the time to refill one data request of a user.
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

// DataProxyConfig configures Handler.DataProxy, by the package's one configuration rule: a zero field is its
// default, a negative one turns it off where off makes sense (RateLimit, CacheTTL) and is an error elsewhere.
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
	// CacheEntries bounds the cache; default DefaultDataCacheEntries; negative is an error (a negative CacheTTL
	// turns the cache off). Whatever it is, the cache holds at most DataCacheMaxBytes of answers (the oldest go
	// first).
	CacheEntries int
	// MaxResponseBytes bounds an upstream answer; default DefaultDataMaxResponseBytes; negative is an error.
	MaxResponseBytes int
	// MaxBodyBytes bounds a request body; default DefaultDataMaxBodyBytes; negative is an error. Larger bodies
	// get 413.
	MaxBodyBytes int64
	// Timeout bounds an upstream call (users/me included); default DefaultDataTimeout; negative is an error.
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
// the per-user rate limit, then the body and the input checks (the one pipeline of the Handler: pipeline.go). The API key never leaves the server. Chain data defaults to
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
		return nil, fmt.Errorf("authserver: DataProxyConfig.DefaultChain %q is not a chain name or id", o.DefaultChain)
	}
	for _, c := range o.AllowedClasses {
		if !validClassName(c) {
			return nil, fmt.Errorf("authserver: DataProxyConfig.AllowedClasses: %q is not a class name", c)
		}
	}
	for _, f := range o.AllowedFunctions {
		if !functionName.MatchString(f) {
			return nil, fmt.Errorf("authserver: DataProxyConfig.AllowedFunctions: %q is not a function name", f)
		}
	}
	for _, f := range []struct {
		name     string
		negative bool
	}{{"RateLimit.Every", o.RateLimit.Every < 0}, {"CacheEntries", o.CacheEntries < 0},
		{"MaxResponseBytes", o.MaxResponseBytes < 0}, {"MaxBodyBytes", o.MaxBodyBytes < 0}, {"Timeout", o.Timeout < 0}} {
		if f.negative {
			return nil, fmt.Errorf("authserver: DataProxyConfig.%s must not be negative", f.name)
		}
	}
	o.RateLimit = o.RateLimit.withDefault(DefaultDataRateBurst, DefaultDataRateEvery, nil)
	setDefault(&o.CacheTTL, DefaultDataCacheTTL)
	setDefault(&o.CacheEntries, DefaultDataCacheEntries)
	setDefault(&o.MaxResponseBytes, DefaultDataMaxResponseBytes)
	setDefault(&o.MaxBodyBytes, DefaultDataMaxBodyBytes)
	setDefault(&o.Timeout, DefaultDataTimeout)
	cache := newTTLCache[string, []byte](o.CacheTTL, o.CacheEntries, h.o.Now)
	if cache != nil {
		cache.evictOldest, cache.maxCost, cache.cost = true, DataCacheMaxBytes, func(b []byte) int { return len(b) }
	}
	p := &dataProxy{o: o, now: h.o.Now, cache: cache, inflight: map[string]*flight{}}
	// Every route: the Handler's policy, the origin strictly, a session the backend confirms (within Timeout),
	// then the per-user limit (keyed by the user's id: every session of one user shares one budget).
	rt := route{origin: originStrict, session: sessionConfirmed, userLimit: h.limiter("data", o.RateLimit),
		timeout: o.Timeout, upstream: "Upstream", maxAnswer: o.MaxResponseBytes}
	post := rt
	post.method, post.body, post.maxBody = http.MethodPost, bodyJSON, o.MaxBodyBytes
	get := rt
	get.method = http.MethodGet
	mux := http.NewServeMux()
	if o.Backend != nil {
		handle(h.policy, mux, "/data/query", post, p.query)
		handle(h.policy, mux, "/data/function", post, p.function)
	}
	if o.Chain != nil {
		for _, kind := range ChainDataKinds {
			handle(h.policy, mux, "/data/chain/"+kind, get, p.chain(kind))
		}
	}
	notFound(h.policy, mux, originStrict)
	p.mux = mux
	return p, nil
}

// setDefault sets a zero *v to def (the configuration rule: zero is the default).
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// dataProxy serves the data routes. It knows only its configuration, the pipeline's policy (through its routes)
// and the user of each request (call.user).
type dataProxy struct {
	o     DataProxyConfig
	now   func() time.Time
	cache *ttlCache[string, []byte] // chain-data answers; nil: none

	mu       sync.Mutex
	inflight map[string]*flight
	mux      *http.ServeMux
}

// ServeHTTP serves the data routes, each through the pipeline.
func (p *dataProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.mux.ServeHTTP(w, r) }
