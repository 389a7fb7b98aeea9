package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// SSEConfig configures the server-sent-events bridge that feeds browsers (the React hooks' useLiveQuery) from a
// subscription held on the Go side, so the browser needs no backend keys.
type SSEConfig struct {
	// Session returns the session token of the request's user; an error answers 401. Required. It must return
	// only a token the backend has confirmed, so that a fake cookie is refused before Dial opens a websocket:
	// wrap the handler in authserver's (*Handler).GuardLive and return authserver.VerifiedSession(r).
	Session func(r *http.Request) (string, error)
	// Dial opens a live Client acting as the user of token (with a Runner for the snapshot and the catch-up).
	// Required.
	Dial func(ctx context.Context, token string) (*Client, error)
	// AllowedClasses, when set, lists the classes that may be watched (others answer 403).
	AllowedClasses []string
	// Heartbeat is the interval of keep-alive comment lines (default 15 s).
	Heartbeat time.Duration
	// WriteTimeout bounds each write to the browser (default 10 s); a browser that stops reading is dropped. The
	// deadline is set per write through http.ResponseController, so the server's own WriteTimeout, which counts
	// from the start of the request, does not cut a stream.
	WriteTimeout time.Duration
	// Retry is the reconnection delay the stream asks the browser's EventSource to use (default 2 s).
	Retry time.Duration
	// AllowRegex lets a where use $regex (with $options i, m, s). Off by default: parse-server runs every
	// subscription's regexes against every save of the class on its one event loop, so a few catastrophic
	// patterns stall it for everyone. When on, each pattern is bounded by MaxRegexLength, at most 4 per where, and
	// patterns that backtrack exponentially (a repeated group holding a quantifier or an alternation, such as
	// (a+)+), backreferences and lookaround are refused.
	AllowRegex bool
	// MaxRegexLength bounds a $regex pattern in bytes when AllowRegex is on (default DefaultMaxRegexLength).
	MaxRegexLength int
	// MaxStreamsPerSession caps the open streams of one session token (default 4; negative: no cap); over it the
	// answer is 429.
	MaxStreamsPerSession int
	// MaxStreams caps the handler's open streams (default 1000; negative: no cap); over it the answer is 503.
	MaxStreams int
	// Redis, when set, keeps every stream's events in a journal in Redis (a Redis stream per browser stream, the
	// entry ids in the SSE ids), so a browser that reconnects to any bridge sharing this Redis, with the
	// Last-Event-ID its EventSource sends, gets every event after that id exactly once and in order, including
	// what changed while no bridge was recording (see NewSSEHandler). Dial's Client must then have a Runner.
	// nil = one process, in-memory: a reconnect starts with a fresh snapshot instead.
	Redis redis.UniversalClient
	// JournalLength bounds each journal to about this many events (XADD MAXLEN ~; default DefaultJournalLength):
	// a browser further behind than that gets a resync.
	JournalLength int64
	// JournalTTL is how long a journal is kept after its stream's last write or heartbeat (default
	// DefaultJournalTTL): a browser away longer gets a resync.
	JournalTTL time.Duration
}

var classNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,127}$`)

// NewSSEHandler returns the handler of GET {base}/live?class=NAME&where=JSON: a text/event-stream that starts with
// the comment ": subscribed" and a "retry:" field, then (when Dial's Client has a Runner) an event named snapshot
// with data {"objects": [...]}, every object that matches now, then events named create, enter, update, leave and
// delete with data {"object": ..., "original": ...}, and error with data {"code": N, "error": "..."}. Every event
// has an id, increasing along the stream. A comment line is sent every Heartbeat so proxies and the browser see the
// stream alive.
//
// Without Redis (one process), a browser that reconnects sends the last id (Last-Event-ID) and the new stream
// continues the numbering and starts with a fresh snapshot, so replacing its list with the snapshot and applying
// the events after it converges to the server's result set, whatever happened during the gap; the ids mean nothing
// to another process.
//
// With SSEConfig.Redis every event is first appended to the stream's journal, a Redis stream (XADD MAXLEN ~
// JournalLength, expiring JournalTTL after its last write or heartbeat), and the SSE id is "<journal>/<entry id>".
// A browser that reconnects, through any bridge sharing the Redis, with the id of an entry still in its journal
// gets no snapshot: the bridge records, as enter, update and leave events, what changed while no bridge was
// recording (the journal keeps the result set's objectIds and versions), then replays every entry after that id
// and goes on live: no event missing or repeated, each object's changes in order (a change is recorded only if
// newer than the object's recorded version, by updatedAt, so changes made within the same millisecond count as
// one). An id the journal no longer holds (older than its length or time), or not of this form, gets an event
// named resync with data {"reason": "expired"} (or "unknown-event-id") and no id, then a fresh journal and its
// snapshot: the client drops what it knew and takes the snapshot. A Redis failure ends the stream (the browser
// reconnects and resumes); a stream is never served unjournaled.
//
// Each object's events go out in the order of its versions: the bridge's Subscription drops an event that arrives
// after a newer state of its object (see "Order per object" in the package documentation), so a browser never gets
// an older state after a newer one, whichever parse-servers the saves went through; with Redis the journal adds the
// same check across bridges (there an event of the same updatedAt as the recorded one is dropped as already
// recorded). The heartbeat comment is ": superseded N" instead of ": ping" when the stream's count of dropped events
// changed, for monitoring; EventSource ignores comments.
//
// The where may use only field equality, $eq, $ne, $lt, $lte, $gt, $gte, $in, $nin, $all, $containedBy and
// $exists, combined by $or, $and and $nor, within fixed bounds (see AllowRegex for $regex); anything else is
// refused with 400 {"code":102,...} before any backend work. The stream ends when the browser goes away. Safe for
// concurrent use.
func NewSSEHandler(cfg SSEConfig) (http.Handler, error) {
	if cfg.Session == nil || cfg.Dial == nil {
		return nil, errors.New("live: SSEConfig needs Session and Dial")
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 2 * time.Second
	}
	if cfg.MaxRegexLength <= 0 {
		cfg.MaxRegexLength = DefaultMaxRegexLength
	}
	if cfg.MaxStreamsPerSession == 0 {
		cfg.MaxStreamsPerSession = 4
	}
	if cfg.MaxStreams == 0 {
		cfg.MaxStreams = 1000
	}
	if cfg.JournalLength <= 0 {
		cfg.JournalLength = DefaultJournalLength
	}
	if cfg.JournalTTL <= 0 {
		cfg.JournalTTL = DefaultJournalTTL
	}
	allowed := map[string]bool{}
	for _, c := range cfg.AllowedClasses {
		allowed[c] = true
	}
	lim := whereLimits{allowRegex: cfg.AllowRegex, maxRegexLength: cfg.MaxRegexLength}
	streams := &streamCounter{max: cfg.MaxStreams, perSession: cfg.MaxStreamsPerSession, bySession: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			jsonError(w, http.StatusMethodNotAllowed, 0, "method not allowed")
			return
		}
		class := r.URL.Query().Get("class")
		if !classNameRE.MatchString(class) {
			jsonError(w, http.StatusBadRequest, 103, "Invalid class name")
			return
		}
		if len(allowed) > 0 && !allowed[class] {
			jsonError(w, http.StatusForbidden, 119, "live queries are not enabled for class "+class)
			return
		}
		var where map[string]any
		if s := r.URL.Query().Get("where"); s != "" {
			if len(s) > 16<<10 {
				jsonError(w, http.StatusRequestEntityTooLarge, 107, "where parameter is too large")
				return
			}
			if err := json.Unmarshal([]byte(s), &where); err != nil || where == nil {
				jsonError(w, http.StatusBadRequest, 107, "where parameter is not valid JSON")
				return
			}
			if err := checkWhere(where, lim); err != nil {
				jsonError(w, http.StatusBadRequest, 102, err.(*WhereError).Reason)
				return
			}
		}
		token, err := cfg.Session(r)
		if err != nil || token == "" {
			jsonError(w, http.StatusUnauthorized, 209, "Invalid session token")
			return
		}
		if !canFlush(w) {
			jsonError(w, http.StatusInternalServerError, 1, "streaming unsupported")
			return
		}
		release, status := streams.acquire(token)
		if status != 0 {
			msg := "too many live streams"
			if status == http.StatusTooManyRequests {
				msg = "too many live streams for this session"
			}
			jsonError(w, status, 155, msg)
			return
		}
		defer release()
		out := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: cfg.WriteTimeout, id: lastEventID(r)}
		ctx := r.Context()
		lc, err := cfg.Dial(ctx, token)
		if err != nil {
			jsonError(w, http.StatusBadGateway, 100, "could not reach the live query server")
			return
		}
		defer lc.Close()
		if cfg.Redis != nil && lc.cfg.Runner == nil {
			jsonError(w, http.StatusInternalServerError, 1, "live: a journaled stream needs a Runner")
			return
		}
		sub, err := lc.Subscribe(ctx, class, where, nil)
		if err != nil {
			var se *ServerError
			if errors.As(err, &se) {
				jsonError(w, http.StatusBadRequest, se.Code, se.Message)
				return
			}
			jsonError(w, http.StatusBadGateway, 100, "could not subscribe")
			return
		}
		defer sub.Unsubscribe()
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		if out.write(fmt.Sprintf(": subscribed\nretry: %d\n\n", cfg.Retry.Milliseconds())) != nil {
			return
		}
		if cfg.Redis != nil {
			serveJournaled(ctx, &cfg, out, sub, token, class, where, strings.TrimSpace(r.Header.Get("Last-Event-ID")))
			return
		}
		if lc.cfg.Runner != nil {
			if out.event("snapshot", snapshotData(sub)) != nil {
				return
			}
		}
		pump(ctx, cfg.Heartbeat, out, sub, nil, func(ev Event) error {
			data, err := eventData(ev)
			if err != nil {
				return err
			}
			return out.event(string(ev.Kind), data)
		})
	}), nil
}

// pump runs a stream until the browser goes away, the subscription ends or a write fails: a heartbeat comment
// (then tick, when set) every heartbeat, and each subscription event through send. Superseded events (see
// Subscription.Superseded) are never sent; the heartbeat comment is ": superseded N" instead of ": ping" when
// the subscription's count of them changed since the last heartbeat.
func pump(ctx context.Context, heartbeat time.Duration, out *sseWriter, sub *Subscription, tick func() error,
	send func(Event) error) {
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	var told int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			beat := ": ping\n\n"
			if n := sub.Superseded(); n != told {
				told, beat = n, fmt.Sprintf(": superseded %d\n\n", n)
			}
			if out.write(beat) != nil || (tick != nil && tick() != nil) {
				return
			}
		case ev, ok := <-sub.Events():
			if !ok {
				return
			}
			if ev.Superseded {
				continue // the Dial's Client delivers them (Config.DeliverSuperseded): a browser's view must not take them
			}
			if send(ev) != nil {
				return
			}
		}
	}
}

// eventData is the JSON data of an event: {"object", "original"?} or, for Error, {"code", "error"}.
func eventData(ev Event) ([]byte, error) {
	var data []byte
	var err error
	if ev.Kind == Error {
		code, msg := 0, "live query error"
		var se *ServerError
		if errors.As(ev.Err, &se) {
			code, msg = se.Code, se.Message
		}
		data, err = json.Marshal(map[string]any{"code": code, "error": msg})
	} else {
		payload := map[string]any{"object": ev.Object}
		if ev.Original != nil {
			payload["original"] = ev.Original
		}
		data, err = json.Marshal(payload)
	}
	return data, err
}

func jsonError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "error": msg})
}
