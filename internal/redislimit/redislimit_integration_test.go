//go:build integration

package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/c13f5054/moralis-go/internal/devstack"
)

// twoInstances returns two Stores over the stack's Redis, each with its own client (two endpoint
// processes), sharing a prefix no other test uses.
func twoInstances(t *testing.T) (*Store, *Store) {
	t.Helper()
	env := devstack.MustLoad(t)
	env.RequireScaled(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "test-" + hex.EncodeToString(b[:]) + ":"
	var out [2]*Store
	for i := range out {
		s, rdb, err := Open(env.RedisURL, Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rdb.Close() })
		if err := s.Ping(t.Context()); err != nil {
			t.Fatalf("the stack's Redis: %v", err)
		}
		out[i] = s
	}
	return out[0], out[1]
}

// Two instances share one budget: of 200 concurrent requests split over both, exactly the burst passes.
func TestRateLimitIsSharedByInstances(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	limit := Limit{Events: 10, Period: time.Minute}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, retry, err := s.Allow(ctx, "ip:198.51.100.7", limit)
			if err != nil {
				t.Errorf("Allow: %v", err)
				return
			}
			if ok {
				allowed.Add(1)
			} else if retry <= 0 || retry > 6*time.Second {
				t.Errorf("refused with retryAfter %v, want in (0, 6s] (one emission interval)", retry)
			}
		}()
	}
	wg.Wait()
	if n := allowed.Load(); n != 10 {
		t.Fatalf("%d of 200 requests allowed over two instances, want exactly the burst of 10", n)
	}
	// Another key has its own budget.
	if ok, _, err := b.Allow(ctx, "ip:198.51.100.8", limit); !ok || err != nil {
		t.Fatalf("another key: %v, %v", ok, err)
	}
}

// A quota counts items for their life over both instances: max at once, the next only when the oldest expires.
func TestQuotaIsSharedByInstances(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	for i := range 4 {
		s := a
		if i%2 == 1 {
			s = b
		}
		if ok, _, err := s.Take(ctx, "nonces:192.0.2.9", 4, 400*time.Millisecond); !ok || err != nil {
			t.Fatalf("item %d: %v, %v", i, ok, err)
		}
	}
	ok, retry, err := b.Take(ctx, "nonces:192.0.2.9", 4, 400*time.Millisecond)
	if ok || err != nil || retry <= 0 || retry > 400*time.Millisecond {
		t.Fatalf("fifth item: %v, %v, %v; want a refusal with retryAfter in (0, 400ms]", ok, retry, err)
	}
	time.Sleep(retry + 10*time.Millisecond)
	if ok, _, err := a.Take(ctx, "nonces:192.0.2.9", 4, 400*time.Millisecond); !ok || err != nil {
		t.Fatalf("after the oldest expired: %v, %v", ok, err)
	}
}

