package redislimit

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// deadRedis returns a Store over an address where nothing listens (a port that was just free).
func deadRedis(t *testing.T) *Store {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s, rdb, err := Open("redis://"+addr+"/0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return s
}

// Without Redis every guard refuses: no limit is ever lifted by a fault.
func TestFailsClosedWithoutRedis(t *testing.T) {
	s := deadRedis(t)
	ctx := t.Context()
	allowed, _, err := s.Allow(ctx, "ip:203.0.113.9", Limit{Events: 100, Period: time.Second})
	if allowed || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Allow = %v, %v; want false and ErrUnavailable", allowed, err)
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Op != "allow" || ue.Err == nil {
		t.Fatalf("Allow's error %#v is not an *UnavailableError of op allow", err)
	}
	taken, _, err := s.Take(ctx, "nonces:203.0.113.9", 20, time.Minute)
	if taken || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Take = %v, %v; want false and ErrUnavailable", taken, err)
	}
	lease, ok, _, err := s.Acquire(ctx, time.Minute, Cap{Key: "session:x", Max: 4})
	if ok || lease.ID != "" || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Acquire = %+v, %v, %v; want no lease and ErrUnavailable", lease, ok, err)
	}
	revoked, err := s.Revoked(ctx, "r:abc")
	if !revoked || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Revoked = %v, %v; want true and ErrUnavailable", revoked, err)
	}
	if err := s.Revoke(ctx, "r:abc", time.Minute); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Revoke = %v, want ErrUnavailable", err)
	}
	if err := s.Renew(ctx, Lease{ID: "x", Keys: []string{"k"}}, time.Minute); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Renew = %v, want ErrUnavailable", err)
	}
	if err := s.Release(ctx, Lease{ID: "x", Keys: []string{"k"}}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Release = %v, want ErrUnavailable", err)
	}
	if _, err := s.Held(ctx, "k"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Held = %v, want ErrUnavailable", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ping = %v, want ErrUnavailable", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.Watch(wctx, func(string) {}, func() {}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Watch = %v, want ErrUnavailable", err)
	}
}

// Bad arguments are refused before any I/O, with a refusal, never an allowance.
func TestRefusesBadArguments(t *testing.T) {
	s := deadRedis(t)
	ctx := t.Context()
	for _, c := range []struct {
		key   string
		limit Limit
		want  string
	}{
		{"", Limit{Events: 1, Period: time.Second}, "allow: empty key"},
		{strings.Repeat("k", 513), Limit{Events: 1, Period: time.Second}, "key of 513 bytes"},
		{"k", Limit{Events: 0, Period: time.Second}, "must be positive"},
		{"k", Limit{Events: 1, Period: 0}, "must be positive"},
		{"k", Limit{Events: 1, Period: time.Second, Burst: -1}, "must be positive"},
		{"k", Limit{Events: 2000, Period: time.Millisecond}, "more than one event per microsecond"},
	} {
		allowed, _, err := s.Allow(ctx, c.key, c.limit)
		if allowed || err == nil || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Allow(%.20q, %+v) = %v, %v; want a refusal with %q", c.key, c.limit, allowed, err, c.want)
		}
	}
	for _, c := range []struct {
		ttl  time.Duration
		caps []Cap
		want string
	}{
		{time.Second, nil, "no caps"},
		{0, []Cap{{"a", 1}}, "under 1 ms"},
		{time.Second, []Cap{{"a", 0}}, "max 0"},
		{time.Second, []Cap{{"", 1}}, "empty key"},
		{time.Second, []Cap{{"a", 1}, {"a", 2}}, "given twice"},
	} {
		_, ok, _, err := s.Acquire(ctx, c.ttl, c.caps...)
		if ok || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Acquire(%v, %+v) = %v, %v; want a refusal with %q", c.ttl, c.caps, ok, err, c.want)
		}
	}
	if err := s.Renew(ctx, Lease{}, time.Second); err == nil || !strings.Contains(err.Error(), "empty lease") {
		t.Errorf("Renew of an empty lease = %v", err)
	}
	if err := s.Release(ctx, Lease{ID: "x"}); err == nil || !strings.Contains(err.Error(), "empty lease") {
		t.Errorf("Release of a lease without keys = %v", err)
	}
	if r, err := s.Revoked(ctx, ""); !r || err == nil {
		t.Errorf("Revoked(\"\") = %v, %v; want true and an error", r, err)
	}
	if err := s.Revoke(ctx, "t", 0); err == nil {
		t.Error("Revoke with TTL 0 accepted")
	}
	if err := s.Watch(ctx, nil, func() {}); err == nil {
		t.Error("Watch with a nil callback accepted")
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil) accepted")
	}
}

func TestOpen(t *testing.T) {
	if _, _, err := Open("http://127.0.0.1:1", Options{}); err == nil {
		t.Fatal("Open accepted an http URL")
	}
	_, _, err := Open("redis://user:s3cret@127.0.0.1:1/notadb", Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Open with a bad db = %v (the password must not show)", err)
	}
	s, rdb, err := Open("redis://127.0.0.1:1/2", Options{Prefix: "app1:"})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	o := rdb.Options()
	if o.DB != 2 || o.ReadTimeout != 500*time.Millisecond || o.DialTimeout != time.Second || s.prefix != "app1:" {
		t.Fatalf("Open: db %d, read timeout %v, dial timeout %v, prefix %q", o.DB, o.ReadTimeout, o.DialTimeout, s.prefix)
	}
	_, rdb2, err := Open("redis://127.0.0.1:1/0?read_timeout=3s", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb2.Close()
	if rdb2.Options().ReadTimeout != 3*time.Second {
		t.Fatalf("Open overrode the URL's read_timeout: %v", rdb2.Options().ReadTimeout)
	}
	var _ redis.UniversalClient = rdb
}

func TestTokenHash(t *testing.T) {
	// SHA-256 of "abc" (FIPS 180-2 test vector).
	if got := TokenHash("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("TokenHash(abc) = %s", got)
	}
}
