package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
)

// pushServer is a LiveQuery server that confirms every subscription and then sends, on the last connection, the
// messages a test pushes (with the subscription's requestId filled in).
type pushServer struct {
	upgrader websocket.Upgrader

	mu    sync.Mutex
	send  func(v any)
	reqID any
	subd  chan struct{} // closed at the first subscription
	once  sync.Once
}

func newPushServer() *pushServer { return &pushServer{subd: make(chan struct{})} }

func (s *pushServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	var wmu sync.Mutex
	send := func(v any) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = conn.WriteJSON(v)
	}
	for {
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			return
		}
		switch m["op"] {
		case "connect":
			send(map[string]any{"op": "connected", "clientId": 1})
		case "subscribe":
			s.mu.Lock()
			s.send, s.reqID = send, m["requestId"]
			s.mu.Unlock()
			send(map[string]any{"op": "subscribed", "clientId": 1, "requestId": m["requestId"]})
			s.once.Do(func() { close(s.subd) })
		}
	}
}

// event sends one event of kind for obj to the subscription.
func (s *pushServer) event(t *testing.T, kind string, obj map[string]any) {
	t.Helper()
	select {
	case <-s.subd:
	case <-time.After(10 * time.Second):
		t.Fatal("no subscription reached the server")
	}
	s.push(kind, obj)
}

// push sends one event of kind for obj to the subscription, which must have reached the server.
func (s *pushServer) push(kind string, obj map[string]any) {
	s.mu.Lock()
	send, id := s.send, s.reqID
	s.mu.Unlock()
	send(map[string]any{"op": kind, "clientId": 1, "requestId": id, "object": obj})
}

// snapRunner answers every query with the same objects.
type snapRunner struct{ objs []map[string]any }

func (r snapRunner) RunQuery(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
	resp := &parse.QueryResponse{}
	for _, o := range r.objs {
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		resp.Results = append(resp.Results, raw)
	}
	return resp, nil
}

// thing is a Thing as the server sends it, with n and an updatedAt sec seconds into 2026.
func thing(id string, n, sec int) map[string]any {
	at := fmt.Sprintf("2026-01-01T00:00:%02d.000Z", sec)
	return map[string]any{"className": "Thing", "objectId": id, "n": n, "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": at}
}

// subscribeWithSnapshot subscribes to Thing on srv, with runner's objects as the first snapshot.
func subscribeWithSnapshot(t *testing.T, srv *pushServer, runner parse.QueryRunner) *live.Subscription {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	ctx := context.Background()
	lc, err := live.Dial(ctx, live.Config{URL: "ws" + strings.TrimPrefix(hs.URL, "http"), AppID: "app", Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.Close() })
	sub, err := lc.Subscribe(ctx, "Thing", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// next reads one event, failing after 10 s.
func next(t *testing.T, sub *live.Subscription) live.Event {
	t.Helper()
	select {
	case ev, ok := <-sub.Events():
		if !ok {
			t.Fatal("the events channel closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return live.Event{}
}

// numbers gives each snapshot object's id and n, as "id=n".
func numbers(sub *live.Subscription) []string {
	var out []string
	for _, o := range sub.Snapshot() {
		out = append(out, fmt.Sprintf("%s=%v", o.ID(), o.Get("n")))
	}
	return out
}

// A create published late through Redis, for an object the first snapshot already loaded and no event touched
// since, is not delivered (the object was created once, and the subscriber has it from the snapshot), and the view
// keeps the snapshot's object. A create of an object the snapshot did not hold still arrives.
func TestLateCreateOfASnapshotObjectIsDropped(t *testing.T) {
	srv := newPushServer()
	sub := subscribeWithSnapshot(t, srv, snapRunner{objs: []map[string]any{thing("A", 1, 1)}})
	if got := numbers(sub); len(got) != 1 || got[0] != "A=1" {
		t.Fatalf("snapshot %v, want [A=1]", got)
	}
	srv.event(t, "create", thing("A", 7, 0)) // late: the snapshot already has A
	srv.event(t, "create", thing("B", 2, 2)) // a marker: events arrive in order, so A's create was handled first
	ev := next(t, sub)
	if ev.Kind != live.Create || ev.Object.ID() != "B" {
		t.Fatalf("first event %s %s, want create B (the late create of A must not be delivered)", ev.Kind, ev.Object.ID())
	}
	if got := fmt.Sprint(numbers(sub)); got != "[A=1 B=2]" {
		t.Fatalf("view %s, want [A=1 B=2] (the snapshot's A kept)", got)
	}
}

// Only the first event for a snapshot object can be a late create: once an update of the object arrived, a create
// for it that is newer than the update is delivered (the snapshot guard no longer applies; a create older than the
// view's state is superseded, which order_test.go covers).
func TestCreateAfterAnUpdateIsDelivered(t *testing.T) {
	srv := newPushServer()
	sub := subscribeWithSnapshot(t, srv, snapRunner{objs: []map[string]any{thing("A", 1, 1)}})
	srv.event(t, "update", thing("A", 2, 2))
	srv.event(t, "create", thing("A", 0, 3))
	var got []string
	for range 2 {
		ev := next(t, sub)
		got = append(got, fmt.Sprintf("%s %s=%v", ev.Kind, ev.Object.ID(), ev.Object.Get("n")))
	}
	if want := "[update A=2 create A=0]"; fmt.Sprint(got) != want {
		t.Fatalf("events %v, want %s", got, want)
	}
	if len(sub.Snapshot()) != 1 || sub.Snapshot()[0].ID() != "A" {
		t.Fatalf("view %v, want A only", numbers(sub))
	}
}
