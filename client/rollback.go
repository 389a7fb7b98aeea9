package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/settle"
	"github.com/c13f5054/moralis-go/parse"
)

// An atomic batch whose answer does not say what happened (parse-server answers a rolled-back transaction with a
// bare 500 "Internal server error.", exactly as it would a failure after the commit; or the answer is lost) is
// proven applied or rolled back where the SDK can do it cheaply, instead of leaving every item in doubt:
//
//  1. With the backend's txMark feature (moralis-go-server: moralisGoServerInfo lists it), every atomic batch
//     carries one more create, of a MoralisGoTxMark row named by a random mark, in the same transaction. After an
//     ambiguous answer the SDK calls moralisGoTxApplied({mark}): the function inserts a fence row under the mark's
//     id, which the database lets exist once; if the batch's row is there the batch committed (applied), else the
//     fence is in, and the batch, should it still be running, can never commit (rolled back). One request, sound
//     for a lost answer too.
//  2. Without it, and only after parse-server's own 500 (its transaction has ended): an update's object is read
//     (its updatedAt): unchanged, nothing was applied; a delete's object is read: still there, nothing was
//     applied. Changed or gone, another writer may have done it: in doubt, and the error says so.
//  3. Creates only, or a lost answer, without the mark: in doubt, and the error says why.
//
// A proven rollback then names the item the server refused where that can be learned: the class schemas (GET
// schemas/<class> with the master key, or moralisGoCheckWrites) find a field of the wrong type as parse-server's
// own check would (code 111, "schema mismatch for C.f; expected X but got Y"); a delete's object that is not there
// is refused as "Object not found." (101). A refusal by a trigger, a class-level permission or an ACL is not told
// by the server: the error says so.

// The MoralisGoTxMark class and the functions of moralis-go-server that prove an atomic batch's outcome.
const (
	txMarkClass         = "MoralisGoTxMark"
	txAppliedFunction   = "moralisGoTxApplied"
	checkWritesFunction = "moralisGoCheckWrites"
	// txMarkLength is the length of a mark: 24 letters and digits (143 bits), which the server's beforeSave
	// checks and makes the row's objectId.
	txMarkLength = 24
)

// ErrRolledBack is matched (errors.Is) by the error of every item of an atomic SaveAll or DestroyAll that the
// server is proven to have rolled back (see Atomic): nothing of the batch was applied, and every object keeps its
// changes pending (no create is held). Fix the refused item (RolledBackError.Refused) and save again.
var ErrRolledBack = errors.New("moralis: the atomic batch was rolled back: nothing of it was applied")

// RolledBackError is the error of each item of an atomic SaveAll or DestroyAll that the server rolled back, when
// the SDK proved it (see Atomic, "Outcomes"). errors.Is(err, ErrRolledBack) matches it, and never
// parse.ErrWriteInDoubt: nothing was applied. For the item the server refused, errors.Is and errors.As also reach
// the refusal (errors.Is(err, parse.ErrIncorrectType) for a field of the wrong type). A RolledBackError is a plain
// value, not changed after it is returned.
type RolledBackError struct {
	// Item is the index of this error's item among the objects given to SaveAll or DestroyAll.
	Item int
	// Refused is the index of the item the server refused, whose refusal rolled the batch back; -1 when the SDK
	// cannot learn it (a trigger, a class-level permission or an ACL refused one, and the server does not say
	// which).
	Refused int
	// Refusal is the refused item's error as parse-server answers it outside a transaction, e.g. a *parse.Error
	// with code 111 and "schema mismatch for GameScore.score; expected Number but got String"; nil when Refused is
	// -1.
	Refusal error
	// Proof says how the SDK knows that nothing was applied.
	Proof string
	// Answer is what the batch was answered: parse-server's bare 500 "Internal server error.", or no answer.
	Answer error
}

func (e *RolledBackError) Error() string {
	head := "moralis: atomic batch rolled back, nothing of it applied (" + e.Proof + ")"
	switch {
	case e.Refused < 0:
		return fmt.Sprintf("%s; the server does not say which item it refused (a trigger, a class-level permission or an ACL refused one): item %d was not applied", head, e.Item)
	case e.Refused == e.Item:
		return fmt.Sprintf("%s; item %d was refused: %v", head, e.Item, e.Refusal)
	}
	return fmt.Sprintf("%s; item %d was not applied because item %d was refused: %v", head, e.Item, e.Refused, e.Refusal)
}

// Is matches ErrRolledBack.
func (e *RolledBackError) Is(target error) bool { return target == ErrRolledBack }

// Unwrap returns the refusal for the refused item, nil for the others.
func (e *RolledBackError) Unwrap() error {
	if e.Item == e.Refused {
		return e.Refusal
	}
	return nil
}

