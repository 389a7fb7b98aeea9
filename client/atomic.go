package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/internal/settle"
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
//   - new objects get their ids from the server: an atomic batch chooses no id (only a create in doubt from an
//     earlier plain save with Config.ClientObjectIDs keeps the id it was proposed with, see below);
//   - every field the batch writes must already be in the class's schema (and the class must exist): parse-server
//     (9.x, PostgreSQL) adds a new field on another connection, which waits for the transaction's lock while the
//     transaction waits for the field, so such a batch never answers and holds the table's lock until
//     parse-server is restarted. Create the fields first (Schemas, or one plain Save).
//
// Every save path settles the same way (see the package doc, "Writes in doubt"): a held create (in doubt, its id
// unknown) is refused before anything is sent, with an error naming the item that matches ErrCreateHeld; a
// create released with Settle(ctx, obj, "") sends its first attempt in the transaction, and its changes made
// since go out in one more atomic batch once that one committed; a create in doubt with a client-chosen id
// (Config.ClientObjectIDs, from an earlier plain save) is first looked up by that id (found, it is settled and its
// later changes are an update in the batch; not found, it is created in the batch under that id).
//
// Outcomes. On success every object is updated as SaveAll updates it. A definite refusal of the whole call (a
// 4xx) leaves every item's changes pending. parse-server answers a batch it rolled back (a trigger, a class-level
// permission or a field of the wrong type refused one item) with a bare 500 "Internal server error.", which is
// also what a failure after the commit would look like; and an answer can be lost. The call is never sent twice;
// instead the SDK proves what happened where it can, cheaply:
//   - when the backend runs moralis-go-server with its txMark feature (moralisGoServerInfo lists it; learned once
//     per Client, again every 10 minutes), each atomic batch carries one more create, a MoralisGoTxMark row (so
//     an atomic batch costs one more row, purged by the server after a while, and no extra request), and an
//     ambiguous answer costs one call of moralisGoTxApplied, which tells applied or rolled back for good, a lost
//     answer included;
//   - else, after parse-server's own 500 only (its transaction has ended), one read of an updated object's
//     updatedAt (unchanged: rolled back) or of a deleted object (still there: rolled back); a change or a
//     disappearance could be another writer's, so the items stay in doubt and the error says so.
//
// Proven rolled back, every item's error is a *RolledBackError (errors.Is(err, ErrRolledBack); not in doubt):
// nothing was applied and every object keeps its changes pending, so fixing the refused item and saving again is
// safe. It names the refused item where that can be learned: a field of the wrong type for its column (with the
// master key the client reads the class schemas, else it asks moralisGoCheckWrites; the refusal is parse-server's
// own, code 111 "schema mismatch for C.f; expected X but got Y"), a delete of an object that is not there (101);
// a refusal by a trigger, a permission or an ACL is not told by the server, and the error says so. Proven
// applied, every update and delete succeeded (the objects are read back, as the answer with the server's values
// was lost), and a create whose id the server chose is held with an *AtomicDoubtError whose Applied is set: its
// row exists under an id only the lost answer held, so find it and Settle. Not proven, every item's error is an
// *AtomicDoubtError saying why (errors.Is(err, ErrWriteInDoubt)): a create is held until settled, an update's
// changes are no longer pending, as for any write in doubt.
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
	var todo []int
	for i, o := range objs {
		if _, seen := first[o]; seen {
			continue
		}
		first[o] = i
		if o.ID() != "" && len(o.DirtyKeys()) == 0 {
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) > c.cfg.BatchSize {
		return &AtomicLimitError{Writes: len(todo), Limit: c.cfg.BatchSize}
	}
	// Held creates are refused before anything is sent; creates in doubt with a proposed id are settled first.
	for _, i := range todo {
		o := objs[i]
		if o.ID() != "" {
			continue
		}
		if _, held := objstate.Of(o).CreateDoubt(); held {
			return fmt.Errorf("moralis: atomic SaveAll: item %d: %w; nothing was sent", i, heldCreate(o))
		}
		if o.ProposedID() != "" {
			if err := sv.settleProposed(ctx, o); err != nil {
				return fmt.Errorf("moralis: atomic SaveAll: item %d: %w; nothing was sent", i, err)
			}
		}
	}
	var ws []*write
	for _, i := range todo {
		o := objs[i]
		w, err := c.prepare(o, o.ID() == "" && o.ProposedID() != "")
		if err != nil {
			return err
		}
		if w != nil {
			w.index = i
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	answers, errs, applied := c.runAtomic(ctx, ws)
	out := make([]error, len(objs))
	var since []*write
	var reread []*write
	for k, w := range ws {
		var more bool
		out[w.index], more = w.settle(answers[k], errs[k])
		if more {
			since = append(since, w)
		}
		if applied && out[w.index] == nil {
			reread = append(reread, w)
		}
	}
	sv.reread(ctx, reread, out)
	if len(since) > 0 {
		savers := make([]Saver, len(since))
		for j, w := range since {
			savers[j] = w.o
		}
		for j, err := range sv.sendSince(ctx, savers, true) {
			out[since[j].index] = err
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

// settleProposed settles, before an atomic batch, an object whose create with a client-chosen id is in doubt (an
// earlier plain save with Config.ClientObjectIDs): read by that id, found, the object takes the stored row (its
// later changes become an update); not found, it stays a create, sent with that id. Nothing is written.
func (sv *ObjectsService) settleProposed(ctx context.Context, o *parse.Object) error {
	stored, err := sv.client.lookup(ctx, o.ClassName(), o.ProposedID(), "")
	switch {
	case err == nil:
		return mergeFetched(o, stored)
	case errors.Is(err, parse.ErrObjectNotFound):
		return nil
	}
	return fmt.Errorf("moralis: reading back new %s %s, whose earlier create is in doubt: %w", o.ClassName(), o.ProposedID(), err)
}

// reread reads back, after an atomic batch proven applied whose answer was lost, the objects its updates and
// creates with known ids saved (the server's values, such as an Increment's result and updatedAt, were in that
// answer): one query per class. A failure becomes the item's error, saying the object was saved.
func (sv *ObjectsService) reread(ctx context.Context, ws []*write, out []error) {
	c := sv.client
	byClass := map[string][]*write{}
	for _, w := range ws {
		if w.kind != settle.Delete && w.o.ID() != "" {
			byClass[w.o.ClassName()] = append(byClass[w.o.ClassName()], w)
		}
	}
	for cls, group := range byClass {
		ids := make([]any, len(group))
		for j, w := range group {
			ids[j] = w.o.ID()
		}
		rows, err := c.rowsByID(ctx, cls, ids, "")
		for _, w := range group {
			row, ok := rows[w.o.ID()]
			switch {
			case err != nil:
				out[w.index] = fmt.Errorf("moralis: %s %s was saved (its atomic batch is proven applied), but reading it back failed: %w", cls, w.o.ID(), err)
			case !ok:
				out[w.index] = fmt.Errorf("moralis: %s %s was saved (its atomic batch is proven applied), but reading it back found nothing (deleted since, or hidden by its ACL)", cls, w.o.ID())
			default:
				if merr := mergeFetched(w.o, row); merr != nil {
					out[w.index] = merr
				}
			}
		}
	}
}

// destroyAtomic is DestroyAll with Atomic.
func (sv *ObjectsService) destroyAtomic(ctx context.Context, objs []*parse.Object) error {
	var ws []*write
	first := map[string]int{} // an object listed twice is deleted once (a second delete would fail the batch)
	for i, o := range objs {
		if o == nil || o.ID() == "" {
			return fmt.Errorf("moralis: atomic DestroyAll: item %d: the object has no id", i)
		}
		path := objectPath(o.ClassName(), o.ID())
		if _, seen := first[path]; seen {
			continue
		}
		first[path] = len(ws)
		w := deleteWrite(o)
		w.index = i
		ws = append(ws, w)
	}
	if len(ws) > sv.client.cfg.BatchSize {
		return &AtomicLimitError{Writes: len(ws), Limit: sv.client.cfg.BatchSize}
	}
	if len(ws) == 0 {
		return nil
	}
	answers, errs, _ := sv.client.runAtomic(ctx, ws)
	done := make([]error, len(ws))
	for k, w := range ws {
		done[k], _ = w.settle(answers[k], errs[k])
	}
	out := make([]error, len(objs))
	for i, o := range objs {
		out[i] = done[first[objectPath(o.ClassName(), o.ID())]]
	}
	return batchResult(out)
}

// runAtomic sends ws (at most one chunk) as one /batch call with "transaction": true, with the batch's mark when
// the backend offers txMark, never twice after an ambiguous failure, and returns each write's answer and error in
// order, for write.settle. An ambiguous answer is resolved by proveAtomic into errors that say what is known;
// applied reports that the batch is known applied only by that proof (the answer with the server's values was
// lost).
func (c *Client) runAtomic(ctx context.Context, ws []*write) (answers []map[string]any, errs []error, applied bool) {
	items := make([]batchItem, len(ws), len(ws)+1)
	for k, w := range ws {
		items[k] = w.item()
	}
	mark := ""
	if c.hasFeature(ctx, featureTxMark) {
		if m, err := newTxMark(); err == nil {
			mark = m
			items = append(items, txMarkItem(mark))
		}
	}
	answers, errs = make([]map[string]any, len(items)), make([]error, len(items))
	c.batchChunk(ctx, items, answers, errs, batchMode{once: true, atomic: true})
	answers, errs = answers[:len(ws)], errs[:len(ws)]
	answer := errs[0]
	for _, err := range errs {
		if err != nil && !errors.Is(err, parse.ErrWriteInDoubt) {
			return answers, errs, false // a definite answer: applied, or refused as a whole
		}
		if err == nil || err != answer {
			return answers, errs, false // per-item answers: the call was answered
		}
	}
	out := c.proveAtomic(ctx, ws, mark, answer)
	return answers, atomicErrors(ws, out, answer), out.verdict == settle.Applied
}
