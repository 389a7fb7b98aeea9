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
	// Session returns the session token of the request's user; an error answers 401. Required by NewSSEHandler;
	// an SSEBridge is given the token by its caller. It must return only a token the backend has confirmed, so that
	// a fake cookie is refused before Dial opens a websocket. Behind authserver, serve an SSEBridge with
	// (*authserver.Handler).Live instead of this handler: the endpoint confirms the session and caps the streams.
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
	// MaxStreamsPerSession caps NewSSEHandler's open streams of one session token (default 4; negative: no cap);
	// over it the answer is 429. An SSEBridge has no caps of its own: its server's are the ones.
	MaxStreamsPerSession int
	// MaxStreams caps NewSSEHandler's open streams (default 1000; negative: no cap); over it the answer is 503.
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
//
// The handler is a small HTTP surface of its own (a GET only, SSEConfig.Session, its two stream caps, its
// {"code","error"} refusals with the statuses of StreamError, 405 for another method, 401 {209} without a session,
// 429 and 503 {155} over a cap), for a server that has no other. The sign-in endpoint serves the same stream through
// its own pipeline instead: NewSSEBridge and (*authserver.Handler).Live.
func NewSSEHandler(cfg SSEConfig) (http.Handler, error) {
	if cfg.Session == nil {
		return nil, errors.New("live: SSEConfig needs Session and Dial")
	}
	b, err := NewSSEBridge(cfg)
	if err != nil {
		return nil, err
	}
	cfg = b.cfg
	streams := &streamCounter{max: cfg.MaxStreams, perSession: cfg.MaxStreamsPerSession, bySession: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			jsonError(w, &StreamError{Status: http.StatusMethodNotAllowed, Code: 107, Message: "method not allowed"})
			return
		}
		if err := b.check(r); err != nil {
			jsonError(w, err)
			return
		}
		token, err := cfg.Session(r)
		if err != nil || token == "" {
			jsonError(w, &StreamError{Status: http.StatusUnauthorized, Code: 209, Message: "Invalid session token"})
			return
		}
		release, status := streams.acquire(token)
		if status != 0 {
			msg := "too many live streams"
			if status == http.StatusTooManyRequests {
				msg = "too many live streams for this session"
			}
			jsonError(w, &StreamError{Status: status, Code: 155, Message: msg})
			return
		}
		defer release()
		if err := b.Serve(w, r, token); err != nil {
			jsonError(w, err.(*StreamError))
		}
	}), nil
}

// SSEBridge is the stream of NewSSEHandler without an HTTP surface of its own: no method check, session, caps or
// error writer. A server that has those serves it through them: authserver's (*Handler).Live, which is how the
// sign-in endpoint serves /auth/live (its one pipeline: rate limits, origin, the confirmed session, the stream caps
// per session, user, client and instance, one error writer). Safe for concurrent use.
type SSEBridge struct {
	cfg     SSEConfig
	allowed map[string]bool
	lim     whereLimits
}

