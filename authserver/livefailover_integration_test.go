//go:build integration

package authserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/redis/go-redis/v9"
)

// sseEvent is one server-sent event as a browser's EventSource sees it.
type sseEvent struct {
	id, name string
	data     map[string]any
}

// sseEvents reads the events of resp's body onto a channel, closed when the body ends.
func sseEvents(resp *http.Response) <-chan sseEvent {
	ch := make(chan sseEvent, 1024)
	go func() {
		defer close(ch)
		r := bufio.NewReader(resp.Body)
		var ev sseEvent
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
			case line == "" && ev.name != "":
				ch <- ev
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

// journaledEndpoint is an endpoint over the stack's backend with its Live route over the live bridge at /auth/live,
// its streams journaled in rdb.
func journaledEndpoint(t *testing.T, rdb redis.UniversalClient) (*testEnv, *httptest.Server) {
	t.Helper()
	var dials atomic.Int32
	bridge := liveBridgeWith(t, &dials, func(c *live.SSEConfig) { c.Redis = rdb })
	e := realEnv(t, nil, nil)
	mux := http.NewServeMux()
	mux.Handle("/auth/live", http.StripPrefix("/auth", e.h.Live(bridge)))
	mux.Handle("/auth/", http.StripPrefix("/auth", e.h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e.srv = srv
	return e, srv
}

// Issue 31, failover without a gap: a browser streams from endpoint A while saves go on; A dies (its listener and
// every connection closed) with events in flight that the browser never read; the browser reconnects to endpoint
// B, which shares only Redis and the backend, with the Last-Event-ID it had. It receives every saved change after
// that id exactly once, in the order saved: the ones A journaled but the browser lost, the ones saved while no
// endpoint was subscribed, and the live ones after.
func TestLiveFailoverResumesOnAnotherInstance(t *testing.T) {
	env := devstackEnv(t)
	opt, err := redis.ParseURL(env.RedisURL)
	if err != nil {
		t.Fatal("the stack has no Redis: ", err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	a, srvA := journaledEndpoint(t, rdb)
	_, srvB := journaledEndpoint(t, rdb)
	w, _ := signer.GenerateKey()
	in := a.signInOnce(w)
	tok := sessionOf(in)
	if in.status != 200 || tok == "" {
		t.Fatalf("sign-in: %d %s", in.status, in.raw)
	}
	run := fmt.Sprintf("failover%d", rand.Uint32())
	path := "/auth/live?class=LiveItem&where=" + url.QueryEscape(`{"run":"`+run+`"}`)
	open := func(srv *httptest.Server, lastID string) <-chan sseEvent {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Cookie", DefaultCookieName+"="+tok)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != 200 {
			t.Fatalf("stream: %d %v", resp.StatusCode, readAnswer(resp))
		}
		return sseEvents(resp)
	}
	next := func(ch <-chan sseEvent) sseEvent {
		t.Helper()
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			return ev
		case <-time.After(15 * time.Second):
			t.Fatal("no event within 15 s")
		}
		return sseEvent{}
	}
	step := func(ev sseEvent) int {
		t.Helper()
		o, _ := ev.data["object"].(map[string]any)
		s, ok := o["step"].(float64)
		if !ok {
			t.Fatalf("event %s %s without a step: %v", ev.id, ev.name, ev.data)
		}
		return int(s)
	}

	streamA := open(srvA, "")
	if ev := next(streamA); ev.name != "snapshot" || len(ev.data["objects"].([]any)) != 0 || ev.id == "" {
		t.Fatalf("first event: %+v", ev)
	}
	// The saves: step i creates an object, or (every fourth, from step 63) updates the object created 63 steps
	// before (about a second earlier), with {"step": i}; 10 ms apart, so every change has its own updatedAt. (An
	// object changed twice while no endpoint is subscribed arrives as one change: TestLiveResumeCollapsesUnrecorded.)
	const steps, kill, inFlight, back = 120, 20, 4, 63
	m := stacktest.Master(t, env)
	saved := make(chan error, 1)
	go func() {
		objs := map[int]*parse.Object{}
		for i := range steps {
			o := parse.NewObject("LiveItem")
			if i%4 == 3 && i >= back {
				o = objs[i-back]
			}
			o.Set("run", run)
			o.Set("step", i)
			if err := m.Objects.Save(context.Background(), o); err != nil {
				saved <- fmt.Errorf("step %d: %w", i, err)
				return
			}
			objs[i] = o
			time.Sleep(10 * time.Millisecond)
		}
		saved <- nil
	}()

	var got []int
	lastID := ""
	for len(got) < kill {
		ev := next(streamA)
		got = append(got, step(ev))
		lastID = ev.id
	}
	// The next events reach the browser's socket but not its EventSource: lost with A.
	for range inFlight {
		next(streamA)
	}
	srvA.CloseClientConnections()
	srvA.Close()
	time.Sleep(200 * time.Millisecond) // saves go on while no endpoint holds the stream

	reconnect := time.Now()
	streamB := open(srvB, lastID)
	var first time.Duration
	deadline := time.After(30 * time.Second)
	for len(got) < steps {
		select {
		case ev, ok := <-streamB:
			if !ok {
				t.Fatal("stream B ended")
			}
			if ev.name == "snapshot" || ev.name == "resync" || ev.name == "error" {
				t.Fatalf("a resume got %s %v", ev.name, ev.data)
			}
			got = append(got, step(ev))
			if first == 0 {
				first = time.Since(reconnect)
			}
		case err := <-saved:
			if err != nil {
				t.Fatal(err)
			}
			saved = nil
			deadline = time.After(5 * time.Second) // every change is published by now
		case <-deadline:
			t.Fatalf("%d of %d changes: %v", len(got), steps, got)
		}
	}
	for i, s := range got {
		if s != i {
			t.Fatalf("received %v\nwant the steps 0..%d, each once, in order (first difference at %d)", got, steps-1, i)
		}
	}
	t.Logf("B's first event %v after the reconnect began (session check, live-query dial, catch-up query, replay)", first)
	// Nothing more arrives: no change repeated after the last.
	select {
	case ev := <-streamB:
		if ev.name != "" {
			t.Fatalf("an extra event after the last save: %s %v", ev.name, ev.data)
		}
	case <-time.After(500 * time.Millisecond):
	}
}
