package authserver

import (
	"sync"
	"time"
)

// ttlCache is the one cache type of the endpoint (confirmed sessions and their users, chain-data answers): each
// entry lives until its expiry, and the cache holds at most maxEntries entries and, with a cost function, at most
// maxCost in total. When it is full, expired entries go first; then, with evictOldest, the oldest entries make
// room, else the new entry is not cached (so a flood cannot push out what is there). Safe for concurrent use; a
// nil *ttlCache caches nothing.
type ttlCache[K comparable, V any] struct {
	ttl         time.Duration
	maxEntries  int
	maxCost     int
	cost        func(V) int
	evictOldest bool
	now         func() time.Time

	mu    sync.Mutex
	m     map[K]ttlEntry[V]
	order []K // insertion order, for evictOldest (may hold keys no longer in m)
	total int // the cost of the entries in m
}

type ttlEntry[V any] struct {
	v   V
	exp time.Time
}

// newTTLCache returns a cache of entries that live ttl, or nil (no cache) when ttl is not positive.
func newTTLCache[K comparable, V any](ttl time.Duration, maxEntries int, now func() time.Time) *ttlCache[K, V] {
	if ttl <= 0 {
		return nil
	}
	return &ttlCache[K, V]{ttl: ttl, maxEntries: maxEntries, now: now, m: map[K]ttlEntry[V]{}}
}

// get returns the live entry of k.
func (c *ttlCache[K, V]) get(k K) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return zero, false
	}
	if !c.now().Before(e.exp) {
		if !c.evictOldest { // with evictOldest, an expired entry keeps its place until it is replaced or evicted
			c.deleteLocked(k)
		}
		return zero, false
	}
	return e.v, true
}

// put caches v for k for the cache's ttl from now.
func (c *ttlCache[K, V]) put(k K, v V) {
	if c == nil {
		return
	}
	c.putFrom(k, v, c.now())
}

// putFrom caches v for k for the cache's ttl from start (when the value was fetched), unless k holds a value
// that expires later (fetched by a call that began later).
func (c *ttlCache[K, V]) putFrom(k K, v V, start time.Time) {
	if c == nil {
		return
	}
	cost := 0
	if c.cost != nil {
		if cost = c.cost(v); cost > c.maxCost {
			return
		}
	}
	exp := start.Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	old, replaced := c.m[k]
	if replaced {
		if old.exp.After(exp) {
			return
		}
		c.deleteLocked(k) // it keeps its place in order
	}
	if !c.evictOldest && len(c.m) >= c.maxEntries {
		c.dropExpiredLocked()
		if len(c.m) >= c.maxEntries {
			return
		}
	}
	c.m[k] = ttlEntry[V]{v: v, exp: exp}
	c.total += cost
	if c.evictOldest {
		if !replaced {
			c.order = append(c.order, k)
		}
		for (len(c.m) > c.maxEntries || c.total > c.maxCost && c.cost != nil) && len(c.order) > 0 {
			c.deleteLocked(c.order[0])
			c.order = c.order[1:]
		}
		if len(c.order) > 2*c.maxEntries {
			kept := c.order[:0]
			for _, k := range c.order {
				if _, ok := c.m[k]; ok {
					kept = append(kept, k)
				}
			}
			c.order = kept
		}
	}
}

// remove forgets k.
func (c *ttlCache[K, V]) remove(k K) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.deleteLocked(k)
	c.mu.Unlock()
}

func (c *ttlCache[K, V]) deleteLocked(k K) {
	if e, ok := c.m[k]; ok {
		if c.cost != nil {
			c.total -= c.cost(e.v)
		}
		delete(c.m, k)
	}
}

func (c *ttlCache[K, V]) dropExpiredLocked() {
	now := c.now()
	for k, e := range c.m {
		if !now.Before(e.exp) {
			c.deleteLocked(k)
		}
	}
}

// clear forgets every entry.
func (c *ttlCache[K, V]) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.m, c.order, c.total = map[K]ttlEntry[V]{}, nil, 0
	c.mu.Unlock()
}
