package authserver

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Connection accounting of Server: the rule is in Server's documentation ("Connections at the cap").

// connClass orders connections from the least useful (evicted first) to the most.
type connClass int

const (
	classSilent connClass = iota // accepted, no byte received yet
	classHeader                  // bytes of a request received, its headers not complete
	classIdle                    // keep-alive, between requests
	classBusy                    // serving a request, or hijacked: never evicted
)

// connGuard counts the open connections overall and per client address and knows each one's class (through the
// server's ConnState hook and the bytes its connections read), so at the cap it can make room for a newcomer by
// closing a connection doing the least useful work, fairly between addresses.
type connGuard struct {
	max, perClient int

	mu       sync.Mutex
	cond     *sync.Cond
	total    int
	byClient map[string]*connClient
	conns    map[*guardedConn]struct{}
	stats    connStats
}

// connClient is one client address's open connections.
type connClient struct {
	key string
	n   int
}

// connStats counts the guard's decisions (for tests and benchmarks).
type connStats struct {
	admitted, overClient, overShare, unfair int
	evicted                                 [classBusy]int
}

func newConnGuard(max, perClient int) *connGuard {
	g := &connGuard{max: max, perClient: perClient, byClient: map[string]*connClient{},
		conns: map[*guardedConn]struct{}{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *connGuard) wrap(ln net.Listener) net.Listener { return &guardedListener{Listener: ln, g: g} }

type guardedListener struct {
	net.Listener
	g      *connGuard
	closed sync.Once
	done   bool // under g.mu
}

// Accept returns the next connection the guard admits; the others are closed as they arrive.
func (l *guardedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if gc := l.g.admit(l, c); gc != nil {
			return gc, nil
		}
		c.Close()
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

// admit applies the rule of Server's documentation to c: it returns c wrapped and counted, or nil when c must be
// closed. It may close another connection to make room, and waits while every connection is busy.
func (g *connGuard) admit(l *guardedListener, c net.Conn) *guardedConn {
	key := clientAddr(c.RemoteAddr().String())
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if l.done {
			return nil
		}
		cl := g.byClient[key]
		n := 0
		if cl != nil {
			n = cl.n
		}
		if g.perClient > 0 && n >= g.perClient {
			g.stats.overClient++
			return nil
		}
		if g.max <= 0 || g.total < g.max {
			break
		}
		if n >= g.shareLocked(cl == nil) {
			g.stats.overShare++
			return nil
		}
		v, evictable := g.victimLocked(n + 2)
		if v == nil && n == 0 {
			v, _ = g.victimLocked(1)
		}
		if v != nil {
			g.stats.evicted[v.classLocked()]++
			g.releaseLocked(v)
			v.Conn.Close() // its server goroutine sees the connection closed and ends
			break
		}
		if evictable {
			g.stats.unfair++
			return nil
		}
		g.cond.Wait()
	}
	cl := g.byClient[key]
	if cl == nil {
		cl = &connClient{key: key}
		g.byClient[key] = cl
	}
	cl.n++
	g.total++
	g.stats.admitted++
	gc := &guardedConn{Conn: c, g: g, client: cl, state: http.StateNew, since: time.Now()}
	g.conns[gc] = struct{}{}
	return gc
}

// shareLocked is the most connections one address may hold at the cap: the cap divided by the addresses holding
// connections (plus the newcomer's when it holds none), rounded up.
func (g *connGuard) shareLocked(newAddress bool) int {
	addrs := len(g.byClient)
	if newAddress {
		addrs++
	}
	return (g.max + addrs - 1) / addrs
}

// victimLocked returns the connection to close for a newcomer: among the silent, header and idle connections of
// addresses holding at least minHeld, the least useful class, then the address holding the most, then the one in
// its state the longest; nil when there is none. evictable reports whether any connection at all could be closed.
func (g *connGuard) victimLocked(minHeld int) (v *guardedConn, evictable bool) {
	var vc connClass
	for c := range g.conns {
		cc := c.classLocked()
		if cc == classBusy {
			continue
		}
		evictable = true
		if c.client.n < minHeld {
			continue
		}
		if v == nil || cc < vc || (cc == vc && (c.client.n > v.client.n ||
			(c.client.n == v.client.n && c.since.Before(v.since)))) {
			v, vc = c, cc
		}
	}
	return v, evictable
}

// releaseLocked frees c's slot (once).
func (g *connGuard) releaseLocked(c *guardedConn) {
	if c.released {
		return
	}
	c.released = true
	delete(g.conns, c)
	g.total--
	if c.client.n--; c.client.n <= 0 {
		delete(g.byClient, c.client.key)
	}
	g.cond.Broadcast()
}

// track is the server's ConnState hook: it keeps each connection's state and when it entered it.
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
	if st == http.StateIdle {
		gc.heard.Store(false) // from now on a byte read starts the next request's headers
		g.cond.Broadcast()    // an Accept waiting while every connection was busy may now make room
	}
	gc.state, gc.since = st, time.Now()
}

// snapshot returns the open connections and the decisions so far.
func (g *connGuard) snapshot() (total int, s connStats) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total, g.stats
}

// guardedConn is an admitted connection: it notes when bytes arrive and releases its slot when closed (by the
// server, a hijacker or an eviction).
type guardedConn struct {
	net.Conn
	g      *connGuard
	client *connClient
	heard  atomic.Bool // bytes read since the connection was accepted or last went idle
	once   sync.Once

	// under g.mu
	state    http.ConnState
	since    time.Time
	released bool
}

// Read reads from the connection and notes that the client has sent something.
func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.heard.Load() {
		c.heard.Store(true)
	}
	return n, err
}

// classLocked is c's class now.
func (c *guardedConn) classLocked() connClass {
	switch c.state {
	case http.StateNew:
		if c.heard.Load() {
			return classHeader
		}
		return classSilent
	case http.StateIdle:
		if c.heard.Load() {
			return classHeader
		}
		return classIdle
	default:
		return classBusy
	}
}

// Close closes the connection and frees its slot.
func (c *guardedConn) Close() error {
	c.once.Do(func() {
		c.g.mu.Lock()
		c.g.releaseLocked(c)
		c.g.mu.Unlock()
	})
	return c.Conn.Close()
}
