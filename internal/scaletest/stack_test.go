//go:build integration || faults

package scaletest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
)

// liveClass is served by LiveQuery in the stack (DEVSTACK_LIVEQUERY_CLASSES).
const liveClass = "LiveItem"

func scaledEnv(tb testing.TB) devstack.Env {
	tb.Helper()
	env := devstack.MustLoad(tb)
	env.RequireScaled(tb)
	return env
}

func runTag(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	return "scale-" + hex.EncodeToString(b[:])
}

// newClient is a client of serverURL at the SDK's default config (JavaScript key, exactly-once writes).
func newClient(tb testing.TB, env devstack.Env, serverURL string) *client.Client {
	tb.Helper()
	c, err := client.New(client.Config{ServerURL: serverURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		MasterKey: env.MasterKey, InstallationID: uuid.NewString()})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// watcher is one subscriber: every event of the run's objects, in arrival order, per object.
type watcher struct {
	name string
	sub  *live.Subscription
	mu   sync.Mutex
	seen map[string][]int64 // object id -> seq of each event, in order (create first)
	kind map[string][]live.EventKind
	n    int
	done chan struct{} // closed when n reaches want
	want int
}

func watch(tb testing.TB, ctx context.Context, env devstack.Env, name, url, run string, runner parse.QueryRunner, want int) *watcher {
	tb.Helper()
	lc, err := live.Dial(ctx, live.Config{URL: url, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		InstallationID: uuid.NewString(), Runner: runner, Buffer: want + 64})
	if err != nil {
		tb.Fatalf("%s: dial %s: %v", name, url, err)
	}
	tb.Cleanup(func() { lc.Close() })
	sub, err := lc.Subscribe(ctx, liveClass, map[string]any{"run": run}, nil)
	if err != nil {
		tb.Fatalf("%s: subscribe: %v", name, err)
	}
	w := &watcher{name: name, sub: sub, seen: map[string][]int64{}, kind: map[string][]live.EventKind{},
		done: make(chan struct{}), want: want}
	go func() {
		for ev := range sub.Events() {
			if ev.Kind == live.Error {
				tb.Errorf("%s: error event: %v", name, ev.Err)
				continue
			}
			id := ev.Object.ID()
			w.mu.Lock()
			w.seen[id] = append(w.seen[id], ev.Object.Int("seq"))
			w.kind[id] = append(w.kind[id], ev.Kind)
			w.n++
			if w.n == w.want {
				close(w.done)
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// wait waits until the watcher saw want events, or nothing new arrived for idle.
func (w *watcher) wait(idle time.Duration) {
	last := -1
	for {
		select {
		case <-w.done:
			return
		case <-time.After(idle):
		}
		w.mu.Lock()
		n := w.n
		w.mu.Unlock()
		if n == last {
			return
		}
		last = n
	}
}
