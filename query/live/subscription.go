package live

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// Subscription is one subscribed query. Read its events from Events until the channel closes (after
// Unsubscribe or the Client's Close).
type Subscription struct {
	c         *Client
	id        int
	className string
	where     map[string]any
	keys      []string
	events    chan Event

	mu         sync.Mutex
	view       map[string]*parse.Object
	done       bool
	subscribed chan error
	// touched, while the first snapshot loads, holds the ids events changed meanwhile: the events are newer
	// than what the query may return for them (a deleted object must not come back from an older read).
	touched map[string]bool
	// snapped holds the ids the first snapshot loaded that no event has touched since (see apply).
	snapped map[string]bool
	// gone holds the version (updatedAt) of the objects that left the view by a leave or delete event, so that a
	// late event of an older state does not bring them back (see apply); goneOrder is their order of leaving,
	// oldest first, to forget the oldest beyond maxGone.
	gone      map[string]goneMark
	goneOrder []goneRef
	goneSeq   uint64
	// superseded counts the events dropped (or, with Config.DeliverSuperseded, marked) as superseded.
	superseded int64
}

// maxGone bounds the versions a Subscription remembers of objects that left its view (about 100 bytes each).
const maxGone = 10000

// goneMark is the version with which an object left the view; seq orders the marks.
type goneMark struct {
	v   time.Time
	seq uint64
}

// goneRef is an entry of Subscription.goneOrder: stale when the object's mark has another seq.
type goneRef struct {
	id  string
	seq uint64
}

// subscribeWait is how long Subscribe, and the catch-up after a reconnect, wait for the server to confirm a
// subscription ('subscribed') before giving up with an error.
const subscribeWait = 15 * time.Second

// SubscribeOptions are the optional settings of Subscribe; nil means the defaults. Subscribe copies them.
type SubscribeOptions struct {
	// Keys limits the fields sent in events (nil: all fields).
	Keys []string
}

// Subscribe subscribes to the objects of className matching where (the query's where JSON as a Go map, as
// parse.QueryRequest.Params["where"] holds it; nil means all). It returns once the server confirmed the subscription
// and, with a Runner configured, the current matching objects were loaded (Snapshot). Server errors (a bad query,
// no permission) are returned here, and later ones arrive as Error events.
func (c *Client) Subscribe(ctx context.Context, className string, where map[string]any, opts *SubscribeOptions) (*Subscription, error) {
	if className == "" {
		return nil, errors.New("live: Subscribe needs a class name")
	}
	if where == nil {
		where = map[string]any{}
	}
	enc, err := parse.Encode(where)
	if err != nil {
		return nil, fmt.Errorf("live: where: %w", err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("live: client is closed")
	}
	c.nextID++
	s := &Subscription{c: c, id: c.nextID, className: className, where: enc.(map[string]any),
		events: make(chan Event, c.cfg.Buffer), view: map[string]*parse.Object{}, gone: map[string]goneMark{}}
	if opts != nil && opts.Keys != nil {
		s.keys = append([]string(nil), opts.Keys...)
	}
	s.resetSubscribed()
	c.subs[s.id] = s
	ready := c.ready
	c.mu.Unlock()

	fail := func(err error) (*Subscription, error) {
		c.mu.Lock()
		delete(c.subs, s.id)
		c.mu.Unlock()
		s.finish()
		return nil, err
	}
	select {
	case <-ready:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	s.mu.Lock()
	wait := s.subscribed
	s.mu.Unlock()
	if err := c.sendSubscribe(s); err != nil {
		// The connection dropped meanwhile: the reconnect loop will subscribe it again.
		_ = err
	}
	select {
	case err := <-wait:
		if err != nil {
			return fail(err)
		}
	case <-ctx.Done():
		return fail(ctx.Err())
	case <-time.After(subscribeWait):
		return fail(errors.New("live: the server did not confirm the subscription"))
	}
	if c.cfg.Runner != nil {
		s.mu.Lock()
		s.touched = map[string]bool{}
		s.mu.Unlock()
		objs, err := s.runQuery(ctx)
		if err != nil {
			return fail(fmt.Errorf("live: loading the snapshot: %w", err))
		}
		s.mu.Lock()
		s.snapped = map[string]bool{}
		for _, o := range objs {
			if !s.touched[o.ID()] {
				s.view[o.ID()] = o
				s.snapped[o.ID()] = true
			}
		}
		s.touched = nil
		s.mu.Unlock()
	}
	return s, nil
}

// Events delivers the subscription's events in order.
func (s *Subscription) Events() <-chan Event { return s.events }

// Superseded returns how many events of this subscription arrived after a newer state of their object and were
// therefore not delivered (with Config.DeliverSuperseded: delivered marked Superseded). See the package
// documentation, "Order per object".
func (s *Subscription) Superseded() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.superseded
}

// Snapshot returns the objects the subscription currently knows to match, sorted by id.
func (s *Subscription) Snapshot() []*parse.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*parse.Object, 0, len(s.view))
	for _, o := range s.view {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// Unsubscribe ends the subscription and closes its Events channel.
func (s *Subscription) Unsubscribe() error {
	c := s.c
	c.mu.Lock()
	_, live := c.subs[s.id]
	delete(c.subs, s.id)
	c.mu.Unlock()
	var err error
	if live {
		err = c.write(map[string]any{"op": "unsubscribe", "requestId": s.id})
		if err != nil && err.Error() == "live: not connected" {
			err = nil // nothing to tell a server we are not connected to
		}
	}
	s.finish()
	return err
}

// subscribedChan is where the server's answer to the current subscribe request arrives.
func (s *Subscription) subscribedChan() <-chan error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscribed
}

