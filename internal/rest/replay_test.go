package rest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseLike is a scripted server that behaves as parse-server does towards request ids: when dedup is on, a
// second request with a seen X-Parse-Request-Id on a deduplicated route is refused with 159 before anything
// runs; the probe body (an empty objectId with an id) is refused as parse-server refuses it. Writes are answered
// by answer (n counts the writes, probes excluded).
type parseLike struct {
	mu     sync.Mutex
	dedup  bool
	seen   map[string]bool
	probes int
	writes []http.Header
	// answer answers the n-th write; it returns false when the write "never reached the server" (a proxy's
	// answer), and then its request id is forgotten.
	answer func(n int, w http.ResponseWriter) bool
}

func (p *parseLike) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	id := r.Header.Get("X-Parse-Request-Id")
	p.mu.Lock()
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	if p.dedup && id != "" && r.URL.Path != "/parse/batch" {
		if p.seen[id] {
			p.mu.Unlock()
			w.WriteHeader(400)
			w.Write([]byte(`{"code":159,"error":"Duplicate request"}`))
			return
		}
		p.seen[id] = true
	}
	if oid, ok := m["objectId"]; ok && oid == "" {
		p.probes++
		p.mu.Unlock()
		w.WriteHeader(400)
		w.Write([]byte(`{"code":104,"error":"objectId must not be empty, null or undefined"}`))
		return
	}
	if m["_method"] == "PUT" && userFields(m) == 0 {
		p.probes++
		p.mu.Unlock()
		w.WriteHeader(400)
		w.Write([]byte(`{"code":101,"error":"Object not found."}`))
		return
	}
	if r.URL.Path == "/parse/functions/"+ProbeName {
		p.probes++
		p.mu.Unlock()
		w.WriteHeader(400)
		w.Write([]byte(`{"code":141,"error":"Invalid function: \"` + ProbeName + `\""}`))
		return
	}
	p.writes = append(p.writes, r.Header.Clone())
	n := len(p.writes)
	p.mu.Unlock()
	if !p.answer(n, w) {
		p.mu.Lock()
		delete(p.seen, id)
		p.mu.Unlock()
	}
}

// userFields counts the body's keys that are not the protocol's own (_ApplicationId, _method, ...).
func userFields(m map[string]any) int {
	n := 0
	for k := range m {
		if k == "" || k[0] != '_' {
			n++
		}
	}
	return n
}

func newParseLike(t *testing.T, dedup, idempotency bool, answer func(n int, w http.ResponseWriter) bool) (*Transport, *parseLike, *[]time.Duration) {
	t.Helper()
	p := &parseLike{dedup: dedup, answer: answer}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	var waits []time.Duration
	var mu sync.Mutex
	tr, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", Idempotency: idempotency,
		Policy: httpx.Policy{Rand: func() float64 { return 0.5 }, Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return ctx.Err()
		}}})
	require.NoError(t, err)
	return tr, p, &waits
}

// failFirst answers 503 to the first k writes as a proxy in front of the server would (the server never saw
// them), then 201.
func failFirst(k int) func(n int, w http.ResponseWriter) bool {
	return func(n int, w http.ResponseWriter) bool {
		if n <= k {
			w.WriteHeader(503)
			return false
		}
		w.WriteHeader(201)
		w.Write([]byte(`{"objectId":"abc","createdAt":"2026-01-01T00:00:00.000Z"}`))
		return true
	}
}

