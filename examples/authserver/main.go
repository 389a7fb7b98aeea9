// Command authserver serves a static site (the React hooks demo by default) and the wallet sign-in endpoint of
// package authserver under /auth, for local development.
//
//	go run ./examples/authserver [-addr 127.0.0.1:8080] [-static react-hooks/demo/dist]
//
// The backend comes from MORALIS_SERVER_URL, MORALIS_APP_ID, MORALIS_JS_KEY and MORALIS_MASTER_KEY (else the local
// stack's .devstack/env). The keys stay in this process; the browser only talks to /auth. The master key issues the
// one-time ticket each sign-in hands the backend (auth.IssueTicket): the local stack's adapters require one.
// SIWE messages name -domain (default: the -addr host:port) and -uri (default http://DOMAIN). It serves through
// authserver.NewServer (time-outs, a connection cap overall and per client) with the endpoint's default per-client rate
// limits and nonce quota; /auth/live is the endpoint's Live route (query/live's bridge through the endpoint's
// pipeline: rate limit, session confirmed first, stream caps, one error writer).
//
// Several instances behind a balancer (the local stack's `make up` runs two this way, see DEPLOY.md): -redis (a
// redis:// URL) keeps the rate limits, the nonce quota, the live-stream caps and session revocation in Redis for
// every instance (authserver.Config.RedisURL), and the nonces too, so a nonce issued through one instance is accepted
// by another (-shared-nonces keeps them in the backend instead, authserver.BackendNonceStore: no Redis needed, three
// more backend requests per sign-in); -proxy-protocol names the balancer's addresses (CIDRs), whose connections
// open with a PROXY protocol header naming the client (HAProxy's send-proxy-v2; authserver.ServerConfig.ProxyProtocol):
// the connection caps and every limit then count the client, not the balancer. A balancer that cannot send it sets
// X-Forwarded-For instead: -trust-proxy names its addresses, from which the client's address is read from the last
// X-Forwarded-For value (the limits then count the client; the connection caps cannot, see DEPLOY.md). Give every
// instance the same -domain and -uri (the balancer's).
//
// Sessions roll (authserver.Config.SessionIdleTTL, SessionMaxAge): -session-idle-ttl (default 168h, 7 days) is how
// long a session lives unused, a request past half of it extending it by as much; -session-max-age (default 720h,
// 30 days) is its cap from the sign-in. Each must be positive and the idle lifetime not above the cap, e.g.
// -session-idle-ttl 15m -session-max-age 8h. The sign-in and /auth/me answers tell the page when the session ends.
//
// Smart-contract wallets (ERC-1271, and ERC-6492 accounts not deployed yet) sign in when -chain-rpc (env
// MORALIS_RPC_URL, which `make chain` writes) names an EVM JSON-RPC URL: the endpoint (authserver.Config.Chain) and
// its backend (authserver.BackendConfig.Chain, before it asks for a contract-account ticket) verify such signatures
// with one eth_call there. Give -chain-id the id of that chain (the local chain's is 1337). Without it, EOA
// signatures only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/redis/go-redis/v9"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/query/live"
	"github.com/ethereum/go-ethereum/ethclient"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "authserver:", err)
		os.Exit(1)
	}
}

func backendConfig(getenv func(string) string) (client.Config, error) {
	cfg := client.Config{ServerURL: getenv("MORALIS_SERVER_URL"), AppID: getenv("MORALIS_APP_ID"), JavaScriptKey: getenv("MORALIS_JS_KEY"),
		MasterKey: getenv("MORALIS_MASTER_KEY")}
	if cfg.ServerURL != "" && cfg.AppID != "" {
		return cfg, nil
	}
	env, err := devstack.Load()
	if err != nil {
		return cfg, fmt.Errorf("no backend configured (MORALIS_SERVER_URL and MORALIS_APP_ID): %w", err)
	}
	return client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey}, nil
}

