package live_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
)

// ackLaterServer is a LiveQuery server that confirms the subscription on a second connection only after a pause,
// and drops the first connection when told to.
type ackLaterServer struct {
	conns    atomic.Int32
	acked2   atomic.Bool
	dropOne  chan struct{}
	upgrader websocket.Upgrader
}

func (s *ackLaterServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	n := s.conns.Add(1)
	var mu sync.Mutex
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = conn.WriteJSON(v)
	}
	if n == 1 {
		go func() {
			<-s.dropOne
			conn.Close()
		}()
	}
	for {
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			return
		}
		switch m["op"] {
		case "connect":
			send(map[string]any{"op": "connected", "clientId": n})
		case "subscribe":
			if n == 1 {
				send(map[string]any{"op": "subscribed", "clientId": n, "requestId": m["requestId"]})
				continue
			}
			go func(id any) {
				time.Sleep(150 * time.Millisecond)
				s.acked2.Store(true)
				send(map[string]any{"op": "subscribed", "clientId": n, "requestId": id})
			}(m["requestId"])
		}
	}
}

// orderRunner records, for each query after the first, whether the server had confirmed the subscription.
type orderRunner struct {
	srv     *ackLaterServer
	calls   atomic.Int32
	early   atomic.Bool
	catchUp chan struct{}
}

func (r *orderRunner) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	if r.calls.Add(1) > 1 {
		if !r.srv.acked2.Load() {
			r.early.Store(true)
		}
		select {
		case r.catchUp <- struct{}{}:
		default:
		}
	}
	return &parse.QueryResponse{}, nil
}

// A change made between a catch-up query and the server's subscription would be missed for good: after a
// reconnect the client re-runs its query only once the server has confirmed the new subscription.
func TestCatchUpWaitsForTheSubscription(t *testing.T) {
	srv := &ackLaterServer{dropOne: make(chan struct{})}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	runner := &orderRunner{srv: srv, catchUp: make(chan struct{}, 1)}
	ctx := context.Background()
	lc, err := live.Dial(ctx, live.Config{URL: "ws" + strings.TrimPrefix(hs.URL, "http"), AppID: "app",
		Runner: runner, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	if _, err := lc.Subscribe(ctx, "Thing", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	close(srv.dropOne)
	select {
	case <-runner.catchUp:
	case <-time.After(10 * time.Second):
		t.Fatal("no catch-up query after the reconnect")
	}
	if runner.early.Load() {
		t.Fatal("the catch-up query ran before the server confirmed the new subscription")
	}
}
