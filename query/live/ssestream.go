package live

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// maxEventID keeps event ids within what JavaScript numbers hold exactly.
const maxEventID = 1 << 53

// sseWriter writes one stream: each write gets its own deadline (now + timeout) through the
// ResponseController and is flushed at once.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	id      uint64 // the last id sent
}

func (s *sseWriter) write(text string) error {
	if err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := io.WriteString(s.w, text); err != nil {
		return err
	}
	return s.rc.Flush()
}

// event sends a named event with the next id. data is one line of JSON.
func (s *sseWriter) event(name string, data []byte) error {
	if s.id++; s.id > maxEventID {
		s.id = 1
	}
	return s.eventID(strconv.FormatUint(s.id, 10), name, data)
}

// eventID sends a named event with the given id; with id "" the event has none, and the browser's last event id
// stays as it was. data is one line of JSON.
func (s *sseWriter) eventID(id, name string, data []byte) error {
	text := "event: " + name + "\ndata: " + string(data) + "\n\n"
	if id != "" {
		text = "id: " + id + "\n" + text
	}
	return s.write(text)
}

// lastEventID reads the id a reconnecting EventSource sends; anything but a number in range counts as none.
func lastEventID(r *http.Request) uint64 {
	v := strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	if v == "" {
		return 0
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > maxEventID {
		return 0
	}
	return n
}

// snapshotData is {"objects": [...]}: every object the subscription knows to match, sorted by id.
func snapshotData(sub *Subscription) []byte { return snapshotObjects(sub.Snapshot()) }

// snapshotObjects is {"objects": objs}.
func snapshotObjects(objs []*parse.Object) []byte {
	if objs == nil {
		objs = []*parse.Object{}
	}
	b, err := json.Marshal(map[string]any{"objects": objs})
	if err != nil {
		return []byte(`{"objects":[]}`)
	}
	return b
}

// canFlush reports whether w (or a writer it wraps) can flush, as http.ResponseController needs.
func canFlush(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case http.Flusher:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}

// streamCounter caps open streams overall and per session token. Safe for concurrent use.
type streamCounter struct {
	mu         sync.Mutex
	max        int
	perSession int
	total      int
	bySession  map[string]int
}

// acquire takes a slot for a stream of token; status is 0 (release when the stream ends), 429 over the
// session's cap or 503 over the overall cap.
func (c *streamCounter) acquire(token string) (release func(), status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perSession > 0 && c.bySession[token] >= c.perSession {
		return nil, http.StatusTooManyRequests
	}
	if c.max > 0 && c.total >= c.max {
		return nil, http.StatusServiceUnavailable
	}
	c.total++
	c.bySession[token]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.total--
			if c.bySession[token]--; c.bySession[token] <= 0 {
				delete(c.bySession, token)
			}
			c.mu.Unlock()
		})
	}, 0
}
