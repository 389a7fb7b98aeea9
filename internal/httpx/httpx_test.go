package httpx

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The back-off is the original's: round(base x r x 2^attempts) with the count already 1 at the first wait.
func TestBackoffStartsAtTwiceTheBase(t *testing.T) {
	p := Policy{Rand: func() float64 { return 1 }}
	assert.Equal(t, []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second},
		[]time.Duration{p.Backoff(1), p.Backoff(2), p.Backoff(3), p.Backoff(4)})
	p.Rand = func() float64 { return 0.5 }
	assert.Equal(t, 63*time.Millisecond, Policy{Base: 63 * time.Millisecond, Rand: p.Rand}.Backoff(1))
}

// The retry rule, case by case.
func TestShouldRetryRule(t *testing.T) {
	ctx := context.Background()
	confirm := func(ok bool, err error) func(context.Context) (bool, error) {
		return func(context.Context) (bool, error) { return ok, err }
	}
	lost := errors.New("connection reset")
	cases := []struct {
		name         string
		req          Request
		a            attempt
		retry, doubt bool
	}{
		{"read after 503", Request{Method: "GET"}, attempt{status: 503, sent: true}, true, false},
		{"read after reset", Request{Method: "GET"}, attempt{err: lost, sent: true}, true, false},
		{"read after 404", Request{Method: "GET"}, attempt{status: 404, sent: true}, false, false},
		{"delete after reset", Request{Method: "DELETE", Write: true}, attempt{err: lost, sent: true}, true, false},
		{"write never sent", Request{Method: "POST", Write: true}, attempt{err: lost}, true, false},
		{"write after reset", Request{Method: "POST", Write: true}, attempt{err: lost, sent: true}, false, true},
		{"write after 502", Request{Method: "POST", Write: true}, attempt{status: 502, sent: true}, false, true},
		{"write after 400", Request{Method: "POST", Write: true}, attempt{status: 400, sent: true}, false, false},
		{"write marked repeatable", Request{Method: "POST", Write: true, Replay: ReplayAlways}, attempt{status: 502, sent: true}, true, false},
		{"deduplicated write", Request{Method: "POST", Write: true, Replay: ReplayIfConfirmed, Confirm: confirm(true, nil)}, attempt{err: lost, sent: true}, true, false},
		{"write the server does not deduplicate", Request{Method: "POST", Write: true, Replay: ReplayIfConfirmed, Confirm: confirm(false, nil)}, attempt{err: lost, sent: true}, false, true},
		{"probe failed", Request{Method: "POST", Write: true, Replay: ReplayIfConfirmed, Confirm: confirm(true, errors.New("x"))}, attempt{err: lost, sent: true}, false, true},
		{"POST read", Request{Method: "POST", Replay: ReplayAlways}, attempt{err: lost, sent: true}, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			retry, doubt, reason := shouldRetry(ctx, &c.req, c.a)
			assert.Equal(t, c.retry, retry, reason)
			assert.Equal(t, c.doubt, doubt, reason)
		})
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	retry, _, reason := shouldRetry(done, &Request{Method: "GET"}, attempt{status: 503})
	assert.False(t, retry)
	assert.Equal(t, "context done", reason)
}

func noSleep(context.Context, time.Duration) error { return nil }

// A POST whose answer is cut after the server read it is not sent again; a GET is.
func TestCutAnswerRetriesReadsNotWrites(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		hits.Add(1)
		hj, _ := w.(http.Hijacker)
		c, _, _ := hj.Hijack()
		c.Close()
	}))
	defer srv.Close()
	c := New(nil, Policy{Sleep: noSleep})
	_, err := c.Do(context.Background(), &Request{Method: "POST", URL: srv.URL, Body: []byte(`{}`), Write: true})
	var nre *NoResponseError
	require.ErrorAs(t, err, &nre)
	assert.True(t, nre.InDoubt)
	assert.Equal(t, int32(1), hits.Load(), "the write was sent once")
	hits.Store(0)
	_, err = c.Do(context.Background(), &Request{Method: "GET", URL: srv.URL})
	require.ErrorAs(t, err, &nre)
	assert.False(t, nre.InDoubt)
	assert.Equal(t, int32(DefaultMaxAttempts), hits.Load())
}

// A write to a port where nothing listens never arrived: every attempt is made and it is not in doubt.
func TestRefusedConnectionIsRetriedForWrites(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	ln.Close()
	var retries int
	c := New(nil, Policy{Sleep: noSleep, OnRetry: func(int, string, time.Duration) { retries++ }})
	_, err = c.Do(context.Background(), &Request{Method: "POST", URL: url, Body: []byte(`{}`), Write: true})
	var nre *NoResponseError
	require.ErrorAs(t, err, &nre)
	assert.False(t, nre.InDoubt)
	assert.Equal(t, DefaultMaxAttempts, nre.Attempts)
	assert.Equal(t, DefaultMaxAttempts-1, retries)
}

// When the attempts of a repeatable write run out on 5xx answers, the last answer is marked in doubt; an earlier
// ambiguous attempt is remembered on a later answer.
func TestAttemptsRunOutInDoubt(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			w.WriteHeader(502)
			return
		}
		w.WriteHeader(400)
	}))
	defer srv.Close()
	c := New(nil, Policy{Sleep: noSleep, MaxAttempts: 2})
	resp, err := c.Do(context.Background(), &Request{Method: "POST", URL: srv.URL, Write: true, Replay: ReplayAlways})
	require.NoError(t, err)
	assert.Equal(t, 502, resp.Status)
	assert.True(t, resp.InDoubt)
	hits.Store(1) // one 502, then 400
	c = New(nil, Policy{Sleep: noSleep})
	resp, err = c.Do(context.Background(), &Request{Method: "POST", URL: srv.URL, Write: true, Replay: ReplayAlways})
	require.NoError(t, err)
	assert.Equal(t, 400, resp.Status)
	assert.True(t, resp.MaybeAppliedBefore)
	assert.False(t, resp.InDoubt)
}

func TestNilContext(t *testing.T) {
	//lint:ignore SA1012 the nil context is the point of the test
	_, err := New(nil, Policy{}).Do(nil, &Request{Method: "GET", URL: "http://127.0.0.1:1"}) //nolint:staticcheck
	assert.EqualError(t, err, "httpx: nil context")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A 5xx that would be retried, answered as the caller's context ends, gives the context's error (not the 5xx):
// the loop stopped because of the caller, and the caller asked to stop.
func TestFiveHundredWhenContextEndsGivesContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		cancel() // the caller gives up while the server answers 503
		return &http.Response{StatusCode: 503, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("busy")), Request: r}, nil
	})}
	c := New(hc, Policy{MaxAttempts: 5, Sleep: func(context.Context, time.Duration) error { return nil }})
	_, err := c.Do(ctx, &Request{Method: http.MethodGet, URL: "http://example.invalid/x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Fatalf("%d attempts, want 1", calls)
	}
}
