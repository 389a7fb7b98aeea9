package rest

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/randid"
)

// parse-server deduplicates a write by its X-Parse-Request-Id only on some routes (creating and updating objects,
// users and installations; cloud functions; jobs), and only when its idempotencyOptions list the route (path
// patterns: creates and updates of one class can differ). Nothing in an answer says whether it did. So before a
// write with a request id is sent again after an ambiguous failure, the transport learns whether the server
// deduplicates that route, for that method: it sends one harmless request twice under one request id. A
// "Duplicate request" (159) answer proves deduplication; two other refusals prove its absence. The probe requests
// change nothing on the server:
//   - creates of objects, users, installations: a create whose body the server refuses before doing anything
//     else (an empty objectId together with an id field: refused as a missing objectId where custom ids are
//     allowed, and as an invalid field name where they are not);
//   - updates: an update of an object that does not exist (a random id), refused as not found;
//   - functions and jobs: a call of a function or job that does not exist (refused after the check).
// The answer is kept for DedupTTL (a server may be restarted with another configuration); a probe that gets no
// answer is not kept and is tried again at the next ambiguous failure.

// ProbeName is the cloud function and job name the deduplication probe calls; it must not exist on the server.
const ProbeName = "moralisGoIdempotencyProbe"

// DedupTTL is how long the transport keeps what a probe learned about a route.
const DedupTTL = 10 * time.Minute

// dedupRoute returns the key of the route a write (method, path) belongs to for deduplication, or "" when
// parse-server never deduplicates it (/batch, roles, sessions, files, events, schemas, ...).
func dedupRoute(method, path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	update := method == http.MethodPut
	switch parts[0] {
	case "classes":
		switch {
		case len(parts) == 2 && parts[1] != "" && !update:
			return "POST classes/" + parts[1]
		case len(parts) == 3 && parts[1] != "" && parts[2] != "" && update:
			return "PUT classes/" + parts[1]
		}
	case "users", "installations":
		switch {
		case len(parts) == 1 && !update:
			return "POST " + parts[0]
		case len(parts) == 2 && parts[1] != "" && update:
			return "PUT " + parts[0]
		}
	case "functions", "jobs":
		if len(parts) == 2 && parts[1] != "" && !update {
			return "POST " + parts[0]
		}
	}
	return ""
}

// probeCall is the harmless write sent twice to learn whether route is deduplicated.
func probeCall(route string) (Call, error) {
	method, path, _ := strings.Cut(route, " ")
	switch {
	case path == "functions" || path == "jobs":
		return Call{Method: http.MethodPost, Path: path + "/" + ProbeName, Params: map[string]any{}}, nil
	case method == http.MethodPut:
		id, err := randid.Alnum(rand.Read, 10)
		if err != nil {
			return Call{}, err
		}
		return Call{Method: http.MethodPut, Path: path + "/" + id, Params: map[string]any{}}, nil
	}
	return Call{Method: http.MethodPost, Path: path, Params: map[string]any{"objectId": "", "id": "x"}}, nil
}

type dedupEntry struct {
	dedup bool
	at    time.Time
}

type dedupCache struct {
	mu    sync.Mutex
	known map[string]dedupEntry
}

func (d *dedupCache) get(route string) (bool, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.known[route]
	if !ok || time.Since(e.at) > DedupTTL {
		return false, false
	}
	return e.dedup, true
}

func (d *dedupCache) set(route string, v bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.known == nil {
		d.known = map[string]dedupEntry{}
	}
	d.known[route] = dedupEntry{dedup: v, at: time.Now()}
}

// errProbeUnanswered is returned when the probe could not learn the answer (no answer or a 5xx).
var errProbeUnanswered = errors.New("the deduplication probe got no clear answer")

// Deduplicates reports whether the server deduplicates writes (method POST or PUT) to path by their request id
// (see above). It is false for routes parse-server never deduplicates and when idempotency is off. Safe for
// concurrent use.
func (t *Transport) Deduplicates(ctx context.Context, method, path string) (bool, error) {
	route := dedupRoute(method, path)
	if route == "" || !t.cfg.Idempotency {
		return false, nil
	}
	if v, ok := t.dedup.get(route); ok {
		return v, nil
	}
	c, err := probeCall(route)
	if err != nil {
		return false, err
	}
	c.RequestID = t.cfg.NewRequestID()
	c.Replay = httpx.ReplayAlways // refused before anything is written: harmless to repeat
	for i := 0; i < 2; i++ {
		_, err := t.Do(ctx, c)
		var perr *Error
		switch {
		case err == nil:
			// The server accepted a request it should have refused: do not rely on it.
			t.dedup.set(route, false)
			return false, nil
		case !errors.As(err, &perr) || perr.Status >= 500 || perr.Status == 0:
			return false, errProbeUnanswered
		case perr.Code == CodeDuplicateRequest:
			t.dedup.set(route, true)
			return true, nil
		}
	}
	t.dedup.set(route, false)
	return false, nil
}