func (s *Subscription) resetSubscribed() {
	s.mu.Lock()
	s.subscribed = make(chan error, 1)
	s.mu.Unlock()
}

func (s *Subscription) markSubscribed(err error) {
	s.mu.Lock()
	ch := s.subscribed
	s.mu.Unlock()
	select {
	case ch <- err:
	default:
	}
}

func (s *Subscription) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.done = true
		close(s.events)
	}
}

// apply records a server event in the view and delivers it without blocking; false means the subscriber's buffer
// is full.
func (s *Subscription) apply(ev Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return true
	}
	id := ev.Object.ID()
	if s.isSuperseded(ev) {
		s.superseded++
		if !s.c.cfg.DeliverSuperseded {
			return true
		}
		ev.Superseded = true
		select {
		case s.events <- ev:
			return true
		default:
			return false
		}
	}
	if s.snapped[id] {
		delete(s.snapped, id)
		if ev.Kind == Create {
			// An object is created once: a create of one the snapshot loaded was published late, after the save's
			// answer (seen through Redis pub/sub), and the snapshot already has it: not delivered twice.
			return true
		}
	}
	if s.touched != nil {
		s.touched[id] = true
	}
	switch ev.Kind {
	case Create, Enter, Update:
		if ev.Kind == Update && ev.Original == nil {
			ev.Original = s.view[id]
		}
		s.view[id] = ev.Object
		delete(s.gone, id)
	case Leave, Delete:
		delete(s.view, id)
		s.markGone(id, ev.Object.UpdatedAt())
	}
	select {
	case s.events <- ev:
		return true
	default:
		return false
	}
}

// isSuperseded reports whether ev carries an older state of its object than one already applied: its updatedAt is
// before that of the object in the view, or not after the version with which the object left the view (a leave or
// delete carries the object's last state, so an event of that same version arriving later is that save published
// late, and must not bring a deleted object back). An event without updatedAt, or of an object never seen (or
// forgotten, beyond maxGone), is never superseded. An update, create or enter of the same updatedAt as the view's
// object is not superseded: millisecond timestamps cannot order two saves made within the same millisecond, and
// dropping the one that came second could leave the view on a state the server no longer has.
func (s *Subscription) isSuperseded(ev Event) bool {
	v := ev.Object.UpdatedAt()
	if v.IsZero() {
		return false
	}
	id := ev.Object.ID()
	if cur, ok := s.view[id]; ok {
		return !cur.UpdatedAt().IsZero() && v.Before(cur.UpdatedAt())
	}
	if left, ok := s.gone[id]; ok {
		return !v.After(left.v)
	}
	return false
}