// AtomicDoubtError is the error of an item of an atomic SaveAll or DestroyAll whose outcome stays unknown: the
// batch's answer did not say, and the SDK could not prove it applied or rolled back (Reason says why); or, with
// Applied, a create of a batch proven applied whose answer, with the id the server gave it, was lost. errors.Is(err,
// parse.ErrWriteInDoubt) matches it, and the object is treated as any write in doubt: a create is held until the
// app settles it (ObjectsService.Settle), an update's sent changes are no longer pending. An AtomicDoubtError is a
// plain value, not changed after it is returned.
type AtomicDoubtError struct {
	// Item is the index of this error's item among the objects given to SaveAll or DestroyAll.
	Item int
	// Applied is set when the batch is proven applied but this item is a create whose id the lost answer held.
	Applied bool
	// Reason says why the outcome could not be proven, or with Applied how it was.
	Reason string
	// Err is the item's in-doubt error.
	Err error
}

func (e *AtomicDoubtError) Error() string {
	if e.Applied {
		return fmt.Sprintf("moralis: atomic batch applied (%s), but its answer, with the id of item %d, was lost: %v", e.Reason, e.Item, e.Err)
	}
	return fmt.Sprintf("moralis: atomic batch in doubt, item %d: %v; the SDK could not prove whether the batch was applied or rolled back: %s", e.Item, e.Err, e.Reason)
}

// Unwrap returns the item's in-doubt error.
func (e *AtomicDoubtError) Unwrap() error { return e.Err }

// atomicOutcome is what proveAtomic found out about an atomic batch with an ambiguous answer.
type atomicOutcome struct {
	verdict settle.Verdict // Applied, Refused (rolled back) or InDoubt
	proof   string         // how it was proven, or why it could not be
	refused int            // the refused write (an index into the batch's writes), -1 when unknown
	refusal error
}

// newTxMark makes a batch's mark.
func newTxMark() (string, error) { return randid.Alnum(rand.Read, txMarkLength) }

// txMarkItem is the sub-request that stores the batch's mark in its transaction.
func txMarkItem(mark string) batchItem {
	return batchItem{method: http.MethodPost, path: classPath(txMarkClass), body: map[string]any{"mark": mark}}
}

// txEnded reports whether answer is parse-server's own answer to a /batch whose transaction rolled back: a 500
// with code 1 and "Internal server error." (its handler answers only after the transaction ended).
func txEnded(answer error) bool {
	var pe *parse.Error
	return errors.As(answer, &pe) && pe.Status == http.StatusInternalServerError && pe.Code == parse.CodeInternalServerError &&
		pe.Message == "Internal server error."
}

// maxProbes is how many objects proveAtomic reads at most to prove a rollback without a mark.
const maxProbes = 3

// proveAtomic finds out, for an atomic batch of ws (with mark when it carried one) answered with the in-doubt
// answer, whether it was applied or rolled back (see the comment at the top of this file).
func (c *Client) proveAtomic(ctx context.Context, ws []*write, mark string, answer error) atomicOutcome {
	var pe *parse.Error
	if errors.As(answer, &pe) && pe.Status >= 200 && pe.Status < 300 {
		// parse-server answers a transactional /batch with a 2xx only after its commit.
		return atomicOutcome{verdict: settle.Applied, proof: fmt.Sprintf("the server answered %d, which it does only after the commit", pe.Status), refused: -1}
	}
	var why []string
	if mark != "" {
		applied, err := c.txApplied(ctx, mark)
		switch {
		case err != nil:
			why = append(why, "looking up its mark failed: "+err.Error())
		case applied:
			return atomicOutcome{verdict: settle.Applied, proof: "its mark is stored (" + txAppliedFunction + ")", refused: -1}
		default:
			return c.rolledBack(ctx, ws, "its mark is not stored, and now never will be ("+txAppliedFunction+")")
		}
	} else {
		why = append(why, "the backend does not offer moralis-go-server's txMark ("+serverInfoFunction+")")
	}
	if !txEnded(answer) {
		return atomicOutcome{verdict: settle.InDoubt, proof: strings.Join(append(why, "its answer was lost, so its transaction may still be running"), "; "), refused: -1}
	}
	probes := 0
	for _, w := range ws {
		if probes == maxProbes || w.kind == settle.Create || w.kind == settle.Update && w.updatedAt.IsZero() {
			continue
		}
		probes++
		keys := "objectId"
		if w.kind == settle.Update {
			keys = "updatedAt"
		}
		var stored map[string]any
		err := c.do(ctx, c.call(http.MethodGet, objectPath(w.o.ClassName(), w.o.ID()), map[string]any{"keys": keys}), &stored)
		name := w.o.ClassName() + " " + w.o.ID()
		switch {
		case w.kind == settle.Delete && err == nil:
			return c.rolledBack(ctx, ws, name+", which it deletes, is still there")
		case w.kind == settle.Delete && errors.Is(err, parse.ErrObjectNotFound):
			why = append(why, name+", which it deletes, is gone: the batch may have been applied, or another writer deleted it")
		case err != nil:
			why = append(why, "reading "+name+" failed: "+err.Error())
		default:
			at, _ := stored["updatedAt"].(string)
			if t, perr := parse.ParseDate(at); perr == nil && t.Equal(w.updatedAt) {
				return c.rolledBack(ctx, ws, "the updatedAt of "+name+", which it updates, is unchanged")
			}
			why = append(why, "the updatedAt of "+name+" changed: the batch may have been applied, or another writer changed it")
		}
	}
	if probes == 0 {
		why = append(why, "it holds no update of an object whose updatedAt the client knows and no delete, so there is nothing to read")
	}
	return atomicOutcome{verdict: settle.InDoubt, proof: strings.Join(why, "; "), refused: -1}
}

