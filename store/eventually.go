package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/internal/settle"
	"github.com/c13f5054/moralis-go/parse"
)

// The write queue's buckets: bQueue holds the queued writes under their sequence number (20 decimal digits, so
// that key order is queue order); the last sequence number given out is kept in bMeta under queueSeqKey.
const (
	bQueue      = "eventually"
	queueSeqKey = "eventuallySeq"
)

// Queue defaults.
const (
	// DefaultDedupWindow is how long parse-server is assumed to remember a request id: the default ttl of its
	// idempotencyOptions (300 s).
	DefaultDedupWindow = 5 * time.Minute
	// DefaultMinBackoff and DefaultMaxBackoff bound the wait between two /health polls while the server does
	// not answer (doubling from the first to the second, with jitter).
	DefaultMinBackoff = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
)

// Queue errors. Match them with errors.Is.
var (
	// ErrQueuePaused is wrapped by Replay's error while the queue is paused (QueueState.Paused says why).
	ErrQueuePaused = errors.New("store: the write queue is paused")
	// ErrReplayRunning is returned by Replay while another Replay of the same queue is running.
	ErrReplayRunning = errors.New("store: a replay of the write queue is already running")
	// ErrQueueTaken is returned by NewQueue for a store that already has a queue.
	ErrQueueTaken = errors.New("store: the store already has a write queue")
	// ErrQueueEmpty is returned by Skip when there is no write to skip.
	ErrQueueEmpty = errors.New("store: the write queue is empty")
)

// WriteKind is what a queued write does.
type WriteKind string

// The kinds of queued writes.
const (
	WriteCreate WriteKind = "create"
	WriteUpdate WriteKind = "update"
	WriteDelete WriteKind = "delete"
)

// QueuedWrite is one write in the queue, as stored in the file.
type QueuedWrite struct {
	// Seq is the write's place in the queue (increasing, never reused in one file).
	Seq       uint64    `json:"seq"`
	Kind      WriteKind `json:"kind"`
	ClassName string    `json:"class"`
	// ObjectID is the object's id; for a create, the id chosen when it was queued, which the create is sent with.
	ObjectID string `json:"id"`
	// Body is the wire body of a create or update (the changed fields, operations such as Increment included).
	Body map[string]any `json:"body,omitempty"`
	// RequestID is the X-Parse-Request-Id every attempt of the write carries, in every process.
	RequestID string    `json:"rid"`
	QueuedAt  time.Time `json:"queuedAt"`
	// SentAt is set when an attempt of an update that is not safe to repeat (Increment, Add) went out and its
	// outcome is unknown; zero otherwise.
	SentAt time.Time `json:"sentAt,omitzero"`
}

// PauseReason says why a queue is paused.
type PauseReason string

// Why a queue pauses. A paused queue keeps every write; Resume sends the head write again, Skip drops it.
const (
	NotPaused PauseReason = ""
	// PausedSession: the server refused the session (invalid session token, code 209). Sign in again, give
	// Replay or Run a client with the new session, and call Resume.
	PausedSession PauseReason = "invalid session"
	// PausedRefused: the server refused the head write (a beforeSave that throws, an ACL, an update of an object
	// deleted on the server, a duplicate value of a unique field, ...). Fix the cause and Resume, or Skip it.
	PausedRefused PauseReason = "write refused"
	// PausedInDoubt: an update that is not safe to repeat (Increment, Add) was sent, its outcome is unknown, and
	// the server's deduplication window (QueueConfig.DedupWindow) is over, so sending it again could apply it
	// twice. Read the object: Skip if the update is there, Resume to send it again.
	PausedInDoubt PauseReason = "update in doubt"
)

