//go:build integration

package authserver

// Issue 32, item 1: connections that never send a byte, from many client addresses, re-dialled as the server closes
// them. Before the connection accounting of connlimit.go a fresh user's sign-in got no answer within 10 s (only
// idle keep-alive connections could be evicted at the cap, and new ones queued behind the attacker's re-dials).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/google/uuid"
)

// floodEndpoint serves the endpoint at its defaults (Handler and Server) over the real backend on 127.0.0.1.
func floodEndpoint(tb testing.TB) (*Server, string) {
	tb.Helper()
	env := devstack.MustLoad(tb)
	be, err := NewClientBackend(BackendConfig{Client: client.Config{ServerURL: env.ServerURL, AppID: env.AppID,
		JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey, InstallationID: uuid.NewString()}})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := NewHandler(be, Config{AppID: env.AppID, Domain: "app.example", URI: "https://app.example", ChainID: 1,
		AllowedOrigins: []string{"https://app.example"}})
	if err != nil {
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/", http.StripPrefix("/auth", h))
	srv, err := NewServer(mux, ServerConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return srv, ln.Addr().String()
}

// silentFlood opens each connections from each of addrs loopback addresses (127.0.0.2 on), sends nothing, and dials
// again as soon as the server closes one, until stop is called.
func silentFlood(addr string, addrs, each int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for a := range addrs {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+a))}, Timeout: 5 * time.Second}
		for range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 1)
				for {
					select {
					case <-done:
						return
					default:
					}
					c, err := d.Dial("tcp", addr)
					if err != nil {
						time.Sleep(10 * time.Millisecond) // the kernel's queue is full: try again
						continue
					}
					go func() { <-done; c.Close() }()
					c.Read(buf) // returns when the server closes the connection (or at stop)
					c.Close()
				}
			}()
		}
	}
	return func() { close(done); wg.Wait() }
}

// freshSignIn signs a new wallet in through the endpoint from loopback address ip: GET /message, personal_sign,
// POST /signin, then GET /me with the cookie. It returns the first failure.
func freshSignIn(ctx context.Context, addr, ip string) error {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	hc := &http.Client{Jar: jar, Transport: &http.Transport{DialContext: d.DialContext}}
	defer hc.CloseIdleConnections()
	base := "http://" + addr + "/auth"
	s, err := signer.GenerateKey()
	if err != nil {
		return err
	}
	address := strings.ToLower(s.Address().Hex())
	call := func(method, path string, in, out any) error {
		var body io.Reader
		if in != nil {
			b, _ := json.Marshal(in)
			body = strings.NewReader(string(b))
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, body)
		if err != nil {
			return err
		}
		req.Header.Set("Origin", "https://app.example")
		if in != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		return json.Unmarshal(raw, out)
	}
	var msg struct{ Message string }
	if err := call("GET", "/message?chain=evm&address="+address, nil, &msg); err != nil {
		return err
	}
	sig, err := s.SignMessage(ctx, []byte(msg.Message))
	if err != nil {
		return err
	}
	var in struct{ User PublicUser }
	if err := call("POST", "/signin", map[string]string{"chain": "evm", "address": address, "message": msg.Message,
		"signature": fmt.Sprintf("0x%x", sig)}, &in); err != nil {
		return err
	}
	var me struct{ User PublicUser }
	if err := call("GET", "/me", nil, &me); err != nil {
		return err
	}
	if me.User.EthAddress != address || me.User.ObjectID != in.User.ObjectID {
		return fmt.Errorf("GET /me: %+v, want the user signed in (%s, %s)", me.User, in.User.ObjectID, address)
	}
	return nil
}

// waitFull waits until srv holds its cap of connections.
func waitFull(tb testing.TB, srv *Server) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, st := srv.guard.snapshot()
		if n >= DefaultMaxConns {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the flood filled %d of %d connections (%+v)", n, DefaultMaxConns, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// 60 addresses × 64 connections that never send a byte, re-dialled as closed, against the endpoint at its defaults
// over the real backend: a fresh user from another address still signs in (a generous deadline: the assertion is
// that it gets through at all; BenchmarkSignInUnderSilentFlood measures how fast).
func TestAttackSilentConnectionsFromManyAddresses(t *testing.T) {
	srv, addr := floodEndpoint(t)
	stop := silentFlood(addr, 60, 64)
	defer stop()
	waitFull(t, srv)
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := freshSignIn(ctx, addr, fmt.Sprintf("127.0.1.%d", i+1))
		cancel()
		if err != nil {
			_, st := srv.guard.snapshot()
			t.Fatalf("round %d: a fresh user's sign-in under the flood: %v (guard %+v)", i, err, st)
		}
	}
	_, st := srv.guard.snapshot()
	if st.evicted[classSilent] == 0 || st.overShare == 0 {
		t.Fatalf("the flood was not met by evictions of silent connections and refusals over the share: %+v", st)
	}
	t.Logf("guard: %+v", st)
}

// BenchmarkSignInUnderSilentFlood reports a fresh user's whole sign-in (message, sign-in, me) through the endpoint
// at its defaults: on a quiet server, and while 60 addresses × 64 silent connections are re-dialled against it.
func BenchmarkSignInUnderSilentFlood(b *testing.B) {
	for _, flood := range []bool{false, true} {
		name := "quiet"
		if flood {
			name = "60x64-silent"
		}
		b.Run(name, func(b *testing.B) {
			srv, addr := floodEndpoint(b)
			if flood {
				stop := silentFlood(addr, 60, 64)
				defer stop()
				waitFull(b, srv)
			}
			b.ResetTimer()
			for i := range b.N {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				err := freshSignIn(ctx, addr, fmt.Sprintf("127.0.%d.%d", 2+i/250, 1+i%250))
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