// markGone remembers the version with which object id left the view, forgetting the oldest beyond maxGone.
func (s *Subscription) markGone(id string, v time.Time) {
	if v.IsZero() {
		delete(s.gone, id)
		return
	}
	s.goneSeq++
	s.gone[id] = goneMark{v: v, seq: s.goneSeq}
	s.goneOrder = append(s.goneOrder, goneRef{id, s.goneSeq})
	for len(s.gone) > maxGone {
		r := s.goneOrder[0]
		s.goneOrder = s.goneOrder[1:]
		if m, ok := s.gone[r.id]; ok && m.seq == r.seq {
			delete(s.gone, r.id)
		}
	}
	if len(s.goneOrder) > 2*maxGone {
		// Drop the stale references (objects that came back, or left again later).
		kept := make([]goneRef, 0, len(s.gone))
		for _, r := range s.goneOrder {
			if m, ok := s.gone[r.id]; ok && m.seq == r.seq {
				kept = append(kept, r)
			}
		}
		s.goneOrder = kept
	}
}

// emit delivers an event that must not be lost (errors, catch-up), waiting for room.
func (s *Subscription) emit(ev Event) {
	for {
		s.mu.Lock()
		if s.done {
			s.mu.Unlock()
			return
		}
		select {
		case s.events <- ev:
			s.mu.Unlock()
			return
		default:
		}
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

// catchUp re-runs the query after a reconnect and emits what changed while the connection was down. It waits
// for the server to confirm the new subscription (wait), so that every change after the query's snapshot arrives
// as an event; it gives up quietly if that connection is lost meanwhile (lost), as the next one catches up again.
// Objects an event touched while the query ran keep the event's (newer) state.
func (s *Subscription) catchUp(ctx context.Context, wait <-chan error, lost <-chan struct{}) {
	if s.c.cfg.Runner == nil {
		return
	}
	select {
	case err := <-wait:
		if err != nil {
			s.emit(Event{Kind: Error, Err: fmt.Errorf("live: subscribing again after reconnect: %w", err)})
			return
		}
	case <-lost:
		return
	case <-ctx.Done():
		return
	case <-time.After(subscribeWait):
		s.emit(Event{Kind: Error, Err: errors.New("live: catch-up after reconnect: the server did not confirm the subscription")})
		return
	}
	s.mu.Lock()
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	s.mu.Unlock()
	fresh, err := s.runQuery(ctx)
	if err != nil {
		s.mu.Lock()
		s.touched = nil
		s.mu.Unlock()
		s.emit(Event{Kind: Error, Err: fmt.Errorf("live: catch-up after reconnect: %w", err)})
		return
	}
	now := make(map[string]*parse.Object, len(fresh))
	for _, o := range fresh {
		now[o.ID()] = o
	}
	var evs []Event
	s.mu.Lock()
	touched := s.touched
	s.touched = nil
	for id, o := range now {
		if touched[id] {
			continue
		}
		old, had := s.view[id]
		switch {
		case !had:
			evs = append(evs, Event{Kind: Enter, Object: o, CatchUp: true})
			delete(s.gone, id)
			s.view[id] = o
		case !old.UpdatedAt().Equal(o.UpdatedAt()):
			evs = append(evs, Event{Kind: Update, Object: o, Original: old, CatchUp: true})
			s.view[id] = o
		}
	}
	for id, old := range s.view {
		if _, ok := now[id]; !ok && !touched[id] {
			evs = append(evs, Event{Kind: Leave, Object: old, CatchUp: true})
			delete(s.view, id)
			s.markGone(id, old.UpdatedAt())
		}
	}
	s.mu.Unlock()
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Object.ID() < evs[j].Object.ID() })
	for _, ev := range evs {
		s.emit(ev)
	}
}

// runQuery loads every object matching the subscription, paging by objectId.
func (s *Subscription) runQuery(ctx context.Context) ([]*parse.Object, error) {
	const page = 1000
	var out []*parse.Object
	last := ""
	for {
		where := s.where
		if last != "" {
			where = map[string]any{"$and": []any{s.where, map[string]any{"objectId": map[string]any{"$gt": last}}}}
		}
		resp, err := s.c.cfg.Runner.RunQuery(ctx, &parse.QueryRequest{ClassName: s.className, Op: "find",
			Params: map[string]any{"where": where, "order": "objectId", "limit": page}})
		if err != nil {
			return nil, err
		}
		for _, raw := range resp.Results {
			o := parse.NewObject(s.className)
			if err := o.UnmarshalJSON(raw); err != nil {
				return nil, err
			}
			out = append(out, o)
			last = o.ID()
		}
		if len(resp.Results) < page {
			return out, nil
		}
	}
}
