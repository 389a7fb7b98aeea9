package authserver

import (
	"crypto/tls"
	"errors"
	"log"
	"net"
	"net/http"
	"sync"
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
	// MaxConns caps the open connections; default DefaultMaxConns. At the cap the longest-idle keep-alive
	// connection is closed to make room; when none is idle, accepting waits until one closes.
	MaxConns int
	// MaxConnsPerClient caps the open connections of one client IP address (IPv6: its /64); default
	// DefaultMaxConnsPerClient. Connections over it are closed as soon as they are accepted.
	MaxConnsPerClient int
	// ErrorLog receives the server's errors; default nil: the log package's standard logger.
	ErrorLog *log.Logger
}

// Server is an *http.Server hardened for a public sign-in endpoint: the time-outs and header limit of
// ServerConfig, and a connection cap (overall and per client) applied by its Serve methods, so idle or slow
// connections cannot use up the process's file descriptors and starve real sign-ins. Make it with NewServer;
// Shutdown, Close and the other *http.Server methods work as usual. Safe for concurrent use.
type Server struct {
	*http.Server
	guard *connGuard
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
	return &Server{Server: srv, guard: g}, nil
}

// Serve serves connections from ln, within the connection caps.
func (s *Server) Serve(ln net.Listener) error { return s.Server.Serve(s.guard.wrap(ln)) }

// ServeTLS serves TLS connections from ln, within the connection caps.
func (s *Server) ServeTLS(ln net.Listener, certFile, keyFile string) error {
	return s.Server.ServeTLS(s.guard.wrap(ln), certFile, keyFile)
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

// connGuard counts open connections overall and per client and knows which are idle (through the server's
// ConnState hook), so at the cap it can close the longest-idle one instead of refusing newcomers.
type connGuard struct {
	max, perClient int

	mu       sync.Mutex
	cond     *sync.Cond
	total    int
	byClient map[string]int
	idle     map[*guardedConn]time.Time
}

func newConnGuard(max, perClient int) *connGuard {
	g := &connGuard{max: max, perClient: perClient, byClient: map[string]int{}, idle: map[*guardedConn]time.Time{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *connGuard) wrap(ln net.Listener) net.Listener { return &guardedListener{Listener: ln, g: g} }

type guardedListener struct {
	net.Listener
	g      *connGuard
	closed sync.Once
	done   bool
}

// Accept returns the next connection that fits within the caps: one over its client's cap is closed at once;
// at the overall cap the longest-idle connection is closed and Accept waits until a slot is free.
func (l *guardedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientAddr(c.RemoteAddr().String())
		if !l.g.admit(l, key) {
			c.Close()
			continue
		}
		return &guardedConn{Conn: c, g: l.g, key: key}, nil
	}
}

// Close closes the listener and wakes an Accept waiting for a slot.
func (l *guardedListener) Close() error {
	err := l.Listener.Close()
	l.closed.Do(func() {
		l.g.mu.Lock()
		l.done = true
		l.g.cond.Broadcast()
		l.g.mu.Unlock()
	})
	return err
}

func (g *connGuard) admit(l *guardedListener, key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if l.done || (g.perClient > 0 && g.byClient[key] >= g.perClient) {
			return false
		}
		if g.max <= 0 || g.total < g.max {
			break
		}
		g.evictIdleLocked()
		g.cond.Wait()
	}
	g.total++
	g.byClient[key]++
	return true
}

// evictIdleLocked closes the longest-idle connection, if any. Its server goroutine then sees the connection
// closed and releases the slot.
func (g *connGuard) evictIdleLocked() {
	var oldest *guardedConn
	var since time.Time
	for c, t := range g.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest != nil {
		delete(g.idle, oldest)
		oldest.Conn.Close()
	}
}

// track is the server's ConnState hook.
func (g *connGuard) track(c net.Conn, st http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	gc, ok := c.(*guardedConn)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if st == http.StateIdle && !gc.released {
		g.idle[gc] = time.Now()
	} else {
		delete(g.idle, gc)
	}
}

// guardedConn releases its slot when closed (by the server, a hijacker or an eviction).
type guardedConn struct {
	net.Conn
	g        *connGuard
	key      string
	once     sync.Once
	released bool // under g.mu
}

// Close closes the connection and frees its slot.
func (c *guardedConn) Close() error {
	c.once.Do(func() {
		g := c.g
		g.mu.Lock()
		c.released = true
		g.total--
		if g.byClient[c.key]--; g.byClient[c.key] <= 0 {
			delete(g.byClient, c.key)
		}
		delete(g.idle, c)
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	return c.Conn.Close()
}
