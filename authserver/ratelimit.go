package authserver

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// RateLimit is a per-client token bucket: each client may make Burst requests at once, refilled at one request
// per Every. In Config the zero value means the handler's default for that limit and a negative Burst
// (NoRateLimit) turns the limit off. It is a plain value.
type RateLimit struct {
	// Burst is the bucket size (requests allowed at once). In Config: 0 means the default, < 0 off.
	Burst int
	// Every is the time to refill one request; 0 with Burst > 0 means one second; negative is an error.
	Every time.Duration
	// ClientKey names the client of a request; nil uses the remote IP address, IPv6 addresses by their /64
	// (X-Forwarded-For is not trusted: behind a proxy, supply a function that reads the header your proxy sets).
	// It must be safe for concurrent use.
	ClientKey func(r *http.Request) string
}

type bucket struct {
	tokens float64
	last   time.Time
}

type limiter struct {
	mu      sync.Mutex
	cfg     RateLimit
	buckets map[string]*bucket
	now     func() time.Time
	lastGC  time.Time
}

// newLimiter returns the token buckets of cfg, or nil (a nil rateLimiter: no limit) when cfg.Burst is not
// positive.
func newLimiter(cfg RateLimit, now func() time.Time) rateLimiter {
	if cfg.Burst <= 0 {
		return nil
	}
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.ClientKey == nil {
		cfg.ClientKey = remoteIP
	}
	return &limiter{cfg: cfg, buckets: map[string]*bucket{}, now: now}
}

// remoteIP is the default client key: the remote IP address, or for IPv6 its /64 network (one subscriber
// usually holds a whole /64, so keying by the full address would give an attacker 2^64 clients).
func remoteIP(r *http.Request) string { return clientAddr(r.RemoteAddr) }

func clientAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if ip.Is6() {
			p, _ := ip.Prefix(64)
			return p.String()
		}
		return ip.String()
	}
	return host
}

// allow takes one token of client key; when none is left it returns the wait until the next one.
func (l *limiter) allow(_ context.Context, key string) (bool, time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	full := time.Duration(l.cfg.Burst) * l.cfg.Every
	if now.Sub(l.lastGC) > full && len(l.buckets) > 1024 {
		for k, b := range l.buckets {
			if now.Sub(b.last) > full {
				delete(l.buckets, k)
			}
		}
		l.lastGC = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(l.cfg.Burst), last: now}
		l.buckets[key] = b
	}
	if el := now.Sub(b.last); el > 0 {
		b.tokens += float64(el) / float64(l.cfg.Every)
		if b.tokens > float64(l.cfg.Burst) {
			b.tokens = float64(l.cfg.Burst)
		}
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	return false, time.Duration((1 - b.tokens) * float64(l.cfg.Every)), nil
}
