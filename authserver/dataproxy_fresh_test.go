package authserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// seqChain answers call i with {"balance":"i"} (from 1); a call waits on the gate of its number when there is one.
type seqChain struct {
	calls atomic.Int32
	mu    sync.Mutex
	gates map[int32]chan struct{}
}

func (s *seqChain) Raw(ctx context.Context, method, path string, q url.Values, body any, out any) error {
	n := s.calls.Add(1)
	s.mu.Lock()
	gate := s.gates[n]
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	*(out.(*json.RawMessage)) = json.RawMessage(fmt.Sprintf(`{"balance":"%d"}`, n))
	return nil
}

func (e *proxyEnv) getFresh(path, tok string) answer {
	e.t.Helper()
	h := cookie(tok)
	h["Cache-Control"] = "max-age=0, No-Cache"
	return e.do("GET", path, "", "", h)
}

// Cache-Control: no-cache (sent by the hooks after a receipt) skips the cached answer, and the fresh answer is what
// later requests are served. Fails when the proxy ignores the header.
func TestDataProxyNoCacheGetsAFreshAnswer(t *testing.T) {
	s := &seqChain{}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = s })
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"1"}` || a.header.Get("X-Cache") != "MISS" {
		t.Fatalf("first: %s %q", a.raw, a.header.Get("X-Cache"))
	}
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"1"}` || a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("cached: %s %q", a.raw, a.header.Get("X-Cache"))
	}
	if a := e.getFresh("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` || a.header.Get("X-Cache") != "MISS" {
		t.Fatalf("no-cache: %s %q", a.raw, a.header.Get("X-Cache"))
	}
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` || a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("after no-cache: %s %q, want the fresh answer from the cache", a.raw, a.header.Get("X-Cache"))
	}
	if n := s.calls.Load(); n != 2 {
		t.Fatalf("upstream calls: %d, want 2", n)
	}
	// The preflight lets a cross-origin page send the header.
	pre := e.do("OPTIONS", "/data/chain/balance", "", "", map[string]string{"Origin": "https://app.example",
		"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "cache-control"})
	if pre.status != 204 || pre.header.Get("Access-Control-Allow-Headers") != "Content-Type, Authorization, Cache-Control" {
		t.Fatalf("preflight: %d %v", pre.status, pre.header)
	}
}

// A fresh request does not join a call that began before it, and that older call's answer, arriving last, does not
// replace the fresh one in the cache. Fails when fresh requests share the older flight, or when the cache keeps
// whichever answer came last.
func TestDataProxyNoCacheIsNotOverwrittenByAnOlderCall(t *testing.T) {
	s := &seqChain{gates: map[int32]chan struct{}{1: make(chan struct{})}}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Chain = s })
	old := make(chan answer, 1)
	go func() { old <- e.get("/data/chain/balance", proxyToken) }()
	for deadline := time.Now().Add(5 * time.Second); s.calls.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the first call never reached the chain")
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.clock.Add(time.Second) // the transaction lands; the page asks again
	if a := e.getFresh("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` {
		t.Fatalf("fresh request joined the older call or was served stale: %s", a.raw)
	}
	close(s.gates[1])
	if a := <-old; a.raw != `{"balance":"1"}` {
		t.Fatalf("older call: %s", a.raw)
	}
	if a := e.get("/data/chain/balance", proxyToken); a.raw != `{"balance":"2"}` || a.header.Get("X-Cache") != "HIT" {
		t.Fatalf("cache after both: %s %q, want the fresh answer", a.raw, a.header.Get("X-Cache"))
	}
}