// run serves until ctx ends. ready, when set, is told the listening address.
func run(ctx context.Context, args []string, getenv func(string) string, logw io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("authserver", flag.ContinueOnError)
	fs.SetOutput(logw)
	var (
		addr      = fs.String("addr", "127.0.0.1:8080", "listen address (loopback only)")
		static    = fs.String("static", "react-hooks/demo/dist", "directory of static files served at /")
		domain    = fs.String("domain", "", "domain named in SIWE messages (default: the listen host:port)")
		uri       = fs.String("uri", "", "URI named in SIWE messages (default http://DOMAIN)")
		chainID   = fs.Uint64("chain-id", 1, "EVM chain id of SIWE messages")
		style     = fs.String("evm-style", authserver.StyleSIWE, `EVM message style: "siwe" or "moralis"`)
		origins   = fs.String("origins", "", "comma-separated extra origins allowed to call /auth with credentials")
		insecure  = fs.Bool("insecure-cookie", false, "leave Secure off the session cookie (plain HTTP on a host name other than localhost or a loopback address)")
		burst     = fs.Int("rate-burst", authserver.DefaultRateBurst, "requests per client at once over every route (-1 turns this limit off)")
		every     = fs.Duration("rate-every", authserver.DefaultRateEvery, "time to refill one request of the rate limit")
		writeTO   = fs.Duration("write-timeout", authserver.DefaultWriteTimeout, "server WriteTimeout (live streams extend their own deadline per write)")
		readTO    = fs.Duration("read-timeout", authserver.DefaultReadTimeout, "server ReadTimeout")
		idleTO    = fs.Duration("idle-timeout", authserver.DefaultIdleTimeout, "server IdleTimeout of keep-alive connections")
		maxConns  = fs.Int("max-conns", authserver.DefaultMaxConns, "open connections at most (-1: no cap)")
		perClient = fs.Int("max-conns-per-client", authserver.DefaultMaxConnsPerClient, "open connections per client address at most (-1: no cap)")
		heartbeat = fs.Duration("live-heartbeat", 15*time.Second, "interval of the keep-alive comments on /auth/live streams")
		noAddrObj = fs.Bool("no-address-objects", false, "do not create _EthAddress/_SolAddress objects on link (servers without allowCustomObjectId)")
		liveURL   = fs.String("livequery", getenv("MORALIS_LIVEQUERY_URL"), "LiveQuery websocket URL; when set, /auth/live streams live queries to the signed-in user (env MORALIS_LIVEQUERY_URL)")
		liveCls   = fs.String("live-classes", "LiveItem,LiveNote", "comma-separated classes /auth/live may watch")
		dataFns   = fs.String("data-functions", "", "comma-separated cloud functions /auth/data/function may call (chain data: MORALIS_API_KEY, MORALIS_WEB3API_URL)")
		redisURL  = fs.String("redis", "", "redis:// URL: the nonces, rate limits, nonce quota, live-stream caps and session revocation shared by every instance using it (default: in memory, one process)")
		shared    = fs.Bool("shared-nonces", false, "keep nonces in the backend (authserver.BackendNonceStore), shared by every instance (needs the master key)")
		trusted   = fs.String("trust-proxy", "", "comma-separated CIDRs of the balancer: from these addresses, the client is the last X-Forwarded-For value")
		proxyProt = fs.String("proxy-protocol", "", "comma-separated CIDRs of the balancer: its connections open with a PROXY protocol header naming the client (HAProxy send-proxy-v2)")
		chainRPC  = fs.String("chain-rpc", getenv("MORALIS_RPC_URL"), "EVM JSON-RPC URL; when set, smart-contract wallets (ERC-1271/6492) sign in, verified there (env MORALIS_RPC_URL)")
		sessIdle  = fs.Duration("session-idle-ttl", authserver.DefaultSessionIdleTTL, "how long a session lives unused; a request past half of it extends it by as much (authserver.Config.SessionIdleTTL)")
		sessMax   = fs.Duration("session-max-age", authserver.DefaultSessionMaxAge, "the longest a session lives after its sign-in, however used; then a new signature is needed (authserver.Config.SessionMaxAge)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := checkSessionFlags(*sessIdle, *sessMax); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("-addr: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-addr %s: this development server listens on a loopback address only", *addr)
	}
	cfg, err := backendConfig(getenv)
	if err != nil {
		return err
	}
	var chain auth.ContractCaller // nil: EOA signatures only
	if *chainRPC != "" {
		ec, err := ethclient.DialContext(ctx, *chainRPC)
		if err != nil {
			return fmt.Errorf("-chain-rpc: %w", err)
		}
		defer ec.Close()
		chain = ec
	}
	be, err := authserver.NewClientBackend(authserver.BackendConfig{Client: cfg, Flow: auth.Options{NoAddressObjects: *noAddrObj},
		Chain: chain, LiveQueryURL: *liveURL, Logger: slog.New(slog.NewTextHandler(logw, nil))})
	if err != nil {
		return err
	}
	// What the backend offers, in one line of the log (what is missing and what it costs), before serving. A
	// backend that cannot be asked yet is no reason not to start: it is asked again on the first sign-in.
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	_, _ = be.CheckBackend(cctx)
	cancel()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	bound := ln.Addr().String()
	if *domain == "" {
		*domain = bound
	}
	if *uri == "" {
		*uri = "http://" + *domain
	}
	var allowed []string
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			allowed = append(allowed, o)
		}
	}
	logger := log.New(logw, "authserver: ", log.LstdFlags)
	clientKey, err := forwardedClientKey(*trusted)
	if err != nil {
		return err
	}
	var nonces authserver.NonceStore // nil: in memory
	if *shared {
		c, err := client.New(cfg)
		if err != nil {
			return err
		}
		bn, err := authserver.NewBackendNonceStore(c)
		if err != nil {
			return fmt.Errorf("-shared-nonces: %w", err)
		}
		go purgeNonces(ctx, bn, logger)
		nonces = bn
	}
	h, err := authserver.NewHandler(be, authserver.Config{
		AppID: cfg.AppID, Domain: *domain, URI: *uri, ChainID: *chainID, EVMMessageStyle: *style,
		AllowedOrigins: allowed, InsecureCookie: *insecure,
		RateLimit: authserver.RateLimit{Burst: *burst, Every: *every, ClientKey: clientKey},
		Nonces:    nonces, RedisURL: *redisURL,
		Chain:          chain,
		SessionIdleTTL: *sessIdle, SessionMaxAge: *sessMax,
		OnError: func(r *http.Request, err error) { logger.Printf("%s %s: %v", r.Method, r.URL.Path, withCause(err)) },
	})
	if err != nil {
		return err
	}
	defer h.Close()
	mux := http.NewServeMux()
	if *liveURL != "" {
		var journal redis.UniversalClient // nil: one process, streams resume only on this instance
		if *redisURL != "" {
			opt, err := redis.ParseURL(*redisURL)
			if err != nil {
				return fmt.Errorf("-redis: %w", err)
			}
			rc := redis.NewClient(opt)
			defer rc.Close()
			journal = rc
		}
		bridge, err := liveBridge(cfg, *liveURL, *liveCls, *heartbeat, journal)
		if err != nil {
			return err
		}
		mux.Handle("/auth/live", http.StripPrefix("/auth", h.Live(bridge)))
	}
	dp, err := dataProxy(h, cfg, getenv, *dataFns)
	if err != nil {
		return err
	}
	mux.Handle("/auth/data/", http.StripPrefix("/auth", dp))
	mux.Handle("/auth/", http.StripPrefix("/auth", h))
	if st, err := os.Stat(*static); err == nil && st.IsDir() {
		mux.Handle("/", http.FileServer(http.Dir(*static)))
	} else {
		logger.Printf("static directory %q not found; serving /auth only (build it with: cd react-hooks && npm run build:demo)", *static)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "static directory not found: "+*static, http.StatusNotFound)
		})
	}
	proxies, err := parsePrefixes("-proxy-protocol", *proxyProt)
	if err != nil {
		return err
	}
	srv, err := authserver.NewServer(mux, authserver.ServerConfig{WriteTimeout: *writeTO, ReadTimeout: *readTO, IdleTimeout: *idleTO,
		MaxConns: *maxConns, MaxConnsPerClient: *perClient, ProxyProtocol: proxies,
		ErrorLog: log.New(logw, "authserver: http: ", log.LstdFlags)})
	if err != nil {
		return err
	}
	logger.Printf("serving %s on http://%s (auth at /auth, SIWE domain %s)", *static, bound, *domain)
	if ready != nil {
		ready(bound)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkSessionFlags checks -session-idle-ttl and -session-max-age: each positive (a zero would silently mean the
// package default), the idle lifetime not above the cap. Its errors name the flag.
func checkSessionFlags(idle, maxAge time.Duration) error {
	switch {
	case idle <= 0:
		return fmt.Errorf("-session-idle-ttl %s: must be positive", idle)
	case maxAge <= 0:
		return fmt.Errorf("-session-max-age %s: must be positive", maxAge)
	case idle > maxAge:
		return fmt.Errorf("-session-idle-ttl %s must not exceed -session-max-age %s", idle, maxAge)
	}
	return nil
}

// liveBridge is the stream of GET /auth/live: server-sent events of a live query, held on this side with the
// signed-in user's session, for the React useLiveQuery hook. The auth handler serves it through its pipeline
// (authserver.Handler.Live): the rate limits, the session confirmed (cookie or Bearer, as for the auth endpoint) with
// the backend before any websocket is opened, the stream caps and one error writer.
//
// With journal (the -redis Redis), each stream is journaled there, so a browser that reconnects through the balancer
// to another instance resumes from its Last-Event-ID without a gap (live.SSEConfig.Redis).
func liveBridge(cfg client.Config, url, classes string, heartbeat time.Duration, journal redis.UniversalClient) (*live.SSEBridge, error) {
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	var allowed []string
	for _, s := range strings.Split(classes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			allowed = append(allowed, s)
		}
	}
	return live.NewSSEBridge(live.SSEConfig{
		Dial: func(ctx context.Context, token string) (*live.Client, error) {
			return live.Dial(ctx, live.Config{URL: url, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey,
				SessionToken: token, Runner: c.WithSessionToken(token)})
		},
		AllowedClasses: allowed,
		Heartbeat:      heartbeat,
		Redis:          journal,
	})
}

// forwardedClientKey returns the client key for authserver.RateLimit.ClientKey: the remote address (IPv6 by its
// /64, as the default), except that a request from one of the trusted CIDRs (the balancer) is keyed by the last
// X-Forwarded-For value, the one the balancer set (values before it are the client's to choose). nil (the
// default key) when trusted is empty.
func forwardedClientKey(trusted string) (func(*http.Request) string, error) {
	nets, err := parsePrefixes("-trust-proxy", trusted)
	if err != nil {
		return nil, err
	}
	if len(nets) == 0 {
		return nil, nil
	}
	key := func(addr netip.Addr) string {
		if addr = addr.Unmap(); addr.Is6() {
			p, _ := addr.Prefix(64)
			return p.String()
		}
		return addr.String()
	}
	return func(r *http.Request) string {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil {
			return r.RemoteAddr
		}
		from := key(ap.Addr())
		trusted := false
		for _, n := range nets {
			trusted = trusted || n.Contains(ap.Addr().Unmap())
		}
		vals := r.Header.Values("X-Forwarded-For")
		if !trusted || len(vals) == 0 {
			return from
		}
		last := vals[len(vals)-1]
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = last[i+1:]
		}
		addr, err := netip.ParseAddr(strings.TrimSpace(last))
		if err != nil {
			return from // the balancer always sets an address: a malformed value is not the client's key
		}
		return key(addr)
	}, nil
}

// withCause is err's text followed by its cause's, when it wraps one (a BackendError's text is only what the
// browser is told; the operator's log wants why).
func withCause(err error) string {
	if c := errors.Unwrap(err); c != nil && c.Error() != err.Error() {
		return err.Error() + ": " + c.Error()
	}
	return err.Error()
}

// parsePrefixes parses a comma-separated list of CIDRs (flag names the flag, for the error).
func parsePrefixes(flag, list string) ([]netip.Prefix, error) {
	var nets []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		nets = append(nets, p.Masked())
	}
	return nets, nil
}

// purgeNonces deletes expired nonces of the shared store every minute until ctx ends.
func purgeNonces(ctx context.Context, s *authserver.BackendNonceStore, logger *log.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.PurgeExpired(ctx); err != nil && ctx.Err() == nil {
			logger.Printf("purging expired nonces: %v", err)
		}
	}
}
