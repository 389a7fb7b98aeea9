// Command authserver serves a static site (the React hooks demo by default) and the wallet sign-in endpoint of
// package auth under /auth, for local development.
//
//	go run ./examples/authserver [-addr 127.0.0.1:8080] [-static react-hooks/demo/dist]
//
// The backend comes from MORALIS_SERVER_URL, MORALIS_APP_ID and MORALIS_JS_KEY (else the local stack's
// .devstack/env). The JavaScript key stays in this process; the browser only talks to /auth.
// SIWE messages name -domain (default: the -addr host:port) and -uri (default http://DOMAIN).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/query/live"
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
	cfg := client.Config{ServerURL: getenv("MORALIS_SERVER_URL"), AppID: getenv("MORALIS_APP_ID"), JavaScriptKey: getenv("MORALIS_JS_KEY")}
	if cfg.ServerURL != "" && cfg.AppID != "" {
		return cfg, nil
	}
	env, err := devstack.Load()
	if err != nil {
		return cfg, fmt.Errorf("no backend configured (MORALIS_SERVER_URL and MORALIS_APP_ID): %w", err)
	}
	return client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey}, nil
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
		style     = fs.String("evm-style", auth.StyleSIWE, `EVM message style: "siwe" or "moralis"`)
		origins   = fs.String("origins", "", "comma-separated extra origins allowed to call /auth with credentials")
		secure    = fs.Bool("secure-cookie", false, "mark the session cookie Secure (when served over HTTPS)")
		burst     = fs.Int("rate-burst", 60, "requests per client at once (0 turns the rate limit off)")
		every     = fs.Duration("rate-every", time.Second, "time to refill one request of the rate limit")
		noAddrObj = fs.Bool("no-address-objects", false, "do not create _EthAddress/_SolAddress objects on link (servers without allowCustomObjectId)")
		liveURL   = fs.String("livequery", getenv("MORALIS_LIVEQUERY_URL"), "LiveQuery websocket URL; when set, /auth/live streams live queries to the signed-in user (env MORALIS_LIVEQUERY_URL)")
		liveCls   = fs.String("live-classes", "LiveItem,LiveNote", "comma-separated classes /auth/live may watch")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
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
	be, err := auth.NewClientBackend(cfg, &auth.Options{NoAddressObjects: *noAddrObj})
	if err != nil {
		return err
	}
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
	h, err := auth.NewHandler(auth.HandlerOptions{
		Backend: be, AppID: cfg.AppID, Domain: *domain, URI: *uri, ChainID: *chainID, EVMMessageStyle: *style,
		AllowedOrigins: allowed, CookieSecure: *secure, RateLimit: auth.RateLimit{Burst: *burst, Every: *every},
		OnError: func(r *http.Request, err error) { logger.Printf("%s %s: %v", r.Method, r.URL.Path, err) },
	})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	if *liveURL != "" {
		sse, err := liveHandler(h, cfg, *liveURL, *liveCls)
		if err != nil {
			return err
		}
		mux.Handle("/auth/live", sse)
	}
	mux.Handle("/auth/", http.StripPrefix("/auth", h))
	if st, err := os.Stat(*static); err == nil && st.IsDir() {
		mux.Handle("/", http.FileServer(http.Dir(*static)))
	} else {
		logger.Printf("static directory %q not found; serving /auth only (build it with: cd react-hooks && npm run build:demo)", *static)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "static directory not found: "+*static, http.StatusNotFound)
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
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

// liveHandler serves GET /auth/live: server-sent events of a live query, held on this side with the signed-in
// user's session (from the same cookie or Bearer token as the auth endpoint), for the React useLiveQuery hook.
func liveHandler(h *auth.Handler, cfg client.Config, url, classes string) (http.Handler, error) {
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
	return live.NewSSEHandler(live.SSEConfig{
		Session: func(r *http.Request) (string, error) {
			if tok := h.SessionToken(r); tok != "" {
				return tok, nil
			}
			return "", errors.New("no session")
		},
		Dial: func(ctx context.Context, token string) (*live.Client, error) {
			return live.Dial(ctx, live.Config{URL: url, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey,
				SessionToken: token, Runner: c.WithSessionToken(token)})
		},
		AllowedClasses: allowed,
	})
}
