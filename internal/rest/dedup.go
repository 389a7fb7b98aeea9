package rest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// parse-server deduplicates a write by its X-Parse-Request-Id only on some routes (creating and updating objects,
// users and installations; cloud functions; jobs), and only when its idempotencyOptions list the route. Nothing
// in an answer says whether it did. So before a write with a request id is sent again after an ambiguous failure,
// the transport learns, once per route, whether the server deduplicates that route: it sends one harmless request
// twice under one request id. A "Duplicate request" (159) answer proves deduplication; two other refusals prove
// its absence. The probe requests change nothing on the server:
//   - objects, users, installations: a create whose body the server refuses before doing anything else (an empty
//     objectId together with an id field: refused as a missing objectId where custom ids are allowed, and as an
//     invalid field name where they are not);
//   - functions and jobs: a call of a function or job that does not exist (refused after the check).
// The answer is kept for the transport's lifetime; a probe that gets no answer is not kept and is tried again at
// the next ambiguous failure.

// ProbeName is the cloud function and job name the deduplication probe calls; it must not exist on the server.
const ProbeName = "moralisGoIdempotencyProbe"

// dedupRoute returns the key of the route a write to path belongs to for deduplication, or "" when parse-server
// never deduplicates it (/batch, roles, sessions, files, events, schemas, ...).
func dedupRoute(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch parts[0] {
	case "classes":
		if len(parts) >= 2 && parts[1] != "" {
			return "classes/" + parts[1]
		}
	case "users", "installations":
		return parts[0]
	case "functions", "jobs":
		if len(parts) == 2 && parts[1] != "" {
			return parts[0]
		}
	}
	return ""
}

// probeCall is the harmless write sent twice to learn whether route is deduplicated.
func probeCall(route string) Call {
	switch route {
	case "functions", "jobs":
		return Call{Method: http.MethodPost, Path: route + "/" + ProbeName, Params: map[string]any{}}
	}
	return Call{Method: http.MethodPost, Path: route, Params: map[string]any{"objectId": "", "id": "x"}}
}

type dedupCache struct {
	mu    sync.Mutex
	known map[string]bool
}

func (d *dedupCache) get(route string) (bool, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.known[route]
	return v, ok
}

func (d *dedupCache) set(route string, v bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.known == nil {
		d.known = map[string]bool{}
	}
	d.known[route] = v
}

// errProbeUnanswered is returned when the probe could not learn the answer (no answer or a 5xx).
var errProbeUnanswered = errors.New("the deduplication probe got no clear answer")

// Deduplicates reports whether the server deduplicates writes to path by their request id (see above). It is
// false for routes parse-server never deduplicates and when idempotency is off. Safe for concurrent use.
func (t *Transport) Deduplicates(ctx context.Context, path string) (bool, error) {
	route := dedupRoute(path)
	if route == "" || !t.cfg.Idempotency {
		return false, nil
	}
	if v, ok := t.dedup.get(route); ok {
		return v, nil
	}
	c := probeCall(route)
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
