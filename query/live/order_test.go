package live_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/query/live"
)

// scripted is one event a scriptServer sends: op, objectId, the object's updatedAt in ms after base (negative:
// none) and its seq field.
type scripted struct {
	op  string
	id  string
	at  int
	seq int
}

var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// scriptServer is a LiveQuery server (a pushServer) that confirms the subscription, then sends its script's events
// in order.
func scriptServer(t *testing.T, script []scripted) string {
	t.Helper()
	srv := newPushServer()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	go func() {
		select {
		case <-srv.subd:
		case <-time.After(10 * time.Second):
			return // the test fails waiting for its events
		}
		for _, e := range script {
			obj := map[string]any{"className": "Thing", "objectId": e.id, "seq": e.seq}
			if e.at >= 0 {
				obj["updatedAt"] = base.Add(time.Duration(e.at) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
			}
			srv.push(e.op, obj)
		}
	}()
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}

// received subscribes to a scriptServer playing script and returns what the subscription delivered, as
// "op id seq" (with " superseded" for marked events), once n events arrived, and the subscription.
func received(t *testing.T, script []scripted, n int, deliverSuperseded bool) ([]string, *live.Subscription) {
	t.Helper()
	ctx := context.Background()
	lc, err := live.Dial(ctx, live.Config{URL: scriptServer(t, script), AppID: "app", DeliverSuperseded: deliverSuperseded})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.Close() })
	sub, err := lc.Subscribe(ctx, "Thing", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < n {
		select {
		case ev := <-sub.Events():
			s := fmt.Sprintf("%s %s %d", ev.Kind, ev.Object.ID(), ev.Object.Int("seq"))
			if ev.Superseded {
				s += " superseded"
			}
			got = append(got, s)
		case <-time.After(5 * time.Second):
			t.Fatalf("got %q, want %d events", got, n)
		}
	}
	// Nothing more arrives: the script's last event is a marker that must be the last delivered.
	select {
	case ev := <-sub.Events():
		t.Fatalf("an event after the script's last: %s %s %d", ev.Kind, ev.Object.ID(), ev.Object.Int("seq"))
	case <-time.After(50 * time.Millisecond):
	}
	return got, sub
}

// With saves of one object spread over two parse-servers, a save's event can arrive after the next save's: the
// late event (an older state) is not delivered, and counted. Fails when the guard is removed (tried: every case
// below then delivers the older state after the newer one, or brings the deleted object back).
func TestSupersededEventsAreDropped(t *testing.T) {
	cases := []struct {
		name   string
		script []scripted
		want   []string
		drops  int64
	}{
		{"late update", []scripted{{"create", "a", 0, 0}, {"update", "a", 20, 2}, {"update", "a", 10, 1}, {"update", "a", 30, 3}},
			[]string{"create a 0", "update a 2", "update a 3"}, 1},
		{"late create", []scripted{{"update", "a", 10, 1}, {"create", "a", 0, 0}, {"update", "a", 20, 2}},
			[]string{"update a 1", "update a 2"}, 1},
		// A delete carries the object's last state: that save's update arriving later must not bring it back,
		// nor any older one; a create of the same id after the delete (a newer version) is delivered.
		{"update after delete", []scripted{{"create", "a", 0, 0}, {"update", "a", 10, 1}, {"delete", "a", 20, 2},
			{"update", "a", 20, 2}, {"enter", "a", 5, 9}, {"create", "a", 30, 3}},
			[]string{"create a 0", "update a 1", "delete a 2", "create a 3"}, 2},
		{"enter after leave", []scripted{{"enter", "a", 10, 1}, {"leave", "a", 20, 2}, {"enter", "a", 10, 1}, {"enter", "a", 30, 3}},
			[]string{"enter a 1", "leave a 2", "enter a 3"}, 1},
		// A leave older than the view's state is an older save that took the object out: the newer state, in the
		// query, stays.
		{"late leave", []scripted{{"enter", "a", 20, 2}, {"leave", "a", 10, 1}, {"update", "a", 30, 3}},
			[]string{"enter a 2", "update a 3"}, 1},
		// Equal updatedAt (two saves in one millisecond) cannot be ordered: both are delivered, in arrival order.
		// Events without updatedAt are never dropped. Other objects are independent.
		{"ties and no version", []scripted{{"create", "a", 10, 1}, {"update", "a", 10, 2}, {"update", "b", -1, 5},
			{"update", "b", -1, 4}, {"update", "c", 50, 1}, {"update", "a", 11, 3}},
			[]string{"create a 1", "update a 2", "update b 5", "update b 4", "update c 1", "update a 3"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, sub := received(t, tc.script, len(tc.want), false)
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Fatalf("delivered %q, want %q", got, tc.want)
			}
			if n := sub.Superseded(); n != tc.drops {
				t.Fatalf("Superseded() = %d, want %d", n, tc.drops)
			}
		})
	}
}

// With Config.DeliverSuperseded the late events arrive too, marked, and do not change the view.
func TestDeliverSuperseded(t *testing.T) {
	script := []scripted{{"create", "a", 0, 0}, {"update", "a", 20, 2}, {"update", "a", 10, 1}, {"update", "z", 0, 0}}
	got, sub := received(t, script, 4, true)
	want := []string{"create a 0", "update a 2", "update a 1 superseded", "update z 0"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("delivered %q, want %q", got, want)
	}
	if n := sub.Superseded(); n != 1 {
		t.Fatalf("Superseded() = %d, want 1", n)
	}
	if snap := sub.Snapshot(); len(snap) != 2 || snap[0].Int("seq") != 2 {
		t.Fatalf("the view holds %v, want object a at seq 2", snap)
	}
}

// The SSE bridge never sends a superseded event, even when its Dial's Client delivers them marked
// (DeliverSuperseded), and reports the count in its heartbeat comment. Fails when the bridge sends marked events
// (tried: the browser got seq 1 after seq 2).
func TestSSEBridgeSkipsSupersededEvents(t *testing.T) {
	wsURL := scriptServer(t, []scripted{{"create", "a", 0, 0}, {"update", "a", 20, 2}, {"update", "a", 10, 1},
		{"update", "a", 30, 3}})
	h, err := live.NewSSEHandler(live.SSEConfig{
		Session: func(*http.Request) (string, error) { return "r:token", nil },
		Dial: func(ctx context.Context, token string) (*live.Client, error) {
			return live.Dial(ctx, live.Config{URL: wsURL, AppID: "app", DeliverSuperseded: true})
		},
		Heartbeat: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"?class=Thing", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var got []string
	reported := false
	for sc.Scan() && (!reported || len(got) < 3) {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			var d struct {
				Object struct {
					Seq int `json:"seq"`
				} `json:"object"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(d.Object.Seq))
		case line == ": superseded 1":
			reported = true
		}
	}
	if !reported || strings.Join(got, " ") != "0 2 3" {
		t.Fatalf("the browser got seqs %v (want 0 2 3), superseded event reported: %v (stream: %v)", got, reported, sc.Err())
	}
}
