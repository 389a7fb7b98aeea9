package httpx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closingServer is a raw HTTP/1.1 server on 127.0.0.1: on its first connection it answers one request, with
// keep-alive, and then closes the connection; on later connections it answers every request. It counts the
// requests it read, by "METHOD path".
type closingServer struct {
	ln    net.Listener
	conns atomic.Int32
	mu    sync.Mutex
	seen  map[string]int
}

func startClosingServer(t *testing.T) *closingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &closingServer{ln: ln, seen: map[string]int{}}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c, s.conns.Add(1) == 1)
		}
	}()
	return s
}

func (s *closingServer) serve(c net.Conn, first bool) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		s.seen[req.Method+" "+req.URL.Path]++
		s.mu.Unlock()
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
			return
		}
		if first {
			return // keep-alive was promised; the connection is closed anyway, idle
		}
	}
}

func (s *closingServer) count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[what]
}

func (s *closingServer) url(path string) string { return "http://" + s.ln.Addr().String() + path }

// heldConn is the client's side of the server's first connection. When it reads the server's close (EOF), it
// holds it back until release is closed, and it reports its own Close on closed: so a test can let net/http take
// the connection from its idle pool before net/http learns that the server closed it.
type heldConn struct {
	net.Conn
	release   chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *heldConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if errors.Is(err, io.EOF) {
		<-c.release
	}
	return n, err
}

func (c *heldConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// closedIdleClient is an *http.Client whose first connection is a heldConn, and a context whose trace releases
// that connection's EOF when net/http hands the connection, reused, to a request, then waits until net/http has
// closed it: that request then fails with net/http's errServerClosedIdle, every time.
func closedIdleClient(t *testing.T) (*http.Client, context.Context) {
	t.Helper()
	held := make(chan *heldConn, 1)
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil || dials.Add(1) != 1 {
			return c, err
		}
		hc := &heldConn{Conn: c, release: make(chan struct{}), closed: make(chan struct{})}
		held <- hc
		return hc, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			return
		}
		hc := <-held
		close(hc.release)
		select {
		case <-hc.closed:
		case <-time.After(10 * time.Second):
			t.Error("net/http did not close the connection the server closed")
		}
	}}
	return &http.Client{Transport: tr}, httptrace.WithClientTrace(context.Background(), trace)
}

// realServerClosedIdle makes net/http's errServerClosedIdle for real: a POST (which net/http does not resend by
// itself) on a kept-alive connection the server closed.
func realServerClosedIdle(t *testing.T) error {
	t.Helper()
	srv := startClosingServer(t)
	hc, ctx := closedIdleClient(t)
	resp, err := hc.Get(srv.url("/prime"))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.url("/write"), strings.NewReader(`{}`))
	require.NoError(t, err)
	resp, err = hc.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("the POST on the connection the server closed got an answer")
	}
	assert.Equal(t, 0, srv.count("POST /write"), "the server read the POST")
	return err
}

// serverClosedIdle knows net/http's own error, as http.Client returns it (wrapped in a *url.Error) and further
// wrapped, and nothing else that merely mentions it.
func TestServerClosedIdleIsNetHTTPsError(t *testing.T) {
	err := realServerClosedIdle(t)
	require.True(t, serverClosedIdle(err), "net/http's error %q is not recognised", err)
	assert.Equal(t, serverClosedIdleText, errors.Unwrap(err).Error(), "net/http's error text changed")
	assert.True(t, serverClosedIdle(fmt.Errorf("resty: %w", err)))
	assert.True(t, serverClosedIdle(errors.Join(errors.New("other"), err)))
	assert.False(t, serverClosedIdle(errors.New("backend said: "+serverClosedIdleText)))
	assert.False(t, serverClosedIdle(io.ErrUnexpectedEOF))
	assert.False(t, serverClosedIdle(nil))
}

// A write that may not be replayed (ReplayNever) on a kept-alive connection the server closed meanwhile is sent
// again on a new connection, not reported in doubt: the server never read it.
func TestWriteOnConnectionTheServerClosedIsSentAgain(t *testing.T) {
	srv := startClosingServer(t)
	hc, ctx := closedIdleClient(t)
	c := New(hc, Policy{Sleep: noSleep})
	resp, err := c.Do(context.Background(), &Request{Method: "GET", URL: srv.url("/prime")})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	resp, err = c.Do(ctx, &Request{Method: "POST", URL: srv.url("/write"), Body: []byte(`{}`), Write: true, Replay: ReplayNever})
	require.NoError(t, err)
	assert.Equal(t, 200, resp.Status)
	assert.False(t, resp.InDoubt)
	assert.False(t, resp.MaybeAppliedBefore)
	assert.Equal(t, 2, resp.Attempts, "the first attempt met the closed connection")
	assert.Equal(t, 1, srv.count("POST /write"), "the server read the write once")
}

// net/http may report the request written (WroteRequest fires once it is in the connection's buffer) before the
// flush onto the closed connection fails with errServerClosedIdle: the write is still sent again, not in doubt.
// The transport replays that order with the error net/http made above.
func TestServerClosedIdleAfterWroteRequestIsNotInDoubt(t *testing.T) {
	closedIdle := errors.Unwrap(realServerClosedIdle(t))
	var calls atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if calls.Add(1) == 1 {
			if tr := httptrace.ContextClientTrace(r.Context()); tr != nil && tr.WroteRequest != nil {
				tr.WroteRequest(httptrace.WroteRequestInfo{})
			}
			return nil, closedIdle
		}
		return &http.Response{StatusCode: 201, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")),
			ContentLength: 2, Request: r}, nil
	})}
	c := New(hc, Policy{Sleep: noSleep})
	resp, err := c.Do(context.Background(), &Request{Method: "POST", URL: "http://example.invalid/write", Body: []byte(`{}`),
		Write: true, Replay: ReplayNever})
	require.NoError(t, err)
	assert.Equal(t, 201, resp.Status)
	assert.False(t, resp.InDoubt)
	assert.False(t, resp.MaybeAppliedBefore)
	assert.Equal(t, int32(2), calls.Load())
}
