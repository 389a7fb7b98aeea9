package authserver

import (
	"testing"
	"time"
)

// TestTTLCacheBounded: a full cache takes no new entry until one expires, and an expired entry is not served.
func TestTTLCacheBounded(t *testing.T) {
	clock := &testClock{now: time.Unix(1_700_000_000, 0)}
	c := newTTLCache[int, string](time.Minute, 2, clock.Now)
	c.put(1, "a")
	c.put(2, "b")
	c.put(3, "c")
	if _, ok := c.get(3); ok || len(c.m) != 2 {
		t.Fatalf("full cache took a third entry: %d entries", len(c.m))
	}
	if v, ok := c.get(1); !ok || v != "a" {
		t.Fatalf("get(1) = %q, %v", v, ok)
	}
	clock.Add(2 * time.Minute)
	if _, ok := c.get(1); ok {
		t.Fatal("expired entry served")
	}
	c.put(3, "c")
	if v, ok := c.get(3); !ok || v != "c" || len(c.m) > 2 {
		t.Fatalf("after expiry: get(3) = %q, %v, %d entries", v, ok, len(c.m))
	}
}
