//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/signer"
)

// syncBuffer is a bytes.Buffer safe for the server's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestServeStaticAndSignIn(t *testing.T) {
	env := devstack.MustLoad(t)
	m := map[string]string{"MORALIS_SERVER_URL": env.ServerURL, "MORALIS_APP_ID": env.AppID, "MORALIS_JS_KEY": env.JavaScriptKey,
		"MORALIS_MASTER_KEY": env.MasterKey} // the master key issues each sign-in's backend ticket
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<h1>demo</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, []string{"-static", dir, "-no-address-objects"}, m)
	base, logb := srv.base, srv.logs
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(path string) (int, string) {
		resp, err := hc.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "<h1>demo</h1>") {
		t.Fatalf("static: %d %q", code, body)
	}
	s, _ := signer.GenerateKey()
	address := strings.ToLower(s.Address().Hex())
	code, body := get("/auth/message?chain=evm&address=" + address)
	var msg struct{ Message, Nonce string }
	if code != 200 || json.Unmarshal([]byte(body), &msg) != nil {
		t.Fatalf("message: %d %s", code, body)
	}
	if !strings.HasPrefix(msg.Message, strings.TrimPrefix(base, "http://")+" wants you to sign in") {
		t.Fatalf("SIWE domain: %q", msg.Message)
	}
	sig, _ := s.SignMessage(t.Context(), []byte(msg.Message))
	reqBody, _ := json.Marshal(map[string]string{"chain": "evm", "address": address, "message": msg.Message, "signature": "0x" + hex.EncodeToString(sig)})
	resp, err := hc.Post(base+"/auth/signin", "application/json", bytes.NewReader(reqBody))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("signin: %d %s\n%s", resp.StatusCode, b, logb.String())
	}
	if strings.Contains(string(b), env.JavaScriptKey) {
		t.Fatal("the JavaScript key reached the browser")
	}
	// The cookie set by /signin carries the session to /me.
	if code, body := get("/auth/me"); code != 200 || !strings.Contains(body, address) {
		t.Fatalf("me by cookie: %d %s", code, body)
	}
	srv.stop(t)
}

// testServer is examples/authserver's run() started on a free loopback port.
type testServer struct {
	base   string
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// startServer runs the server with args (plus -addr 127.0.0.1:0) and the environment m, and waits until it listens.
// It is stopped when the test ends, or earlier with stop.
func startServer(t *testing.T, args []string, m map[string]string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &testServer{logs: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	addrc := make(chan string, 1)
	go func() {
		s.done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), func(k string) string { return m[k] }, s.logs,
			func(a string) { addrc <- a })
	}()
	t.Cleanup(cancel)
	select {
	case a := <-addrc:
		s.base = "http://" + a
	case err := <-s.done:
		t.Fatalf("server ended: %v\n%s", err, s.logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	return s
}

// stop shuts the server down and checks that it ended cleanly.
func (s *testServer) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
}