// NewSSEBridge returns the bridge of cfg. Dial is required; Session, MaxStreamsPerSession and MaxStreams are
// NewSSEHandler's and play no part here. The other fields and their defaults are as for NewSSEHandler.
func NewSSEBridge(cfg SSEConfig) (*SSEBridge, error) {
	if cfg.Dial == nil {
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
	return &SSEBridge{cfg: cfg, allowed: allowed,
		lim: whereLimits{allowRegex: cfg.AllowRegex, maxRegexLength: cfg.MaxRegexLength}}, nil
}

// StreamError is the bridge's refusal of a stream, before any of it was written: the HTTP status that fits it, a
// Parse code and a text safe to show. 400 {102} a where outside the allowed operators or bounds, {103} a bad class
// name, {107} a where that is not JSON; 403 {119} a class that is not allowed; 413 {107} a where over 16 KiB; 502
// {100} the live query server could not be reached or refused to subscribe; 500 {1} a response writer that cannot
// stream, or a journaled bridge whose Client has no Runner. A refusal of the live query server itself is 400 with
// its code.
type StreamError struct {
	Status  int
	Code    int
	Message string
}

// Error returns the refusal's text.
func (e *StreamError) Error() string { return "live: " + e.Message }

// check refuses, before any work, a request whose query names a class or a where the bridge does not take.
func (b *SSEBridge) check(r *http.Request) *StreamError {
	class := r.URL.Query().Get("class")
	if !classNameRE.MatchString(class) {
		return &StreamError{Status: http.StatusBadRequest, Code: 103, Message: "Invalid class name"}
	}
	if len(b.allowed) > 0 && !b.allowed[class] {
		return &StreamError{Status: http.StatusForbidden, Code: 119, Message: "live queries are not enabled for class " + class}
	}
	_, err := b.where(r)
	return err
}

// where reads the request's where parameter (nil when absent).
func (b *SSEBridge) where(r *http.Request) (map[string]any, *StreamError) {
	s := r.URL.Query().Get("where")
	if s == "" {
		return nil, nil
	}
	if len(s) > 16<<10 {
		return nil, &StreamError{Status: http.StatusRequestEntityTooLarge, Code: 107, Message: "where parameter is too large"}
	}
	var where map[string]any
	if err := json.Unmarshal([]byte(s), &where); err != nil || where == nil {
		return nil, &StreamError{Status: http.StatusBadRequest, Code: 107, Message: "where parameter is not valid JSON"}
	}
	if err := checkWhere(where, b.lim); err != nil {
		return nil, &StreamError{Status: http.StatusBadRequest, Code: 102, Message: err.(*WhereError).Reason}
	}
	return where, nil
}

// Serve serves the stream GET ?class=NAME&where=JSON of r to w as the user of token, whom the caller has
// confirmed with the backend, until r's context ends (see NewSSEHandler for the stream). It returns nil once the
// stream ran, and a *StreamError, with nothing written, when it refused it: the caller answers that.
func (b *SSEBridge) Serve(w http.ResponseWriter, r *http.Request, token string) error {
	if err := b.check(r); err != nil {
		return err
	}
	cfg := &b.cfg
	class := r.URL.Query().Get("class")
	where, _ := b.where(r)
	if !canFlush(w) {
		return &StreamError{Status: http.StatusInternalServerError, Code: 1, Message: "streaming unsupported"}
	}
	out := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: cfg.WriteTimeout, id: lastEventID(r)}
	ctx := r.Context()
	lc, err := cfg.Dial(ctx, token)
	if err != nil {
		return &StreamError{Status: http.StatusBadGateway, Code: 100, Message: "could not reach the live query server"}
	}
	defer lc.Close()
	if cfg.Redis != nil && lc.cfg.Runner == nil {
		return &StreamError{Status: http.StatusInternalServerError, Code: 1, Message: "live: a journaled stream needs a Runner"}
	}
	sub, err := lc.Subscribe(ctx, class, where, nil)
	if err != nil {
		var se *ServerError
		if errors.As(err, &se) {
			return &StreamError{Status: http.StatusBadRequest, Code: se.Code, Message: se.Message}
		}
		return &StreamError{Status: http.StatusBadGateway, Code: 100, Message: "could not subscribe"}
	}
	defer sub.Unsubscribe()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if out.write(fmt.Sprintf(": subscribed\nretry: %d\n\n", cfg.Retry.Milliseconds())) != nil {
		return nil
	}
	if cfg.Redis != nil {
		serveJournaled(ctx, cfg, out, sub, token, class, where, strings.TrimSpace(r.Header.Get("Last-Event-ID")))
		return nil
	}
	if lc.cfg.Runner != nil {
		if out.event("snapshot", snapshotData(sub)) != nil {
			return nil
		}
	}
	pump(ctx, cfg.Heartbeat, out, sub, nil, func(ev Event) error {
		data, err := eventData(ev)
		if err != nil {
			return err
		}
		return out.event(string(ev.Kind), data)
	})
	return nil
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

// jsonError is NewSSEHandler's one error writer: e's status and {"code","error"}.
func jsonError(w http.ResponseWriter, e *StreamError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	json.NewEncoder(w).Encode(map[string]any{"code": e.Code, "error": e.Message})
}
