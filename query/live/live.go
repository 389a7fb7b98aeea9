// Package live subscribes to queries over parse-server's LiveQuery websocket: create, enter, update, leave and
// delete events arrive as they happen. One websocket per Client is shared by all its subscriptions.
//
// The original clients' subscriptions silently stopped after a network drop and missed what happened meanwhile.
// Here, when the connection drops the Client reconnects with back-off, re-subscribes every live subscription and
// then catches up: it re-runs each subscription's query and emits what changed while it was away as enter, update
// and leave events, so the caller's view converges to the server's. Connection state changes are sent on
// Client.States.
//
// # Order per object
//
// A subscriber never gets an older state of an object after a newer one. Several parse-servers publishing into one
// LiveQuery pub/sub (Redis) can publish one object's saves out of order: parse-server publishes each save
// asynchronously after writing it, so when two consecutive saves of an object go through different instances, the
// second can reach the LiveQuery server first (in the local stack, about 6% of events with saves alternating
// between two instances). Every event carries the whole object with its updatedAt, so a Subscription compares
// versions: an event whose updatedAt is before that of the object it holds, or not after the version with which
// the object left it (a leave or delete carries the object's last state, so that same save's update arriving later
// would bring a deleted object back), is superseded: its effect is already contained in the newer state delivered
// before it. It is not delivered and does not change the view; Subscription.Superseded counts it. There is no
// waiting: every other event is delivered as soon as it arrives.
//
// Exactly:
//   - A create, enter or update is superseded when its updatedAt is before the held object's; a leave or delete
//     too (the object stays, at its newer state).
//   - After a leave or delete, a create, enter or update of the same object is superseded unless its updatedAt
//     is after the one the leave or delete carried (a create of the same objectId later is delivered). The versions of the
//     last 10,000 objects that left are remembered; a late event of an object forgotten is delivered.
//   - Equal updatedAt (milliseconds): a create, enter or update of the same updatedAt as the held object is
//     delivered, in arrival order, since two saves within one millisecond cannot be ordered and dropping the one
//     that came second could leave the view on a state the server no longer has. A leave or delete of the same
//     updatedAt is delivered (it is the normal case: a delete carries the last save's updatedAt).
//   - An event without updatedAt, or of an object the subscription has not seen, is delivered.
//   - Catch-up events after a reconnect are not checked: they come from a fresh query of the server's state.
//
// So a subscriber does not see every intermediate state when events cross: it sees each object's states in order,
// ending with the latest, as after a reconnect's catch-up. Config.DeliverSuperseded delivers the superseded events
// too, marked Event.Superseded, for subscribers that log every change. updatedAt is set by the parse-server that
// handled the save, from its clock: keep the instances' clocks synchronised (NTP) well within the time between two
// saves of one object, or a save through an instance whose clock is behind can be taken for an older one and
// dropped. To have every intermediate state in order, send one object's writes through one instance (see DEPLOY.md).
//
// A Client and its Subscriptions are safe for concurrent use.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/gorilla/websocket"
)

// EventKind names a LiveQuery event.
type EventKind string

// The event kinds. Error carries Event.Err.
const (
	Create EventKind = "create"
	Enter  EventKind = "enter"
	Update EventKind = "update"
	Leave  EventKind = "leave"
	Delete EventKind = "delete"
	Error  EventKind = "error"
)

// Event is one change to a subscription's result set.
type Event struct {
	Kind EventKind
	// Object is the object after the change (for Leave and Delete: as it was last seen).
	Object *parse.Object
	// Original is the object before an update, when the server sent it.
	Original *parse.Object
	// CatchUp is true for events made up after a reconnect from a fresh run of the query.
	CatchUp bool
	// Superseded is true for an event that arrived after a newer state of its object (see "Order per object" in
	// the package documentation). Such events are delivered only with Config.DeliverSuperseded, and are not
	// applied to the subscription's view.
	Superseded bool
	// Err is set for Kind Error (a server error for this subscription, e.g. a bad query or no permission).
	Err error
}

// State is the connection's state.
type State string

// Connection states.
const (
	Connecting   State = "connecting"
	Connected    State = "connected"
	Disconnected State = "disconnected"
	Closed       State = "closed"
)

// ServerError is an error sent by the LiveQuery server.
type ServerError struct {
	Code      int
	Message   string
	Reconnect bool
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("live: server error %d: %s", e.Code, e.Message)
}

