//go:build integration || faults

package scaletest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

// stateDir is the stack's .devstack directory (MORALIS_DEVSTACK_DIR, or the repository root's).
func stateDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv(devstack.DirEnvVar); d != "" {
		if _, err := os.Stat(filepath.Join(d, devstack.StateDirName)); err == nil {
			return filepath.Join(d, devstack.StateDirName)
		}
		return d
	}
	return filepath.Join(repoRoot(tb), devstack.StateDirName)
}

func repoRoot(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			tb.Fatalf("no go.mod above %s", wd)
		}
	}
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

// check reports every object whose events differ from exactly one create (seq 0) and one update per seq
// 1..updates (with inOrder: the create first, then the updates in seq order); ids are the objects saved.
func (w *watcher) check(ids []string, updates int, inOrder bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var bad []string
	want := make([]int64, updates+1)
	for i := range want {
		want[i] = int64(i)
	}
	for _, id := range ids {
		got, kinds := w.seen[id], w.kind[id]
		okKinds := len(kinds) == updates+1
		for i, k := range kinds {
			if w.seen[id][i] == 0 {
				okKinds = okKinds && k == live.Create
			} else {
				okKinds = okKinds && k == live.Update
			}
		}
		sorted := slices.Clone(got)
		if !inOrder {
			slices.Sort(sorted)
		}
		if !slices.Equal(sorted, want) || !okKinds {
			bad = append(bad, fmt.Sprintf("%s: object %s: seq %v kinds %v", w.name, id, abbreviate(got), kindSummary(kinds)))
		}
	}
	extra := len(w.seen) - len(ids)
	if extra > 0 {
		bad = append(bad, fmt.Sprintf("%s: events for %d objects that were not saved", w.name, extra))
	}
	sort.Strings(bad)
	return bad
}

// reordered counts the deliveries that came after a later change of the same object.
func (w *watcher) reordered() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, seqs := range w.seen {
		var hi int64 = -1
		for _, s := range seqs {
			if s < hi {
				n++
			}
			hi = max(hi, s)
		}
	}
	return n
}

func abbreviate(s []int64) string {
	if len(s) <= 12 {
		return fmt.Sprint(s)
	}
	return fmt.Sprintf("%v ... %v (%d)", s[:6], s[len(s)-6:], len(s))
}

func firstLines(lines []string, n int) string {
	if len(lines) > n {
		return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... and %d more", len(lines)-n)
	}
	return strings.Join(lines, "\n")
}

// kindSummary counts the event kinds, e.g. "create:1 update:49".
func kindSummary(kinds []live.EventKind) string {
	n := map[live.EventKind]int{}
	for _, k := range kinds {
		n[k]++
	}
	var parts []string
	for k, c := range n {
		parts = append(parts, fmt.Sprintf("%s:%d", k, c))
	}
	sort.Strings(parts)
	first := live.EventKind("none")
	if len(kinds) > 0 {
		first = kinds[0]
	}
	return fmt.Sprintf("first %s, %s", first, strings.Join(parts, " "))
}
