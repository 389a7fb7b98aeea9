package authserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveTest runs NewServer(h, c) on a loopback port until the test ends.
func serveTest(t *testing.T, c ServerConfig) string {
	t.Helper()
	_, addr := serveGuarded(t, c)
	return addr
}

// serveGuarded is serveTest that also returns the server.
func serveGuarded(t *testing.T, c ServerConfig) (*Server, string) {
	t.Helper()
	return serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }), c)
}

// serveHandler runs NewServer(h, c) on a loopback port until the test ends.
func serveHandler(t *testing.T, h http.Handler, c ServerConfig) (*Server, string) {
	t.Helper()
	srv, err := NewServer(h, c)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, ln.Addr().String()
}

// dialFrom connects from the loopback address ip.
func dialFrom(t *testing.T, ip, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get makes one request on c and leaves the connection open (idle).
func get(c net.Conn, addr string) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// closedByServer reports whether the server has closed c (a read ends with EOF or a reset within wait).
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	defer c.SetReadDeadline(time.Time{})
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func TestServerConnectionCaps(t *testing.T) {
	addr := serveTest(t, ServerConfig{MaxConns: 8, MaxConnsPerClient: 4})
	// Two clients fill the cap with idle keep-alive connections.
	var idle []net.Conn
	for i := range 8 {
		c := dialFrom(t, fmt.Sprintf("127.6.0.%d", i/4+1), addr)
		if err := get(c, addr); err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		idle = append(idle, c)
		// Space the connections' idle times, so "longest idle" is idle[0] even on a loaded machine (the
		// server learns a connection went idle from a state hook that runs after the answer is written).
		time.Sleep(25 * time.Millisecond)
	}
	// A newcomer is served: the longest-idle connection is closed for it.
	c := dialFrom(t, "127.6.0.3", addr)
	if err := get(c, addr); err != nil {
		t.Fatalf("newcomer at the cap: %v", err)
	}
	if !closedByServer(idle[0], 3*time.Second) {
		t.Fatal("the longest-idle connection was not closed")
	}
}

func TestServerConnectionsPerClient(t *testing.T) {
	addr := serveTest(t, ServerConfig{MaxConns: 100, MaxConnsPerClient: 4})
	// A client past its own cap, far from the overall cap: the extra connections are closed as they arrive.
	var mine []net.Conn
	for range 10 {
		mine = append(mine, dialFrom(t, "127.6.0.4", addr))
	}
	if closed := len(closedOnes(mine)); closed != 6 {
		t.Fatalf("10 connections of one client with a cap of 4: %d closed, want 6", closed)
	}
}

func TestNewServerDefaults(t *testing.T) {
	s, err := NewServer(http.NotFoundHandler(), ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if s.ReadHeaderTimeout != DefaultReadHeaderTimeout || s.ReadTimeout != DefaultReadTimeout ||
		s.WriteTimeout != DefaultWriteTimeout || s.IdleTimeout != DefaultIdleTimeout || s.MaxHeaderBytes != DefaultMaxHeaderBytes ||
		s.guard.max != DefaultMaxConns || s.guard.perClient != DefaultMaxConnsPerClient || s.ConnState == nil {
		t.Fatalf("defaults: %+v %+v", s.Server, s.guard)
	}
	s, err = NewServer(http.NotFoundHandler(), ServerConfig{MaxConns: -1, MaxConnsPerClient: -1, IdleTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.guard.max >= 0 || s.guard.perClient >= 0 || s.IdleTimeout != time.Second {
		t.Fatalf("config: %+v %+v", s.Server, s.guard)
	}
	for name, c := range map[string]ServerConfig{
		"ReadHeaderTimeout": {ReadHeaderTimeout: -1}, "ReadTimeout": {ReadTimeout: -1}, "WriteTimeout": {WriteTimeout: -1},
		"IdleTimeout": {IdleTimeout: -1}, "MaxHeaderBytes": {MaxHeaderBytes: -1},
	} {
		if _, err := NewServer(http.NotFoundHandler(), c); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("negative %s: %v", name, err)
		}
	}
	if _, err := NewServer(nil, ServerConfig{}); err == nil {
		t.Error("nil handler accepted")
	}
}