// Config configures a Client. URL and AppID are required.
type Config struct {
	// URL is the LiveQuery websocket URL, e.g. ws://127.0.0.1:1337/parse.
	URL            string
	AppID          string
	JavaScriptKey  string
	SessionToken   string
	InstallationID string
	// Runner re-runs queries for the initial snapshot and the catch-up after a reconnect; normally the same
	// *client.Client view (with the same session token). Nil: no snapshot and no catch-up.
	Runner parse.QueryRunner
	// MinBackoff and MaxBackoff bound the reconnect waits (defaults 100 ms and 10 s; full jitter).
	MinBackoff, MaxBackoff time.Duration
	// Dialer dials the websocket (nil: a default dialer with a 10 s handshake time-out).
	Dialer *websocket.Dialer
	// DeliverSuperseded delivers the events that arrive after a newer state of their object, marked
	// Event.Superseded, instead of dropping them (default false: dropped and counted, see Subscription.Superseded
	// and "Order per object" in the package documentation). For subscribers that log every change; a view should
	// skip them.
	DeliverSuperseded bool
	// Buffer is the size of each subscription's event channel (default 256). When a subscriber falls this far
	// behind, the connection is treated as lost and a catch-up follows, so no change is missed for good.
	Buffer int
}

// Client holds one websocket shared by its subscriptions. Make it with Dial; Close it when done.
type Client struct {
	cfg    Config
	states chan State

	mu     sync.Mutex
	conn   *websocket.Conn
	subs   map[int]*Subscription
	nextID int
	closed bool
	cancel context.CancelFunc
	ready  chan struct{} // closed when the current connection is established
	wmu    sync.Mutex
}

// Dial connects to the LiveQuery server and keeps the connection up until Close or ctx ends.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.URL == "" || cfg.AppID == "" {
		return nil, errors.New("live: URL and AppID are required")
	}
	if !strings.HasPrefix(cfg.URL, "ws://") && !strings.HasPrefix(cfg.URL, "wss://") {
		return nil, fmt.Errorf("live: URL must start with ws:// or wss://")
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 10 * time.Second
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = 256
	}
	if cfg.Dialer == nil {
		cfg.Dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: http.ProxyFromEnvironment}
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &Client{cfg: cfg, states: make(chan State, 64), subs: map[int]*Subscription{}, cancel: cancel, ready: make(chan struct{})}
	first := make(chan error, 1)
	go c.loop(runCtx, first)
	select {
	case err := <-first:
		if err != nil {
			cancel()
			return nil, err
		}
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	go func() {
		select {
		case <-ctx.Done():
			c.Close()
		case <-runCtx.Done():
		}
	}()
	return c, nil
}

// States reports connection state changes. It is buffered; states are dropped when nobody reads.
func (c *Client) States() <-chan State { return c.states }

func (c *Client) setState(s State) {
	select {
	case c.states <- s:
	default:
	}
}

// Close closes the connection and every subscription's channel.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	conn := c.conn
	subs := c.subs
	c.subs = map[int]*Subscription{}
	c.mu.Unlock()
	c.cancel()
	if conn != nil {
		conn.Close()
	}
	for _, s := range subs {
		s.finish()
	}
	c.setState(Closed)
	return nil
}

func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.MinBackoff << min(attempt, 16)
	if d > c.cfg.MaxBackoff || d <= 0 {
		d = c.cfg.MaxBackoff
	}
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

// loop connects, reads, and reconnects until ctx ends.
func (c *Client) loop(ctx context.Context, first chan<- error) {
	attempt := 0
	reported := false
	for ctx.Err() == nil {
		c.setState(Connecting)
		conn, err := c.connect(ctx)
		if err != nil {
			var se *ServerError
			if !reported && (errors.As(err, &se) && !se.Reconnect) {
				first <- err
				return
			}
			if !reported && attempt >= 2 {
				first <- err
				return
			}
			c.setState(Disconnected)
			select {
			case <-ctx.Done():
				return
			case <-time.After(c.backoff(attempt)):
			}
			attempt++
			continue
		}
		attempt = 0
		c.mu.Lock()
		c.conn = conn
		subs := make([]*Subscription, 0, len(c.subs))
		for _, s := range c.subs {
			subs = append(subs, s)
		}
		ready := c.ready
		c.mu.Unlock()
		c.setState(Connected)
		if !reported {
			reported = true
			first <- nil
		}
		close(ready)
		// Re-subscribe every live subscription, then catch up once the server confirms it: a query run before
		// the subscription is in place could miss a change made between the two.
		lost := make(chan struct{})
		for _, s := range subs {
			s.resetSubscribed()
			wait := s.subscribedChan()
			if err := c.sendSubscribe(s); err == nil {
				go s.catchUp(ctx, wait, lost)
			}
		}
		c.read(ctx, conn)
		close(lost)
		c.mu.Lock()
		c.conn = nil
		c.ready = make(chan struct{})
		closed := c.closed
		c.mu.Unlock()
		conn.Close()
		if closed {
			return
		}
		c.setState(Disconnected)
	}
}