// A write the server deduplicates is sent again with the same request id after a 5xx, once a probe has shown the
// server refuses a repeated id; the probe runs once per route.
func TestWriteRetriedOnlyWhenServerDeduplicates(t *testing.T) {
	tr, p, _ := newParseLike(t, true, true, failFirst(2))
	res, err := tr.Do(context.Background(), Call{Method: "POST", Path: "classes/Thing", Params: map[string]any{"n": 1}})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Attempts)
	require.Len(t, p.writes, 3)
	id := p.writes[0].Get("X-Parse-Request-Id")
	require.NotEmpty(t, id)
	for _, h := range p.writes {
		assert.Equal(t, id, h.Get("X-Parse-Request-Id"), "every attempt carries the same request id")
	}
	assert.Equal(t, 1, p.probes, "the probe's second request was refused as a duplicate")
	// A second failing create does not probe again.
	p.answer = failFirst(len(p.writes) + 1)
	_, err = tr.Do(context.Background(), Call{Method: "POST", Path: "classes/Thing", Params: map[string]any{"n": 2}})
	require.NoError(t, err)
	assert.Equal(t, 1, p.probes)
	// An update is probed on its own: a server may deduplicate creates and not updates.
	p.answer = failFirst(len(p.writes) + 1)
	_, err = tr.Do(context.Background(), Call{Method: "PUT", Path: "classes/Thing/abc", Params: map[string]any{"n": 3}})
	require.NoError(t, err)
	assert.Equal(t, 2, p.probes)
}

// Where the server does not deduplicate, an ambiguous failure of a write is reported in doubt and never resent.
func TestWriteInDoubtWhenServerIgnoresRequestIDs(t *testing.T) {
	tr, p, _ := newParseLike(t, false, true, failFirst(1))
	_, err := tr.Do(context.Background(), Call{Method: "POST", Path: "functions/pay", Params: map[string]any{"amount": 1}})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrWriteInDoubt)
	assert.Len(t, p.writes, 1, "never sent twice")
	assert.Equal(t, 2, p.probes, "two probe calls answered as a server without deduplication answers")
	assert.Contains(t, err.Error(), "in doubt")
}

// Without request ids (idempotency off), /batch, and routes parse-server never deduplicates, a write is not resent
// after an ambiguous failure, and no probe is sent.
func TestWritesNeverResentWithoutDeduplication(t *testing.T) {
	for _, c := range []struct {
		name string
		idem bool
		path string
	}{{"idempotency off", false, "classes/T"}, {"batch", true, "batch"}, {"roles", true, "roles"}, {"events", true, "events/Open"}} {
		t.Run(c.name, func(t *testing.T) {
			tr, p, _ := newParseLike(t, true, c.idem, failFirst(1))
			_, err := tr.Do(context.Background(), Call{Method: "POST", Path: c.path, Params: map[string]any{}})
			assert.ErrorIs(t, err, ErrWriteInDoubt)
			assert.Len(t, p.writes, 1)
			assert.Zero(t, p.probes)
		})
	}
}

// A caller that marks a write harmless to repeat (a create with a client-chosen id) gets retries without a probe.
func TestReplayAlwaysRetriesWithoutProbe(t *testing.T) {
	tr, p, _ := newParseLike(t, false, true, failFirst(2))
	_, err := tr.Do(context.Background(), Call{Method: "POST", Path: "batch", Params: map[string]any{}, Replay: httpx.ReplayAlways})
	require.NoError(t, err)
	assert.Len(t, p.writes, 3)
	assert.Zero(t, p.probes)
}

