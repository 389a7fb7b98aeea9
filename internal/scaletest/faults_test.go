//go:build faults

package scaletest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/modroot"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// These tests take parts of the shared stack down (make test-faults runs them after every other suite) and
// bring them back with up.sh, also when they fail.

// recordedPID reads the PID that up.sh recorded in .devstack/name.
func recordedPID(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir(t), name))
	if err != nil {
		t.Fatalf("no PID file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || pid <= 0 {
		t.Fatalf("%s holds no PID: %q", name, b)
	}
	return pid
}

// killRecorded sends SIGKILL to the process up.sh recorded in .devstack/name, and arranges for up.sh to
// start it again at the end of the test whatever happens.
func killRecorded(t *testing.T, name string) {
	t.Helper()
	pid := recordedPID(t, name)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d (%s): %v", pid, name, err)
	}
	t.Logf("kill -9 %d (%s)", pid, name)
	t.Cleanup(func() { restartStack(t) })
}

var restartOnce sync.Map

// restartStack runs up.sh, which starts again only what is missing, on the ports it had.
func restartStack(t *testing.T) {
	t.Helper()
	if _, done := restartOnce.LoadOrStore(t.Name(), true); done {
		return
	}
	start := time.Now()
	cmd := exec.Command("bash", filepath.Join(repoRoot(t), "internal", "devstack", "up.sh"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("up.sh after the fault: %v\n%s", err, out)
	}
	t.Logf("up.sh restarted what was missing in %v", time.Since(start).Round(time.Millisecond))
}

// kill -9 one parse-server while 1,000 creates and 200 increments go through the balancer at the SDK's
// default config: no duplicate, no acknowledged write lost, and the writes in doubt are reported.
func TestKillParseServerDuringWrites(t *testing.T) {
	env := scaledEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	run := runTag(t)
	const cls, creates, increments = "ScaleKill", 1000, 200
	c := newClient(t, env, env.LBURL)
	master := newClient(t, env, env.ServerURL).WithMasterKey()

	counter := parse.NewObject(cls)
	if err := counter.Set("run", run+"-counter"); err != nil {
		t.Fatal(err)
	}
	if err := counter.Set("n", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Objects.Save(ctx, counter); err != nil {
		t.Fatal(err)
	}

	type outcome struct {
		acked, inDoubt, failed atomic.Int64
	}
	var cr, inc outcome
	ackedIDs := make([]string, creates)
	doubtIDs := make([]string, creates)
	var failedErrs sync.Map
	var next, nextInc atomic.Int64
	killed := make(chan struct{})
	var killOnce sync.Once
	var wg sync.WaitGroup
	classify := func(o *outcome, err error, key string) {
		switch {
		case err == nil:
			o.acked.Add(1)
		case errors.Is(err, parse.ErrWriteInDoubt):
			o.inDoubt.Add(1)
		default:
			o.failed.Add(1)
			failedErrs.Store(key, err.Error())
		}
	}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= creates {
					return
				}
				if i == creates/4 {
					killOnce.Do(func() { killRecorded(t, "server2.pid"); close(killed) })
				}
				o := parse.NewObject(cls)
				_ = o.Set("run", run)
				_ = o.Set("i", i)
				err := c.Objects.Save(ctx, o)
				classify(&cr, err, fmt.Sprint("create ", i))
				switch {
				case err == nil:
					ackedIDs[i] = o.ID()
				case errors.Is(err, parse.ErrWriteInDoubt):
					doubtIDs[i] = "in doubt " + o.ProposedID() // no proposed id at the default config (server ids)
				}
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(nextInc.Add(1)) - 1
				if k >= increments {
					return
				}
				o := parse.NewObjectWithID(cls, counter.ID())
				_ = o.Increment("n", 1)
				classify(&inc, c.Objects.Save(ctx, o), fmt.Sprint("increment ", k))
				if k == increments/2 {
					<-killed // half the increments before the kill, half after
				}
			}
		}()
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the parse-server was never killed")
	}

	// What the database holds, read through the surviving instance.
	q := query.New[*parse.Object](cls).EqualTo("run", run).Limit(creates + 100)
	got, err := q.Find(ctx, master)
	if err != nil {
		t.Fatal(err)
	}
	byIndex := map[int64][]string{}
	byID := map[string]bool{}
	for _, o := range got {
		byIndex[o.Int("i")] = append(byIndex[o.Int("i")], o.ID())
		byID[o.ID()] = true
	}
	dups, lost, doubtApplied, failedApplied := 0, 0, 0, 0
	for i := range creates {
		if len(byIndex[int64(i)]) > 1 {
			dups++
			t.Errorf("create %d stored %d times: %v", i, len(byIndex[int64(i)]), byIndex[int64(i)])
		}
		switch {
		case ackedIDs[i] != "":
			if !byID[ackedIDs[i]] {
				lost++
				t.Errorf("acknowledged create %d (%s) is not stored", i, ackedIDs[i])
			}
		case doubtIDs[i] != "":
			if len(byIndex[int64(i)]) > 0 {
				doubtApplied++
			}
		default:
			if len(byIndex[int64(i)]) > 0 {
				failedApplied++
				e, _ := failedErrs.Load(fmt.Sprint("create ", i))
				t.Errorf("create %d failed (%v) but is stored", i, e)
			}
		}
	}
	fresh := parse.NewObjectWithID(cls, counter.ID())
	if err := master.Objects.Fetch(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	n := fresh.Int("n")
	a, d := inc.acked.Load(), inc.inDoubt.Load()
	if n < a || n > a+d {
		t.Errorf("counter = %d after %d acknowledged and %d in-doubt increments (want %d..%d)", n, a, d, a, a+d)
	}
	failedErrs.Range(func(k, v any) bool { t.Logf("failed: %s: %s", k, v); return true })
	t.Logf("creates: %d acknowledged, %d in doubt (%d of them applied), %d failed; %d duplicates, %d acknowledged lost, %d failed yet stored",
		cr.acked.Load(), cr.inDoubt.Load(), doubtApplied, cr.failed.Load(), dups, lost, failedApplied)
	t.Logf("increments: %d acknowledged, %d in doubt, %d failed; counter %d", a, d, inc.failed.Load(), n)
	restartStack(t)
	// Both instances serve again through the balancer.
	for i := range 4 {
		if _, err := query.New[*parse.Object](cls).EqualTo("run", run).Count(ctx, c); err != nil {
			t.Fatalf("read %d through the balancer after the restart: %v", i, err)
		}
	}
}