// AllowEach is Allow over each check in order, in one round trip, over both instances. A refusal by a later check
// leaves the earlier ones their event: with limits of 3 and 2, two requests pass, the third is refused by the second
// check (index 1, with its wait) and the first check's key is then spent. A refusal by an earlier check does not
// count against the later ones: with limits of 1 and 5, the second request is refused by the first check (index 0)
// and the second key still has four events left. Fails when a refusal stops nothing (tried: the script going on
// after a refusal: the second key had three left) or does not keep the earlier events (tried: the SETs done only
// once every check allowed: the first key of the first pair was not spent).
func TestAllowEachIsAllowInOrder(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	perMinute := func(n int) Limit { return Limit{Events: n, Period: time.Minute} }
	pair := []Check{{Key: "all:192.0.2.50", Limit: perMinute(3)}, {Key: "signin:192.0.2.50", Limit: perMinute(2)}}
	for i, s := range []*Store{a, b} {
		if refused, wait, err := s.AllowEach(ctx, pair...); refused != -1 || wait != 0 || err != nil {
			t.Fatalf("request %d: refused %d, wait %v, %v; want both allowed", i+1, refused, wait, err)
		}
	}
	refused, wait, err := a.AllowEach(ctx, pair...)
	if refused != 1 || err != nil || wait <= 0 || wait > 30*time.Second {
		t.Fatalf("third: refused %d, wait %v, %v; want the second check's refusal with a wait in (0, 30s]", refused, wait, err)
	}
	if ok, _, err := b.Allow(ctx, "all:192.0.2.50", perMinute(3)); ok || err != nil {
		t.Fatalf("the first key after three requests: allowed %v, %v; want it spent", ok, err)
	}

	pair = []Check{{Key: "all:192.0.2.51", Limit: perMinute(1)}, {Key: "signin:192.0.2.51", Limit: perMinute(5)}}
	if refused, _, err := b.AllowEach(ctx, pair...); refused != -1 || err != nil {
		t.Fatalf("first: refused %d, %v", refused, err)
	}
	if refused, _, err := a.AllowEach(ctx, pair...); refused != 0 || err != nil {
		t.Fatalf("second: refused %d, %v; want the first check's refusal", refused, err)
	}
	left := 0
	for range 6 {
		if ok, _, err := b.Allow(ctx, "signin:192.0.2.51", perMinute(5)); err != nil {
			t.Fatal(err)
		} else if ok {
			left++
		}
	}
	if left != 4 {
		t.Fatalf("the second key had %d events left, want 4 (only the allowed request counted)", left)
	}

	if _, _, err := a.AllowEach(ctx); err == nil {
		t.Fatal("AllowEach with no check: no error")
	}
	if _, _, err := a.AllowEach(ctx, Check{Key: "", Limit: perMinute(1)}); err == nil || errors.Is(err, ErrUnavailable) {
		t.Fatalf("an empty key: %v, want an argument error", err)
	}
}

// GCRA refills one event per emission interval: after the refusal's retryAfter, one more passes.
func TestRateLimitRefills(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	limit := Limit{Events: 10, Period: time.Second, Burst: 1} // one per 100 ms
	if ok, _, err := a.Allow(ctx, "user:u1", limit); !ok || err != nil {
		t.Fatalf("first: %v, %v", ok, err)
	}
	ok, retry, err := b.Allow(ctx, "user:u1", limit)
	if ok || err != nil || retry <= 0 || retry > 100*time.Millisecond {
		t.Fatalf("second at once: %v, %v, %v; want a refusal with retryAfter in (0, 100ms]", ok, retry, err)
	}
	time.Sleep(retry + 5*time.Millisecond)
	if ok, retry, err := b.Allow(ctx, "user:u1", limit); !ok || err != nil {
		t.Fatalf("after retryAfter: %v, %v, %v", ok, retry, err)
	}
}

// Stream caps hold over both instances, per session, per user and per client address at once.
func TestCapsAreSharedByInstances(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	caps := func(session string) []Cap {
		return []Cap{{"session:" + session, 2}, {"user:u1", 3}, {"ip:192.0.2.1", 10}}
	}
	l1, ok, _, err := a.Acquire(ctx, time.Minute, caps("s1")...)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, ok, _, err := b.Acquire(ctx, time.Minute, caps("s1")...); !ok || err != nil {
		t.Fatal(ok, err)
	}
	_, ok, full, err := b.Acquire(ctx, time.Minute, caps("s1")...)
	if ok || err != nil || full.Key != "session:s1" {
		t.Fatalf("third stream of session s1: ok %v, full %+v, err %v; want refused by the session cap", ok, full, err)
	}
	if _, ok, _, err := a.Acquire(ctx, time.Minute, caps("s2")...); !ok || err != nil {
		t.Fatalf("first stream of session s2: %v, %v", ok, err)
	}
	_, ok, full, err = b.Acquire(ctx, time.Minute, caps("s3")...)
	if ok || err != nil || full.Key != "user:u1" {
		t.Fatalf("fourth stream of user u1: ok %v, full %+v, err %v; want refused by the user cap", ok, full, err)
	}
	// A refused Acquire took nothing: the address cap still counts the three leases.
	if n, err := a.Held(ctx, "ip:192.0.2.1"); n != 3 || err != nil {
		t.Fatalf("address cap holds %d (%v), want 3", n, err)
	}
	// Released on one instance, the slot is free on the other.
	if err := a.Release(ctx, l1); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctx, l1); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if _, ok, _, err := b.Acquire(ctx, time.Minute, caps("s3")...); !ok || err != nil {
		t.Fatalf("after a release: %v, %v", ok, err)
	}
	if err := b.Renew(ctx, l1, time.Minute); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Renew of a released lease = %v, want ErrLeaseLost", err)
	}
}

