package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// SSEConfig configures the server-sent-events bridge that feeds browsers (the React hooks' useLiveQuery) from a
// subscription held on the Go side, so the browser needs no backend keys.
type SSEConfig struct {
	// Session returns the session token of the request's user (e.g. from the auth endpoint's cookie). An error
	// answers 401. Required.
	Session func(r *http.Request) (string, error)
	// Dial opens a live Client acting as the user of token (with a Runner for catch-up). Required.
	Dial func(ctx context.Context, token string) (*Client, error)
	// AllowedClasses, when set, lists the classes that may be watched (others answer 403).
	AllowedClasses []string
	// Heartbeat is the interval of keep-alive comments (default 15 s).
	Heartbeat time.Duration
}

var classNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,127}$`)

// NewSSEHandler returns the handler of GET {base}/live?class=NAME&where=JSON: a text/event-stream whose events are
// named create, enter, update, leave and delete with data {"object": ..., "original": ...}, and error with data
// {"code": N, "error": "..."}. The stream ends when the browser goes away. Safe for concurrent use.
func NewSSEHandler(cfg SSEConfig) (http.Handler, error) {
	if cfg.Session == nil || cfg.Dial == nil {
		return nil, errors.New("live: SSEConfig needs Session and Dial")
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	allowed := map[string]bool{}
	for _, c := range cfg.AllowedClasses {
		allowed[c] = true
	}
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
		}
		token, err := cfg.Session(r)
		if err != nil || token == "" {
			jsonError(w, http.StatusUnauthorized, 209, "Invalid session token")
			return
		}
		flusher, ok := w.(http.Flusher)
		if !ok {
			jsonError(w, http.StatusInternalServerError, 1, "streaming unsupported")
			return
		}
		ctx := r.Context()
		lc, err := cfg.Dial(ctx, token)
		if err != nil {
			jsonError(w, http.StatusBadGateway, 100, "could not reach the live query server")
			return
		}
		defer lc.Close()
		sub, err := lc.Subscribe(ctx, class, where)
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
		fmt.Fprint(w, ": subscribed\n\n")
		flusher.Flush()
		tick := time.NewTicker(cfg.Heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
					return
				}
				flusher.Flush()
			case ev, ok := <-sub.Events():
				if !ok {
					return
				}
				if err := writeEvent(w, ev); err != nil {
					return
				}
				flusher.Flush()
			}
		}
	}), nil
}

func writeEvent(w http.ResponseWriter, ev Event) error {
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
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Kind, data)
	return err
}

func jsonError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "error": msg})
}
