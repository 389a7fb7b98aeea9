package authserver

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/c13f5054/moralis-go/parse"
)

// deadRedisURL is a redis:// URL where nothing listens (a port that was just free).
func deadRedisURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "redis://" + addr + "/0"
}

// One session holds at most DefaultLiveStreamsPerSession streams through GuardLive; another session of the same
// user still gets one. Fails when the session cap is not checked (tried: the session case of open removed, the
// fifth stream opened).
func TestLiveStreamsPerSession(t *testing.T) {
	l := newLiveCapsEnv(t, nil)
	toks := l.user("u1", 2)
	for i := range DefaultLiveStreamsPerSession {
		if s, a := l.open("127.0.5.1", toks[0]); s == nil {
			t.Fatalf("stream %d of one session: %d %s", i, a.status, a.raw)
		}
	}
	s, a := l.open("127.0.5.1", toks[0])
	if s != nil {
		t.Fatalf("stream %d of one session was opened", DefaultLiveStreamsPerSession+1)
	}
	wantError(t, a, http.StatusTooManyRequests, parse.CodeRequestLimitExceeded, "too many live streams for this session")
	if s, a := l.open("127.0.5.1", toks[1]); s == nil {
		t.Fatalf("another session of the user was refused: %d %s", a.status, a.raw)
	}
}

// A sign-out ends the session's open live streams on this instance at once, and leaves other sessions' streams
// open. Fails when sign-out does not end them (tried: the open.end call of signOut removed: the stream stayed open).
func TestSignOutEndsLiveStreams(t *testing.T) {
	l := newLiveCapsEnv(t, nil)
	toks := l.user("u1", 2)
	gone, _ := l.open("127.0.6.1", toks[0])
	kept, _ := l.open("127.0.6.1", toks[1])
	if gone == nil || kept == nil {
		t.Fatal("streams refused")
	}
	ended := make(chan error, 1)
	go func() { _, err := io.ReadAll(gone.(io.Reader)); ended <- err }()
	if a := l.e.do("POST", "/signout", "", "", map[string]string{"Authorization": "Bearer " + toks[0]}); a.status != 200 {
		t.Fatalf("sign-out: %d %s", a.status, a.raw)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the signed-out session's stream is still open 5 s after sign-out")
	}
	stillOpen := make(chan struct{})
	go func() { _, _ = io.ReadAll(kept.(io.Reader)); close(stillOpen) }()
	select {
	case <-stillOpen:
		t.Fatal("another session's stream ended at the sign-out")
	case <-time.After(200 * time.Millisecond):
	}
}

// With Redis configured but unreachable, every guard refuses: the limits, the nonce quota and the session check
// answer 503 with Retry-After, never let the request through, and no backend call is made. Fails when a store's
// fault is read as "allowed" (tried: redisLimiter.allow returning true on an error: GET /message answered 200).
func TestRedisDownFailsClosed(t *testing.T) {
	var reported []string
	for name, on := range map[string]func(o *Config){
		"RateLimit":        func(o *Config) { o.RateLimit = RateLimit{} },
		"SignInRateLimit":  func(o *Config) { o.SignInRateLimit = RateLimit{} },
		"both rate limits": func(o *Config) { o.RateLimit, o.SignInRateLimit = RateLimit{}, RateLimit{} }, // one round trip
		"NoncesPerClient":  func(o *Config) { o.NoncesPerClient = 0 },
	} {
		// Only this guard is on (newTestEnv turns the others off).
		e := newTestEnv(t, func(o *Config) {
			o.RedisURL = deadRedisURL(t)
			on(o)
			o.OnError = func(_ *http.Request, err error) { reported = append(reported, err.Error()) }
		})
		t.Cleanup(func() {
			if err := e.h.Close(); err != nil {
				t.Error(err)
			}
		})
		a := e.do("GET", "/message?chain=evm&address=0x0000000000000000000000000000000000000001", "", "", nil)
		if a.status != http.StatusServiceUnavailable || a.body["error"] != "Limit store unavailable" ||
			a.header.Get("Retry-After") != "1" {
			t.Errorf("%s with Redis down: %d %s (Retry-After %q); want 503 Limit store unavailable, Retry-After 1",
				name, a.status, a.raw, a.header.Get("Retry-After"))
		}
		if n := e.cb.n.Load(); n != 0 {
			t.Errorf("%s: %d backend calls with Redis down", name, n)
		}
	}
	// Only the session check guards this route once the limits are off: it fails closed too.
	e2 := newTestEnv(t, func(o *Config) { o.RedisURL = deadRedisURL(t) })
	t.Cleanup(func() { _ = e2.h.Close() })
	e2.be.users["r:tok"] = &PublicUser{ObjectID: "u1"}
	srv := e2.h.GuardLive(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("the stream handler ran without the session's revocation checked")
	}))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/live", nil)
	req.Header.Set("Authorization", "Bearer r:tok")
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"Session store unavailable"`) {
		t.Fatalf("GuardLive with Redis down: %d %s", rec.Code, rec.Body.String())
	}
	if n := e2.cb.n.Load(); n != 0 {
		t.Fatalf("%d backend calls with Redis down", n)
	}
	if len(reported) == 0 || !strings.Contains(reported[0], "redis unavailable") {
		t.Fatalf("OnError was told %q, want the Redis fault", reported)
	}
}

// Redis and RedisURL follow the configuration rule: both set is an error naming them; a bad URL is an error
// naming the field, without the URL's password.
func TestRedisConfig(t *testing.T) {
	base := Config{AppID: "a", Domain: "app.example"}
	c := base
	c.Redis = redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Redis.Close()
	c.RedisURL = "redis://127.0.0.1:1/0"
	if _, err := NewHandler(newFakeBackend(), c); err == nil || !strings.Contains(err.Error(), "Config.Redis or Config.RedisURL") {
		t.Fatalf("both set: %v", err)
	}
	c = base
	c.RedisURL = "http://user:s3cret@127.0.0.1:1/0"
	_, err := NewHandler(newFakeBackend(), c)
	if err == nil || !strings.Contains(err.Error(), "Config.RedisURL") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("bad URL: %v", err)
	}
	h, err := NewHandler(newFakeBackend(), base)
	if err != nil || h.redis != nil {
		t.Fatalf("zero: %v, redis %v", err, h.redis)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("Close without Redis: %v", err)
	}
}

// With Redis, the default nonce store is Redis's, capped at DefaultMaxOutstandingNonces live nonces over all the
// instances (TestRedisNonceCapFromManyAddresses shows the cap at work against the stack's Redis).
func TestRedisNonceStoreIsCappedByDefault(t *testing.T) {
	e := newTestEnv(t, func(o *Config) { o.RedisURL = deadRedisURL(t) })
	s, ok := e.h.o.Nonces.(redisNonceStore)
	if !ok {
		t.Fatalf("nonce store %T, want the Redis store", e.h.o.Nonces)
	}
	if s.max != DefaultMaxOutstandingNonces {
		t.Fatalf("cap %d, want %d", s.max, DefaultMaxOutstandingNonces)
	}
}
