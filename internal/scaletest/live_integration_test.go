//go:build integration

package scaletest

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
)

// The issue asks for 10,000 saves; make test runs 500 per test (see TestNoLiveEventLost) and `make bench`
// the 10,000 (BenchmarkLiveDelivery).
var liveSaves = flag.Int("scale.saves", 500, "saves in TestNoLiveEventLost (objects of 50 saves each)")

// deliver creates objects objects and updates each updates times (seq 1..updates), the saves of one object
// one after the other, workers objects at a time. With perSave the saves alternate between instance 1 and
// instance 2 save by save; without, object j's saves all go through instance j%2+1 (the objects still
// alternate). It returns the objects' ids.
func deliver(tb testing.TB, ctx context.Context, env devstack.Env, run string, objects, updates, workers int, perSave bool) []string {
	tb.Helper()
	cs := [2]*client.Client{newClient(tb, env, env.ServerURL), newClient(tb, env, env.RequireServerURL2(tb))}
	ids := make([]string, objects)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= objects || ctx.Err() != nil {
					return
				}
				o := parse.NewObject(liveClass)
				for k := 0; k <= updates; k++ {
					inst := j % 2
					if perSave {
						inst = (j + k) % 2
					}
					if err := o.Set("run", run); err != nil {
						tb.Error(err)
						return
					}
					if err := o.Set("seq", k); err != nil {
						tb.Error(err)
						return
					}
					if err := cs[inst].Objects.Save(ctx, o); err != nil {
						tb.Errorf("object %d save %d through instance %d: %v", j, k, inst+1, err)
						return
					}
				}
				ids[j] = o.ID()
			}
		}()
	}
	wg.Wait()
	return ids
}

// liveRun saves objects×(1+updates) times over both parse-servers (see deliver for perSave) while
// subscribers on LiveQuery 1, LiveQuery 2 and LiveQuery through the balancer watch, and fails unless every
// subscriber got every change exactly once (and, with inOrder, in each object's order). It returns the
// saves, the time from the first save to the last event and the out-of-order deliveries counted.
func liveRun(tb testing.TB, objects, updates int, perSave, inOrder bool) (saves int, elapsed time.Duration, reordered int) {
	env := scaledEnv(tb)
	ctx, cancel := context.WithTimeout(tb.Context(), 10*time.Minute)
	defer cancel()
	run := runTag(tb)
	want := objects * (updates + 1)
	ws := []*watcher{
		watch(tb, ctx, env, "LiveQuery 1", env.LiveQueryURL, run, nil, want),
		watch(tb, ctx, env, "LiveQuery 2", env.LiveQueryURL2, run, nil, want),
		watch(tb, ctx, env, "LiveQuery via balancer", env.LBLiveQueryURL, run, nil, want),
	}
	start := time.Now()
	ids := deliver(tb, ctx, env, run, objects, updates, 8, perSave)
	if tb.Failed() {
		tb.FailNow()
	}
	saved := time.Since(start)
	var bad []string
	for _, w := range ws {
		w.wait(10 * time.Second)
		bad = append(bad, w.check(ids, updates, inOrder)...)
		reordered += w.reordered()
	}
	elapsed = time.Since(start)
	if len(bad) > 0 {
		tb.Fatalf("%d saves; subscribers missed or repeated changes%s:\n%s", want, map[bool]string{true: " or got them out of order"}[inOrder], firstLines(bad, 20))
	}
	tb.Logf("%d saves over 2 parse-servers in %v; each of 3 subscribers got all %d changes exactly once, %v after the first save (%.0f events/s delivered in all); %d of %d deliveries came after a later change of the same object",
		want, saved.Round(time.Millisecond), want, elapsed.Round(time.Millisecond), float64(3*want)/elapsed.Seconds(), reordered, 3*want)
	return want, elapsed, reordered
}

// No live event is lost across instances: saves spread save by save over both parse-servers (round robin)
// reach the subscribers of both LiveQuery servers and the one behind the balancer, each change exactly
// once. Their order per object is not guaranteed in this spread (parse-server publishes a save to Redis
// asynchronously, after the write, so the next save of the object through the other instance can publish
// first); the test counts those deliveries and logs them. DEPLOY.md says what follows.
func TestNoLiveEventLost(t *testing.T) {
	if *liveSaves < 50 {
		t.Fatalf("-scale.saves=%d: at least 50", *liveSaves)
	}
	liveRun(t, *liveSaves/50, 49, true, false)
}

// Per-object order holds when one object's saves go through one instance (the objects still spread over
// both, and the subscribers are on both LiveQuery servers): every subscriber gets every change exactly
// once and in order.
func TestLiveEventsInOrderPerObject(t *testing.T) {
	if *liveSaves < 50 {
		t.Fatalf("-scale.saves=%d: at least 50", *liveSaves)
	}
	liveRun(t, *liveSaves/50, 49, false, true)
}

// BenchmarkLiveDelivery is the full run: 10,000 saves (100 objects × 100) round robin save by
// save, three subscribers. Run it with -benchtime=1x.
func BenchmarkLiveDelivery(b *testing.B) {
	for b.Loop() {
		saves, elapsed, reordered := liveRun(b, 100, 99, true, false)
		b.ReportMetric(float64(saves)/elapsed.Seconds(), "saves/s")
		b.ReportMetric(float64(3*saves)/elapsed.Seconds(), "events/s")
		b.ReportMetric(float64(reordered), "reordered")
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
