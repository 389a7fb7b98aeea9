package authserver

import (
	"errors"
	"log"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// Defaults of NewServer (ServerConfig fields left zero).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxHeaderBytes    = 32 << 10
	DefaultMaxConns          = 1024
	DefaultMaxConnsPerClient = 64
)

// ServerConfig configures NewServer. The zero value is the defaults (the constants above); a negative MaxConns or
// MaxConnsPerClient removes that cap, and any other negative field is an error. NewServer copies it.
type ServerConfig struct {
	// ReadHeaderTimeout bounds reading a request's headers (slow-header attacks); default DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request; default DefaultReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing an answer; default DefaultWriteTimeout. Long-lived streams (query/live's SSE
	// bridge) push their own deadline forward on every write with http.ResponseController, so they outlive it.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long; default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers; default DefaultMaxHeaderBytes (Go's own is 1 MiB).
	MaxHeaderBytes int
	// MaxConns caps the open connections; default DefaultMaxConns. At the cap a newcomer takes the place of a
	// connection doing the least useful work: one that has not sent a byte, then one still sending its request's
	// headers, then an idle keep-alive one, taken from the client address holding the most connections. A client
	// address gets no more than its share of the cap (MaxConns divided by the addresses holding connections): a
	// newcomer from an address at its share, or that could only displace a client holding about as many as it
	// does, is closed at once. Connections serving a request (or hijacked, such as live streams) are never closed;
	// when every connection is, accepting waits until one closes. See Server for the whole rule.
	MaxConns int
	// MaxConnsPerClient caps the open connections of one client IP address (IPv6: its /64) at any load; default
	// DefaultMaxConnsPerClient. Connections over it are closed as soon as they are accepted.
	MaxConnsPerClient int
	// ProxyProtocol lists the addresses of the balancers in front of the server (for example
	// netip.MustParsePrefix("10.0.0.5/32")) that open every connection with a PROXY protocol header (version 2, as
	// HAProxy's send-proxy-v2 writes it, or version 1: send-proxy, nginx's proxy_protocol), naming the client the
	// connection is for. The header is read as the connection is accepted, within ReadHeaderTimeout, before the
	// connection caps count it: the connection then counts as the client's in MaxConnsPerClient and MaxConns' shares,
	// and its requests' RemoteAddr is the client's address, which every per-client limit of a Handler keys on by
	// default. So one client holding connections through the balancer is capped as one client, and the others are not
	// capped with it. A connection from these addresses without a valid header is closed; a header naming no client
	// (a health check's LOCAL, UNKNOWN) leaves the balancer's own address. From any other address no header is read
	// (one sent anyway is an invalid request): only the balancer can name a client. Default none.
	ProxyProtocol []netip.Prefix
	// ErrorLog receives the server's errors; default nil: the log package's standard logger.
	ErrorLog *log.Logger
}

// Server is an *http.Server hardened for a public sign-in endpoint: the time-outs and header limit of
// ServerConfig, and a connection cap (overall and per client) applied by its Serve methods, so idle or slow
// connections cannot use up the process's file descriptors and starve real sign-ins. Make it with NewServer;
// Shutdown, Close and the other *http.Server methods work as usual. Safe for concurrent use.
//
// # Connections at the cap
//
// Each open connection is in one of four classes, from the least useful to the most: silent (accepted, not a
// byte received), header (bytes of a request received, its headers not complete: a slow client or a slow-header
// attack), idle (a keep-alive connection between requests) and busy (a request being served, or a hijacked
// connection). When a connection arrives at MaxConns, from a client address A that holds n connections:
//
//  1. if n is at or over A's share, ceil(MaxConns / the number of addresses holding connections, A included),
//     the newcomer is closed;
//  2. otherwise a connection of another address holding at least n+2 connections is closed to make room: the
//     least useful class first, within it the address holding the most, then the oldest (a newcomer from an
//     address holding none may take the place of any silent, header or idle connection);
//  3. when no connection is silent, header or idle, accepting waits until one closes; when some are but none
//     may be taken (every holder has about as many as A), the newcomer is closed.
//
// So many addresses that open connections and send nothing (re-dialling as they are closed) end up holding an
// even share of the cap each, and a client new to the server still gets a connection at once, as long as
// anything but busy connections fills the cap.
type Server struct {
	*http.Server
	guard   *connGuard
	proxies []netip.Prefix // ServerConfig.ProxyProtocol
}

