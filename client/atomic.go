package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// BatchOption changes how SaveAll and DestroyAll send their writes. The only one is Atomic.
type BatchOption func(*batchOptions)

type batchOptions struct {
	atomic bool
}

func batchOpts(opts []BatchOption) batchOptions {
	var o batchOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// Atomic makes SaveAll or DestroyAll all or nothing, as Parse JS's saveAll/destroyAll with {transaction: true}:
// the writes go in one /batch call with "transaction": true, which parse-server runs in one database transaction
// (on PostgreSQL, and on MongoDB replica sets), so either every write is applied or none is.
//
// Limits, checked before anything is sent:
//   - one /batch call: at most Config.BatchSize writes (default 20, the spec's batch size); more is refused with
//     a *AtomicLimitError, never split into several transactions;
//   - only the given objects: an object that points to other objects with unsaved changes, or to a given object
//     without an id (which would need that object's id first), is refused with ErrAtomicNested: save those first;
//   - new objects get their ids from the server (in an atomic batch no create is sent with a client-chosen id);
//   - every field the batch writes must already be in the class's schema (and the class must exist): parse-server
//     (9.x, PostgreSQL) adds a new field on another connection, which waits for the transaction's lock while the
//     transaction waits for the field, so such a batch never answers and holds the table's lock until
//     parse-server is restarted. Create the fields first (Schemas, or one plain Save).
//
// Outcomes: on success every object is updated as SaveAll updates it. A batch the server rolls back (a trigger or
// a class permission refused one item) is answered by parse-server with a bare "Internal server error." (500)
// that is also what a failure after the commit would look like, so the call is never sent twice and every item's
// error matches ErrWriteInDoubt: all of the batch or none of it was applied (Fetch one object to learn which).
// A definite refusal of the whole call (a 4xx) leaves every item's changes pending. An update in doubt is no
// longer pending (as for Save); a create in doubt keeps its changes and has no id, so saving it again makes a
// second object if the batch was in fact applied: look for it first (a query on a field you set).
//
// The call asks the server to close its connection once it has answered: parse-server (9.x) destroys the
// connection after answering a rolled-back transaction, and a call the client wrote onto it in that moment would
// be reset after the server may have read it, in doubt for no reason.
func Atomic() BatchOption { return func(o *batchOptions) { o.atomic = true } }

// ErrAtomicNested refuses an atomic SaveAll whose objects point to objects that must be saved first (see Atomic).
var ErrAtomicNested = errors.New("moralis: an atomic SaveAll saves only the given objects, and these point to unsaved objects or to a given object without an id: save those first")

// AtomicLimitError refuses an atomic SaveAll or DestroyAll with more writes than one /batch call holds; nothing
// was sent. Split the objects into groups of at most Limit, each atomic on its own, if that is what you want.
type AtomicLimitError struct {
	// Writes is the number of writes asked for (objects with changes, or objects to delete), Limit the most one
	// atomic batch holds (Config.BatchSize).
	Writes, Limit int
}

func (e *AtomicLimitError) Error() string {
	return fmt.Sprintf("moralis: an atomic batch holds at most %d writes (one /batch call), got %d: nothing was sent", e.Limit, e.Writes)
}

// atomicItem is one write of an atomic batch, and where its outcome goes.
type atomicItem struct {
	batchItem
	o     *parse.Object
	index int // in the caller's slice
	sent  objstate.Sent
}

// saveAtomic is SaveAll with Atomic.
func (sv *ObjectsService) saveAtomic(ctx context.Context, objs []*parse.Object) error {
	c := sv.client
	for i, o := range objs {
		if o == nil || o.ClassName() == "" {
			return fmt.Errorf("moralis: atomic SaveAll: item %d: %w", i, errNoClass)
		}
	}
	g, err := newSaveGraph(objs)
	if err != nil {
		return err
	}
	if !g.onlyInputs() || g.linked() {
		return ErrAtomicNested
	}
	first := map[*parse.Object]int{}
	var todo []*parse.Object
	var at []int
	for i, o := range objs {
		if _, seen := first[o]; seen {
			continue
		}
		first[o] = i
		if o.ID() != "" && len(o.DirtyKeys()) == 0 {
			continue
		}
		todo = append(todo, o)
		at = append(at, i)
	}
	if len(todo) > c.cfg.BatchSize {
		return &AtomicLimitError{Writes: len(todo), Limit: c.cfg.BatchSize}
	}
	if len(todo) == 0 {
		return nil
	}
	items := make([]atomicItem, 0, len(todo))
	for k, o := range todo {
		if o.ID() != "" {
			it, snap, err := updateItem(o)
			if err != nil {
				return err
			}
			items = append(items, atomicItem{batchItem: it, o: o, index: at[k], sent: snap})
			continue
		}
		if c.cfg.DefaultACL != nil && o.ACL() == nil {
			o.SetACL(c.cfg.DefaultACL.Clone())
		}
		snap := objstate.Of(o).Snapshot()
		body, err := objstate.Of(o).SaveBody()
		if err != nil {
			return fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
		}
		items = append(items, atomicItem{batchItem: batchItem{method: http.MethodPost, path: classPath(o.ClassName()), body: body, className: o.ClassName()}, o: o, index: at[k], sent: snap})
	}
	answers, errs := sv.client.sendAtomic(ctx, items)
	out := make([]error, len(objs))
	for k, it := range items {
		if it.method == http.MethodPut {
			out[it.index] = settleUpdate(it.o, answers[k], it.sent, errs[k])
			continue
		}
		switch err := errs[k]; {
		case err == nil:
			out[it.index] = objstate.Of(it.o).ApplySaved(answers[k], it.sent)
		case errors.Is(err, parse.ErrWriteInDoubt):
			out[it.index] = fmt.Errorf("moralis: save new %s: %w", it.o.ClassName(), err)
		default:
			out[it.index] = err
		}
	}
	sv.readBackAll(ctx, objs, out)
	for i, o := range objs {
		if j := first[o]; j != i {
			out[i] = out[j]
		}
	}
	return batchResult(out)
}

// destroyAtomic is DestroyAll with Atomic.
func (sv *ObjectsService) destroyAtomic(ctx context.Context, objs []*parse.Object) error {
	items := make([]atomicItem, 0, len(objs))
	first := map[string]int{} // an object listed twice is deleted once (a second delete would fail the batch)
	for i, o := range objs {
		if o == nil || o.ID() == "" {
			return fmt.Errorf("moralis: atomic DestroyAll: item %d: the object has no id", i)
		}
		path := objectPath(o.ClassName(), o.ID())
		if _, seen := first[path]; seen {
			continue
		}
		first[path] = len(items)
		items = append(items, atomicItem{batchItem: batchItem{method: http.MethodDelete, path: path}, o: o, index: i})
	}
	if len(items) > sv.client.cfg.BatchSize {
		return &AtomicLimitError{Writes: len(items), Limit: sv.client.cfg.BatchSize}
	}
	if len(items) == 0 {
		return nil
	}
	_, errs := sv.client.sendAtomic(ctx, items)
	out := make([]error, len(objs))
	for i, o := range objs {
		out[i] = errs[first[objectPath(o.ClassName(), o.ID())]]
	}
	return batchResult(out)
}

// sendAtomic sends items (at most one chunk) as one /batch call with "transaction": true, never twice after an
// ambiguous failure, and returns each item's answer or error in order.
func (c *Client) sendAtomic(ctx context.Context, items []atomicItem) ([]map[string]any, []error) {
	plain := make([]batchItem, len(items))
	for k, it := range items {
		plain[k] = it.batchItem
	}
	answers, errs := make([]map[string]any, len(items)), make([]error, len(items))
	c.batchChunk(ctx, plain, answers, errs, batchMode{once: true, atomic: true})
	return answers, errs
}