// The leases of an instance that died (stopped renewing) expire; renewed ones stay.
func TestLeasesExpireUnlessRenewed(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	// Instance b holds a long lease in the cap, a dying instance a a short one.
	cap1 := Cap{"user:dead", 2}
	if _, ok, _, err := b.Acquire(ctx, time.Minute, cap1); !ok || err != nil {
		t.Fatal(ok, err)
	}
	dead, ok, _, err := a.Acquire(ctx, 300*time.Millisecond, cap1)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	kept, ok, _, err := a.Acquire(ctx, 300*time.Millisecond, Cap{"session:kept", 1})
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, ok, _, _ := b.Acquire(ctx, time.Minute, cap1); ok {
		t.Fatal("a full cap took a second lease")
	}
	for range 6 {
		time.Sleep(100 * time.Millisecond)
		if err := a.Renew(ctx, kept, 300*time.Millisecond); err != nil {
			t.Fatalf("renewing a live lease: %v", err)
		}
	}
	if _, ok, _, err := b.Acquire(ctx, time.Minute, cap1); !ok || err != nil {
		t.Fatalf("after the dead instance's lease expired: %v, %v", ok, err)
	}
	if err := a.Renew(ctx, dead, time.Minute); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Renew of an expired lease = %v, want ErrLeaseLost", err)
	}
	if n, err := b.Held(ctx, "session:kept"); n != 1 || err != nil {
		t.Fatalf("the renewed lease: held %d, %v", n, err)
	}
}

// A session revoked through one instance is refused by the other at once (Revoked), and the other's
// watcher is told (to drop its cached session and end the session's streams).
func TestRevocationReachesEveryInstance(t *testing.T) {
	a, b := twoInstances(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(chan string, 4)
	watchErr := make(chan error, 1)
	go func() {
		watchErr <- b.Watch(ctx, func(h string) { got <- h }, func() { t.Error("resync without a reconnect") })
	}()
	// Watch subscribes asynchronously; revoke a throwaway token until the watcher hears one.
	warm := time.NewTicker(50 * time.Millisecond)
	defer warm.Stop()
	for ready := false; !ready; {
		if err := a.Revoke(ctx, "r:warm-up", time.Minute); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
			ready = true
		case <-warm.C:
		case <-time.After(5 * time.Second):
			t.Fatal("the watcher heard nothing in 5 s")
		}
	}
	for len(got) > 0 {
		<-got
	}
	if r, err := b.Revoked(ctx, "r:victim"); r || err != nil {
		t.Fatalf("before: Revoked = %v, %v", r, err)
	}
	start := time.Now()
	if err := a.Revoke(ctx, "r:victim", time.Minute); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Revoked(ctx, "r:victim"); !r || err != nil {
		t.Fatalf("after Revoke on instance a, instance b says Revoked = %v, %v", r, err)
	}
	// A warm-up revocation sent before the watcher was heard may still arrive after the drain above: skip those.
	timeout := time.After(5 * time.Second)
	for heard := false; !heard; {
		select {
		case h := <-got:
			if h == TokenHash("r:warm-up") {
				continue
			}
			if h != TokenHash("r:victim") {
				t.Fatalf("watcher got %s, want the victim's hash", h)
			}
			heard = true
			t.Logf("revocation reached the other instance's watcher in %v", time.Since(start))
		case <-timeout:
			t.Fatal("the watcher was not told within 5 s")
		}
	}
	cancel()
	if err := <-watchErr; err != nil {
		t.Fatalf("Watch returned %v after its context ended", err)
	}
}

// privateRedis runs a redis-server of its own (Debian's binary, as the stack's) on port, so that
// stopping it does not disturb the other tests using the stack's Redis.
type privateRedis struct {
	t    *testing.T
	port int
	cmd  *exec.Cmd
}