// QueueState is what a queue is doing, as State and Subscribe report it.
type QueueState struct {
	// Len is the number of queued writes.
	Len int
	// Paused is why the queue is paused (NotPaused when it is not); PauseErr is the error that paused it and Head
	// the write it is about.
	Paused   PauseReason
	PauseErr error
	Head     *QueuedWrite
	// Replaying is true while Replay runs.
	Replaying bool
	// LastError is the last failure of a replay (the server not answering included); nil after a write settles.
	LastError error
	// Replayed is the number of writes settled (applied, or found already applied) since the queue was made.
	Replayed uint64
}

// QueueConfig configures NewQueue. The zero value is usable.
type QueueConfig struct {
	// DedupWindow is how long the server deduplicates a request id (its idempotencyOptions ttl); 0 =
	// DefaultDedupWindow. Set it to the server's ttl if it differs.
	DedupWindow time.Duration
	// MinBackoff and MaxBackoff bound Run's wait between /health polls (0 = the defaults).
	MinBackoff, MaxBackoff time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Queue is a durable queue of writes kept in a Store's file, replayed in order, exactly once, when the server
// answers: the Go counterpart of the Parse JS SDK's saveEventually and destroyEventually (see the package
// documentation, "Offline writes"). It is safe for concurrent use.
type Queue struct {
	s   *Store
	cfg QueueConfig

	replay sync.Mutex // held by Replay
	wake   chan struct{}

	mu    sync.Mutex // guards st and subs
	st    QueueState
	subs  map[chan QueueState]struct{}
	local map[uint64]bool // updates whose SentAt this process set (cleared after a definite refusal)
}

// NewQueue returns the write queue kept in s's file (one per store), with the writes an earlier process left in
// it. A queue is never paused when it is made: a pause is this process's knowledge and a new process starts
// by trying the head write again.
func NewQueue(s *Store, cfg QueueConfig) (*Queue, error) {
	if err := s.enabled(context.Background(), "NewQueue"); err != nil {
		return nil, err
	}
	if cfg.DedupWindow < 0 || cfg.MinBackoff < 0 || cfg.MaxBackoff < 0 {
		return nil, errors.New("store: DedupWindow, MinBackoff and MaxBackoff must not be negative")
	}
	if cfg.DedupWindow == 0 {
		cfg.DedupWindow = DefaultDedupWindow
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	cfg.MaxBackoff = max(cfg.MaxBackoff, cfg.MinBackoff)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if !s.queued.CompareAndSwap(false, true) {
		return nil, ErrQueueTaken
	}
	q := &Queue{s: s, cfg: cfg, wake: make(chan struct{}, 1), subs: map[chan QueueState]struct{}{}, local: map[uint64]bool{}}
	err := s.kv.view(func(tx kvTx) error {
		n, err := tx.count(flat(bQueue), int(^uint(0)>>1))
		q.st.Len = n
		return err
	})
	if err != nil {
		s.queued.Store(false)
		return nil, fmt.Errorf("store: reading the write queue: %w", err)
	}
	return q, nil
}

// SaveEventually queues a save of o and returns once it is stored durably in the file (committed: it survives
// a crash of the process); it sends nothing itself (Replay and Run do). A new object gets its object id now,
// chosen by the client (10 random letters and digits, like the server's; or the id an earlier create in doubt
// was sent with), so objects queued later can point to it, and its create is sent with that id: parse-server
// refuses a second create with the same id (code 137), which makes the create safe to send again at any time
// (the server must allow custom object ids: allowCustomObjectId). An object with an id queues an update of its
// changed fields only. Either way the object's changes count as saved afterwards: o shows them as its values
// (an Increment as the value it expects) and has no unsaved changes; the server's answer is not merged into o.
//
// A create in doubt follows the client's settle flow (see the client package doc, "Writes in doubt"): one held
// (its id unknown: the server chose it) is refused with client.ErrCreateHeld and nothing is queued, until the
// app settles it with client's Objects.Settle; one released with Settle(ctx, obj, "") or sent with an id of the
// client's queues its first attempt as the create (under that id, or a new one) and the changes made since as an
// update right after it, both in one transaction of the file.
//
// Classes whose name starts with "_" (users, roles, sessions, installations) are refused, as is an object
// that points to an object without an id. An object with an id and no changes queues nothing.
func (q *Queue) SaveEventually(ctx context.Context, s client.Saver) error {
	if err := q.s.enabled(ctx, "SaveEventually"); err != nil {
		return err
	}
	o, err := queueable(s, "SaveEventually")
	if err != nil {
		return err
	}
	if o.ID() != "" && len(o.DirtyKeys()) == 0 {
		return nil
	}
	st := objstate.Of(o)
	again := false
	if o.ID() == "" {
		inDoubt, held := st.CreateDoubt()
		if held {
			return fmt.Errorf("store: SaveEventually new %s: %w", o.ClassName(), client.ErrCreateHeld)
		}
		again = inDoubt
	}
	sent := st.Snapshot()
	body, err := st.SaveBody()
	if err != nil {
		return fmt.Errorf("store: SaveEventually %s: %w", o.ClassName(), err)
	}
	w := QueuedWrite{Kind: WriteUpdate, ClassName: o.ClassName(), ObjectID: o.ID(), Body: body}
	if w.ObjectID == "" {
		w.Kind, w.ObjectID = WriteCreate, o.ProposedID()
		if w.ObjectID == "" {
			if w.ObjectID, err = randid.Alnum(rand.Read, 10); err != nil {
				return fmt.Errorf("store: SaveEventually %s: %w", o.ClassName(), err)
			}
		}
		w.Body = make(map[string]any, len(body)+1)
		for k, v := range body {
			w.Body[k] = v
		}
		w.Body["objectId"] = w.ObjectID
	}
	writes := []*QueuedWrite{&w}
	var since objstate.Sent
	if again && len(o.DirtyKeys()) > 0 {
		// The create sends the first attempt again (whichever attempt the server applied, the same row); the
		// changes made since follow as an update of the same id.
		var body map[string]any
		if since, body, err = st.Since(); err != nil {
			return fmt.Errorf("store: SaveEventually %s: %w", o.ClassName(), err)
		}
		writes = append(writes, &QueuedWrite{Kind: WriteUpdate, ClassName: o.ClassName(), ObjectID: w.ObjectID, Body: body})
	}
	if err := q.push(writes...); err != nil {
		return err
	}
	if w.Kind == WriteCreate {
		o.SetID(w.ObjectID)
	}
	if err := st.ApplySaved(map[string]any{}, sent); err != nil {
		return err
	}
	if since != nil {
		return st.ApplySaved(map[string]any{}, since)
	}
	return nil
}

// DestroyEventually queues a delete of o (which needs an id: a server id, or one SaveEventually gave it) and
// returns once it is stored durably; Replay and Run send it. A delete of an object that is already gone counts as
// done.
func (q *Queue) DestroyEventually(ctx context.Context, s client.Saver) error {
	if err := q.s.enabled(ctx, "DestroyEventually"); err != nil {
		return err
	}
	o, err := queueable(s, "DestroyEventually")
	if err != nil {
		return err
	}
	if o.ID() == "" {
		return &parse.Error{Code: parse.CodeMissingObjectID, Message: "Object does not have an ID", Op: "DestroyEventually " + o.ClassName()}
	}
	return q.push(&QueuedWrite{Kind: WriteDelete, ClassName: o.ClassName(), ObjectID: o.ID()})
}

func queueable(s client.Saver, call string) (*parse.Object, error) {
	if s == nil || isNilSaver(s) || s.ParseObject() == nil {
		return nil, fmt.Errorf("store: %s: nil object", call)
	}
	o := s.ParseObject()
	switch {
	case o.ClassName() == "":
		return nil, fmt.Errorf("store: %s: the object has no class name", call)
	case strings.HasPrefix(o.ClassName(), "_"):
		return nil, fmt.Errorf("store: %s: class %s: the write queue takes only classes of the application, not the server's own (a name starting with \"_\")", call, o.ClassName())
	}
	return o, nil
}

func isNilSaver(s client.Saver) bool {
	switch v := s.(type) {
	case *parse.Object:
		return v == nil
	case *client.User:
		return v == nil
	case *client.Role:
		return v == nil
	}
	return false
}

// push stores ws at the end of the queue, in order, in one transaction.
func (q *Queue) push(ws ...*QueuedWrite) error {
	now := q.cfg.Now().UTC()
	for _, w := range ws {
		w.RequestID = uuid.NewString()
		w.QueuedAt = now
	}
	err := q.s.kv.update(func(tx kvTx) error {
		seq := uint64(0)
		if v := tx.get(flat(bMeta), queueSeqKey); v != nil {
			n, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil {
				return fmt.Errorf("damaged queue counter %q", v)
			}
			seq = n
		}
		for _, w := range ws {
			seq++
			w.Seq = seq
			raw, err := json.Marshal(w)
			if err != nil {
				return err
			}
			if err := tx.put(flat(bQueue), seqKey(seq), raw); err != nil {
				return err
			}
		}
		return tx.put(flat(bMeta), queueSeqKey, []byte(strconv.FormatUint(seq, 10)))
	})
	if err != nil {
		w := ws[0]
		return fmt.Errorf("store: queueing a %s of %s %s: %w", w.Kind, w.ClassName, w.ObjectID, err)
	}
	q.set(func(st *QueueState) { st.Len += len(ws) })
	q.Kick()
	return nil
}

func seqKey(seq uint64) string { return fmt.Sprintf("%020d", seq) }

func decodeWrite(raw []byte) (*QueuedWrite, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers go out as they came in
	var w QueuedWrite
	if err := d.Decode(&w); err != nil {
		return nil, fmt.Errorf("store: a damaged queued write: %w", err)
	}
	return &w, nil
}

// Pending lists the queued writes, in queue order.
func (q *Queue) Pending(ctx context.Context) ([]QueuedWrite, error) {
	if err := q.s.enabled(ctx, "Pending"); err != nil {
		return nil, err
	}
	var out []QueuedWrite
	err := q.s.kv.view(func(tx kvTx) error {
		return tx.each(flat(bQueue), func(_ string, v []byte) error {
			w, err := decodeWrite(v)
			if err != nil {
				return err
			}
			out = append(out, *w)
			return nil
		})
	})
	return out, err
}

// head returns the first queued write (nil when the queue is empty).
func (q *Queue) head() (*QueuedWrite, error) {
	var w *QueuedWrite
	errStop := errors.New("stop")
	err := q.s.kv.view(func(tx kvTx) error {
		return tx.each(flat(bQueue), func(_ string, v []byte) error {
			var err error
			if w, err = decodeWrite(v); err != nil {
				return err
			}
			return errStop
		})
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return w, err
}

// remove deletes the write seq from the file.
func (q *Queue) remove(seq uint64) error {
	var had bool
	err := q.s.kv.update(func(tx kvTx) error {
		had = tx.get(flat(bQueue), seqKey(seq)) != nil
		return tx.del(flat(bQueue), seqKey(seq))
	})
	if err == nil && had {
		q.set(func(st *QueueState) { st.Len-- })
	}
	return err
}

// rewrite stores w again (its SentAt changed).
func (q *Queue) rewrite(w *QueuedWrite) error {
	raw, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return q.s.kv.update(func(tx kvTx) error { return tx.put(flat(bQueue), seqKey(w.Seq), raw) })
}

// State returns the queue's state now.
func (q *Queue) State() QueueState {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.st
}

// Subscribe returns a channel that receives the queue's state after each change (length, pause, replay, last
// error), latest first: a slow reader misses intermediate states, never the last one. The channel first holds
// the current state. cancel stops the updates and closes the channel.
func (q *Queue) Subscribe() (states <-chan QueueState, cancel func()) {
	ch := make(chan QueueState, 1)
	q.mu.Lock()
	q.subs[ch] = struct{}{}
	ch <- q.st
	q.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			q.mu.Lock()
			delete(q.subs, ch)
			close(ch)
			q.mu.Unlock()
		})
	}
}

// set changes the state under the lock and tells the subscribers.
func (q *Queue) set(change func(*QueueState)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	change(&q.st)
	for ch := range q.subs {
		select { // drop the state the reader has not taken yet: it is stale
		case <-ch:
		default:
		}
		ch <- q.st
	}
}

func (q *Queue) pause(reason PauseReason, w *QueuedWrite, err error) error {
	head := *w
	q.set(func(st *QueueState) {
		st.Paused, st.PauseErr, st.Head, st.LastError = reason, err, &head, err
	})
	return fmt.Errorf("%w (%s): %s %s %s: %w", ErrQueuePaused, reason, w.Kind, w.ClassName, w.ObjectID, err)
}

// Kick wakes Run at once (to replay now, without waiting for its next /health poll): call it when the
// application learns the server is reachable again, after any successful call for instance. It never blocks.
func (q *Queue) Kick() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Resume ends a pause; the head write is sent again by the next Replay (for PausedInDoubt: sent again although
// it may have been applied; Skip it instead if it was). Run is woken.
func (q *Queue) Resume(ctx context.Context) error {
	if err := q.s.enabled(ctx, "Resume"); err != nil {
		return err
	}
	st := q.State()
	if st.Paused == PausedInDoubt && st.Head != nil {
		w := *st.Head
		w.SentAt = time.Time{}
		if err := q.rewrite(&w); err != nil {
			return fmt.Errorf("store: Resume: %w", err)
		}
	}
	q.set(func(st *QueueState) { st.Paused, st.PauseErr, st.Head = NotPaused, nil, nil })
	q.Kick()
	return nil
}

// Skip drops the head write without sending it and ends a pause: for a write the server refuses for good, or an
// update in doubt found applied. It returns the dropped write (ErrQueueEmpty when there is none). It waits for a
// running Replay to finish.
func (q *Queue) Skip(ctx context.Context) (QueuedWrite, error) {
	if err := q.s.enabled(ctx, "Skip"); err != nil {
		return QueuedWrite{}, err
	}
	q.replay.Lock()
	defer q.replay.Unlock()
	w, err := q.head()
	if err != nil {
		return QueuedWrite{}, err
	}
	if w == nil {
		return QueuedWrite{}, ErrQueueEmpty
	}
	if err := q.remove(w.Seq); err != nil {
		return QueuedWrite{}, fmt.Errorf("store: Skip: %w", err)
	}
	q.set(func(st *QueueState) { st.Paused, st.PauseErr, st.Head = NotPaused, nil, nil })
	q.Kick()
	return *w, nil
}

// Replay sends the queued writes through c, in queue order, one at a time, each removed from the file once it
// is settled, until the queue is empty (nil), a write fails in a way that a later attempt may cure (the server
// does not answer, a 5xx, a rate limit: that error, the write stays at the head), the queue pauses (an error
// wrapping ErrQueuePaused; see PauseReason) or ctx ends. Every attempt of a write carries the request id and,
// for a create, the object id it was queued with, in every process, so a write whose first attempt was applied
// is never applied again:
//
//   - a create refused as a duplicate value (137) or a duplicate request (159) is looked up by its id: found,
//     it was applied (settled); not found after 137, another unique field is the duplicate (PausedRefused);
//   - an update refused as a duplicate request (159) was deduplicated by the server: settled;
//   - a delete of an object that is not found (101) is settled;
//   - an update that is not safe to repeat (Increment, Add) whose earlier attempt is in doubt for longer than
//     DedupWindow pauses (PausedInDoubt) rather than risk a second application;
//   - an invalid session (209) pauses (PausedSession) and every write is kept.
//
// Only one Replay of a queue runs at a time (ErrReplayRunning).
func (q *Queue) Replay(ctx context.Context, c *client.Client) error {
	if err := q.s.enabled(ctx, "Replay"); err != nil {
		return err
	}
	if c == nil {
		return errors.New("store: Replay needs a client")
	}
	if !q.replay.TryLock() {
		return ErrReplayRunning
	}
	defer q.replay.Unlock()
	q.set(func(st *QueueState) { st.Replaying = true })
	defer q.set(func(st *QueueState) { st.Replaying = false })
	for {
		if st := q.State(); st.Paused != NotPaused {
			return fmt.Errorf("%w (%s): %w", ErrQueuePaused, st.Paused, st.PauseErr)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		w, err := q.head()
		if err != nil {
			return err
		}
		if w == nil {
			return nil
		}
		if err := q.apply(ctx, c, w); err != nil {
			return err
		}
		if err := q.remove(w.Seq); err != nil {
			return fmt.Errorf("store: removing a replayed write: %w", err)
		}
		q.mu.Lock()
		delete(q.local, w.Seq)
		q.mu.Unlock()
		q.set(func(st *QueueState) { st.Replayed++; st.LastError = nil })
	}
}

// apply sends one write and settles it: nil when it is applied (now or by an earlier attempt), else the
// error that stops the replay (after pausing the queue when a later attempt cannot cure it).
func (q *Queue) apply(ctx context.Context, c *client.Client, w *QueuedWrite) error {
	risky := w.Kind == WriteUpdate && !repeatable(w.Body)
	if risky && !w.SentAt.IsZero() && q.cfg.Now().Sub(w.SentAt) > q.cfg.DedupWindow {
		return q.pause(PausedInDoubt, w, fmt.Errorf("an attempt sent at %s may have been applied, and the server deduplicates a request id for %s only", w.SentAt.Format(time.RFC3339), q.cfg.DedupWindow))
	}
	if risky && w.SentAt.IsZero() {
		w.SentAt = q.cfg.Now().UTC()
		if err := q.rewrite(w); err != nil {
			return fmt.Errorf("store: recording an attempt: %w", err)
		}
		q.mu.Lock()
		q.local[w.Seq] = true
		q.mu.Unlock()
	}
	rctx := client.WithRequestID(ctx, w.RequestID)
	path := "classes/" + w.ClassName
	var err error
	switch w.Kind {
	case WriteCreate:
		err = c.Request(rctx, http.MethodPost, path, w.Body, nil)
	case WriteUpdate:
		err = c.Request(rctx, http.MethodPut, path+"/"+w.ObjectID, w.Body, nil)
	case WriteDelete:
		err = c.Request(rctx, http.MethodDelete, path+"/"+w.ObjectID, nil, nil)
	default:
		return q.pause(PausedRefused, w, fmt.Errorf("unknown write kind %q", w.Kind))
	}
	if err == nil {
		return nil
	}
	var pe *parse.Error
	isPE := errors.As(err, &pe)
	if risky && isPE && !pe.InDoubt && !pe.MaybeAppliedBefore {
		// A definite answer (or no connection at all) to this process's only attempt: nothing was applied, so
		// the attempt leaves no doubt behind. An attempt recorded by an earlier process stays recorded.
		q.mu.Lock()
		mine := q.local[w.Seq]
		delete(q.local, w.Seq)
		q.mu.Unlock()
		if mine {
			w.SentAt = time.Time{}
			if rerr := q.rewrite(w); rerr != nil {
				return fmt.Errorf("store: %w", rerr)
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case isPE && pe.Code == parse.CodeInvalidSessionToken:
		return q.pause(PausedSession, w, err)
	}
	// The client's settle rule (internal/settle), for a write replayed under its first request id and, for a
	// create, the object id it was queued with: an earlier attempt (of this process or an earlier one) may have
	// been applied.
	rule := settle.Write{Kind: settleKind(w.Kind), ChosenID: w.Kind == WriteCreate, Earlier: true, Queued: true}
	switch settle.Of(rule, err) {
	case settle.Applied:
		return nil
	case settle.SendAgain:
		return q.failed(err) // a later replay sends it again under the same ids
	case settle.ReadBack:
		// The id (or the request id) may be taken by this create's earlier attempt: reading the object by its id
		// tells.
		gerr := c.Request(ctx, http.MethodGet, path+"/"+w.ObjectID, nil, nil)
		switch settle.AfterReadBack(rule, err, gerr) {
		case settle.Applied:
			return nil
		case settle.SendAgain:
			return q.failed(fmt.Errorf("store: a create refused as a duplicate request is not stored under its id; sending it again: %w", err))
		}
		if errors.Is(gerr, parse.ErrObjectNotFound) {
			// Refused, and not stored under its id: another unique field is the duplicate, a trigger refused it,
			// or it is stored where this user cannot read it. The app decides: Skip, or fix and Resume.
			return q.pause(PausedRefused, w, err)
		}
		return q.failed(fmt.Errorf("store: settling a refused create: %w (reading it back: %w)", err, gerr))
	}
	if retryable(err) {
		return q.failed(err)
	}
	return q.pause(PausedRefused, w, err)
}

// settleKind is the settle rule's kind of a queued write.
func settleKind(k WriteKind) settle.Kind {
	switch k {
	case WriteCreate:
		return settle.Create
	case WriteDelete:
		return settle.Delete
	}
	return settle.Update
}

// failed records err as the last error and returns it.
func (q *Queue) failed(err error) error {
	q.set(func(st *QueueState) { st.LastError = err })
	return err
}

// retryable reports whether a later attempt may succeed where err failed: no answer, an answer in doubt, a 5xx,
// a rate limit.
func retryable(err error) bool {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return false
	}
	return errors.Is(err, parse.ErrWriteInDoubt) || pe.Status == 0 || pe.Status >= 500 || pe.Status == http.StatusTooManyRequests ||
		pe.Code == parse.CodeConnectionFailed || pe.Code == parse.CodeRequestLimitExceeded
}

// repeatable reports whether applying an update body twice leaves what applying it once does: true unless it
// holds an Increment or an Add (directly or in a Batch).
func repeatable(body map[string]any) bool {
	for _, v := range body {
		if !repeatableOp(v) {
			return false
		}
	}
	return true
}

func repeatableOp(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return true
	}
	switch m["__op"] {
	case "Increment", "Add":
		return false
	case "Batch":
		ops, _ := m["ops"].([]any)
		for _, op := range ops {
			if !repeatableOp(op) {
				return false
			}
		}
	}
	return true
}

// Run replays the queue through c until ctx ends (it returns ctx's error): at once, then whenever a write is
// queued, Kick or Resume is called, or, after a failure, once the server answers GET /health again (polled with
// a doubling, jittered backoff between MinBackoff and MaxBackoff). A paused queue waits for Resume or Skip.
func (q *Queue) Run(ctx context.Context, c *client.Client) error {
	if c == nil {
		return errors.New("store: Run needs a client")
	}
	backoff := q.cfg.MinBackoff
	for {
		err := q.Replay(ctx, c)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil || errors.Is(err, ErrQueuePaused) {
			backoff = q.cfg.MinBackoff
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-q.wake:
			}
			continue
		}
		if errors.Is(err, ErrNotEnabled) {
			return err
		}
		for { // wait until the server answers again
			wait := backoff/2 + mrand.N(backoff/2+1)
			backoff = min(2*backoff, q.cfg.MaxBackoff)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-q.wake:
				t.Stop()
			case <-t.C:
			}
			if q.healthy(ctx, c) {
				break
			}
		}
	}
}

// healthy asks the server's /health, within a few seconds.
func (q *Queue) healthy(ctx context.Context, c *client.Client) bool {
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var out struct {
		Status string `json:"status"`
	}
	if err := c.Request(hctx, http.MethodGet, "health", nil, &out); err != nil {
		q.set(func(st *QueueState) { st.LastError = err })
		return false
	}
	return out.Status == "ok"
}