// Redis stopped for 5 s: saves go on, and live subscribers on both LiveQuery servers catch up once it is back.
func TestRedisOutageLiveCatchUp(t *testing.T) {
	env := scaledEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	run := runTag(t)
	cs := [2]*client.Client{newClient(t, env, env.ServerURL), newClient(t, env, env.ServerURL2)}
	const per = 10
	ws := []*watcher{
		watch(t, ctx, env, "LiveQuery 1", env.LiveQueryURL, run, cs[0], 3*per),
		watch(t, ctx, env, "LiveQuery 2", env.LiveQueryURL2, run, cs[1], 3*per),
	}
	var ids []string
	phaseOf := map[string]string{}
	save := func(phase string) {
		for i := range per {
			o := parse.NewObject(liveClass)
			_ = o.Set("run", run)
			_ = o.Set("seq", 0)
			if err := cs[i%2].Objects.Save(ctx, o); err != nil {
				t.Fatalf("%s: save %d through instance %d: %v", phase, i, i%2+1, err)
			}
			ids = append(ids, o.ID())
			phaseOf[o.ID()] = fmt.Sprintf("%s through instance %d", phase, i%2+1)
		}
	}
	save("before the outage")
	killRecorded(t, "redis.pid")
	outage := time.Now()
	save("during the outage")
	time.Sleep(time.Until(outage.Add(5 * time.Second)))
	restartStack(t)
	back := time.Now()
	save("after the outage")
	for _, w := range ws {
		// Until every object was heard of (counting events is not enough: a catch-up may repeat one), or 20 s.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			w.mu.Lock()
			all := true
			for _, id := range ids {
				if len(w.seen[id]) == 0 {
					all = false
					break
				}
			}
			w.mu.Unlock()
			if all {
				break
			}
		}
		w.mu.Lock()
		var missing []string
		for _, id := range ids {
			if len(w.seen[id]) == 0 {
				missing = append(missing, id+" ("+phaseOf[id]+")")
			}
		}
		w.mu.Unlock()
		if len(missing) > 0 {
			t.Errorf("%s never heard of %d of the %d objects saved (before, during and after the outage): %v", w.name, len(missing), len(ids), missing)
		} else {
			t.Logf("%s heard of all %d objects, %v after Redis returned", w.name, len(ids), time.Since(back).Round(time.Millisecond))
		}
	}
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
	root, err := modroot.Dir()
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// Redis stopped for 5 s: both endpoint instances refuse what their guards cover (503 "Limit store unavailable",
// never a request let through unlimited) the whole time, and answer again by themselves once Redis is back
// (up.sh restarts Redis only: the endpoints keep their PIDs).
func TestRedisOutageEndpointFailsClosed(t *testing.T) {
	env := endpointEnv(t)
	c := newEPClient(t)
	msg := env.EndpointLBURL + "/auth/message?chain=evm&address=" + strings.ToLower(wallet(t).Address().Hex())
	if a := c.do("GET", msg, nil, ""); a.status != 200 {
		t.Fatalf("before the outage: %d %s", a.status, a.body)
	}
	pids := [2]int{recordedPID(t, "endpoint1.pid"), recordedPID(t, "endpoint2.pid")}
	killRecorded(t, "redis.pid")
	outage := time.Now()
	refused, by := 0, map[string]int{}
	for time.Since(outage) < 5*time.Second {
		a := c.do("GET", msg, nil, "")
		if a.status != 503 || a.errorText() != "Limit store unavailable" || a.retryAfter() < time.Second {
			t.Fatalf("%v into the Redis outage, %s answered %d %s (Retry-After %q); want 503 Limit store unavailable",
				time.Since(outage).Round(time.Millisecond), a.instance, a.status, a.body, a.header.Get("Retry-After"))
		}
		refused++
		by[a.instance]++
		time.Sleep(50 * time.Millisecond)
	}
	if by["endpoint1"] == 0 || by["endpoint2"] == 0 {
		t.Fatalf("the balancer did not reach both instances during the outage: %v", by)
	}
	restartStack(t)
	back := time.Now()
	for i := 0; ; i++ {
		a := c.do("GET", msg, nil, "")
		if a.status == 200 {
			break
		}
		if time.Since(back) > 10*time.Second {
			t.Fatalf("the endpoints still answer %d %s 10 s after Redis returned", a.status, a.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d requests during the 5 s outage, all 503 (%v); allowed again %v after Redis returned", refused, by,
		time.Since(back).Round(time.Millisecond))
	if now := [2]int{recordedPID(t, "endpoint1.pid"), recordedPID(t, "endpoint2.pid")}; now != pids {
		t.Fatalf("up.sh restarted the endpoints (PIDs %v, then %v): they did not recover by themselves", pids, now)
	}
}
