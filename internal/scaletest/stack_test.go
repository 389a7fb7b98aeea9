//go:build integration || faults

package scaletest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
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
	mu   sync.Mutex
	seen map[string][]int64 // object id -> seq of each event, in order (create first)
	kind map[string][]live.EventKind
	// marked, per object, flags the events delivered marked Superseded (live.Config.DeliverSuperseded).
	marked map[string][]bool
	at     map[string][]time.Time // arrival of each event
	n      int
	want   int
	// superseded reports how many events the subscriber was spared as superseded (nil: none are).
	superseded func() int64
	// keepsAll: the subscriber gets superseded events too, marked (live.Config.DeliverSuperseded).
	keepsAll bool
}

func newWatcher(name string, want int) *watcher {
	return &watcher{name: name, seen: map[string][]int64{}, kind: map[string][]live.EventKind{},
		marked: map[string][]bool{}, at: map[string][]time.Time{}, want: want}
}

// record adds one delivered event.
func (w *watcher) record(id string, seq int64, kind live.EventKind, marked bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[id] = append(w.seen[id], seq)
	w.kind[id] = append(w.kind[id], kind)
	w.marked[id] = append(w.marked[id], marked)
	w.at[id] = append(w.at[id], time.Now())
	w.n++
}

// accounted is the events delivered plus those the subscriber was spared as superseded.
func (w *watcher) accounted() int {
	w.mu.Lock()
	n := w.n
	w.mu.Unlock()
	if w.superseded != nil {
		n += int(w.superseded())
	}
	return n
}

func watch(tb testing.TB, ctx context.Context, env devstack.Env, name, url, run string, runner parse.QueryRunner, want int) *watcher {
	return watchLive(tb, ctx, env, name, url, run, runner, want, false)
}

// watchLive subscribes through query/live at url to the run's objects; keepAll sets live.Config.DeliverSuperseded.
func watchLive(tb testing.TB, ctx context.Context, env devstack.Env, name, url, run string, runner parse.QueryRunner, want int, keepAll bool) *watcher {
	tb.Helper()
	lc, err := live.Dial(ctx, live.Config{URL: url, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		InstallationID: uuid.NewString(), Runner: runner, Buffer: want + 64, DeliverSuperseded: keepAll})
	if err != nil {
		tb.Fatalf("%s: dial %s: %v", name, url, err)
	}
	tb.Cleanup(func() { lc.Close() })
	sub, err := lc.Subscribe(ctx, liveClass, map[string]any{"run": run}, nil)
	if err != nil {
		tb.Fatalf("%s: subscribe: %v", name, err)
	}
	// over is set when the test has ended (this cleanup runs before lc.Close's: cleanups run last-registered first).
	var over atomic.Bool
	tb.Cleanup(func() { over.Store(true) })
	w := newWatcher(name, want)
	w.keepsAll = keepAll
	if !keepAll {
		w.superseded = sub.Superseded
	}
	go func() {
		for ev := range sub.Events() {
			if ev.Kind == live.Error {
				// A catch-up query still under way when the test's context ended (its checks done) reports that
				// cancellation: the end of the test, not a fault of the stream.
				if errors.Is(ev.Err, context.Canceled) && (ctx.Err() != nil || over.Load()) {
					continue
				}
				tb.Errorf("%s: error event: %v", name, ev.Err)
				continue
			}
			w.record(ev.Object.ID(), ev.Object.Int("seq"), ev.Kind, ev.Superseded)
		}
	}()
	return w
}

// wait waits until every one of the want events was delivered or spared as superseded, or nothing new arrived for
// idle.
func (w *watcher) wait(idle time.Duration) {
	last, since := -1, time.Now()
	for {
		n := w.accounted()
		if n >= w.want {
			return
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= idle {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