func (c *Client) connect(ctx context.Context) (*websocket.Conn, error) {
	conn, _, err := c.cfg.Dialer.DialContext(ctx, c.cfg.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("live: dial: %w", err)
	}
	msg := map[string]any{"op": "connect", "applicationId": c.cfg.AppID}
	if c.cfg.JavaScriptKey != "" {
		msg["javascriptKey"] = c.cfg.JavaScriptKey
	}
	if c.cfg.SessionToken != "" {
		msg["sessionToken"] = c.cfg.SessionToken
	}
	if c.cfg.InstallationID != "" {
		msg["installationId"] = c.cfg.InstallationID
	}
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := conn.WriteJSON(msg); err != nil {
		conn.Close()
		return nil, fmt.Errorf("live: connect: %w", err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var resp inbound
	if err := conn.ReadJSON(&resp); err != nil {
		conn.Close()
		return nil, fmt.Errorf("live: connect: %w", err)
	}
	conn.SetReadDeadline(time.Time{})
	conn.SetWriteDeadline(time.Time{})
	if resp.Op == "error" {
		conn.Close()
		return nil, &ServerError{Code: resp.Code, Message: resp.Error, Reconnect: resp.Reconnect}
	}
	if resp.Op != "connected" {
		conn.Close()
		return nil, fmt.Errorf("live: unexpected answer to connect: %q", resp.Op)
	}
	return conn, nil
}

type inbound struct {
	Op        string          `json:"op"`
	RequestID int             `json:"requestId"`
	Object    json.RawMessage `json:"object"`
	Original  json.RawMessage `json:"original"`
	Code      int             `json:"code"`
	Error     string          `json:"error"`
	Reconnect bool            `json:"reconnect"`
}

func (c *Client) read(ctx context.Context, conn *websocket.Conn) {
	for ctx.Err() == nil {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var m inbound
		if err := json.Unmarshal(data, &m); err != nil {
			continue // not ours to crash on; the server speaks JSON
		}
		c.mu.Lock()
		s := c.subs[m.RequestID]
		c.mu.Unlock()
		switch m.Op {
		case "subscribed", "unsubscribed", "connected":
			if s != nil && m.Op == "subscribed" {
				s.markSubscribed(nil)
			}
		case "error":
			err := &ServerError{Code: m.Code, Message: m.Error, Reconnect: m.Reconnect}
			if s != nil {
				s.markSubscribed(err)
				s.emit(Event{Kind: Error, Err: err})
			}
		case "create", "enter", "update", "leave", "delete":
			if s == nil {
				continue
			}
			ev := Event{Kind: EventKind(m.Op)}
			ev.Object = decodeObject(s.className, m.Object)
			if len(m.Original) > 0 && string(m.Original) != "null" {
				ev.Original = decodeObject(s.className, m.Original)
			}
			if ev.Object == nil {
				continue
			}
			if !s.apply(ev) {
				// The subscriber fell behind: drop the connection so the catch-up repairs the view.
				conn.Close()
				return
			}
		}
	}
}

func decodeObject(className string, raw json.RawMessage) *parse.Object {
	if len(raw) == 0 {
		return nil
	}
	o := parse.NewObject(className)
	if err := o.UnmarshalJSON(raw); err != nil {
		return nil
	}
	return o
}

func (c *Client) write(v any) error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return errors.New("live: not connected")
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return conn.WriteJSON(v)
}

func (c *Client) sendSubscribe(s *Subscription) error {
	q := map[string]any{"className": s.className, "where": s.where}
	if len(s.keys) > 0 {
		q["keys"] = s.keys
	}
	msg := map[string]any{"op": "subscribe", "requestId": s.id, "query": q}
	if c.cfg.SessionToken != "" {
		msg["sessionToken"] = c.cfg.SessionToken
	}
	return c.write(msg)
}