func startPrivateRedis(t *testing.T, port int) *privateRedis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not installed (make deps installs it): %v", err)
	}
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--loglevel", "warning")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &privateRedis{t: t, port: port, cmd: cmd}
	t.Cleanup(r.stop)
	c := redis.NewClient(&redis.Options{Addr: r.addr(), DialerRetries: 1, MaxRetries: -1})
	defer c.Close()
	for i := 0; c.Ping(t.Context()).Err() != nil; i++ {
		if i == 100 {
			t.Fatalf("private redis-server on %s did not answer in 5 s", r.addr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r
}

func (r *privateRedis) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// stop kills the server (SIGKILL: an outage, not a shutdown) and waits for it.
func (r *privateRedis) stop() {
	if r.cmd.ProcessState != nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	_ = r.cmd.Wait()
}

// Redis gone for 5 s: every guard refuses the whole time (never unlimited), and all recover by
// themselves once it is back, the watcher with a resync (the revocations it may have missed).
func TestRedisOutageFailsClosedAndRecovers(t *testing.T) {
	r := startPrivateRedis(t, 0)
	a, rdbA, err := Open("redis://"+r.addr()+"/0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rdbA.Close()
	b, rdbB, err := Open("redis://"+r.addr()+"/0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rdbB.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	limit := Limit{Events: 1000, Period: time.Second}
	if ok, _, err := a.Allow(ctx, "ip:x", limit); !ok || err != nil {
		t.Fatalf("before the outage: %v, %v", ok, err)
	}
	resynced := make(chan struct{}, 4)
	go b.Watch(ctx, func(string) {}, func() { resynced <- struct{}{} }) //nolint:errcheck // ends with ctx
	// Let the watcher subscribe before the outage.
	for i := 0; ; i++ {
		n, err := rdbA.PubSubNumSub(ctx, b.revChannel()).Result()
		if err == nil && n[b.revChannel()] == 1 {
			break
		}
		if i == 100 {
			t.Fatal("the watcher did not subscribe in 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	r.stop()
	outageEnd := time.Now().Add(5 * time.Second)
	calls := 0
	for time.Now().Before(outageEnd) {
		for _, s := range []*Store{a, b} {
			ok, _, err := s.Allow(ctx, "ip:x", limit)
			if ok || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("during the outage Allow = %v, %v; want a refusal matching ErrUnavailable", ok, err)
			}
			if _, ok, _, err := s.Acquire(ctx, time.Minute, Cap{"session:x", 5}); ok || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("during the outage Acquire = %v, %v", ok, err)
			}
			if rev, err := s.Revoked(ctx, "r:x"); !rev || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("during the outage Revoked = %v, %v", rev, err)
			}
			calls += 3
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d guard calls during the 5 s outage, every one refused with ErrUnavailable", calls)

	startPrivateRedis(t, r.port)
	back := time.Now()
	// Each client finds Redis again by itself (a pool that saw dials fail retries them in the background).
	for i, s := range []*Store{a, b} {
		for {
			ok, _, err := s.Allow(ctx, "ip:x", limit)
			if ok && err == nil {
				break
			}
			if time.Since(back) > 10*time.Second {
				t.Fatalf("instance %d: Allow did not recover within 10 s of Redis's return: %v, %v", i, ok, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("instance %d allows again %v after Redis returned", i, time.Since(back))
	}
	if _, ok, _, err := b.Acquire(ctx, time.Minute, Cap{"session:x", 5}); !ok || err != nil {
		t.Fatalf("Acquire after the outage: %v, %v", ok, err)
	}
	select {
	case <-resynced:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not resync within 10 s of Redis's return")
	}
}

func ExampleStore_Allow() {
	env, err := devstack.Load()
	if err != nil {
		fmt.Println(err)
		return
	}
	s, rdb, err := Open(env.RedisURL, Options{Prefix: "example:"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rdb.Close()
	ok, retryAfter, err := s.Allow(context.Background(), "ip:203.0.113.1", Limit{Events: 5, Period: time.Minute})
	switch {
	case errors.Is(err, ErrUnavailable):
		fmt.Println("503: limits unavailable")
	case err != nil:
		fmt.Println(err)
	case !ok:
		fmt.Println("429, retry after", retryAfter.Round(time.Second))
	default:
		fmt.Println("allowed")
	}
}