// rolledBack is the outcome of a batch proven rolled back, with the refused item named where it can be learned.
func (c *Client) rolledBack(ctx context.Context, ws []*write, proof string) atomicOutcome {
	out := atomicOutcome{verdict: settle.Refused, proof: proof, refused: -1}
	out.refused, out.refusal = c.nameRefusal(ctx, ws)
	return out
}

// txApplied asks moralisGoTxApplied whether the batch that carried mark was applied. The function fences the
// mark (see the comment at the top of this file), so its answer is final; asking again gives the same answer.
func (c *Client) txApplied(ctx context.Context, mark string) (bool, error) {
	rc := rest.Call{Method: http.MethodPost, Path: "functions/" + txAppliedFunction, Params: map[string]any{"mark": mark}}
	rc.Replay, rc.NoIdempotency = httpx.ReplayAlways, true
	var out struct {
		Result *struct {
			Applied *bool `json:"applied"`
		} `json:"result"`
	}
	if err := c.do(ctx, rc, &out); err != nil {
		return false, err
	}
	if out.Result == nil || out.Result.Applied == nil {
		return false, errors.New(txAppliedFunction + " answered without applied")
	}
	return *out.Result.Applied, nil
}

// nameRefusal finds the write of a rolled-back batch that the server refused, where that can be learned: the
// first create or update with a field of the wrong type (schemaRefusal), else the first delete of an object that
// is not there (or not visible). It returns its index in ws and its refusal, or -1 and nil.
func (c *Client) nameRefusal(ctx context.Context, ws []*write) (int, error) {
	if k, refusal := c.schemaRefusal(ctx, ws); k >= 0 {
		return k, refusal
	}
	byClass := map[string][]int{}
	for k, w := range ws {
		if w.kind == settle.Delete {
			byClass[w.o.ClassName()] = append(byClass[w.o.ClassName()], k)
		}
	}
	first := -1
	for cls, ks := range byClass {
		ids := make([]any, len(ks))
		for j, k := range ks {
			ids[j] = ws[k].o.ID()
		}
		there, err := c.rowsByID(ctx, cls, ids, "objectId")
		if err != nil {
			continue
		}
		for _, k := range ks {
			if _, ok := there[ws[k].o.ID()]; !ok && (first < 0 || k < first) {
				first = k
			}
		}
	}
	if first < 0 {
		return -1, nil
	}
	return first, &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Op: ws[first].item().method + " " + ws[first].item().path}
}

// atomicErrors turns an atomic batch's outcome into each write's error (aligned with ws; nil for an applied
// update or delete, and for a create whose id is known). answer is the batch's ambiguous answer.
func atomicErrors(ws []*write, out atomicOutcome, answer error) []error {
	errs := make([]error, len(ws))
	for k, w := range ws {
		switch out.verdict {
		case settle.Refused:
			rb := &RolledBackError{Item: w.index, Refused: -1, Proof: out.proof, Answer: answer}
			if out.refused >= 0 {
				rb.Refused, rb.Refusal = ws[out.refused].index, out.refusal
			}
			errs[k] = rb
		case settle.Applied:
			if w.kind == settle.Create && w.id == "" {
				errs[k] = &AtomicDoubtError{Item: w.index, Applied: true, Reason: out.proof, Err: inDoubt(w.op(), answer, nil)}
			}
		default:
			var itemErr error
			if w.kind == settle.Create {
				itemErr = inDoubt(w.op(), answer, nil)
			} else {
				itemErr = fmt.Errorf("moralis: %s: %w", w.op(), markInDoubt(answer))
			}
			errs[k] = &AtomicDoubtError{Item: w.index, Reason: out.proof, Err: itemErr}
		}
	}
	return errs
}