// A server that deduplicates creates only (idempotencyOptions.paths ["classes/[^/]+$"]) is not trusted with
// updates: the update probe finds no deduplication, and an Increment whose answer was lost is in doubt, never resent.
func TestUpdateNotResentWhereOnlyCreatesAreDeduplicated(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	puts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		id := r.Header.Get("X-Parse-Request-Id")
		mu.Lock()
		defer mu.Unlock()
		if m["_method"] == nil { // a create: deduplicated; the probe's body is refused
			if seen[id] {
				w.WriteHeader(400)
				w.Write([]byte(`{"code":159,"error":"Duplicate request"}`))
				return
			}
			seen[id] = true
			w.WriteHeader(400)
			w.Write([]byte(`{"code":104,"error":"objectId must not be empty, null or undefined"}`))
			return
		}
		if userFields(m) == 0 { // the update probe: not deduplicated
			w.WriteHeader(404)
			w.Write([]byte(`{"code":101,"error":"Object not found."}`))
			return
		}
		puts++
		w.WriteHeader(502) // applied, answer lost
	}))
	defer srv.Close()
	tr, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "a", Idempotency: true, Policy: httpx.Policy{Sleep: func(context.Context, time.Duration) error { return nil }}})
	require.NoError(t, err)
	ok, err := tr.Deduplicates(context.Background(), "POST", "classes/T")
	require.NoError(t, err)
	assert.True(t, ok)
	_, err = tr.Do(context.Background(), Call{Method: "PUT", Path: "classes/T/abc", Params: map[string]any{"score": map[string]any{"__op": "Increment", "amount": 1}}})
	assert.ErrorIs(t, err, ErrWriteInDoubt)
	assert.Equal(t, 1, puts, "the update was sent once")
}

// A retry refused as "Duplicate request" says only that the server saw an earlier attempt: in doubt.
func TestDuplicateRequestAfterRetryIsInDoubt(t *testing.T) {
	tr, p, _ := newParseLike(t, true, true, func(n int, w http.ResponseWriter) bool {
		w.WriteHeader(502) // the server applied it, a proxy lost the answer
		return true
	})
	_, err := tr.Do(context.Background(), Call{Method: "PUT", Path: "classes/T/abc", Params: map[string]any{"n": map[string]any{"__op": "Increment", "amount": 1}}})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, CodeDuplicateRequest, pe.Code)
	assert.True(t, pe.InDoubt)
	assert.True(t, pe.MaybeAppliedBefore)
	assert.ErrorIs(t, err, ErrWriteInDoubt)
	assert.Len(t, p.writes, 1, "the retry was refused before it ran")
}

// A write whose connection could not be made never reached the server: it is retried whatever it is, and a
// failure to connect is not in doubt.
func TestUnsentWriteIsRetriedAndNotInDoubt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	var waits int
	tr, err := New(Config{ServerURL: "http://" + addr + "/parse", AppID: "a", Idempotency: false,
		Policy: httpx.Policy{Sleep: func(ctx context.Context, d time.Duration) error { waits++; return nil }}})
	require.NoError(t, err)
	_, err = tr.Do(context.Background(), Call{Method: "POST", Path: "batch", Params: map[string]any{}})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, ErrUnableToConnect, pe.Message)
	assert.False(t, pe.InDoubt)
	assert.False(t, errors.Is(err, ErrWriteInDoubt))
	assert.Equal(t, httpx.DefaultMaxAttempts-1, waits, "all attempts were made")
}

// An answer cut short after the server applied the write is ambiguous: in doubt when it cannot be resent.
func TestTruncatedAnswerIsInDoubt(t *testing.T) {
	tr, p, _ := newParseLike(t, false, false, func(n int, w http.ResponseWriter) bool {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(201)
		w.Write([]byte(`{"objectId":`))
		w.(http.Flusher).Flush()
		if hj, ok := w.(http.Hijacker); ok {
			c, _, _ := hj.Hijack()
			c.Close()
		}
		return true
	})
	_, err := tr.Do(context.Background(), Call{Method: "POST", Path: "classes/T", Params: map[string]any{}})
	assert.ErrorIs(t, err, ErrWriteInDoubt)
	assert.Len(t, p.writes, 1)
}

// Deletes and reads are retried after ambiguous failures, and are never "in doubt" for a read.
func TestDeletesAndReadsRetry(t *testing.T) {
	tr, p, _ := newParseLike(t, false, true, failFirst(2))
	_, err := tr.Do(context.Background(), Call{Method: "DELETE", Path: "classes/T/abc"})
	require.NoError(t, err)
	assert.Len(t, p.writes, 3)
	assert.Zero(t, p.probes)
}
