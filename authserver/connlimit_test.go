package authserver

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// waitConns waits until srv holds want connections (the guard admits them after the dial returns).
func waitConns(t *testing.T, srv *Server, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, st := srv.guard.snapshot()
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %d connections, want %d (%+v)", n, want, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// closedOnes returns the indexes of the connections the server has closed.
func closedOnes(cs []net.Conn) []int {
	closed := make([]bool, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			closed[i] = closedByServer(c, 150*time.Millisecond)
		}()
	}
	wg.Wait()
	var out []int
	for i, ok := range closed {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// serveBlocking serves requests that wait until release is closed.
func serveBlocking(t *testing.T, c ServerConfig, release chan struct{}) (*Server, string) {
	t.Helper()
	return serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, "ok")
	}), c)
}

// At the cap the connections that have sent nothing go first, then those in the middle of their headers, and
// idle keep-alive connections last; a busy one is never closed.
func TestServerEvictsLeastUsefulFirst(t *testing.T) {
	srv, addr := serveGuarded(t, ServerConfig{MaxConns: 6, MaxConnsPerClient: 6})
	// One address holds 2 idle keep-alive connections, 2 connections with half a request line, 2 silent ones.
	// Each idle one is seen idle before the next is used: the server marks a connection idle after the client
	// has its answer, so without the wait the second could go idle first and count as the older.
	var held []net.Conn
	for i := range 2 {
		c := dialFrom(t, "127.7.0.1", addr)
		if err := get(c, addr); err != nil {
			t.Fatal(err)
		}
		waitClass(t, srv, classIdle, i+1)
		held = append(held, c)
	}
	for range 2 {
		c := dialFrom(t, "127.7.0.1", addr)
		fmt.Fprintf(c, "GET / HT")
		held = append(held, c)
	}
	waitConns(t, srv, 4)
	waitClass(t, srv, classHeader, 2)
	for range 2 {
		held = append(held, dialFrom(t, "127.7.0.1", addr))
	}
	waitConns(t, srv, 6)
	// Newcomers from other addresses, one at a time, each served.
	want := [][]int{{4}, {4, 5}, {2, 4, 5}, {2, 3, 4, 5}, {0, 2, 3, 4, 5}}
	for i, w := range want {
		c := dialFrom(t, fmt.Sprintf("127.7.1.%d", i+1), addr)
		if err := get(c, addr); err != nil {
			t.Fatalf("newcomer %d: %v", i, err)
		}
		if got := closedOnes(held); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("after newcomer %d the closed connections are %v, want %v (silent 4-5, header 2-3, idle 0-1)", i, got, w)
		}
	}
}

// waitClass waits until n connections are of class cl.
func waitClass(t *testing.T, srv *Server, cl connClass, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := srv.guard
		g.mu.Lock()
		got := 0
		for c := range g.conns {
			if c.classLocked() == cl {
				got++
			}
		}
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections are of class %d, want %d", got, cl, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// An address at its share of a full server gets no more connections, and one that could only displace a client
// holding about as many as it does neither; an address new to the server always gets in.
func TestServerSharesTheCapBetweenAddresses(t *testing.T) {
	srv, addr := serveGuarded(t, ServerConfig{MaxConns: 8, MaxConnsPerClient: 8})
	var a []net.Conn
	for range 8 {
		a = append(a, dialFrom(t, "127.8.0.1", addr))
	}
	waitConns(t, srv, 8)
	// B, new: takes the place of one of A's silent connections.
	b := dialFrom(t, "127.8.0.2", addr)
	if err := get(b, addr); err != nil {
		t.Fatalf("a new address at the cap: %v", err)
	}
	if got := closedOnes(a); len(got) != 1 || got[0] != 0 {
		t.Fatalf("closed %v of A's connections, want its oldest ([0])", got)
	}
	// B opens 3 more (it holds fewer than A minus one each time): A goes down to 4, B up to 4, its share.
	var bs []net.Conn
	for range 3 {
		c := dialFrom(t, "127.8.0.2", addr)
		if err := get(c, addr); err != nil {
			t.Fatal(err)
		}
		bs = append(bs, c)
	}
	if got := closedOnes(a); len(got) != 4 {
		t.Fatalf("A lost %v, want 4 connections", got)
	}
	_, before := srv.guard.snapshot()
	// Both at their share (8 / 2): a fifth connection of either is closed at once, and nobody else loses one.
	for _, ip := range []string{"127.8.0.1", "127.8.0.2"} {
		c := dialFrom(t, ip, addr)
		if !closedByServer(c, 3*time.Second) {
			t.Fatalf("%s over its share was not closed", ip)
		}
	}
	if got := closedOnes(a); len(got) != 4 {
		t.Fatalf("A lost %v, want still 4 connections", got)
	}
	if got := closedOnes(append(bs, b)); len(got) != 0 {
		t.Fatalf("B lost %v", got)
	}
	if _, after := srv.guard.snapshot(); after.overShare-before.overShare != 2 {
		t.Fatalf("refused over the share: %d, want 2", after.overShare-before.overShare)
	}
	// A third address holding nothing still gets in (share 3 of 8 each; it displaces a silent connection of A).
	c := dialFrom(t, "127.8.0.3", addr)
	if err := get(c, addr); err != nil {
		t.Fatalf("a third address at the cap: %v", err)
	}
	if got := closedOnes(a); len(got) != 5 {
		t.Fatalf("A lost %v, want 5 connections", got)
	}
}

// A connection serving a request is never closed to make room: at a cap full of busy connections a newcomer
// waits for a slot, and gets one when a request ends.
func TestServerWaitsWhenAllBusy(t *testing.T) {
	release := make(chan struct{})
	srv, addr := serveBlocking(t, ServerConfig{MaxConns: 2, MaxConnsPerClient: 2}, release)
	var busy []net.Conn
	for range 2 {
		c := dialFrom(t, "127.9.0.1", addr)
		fmt.Fprintf(c, "GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
		busy = append(busy, c)
	}
	waitBusy(t, srv, 2)
	c := dialFrom(t, "127.9.0.2", addr)
	done := make(chan error, 1)
	go func() { done <- get(c, addr) }()
	select {
	case err := <-done:
		t.Fatalf("the newcomer was answered while every connection was busy: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if got := closedOnes(busy); len(got) != 0 {
		t.Fatalf("busy connections closed: %v", got)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the newcomer after a request ended: %v", err)
	}
}

// waitBusy waits until n connections are serving a request.
func waitBusy(t *testing.T, srv *Server, n int) {
	t.Helper()
	waitClass(t, srv, classBusy, n)
}