// NewServer returns a Server that serves handler (a Handler, or a mux that mounts one) with cfg
// (ServerConfig{} for all defaults). A nil handler or an invalid configuration is an error that names the field.
func NewServer(handler http.Handler, cfg ServerConfig) (*Server, error) {
	if handler == nil {
		return nil, errors.New("authserver: NewServer needs a handler")
	}
	o := cfg
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"ReadHeaderTimeout", o.ReadHeaderTimeout}, {"ReadTimeout", o.ReadTimeout}, {"WriteTimeout", o.WriteTimeout},
		{"IdleTimeout", o.IdleTimeout}} {
		if d.d < 0 {
			return nil, errors.New("authserver: ServerConfig." + d.name + " must not be negative")
		}
	}
	if o.MaxHeaderBytes < 0 {
		return nil, errors.New("authserver: ServerConfig.MaxHeaderBytes must not be negative")
	}
	proxies := make([]netip.Prefix, 0, len(o.ProxyProtocol))
	for _, p := range o.ProxyProtocol {
		if !p.IsValid() {
			return nil, errors.New("authserver: ServerConfig.ProxyProtocol holds an invalid prefix")
		}
		proxies = append(proxies, p.Masked())
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&o.ReadTimeout, DefaultReadTimeout)
	def(&o.WriteTimeout, DefaultWriteTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	if o.MaxHeaderBytes == 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.MaxConnsPerClient == 0 {
		o.MaxConnsPerClient = DefaultMaxConnsPerClient
	}
	g := newConnGuard(o.MaxConns, o.MaxConnsPerClient)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: o.ReadHeaderTimeout, ReadTimeout: o.ReadTimeout,
		WriteTimeout: o.WriteTimeout, IdleTimeout: o.IdleTimeout, MaxHeaderBytes: o.MaxHeaderBytes,
		ErrorLog: o.ErrorLog, ConnState: g.track}
	return &Server{Server: srv, guard: g, proxies: proxies}, nil
}

// Serve serves connections from ln, within the connection caps (and reading the balancers' PROXY protocol headers,
// ServerConfig.ProxyProtocol).
func (s *Server) Serve(ln net.Listener) error { return s.Server.Serve(s.wrap(ln)) }

// ServeTLS serves TLS connections from ln, within the connection caps (the balancers' PROXY protocol headers come
// before TLS, as HAProxy sends them).
func (s *Server) ServeTLS(ln net.Listener, certFile, keyFile string) error {
	return s.Server.ServeTLS(s.wrap(ln), certFile, keyFile)
}

// wrap puts the PROXY protocol reader (when configured) and then the connection guard around ln.
func (s *Server) wrap(ln net.Listener) net.Listener {
	if len(s.proxies) > 0 {
		ln = newProxyListener(ln, s.proxies, s.ReadHeaderTimeout)
	}
	return s.guard.wrap(ln)
}

// ListenAndServe listens on s.Addr (":http" when empty) and serves, within the connection caps.
func (s *Server) ListenAndServe() error {
	ln, err := s.listen(":http")
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// ListenAndServeTLS listens on s.Addr (":https" when empty) and serves TLS, within the connection caps.
func (s *Server) ListenAndServeTLS(certFile, keyFile string) error {
	ln, err := s.listen(":https")
	if err != nil {
		return err
	}
	return s.ServeTLS(ln, certFile, keyFile)
}

func (s *Server) listen(def string) (net.Listener, error) {
	addr := s.Addr
	if addr == "" {
		addr = def
	}
	return net.Listen("tcp", addr)
}
