package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/settle"
	"github.com/c13f5054/moralis-go/parse"
)

// The settle machine: every save path (Save, SaveAll and its nested rounds, SaveAll with Atomic, DestroyAll)
// prepares each object's write with prepare, sends it its own way, and hands the answer to write.settle, which
// decides the outcome by the one rule of internal/settle and applies it to the object; the changes made since a
// create that sent its first attempt again go out through sendSince. So a held create is refused, a create in
// doubt is held, and a settled create's later changes are sent, the same way on every path.

// write is one object's create, update or delete, from the moment a save path prepares it to the moment its
// outcome is applied to the object.
type write struct {
	o    *parse.Object
	kind settle.Kind
	// body is the sub-request's body (a create's or update's changed fields), sent is the snapshot it was made
	// from (given back to objstate on the outcome).
	body map[string]any
	sent objstate.Sent
	// id is the object id a create is sent with when the client chose it (Config.ClientObjectIDs, or the id an
	// earlier create in doubt was proposed with); "" when the server chooses.
	id string
	// again is set for a create that sends the first attempt of a create in doubt again (released with
	// Settle(ctx, obj, ""), or sent with its proposed id): once settled, the changes made since go out as an
	// update (sendSince).
	again bool
	// updatedAt is the object's updatedAt when the write was prepared (an atomic batch's rollback proof reads it).
	updatedAt time.Time
	// index is where the write's outcome goes in the caller's slice.
	index int
}

// rule is the write as internal/settle describes it.
func (w *write) rule() settle.Write {
	return settle.Write{Kind: w.kind, ChosenID: w.id != "", Earlier: w.again}
}

// item is the write's /batch sub-request.
func (w *write) item() batchItem {
	switch w.kind {
	case settle.Create:
		body := w.body
		if w.id != "" {
			body = make(map[string]any, len(w.body)+1)
			for k, v := range w.body {
				body[k] = v
			}
			body["objectId"] = w.id
		}
		return batchItem{method: http.MethodPost, path: classPath(w.o.ClassName()), body: body}
	case settle.Update:
		return batchItem{method: http.MethodPut, path: objectPath(w.o.ClassName(), w.o.ID()), body: w.body}
	}
	return batchItem{method: http.MethodDelete, path: objectPath(w.o.ClassName(), w.o.ID())}
}

// op names the write in errors: "save new GameScore", "save GameScore xWMyZ4YEGZ", "destroy ...".
func (w *write) op() string {
	switch {
	case w.kind == settle.Delete:
		return "destroy " + w.o.ClassName() + " " + w.o.ID()
	case w.kind == settle.Update:
		return "save " + w.o.ClassName() + " " + w.o.ID()
	case w.id != "":
		return "save new " + w.o.ClassName() + " " + w.id
	}
	return "save new " + w.o.ClassName()
}

// prepare makes the write that saves o next: a create when it has no id, else an update of its changed fields;
// nil (and no error) when o has an id and nothing to save. A held create is refused with ErrCreateHeld and
// nothing is prepared. A new object without an ACL gets Config.DefaultACL. choose: the create carries an id the
// client chose (the one an earlier create in doubt was proposed with, or a new one).
func (c *Client) prepare(o *parse.Object, choose bool) (*write, error) {
	st := objstate.Of(o)
	if o.ID() != "" {
		if len(o.DirtyKeys()) == 0 {
			return nil, nil
		}
		sent := st.Snapshot()
		body, err := st.SaveBody()
		if err != nil {
			return nil, fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
		}
		return &write{o: o, kind: settle.Update, body: body, sent: sent, updatedAt: o.UpdatedAt(), index: -1}, nil
	}
	inDoubt, held := st.CreateDoubt()
	if held {
		return nil, heldCreate(o)
	}
	if c.cfg.DefaultACL != nil && o.ACL() == nil {
		o.SetACL(c.cfg.DefaultACL.Clone())
	}
	w := &write{o: o, kind: settle.Create, sent: st.Snapshot(), again: inDoubt, index: -1}
	body, err := st.SaveBody()
	if err != nil {
		return nil, fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
	}
	w.body = body
	if choose {
		if w.id, err = proposeID(o); err != nil {
			return nil, fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
		}
	}
	return w, nil
}

// deleteWrite is the write that deletes o (which has an id).
func deleteWrite(o *parse.Object) *write {
	return &write{o: o, kind: settle.Delete, updatedAt: o.UpdatedAt(), index: -1}
}

// settle applies the outcome of w to its object (answer: the server's answer to it; err: its error, nil on
// success) and returns the item's error; since reports whether the object has changes made after a create that
// sent its first attempt again, to be sent as an update now that it is settled (sendSince).
//
//   - applied: a create takes its id (a chosen one, or the answer's) and the answer; an update takes the answer;
//   - in doubt: a create keeps its sent changes as that attempt and is held until the app settles it (unless it
//     was sent with a chosen id: saving it again resends it under that id); an update's sent changes are no
//     longer pending (a later save cannot apply them twice); the error matches parse.ErrWriteInDoubt and says how
//     to settle;
//   - refused: the changes stay pending; a create sent with a new chosen id drops it (nothing was stored).
//
// A chosen-id create must have been read back by the caller already (createWithID, settleCreates): a ReadBack
// verdict left at this point counts as in doubt.
func (w *write) settle(answer map[string]any, err error) (itemErr error, since bool) {
	st := objstate.Of(w.o)
	v := settle.Of(w.rule(), err)
	if v == settle.ReadBack || v == settle.SendAgain {
		v = settle.InDoubt
	}
	var ade *AtomicDoubtError
	atomicDoubt := errors.As(err, &ade) // already names the item and says why it is in doubt
	switch w.kind {
	case settle.Create:
		switch v {
		case settle.Applied:
			if w.id != "" {
				w.o.SetID(w.id)
			}
			if answer == nil {
				answer = map[string]any{}
			}
			if err := st.ApplySaved(answer, w.sent); err != nil {
				return err, false
			}
			return nil, w.again && len(w.o.DirtyKeys()) > 0
		case settle.InDoubt:
			st.CreateInDoubt(w.sent)
			if atomicDoubt || strings.HasPrefix(opOf(err), "save new ") {
				return err, false // already says how to settle it (createWithID, settleCreates, atomic batches)
			}
			return inDoubt(w.op(), err, nil), false
		}
		if w.id != "" && !w.again {
			st.SetProposedID("") // definitely not stored: a later save may choose afresh
		}
		return err, false
	case settle.Update:
		switch v {
		case settle.Applied:
			if answer == nil {
				answer = map[string]any{}
			}
			return st.ApplySaved(answer, w.sent), false
		case settle.InDoubt:
			st.DropSent(w.sent)
			if atomicDoubt {
				return err, false
			}
			return fmt.Errorf("moralis: %s: %w", w.op(), err), false
		}
		return err, false
	}
	switch v {
	case settle.Applied:
		return nil, false
	case settle.InDoubt:
		if atomicDoubt {
			return err, false
		}
		return markInDoubt(err), false
	}
	return err, false
}

// opOf is the Op of err's *parse.Error ("" when it has none).
func opOf(err error) string {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe.Op
	}
	return ""
}

// markInDoubt returns err as an in-doubt error (a delete refused as "object not found" after an earlier attempt
// may have deleted it).
func markInDoubt(err error) error {
	if errors.Is(err, parse.ErrWriteInDoubt) {
		return err
	}
	var pe *parse.Error
	if errors.As(err, &pe) {
		cp := *pe
		cp.InDoubt = true
		return &cp
	}
	return &parse.Error{Code: rest.CodeConnectionFailed, Message: err.Error(), InDoubt: true, Err: err}
}

// sendSince sends, for objects whose create sent its first attempt again and was settled (write.settle's
// since), the changes made to them since that attempt, as updates: the settled create stored the first attempt's
// changes only. One object goes as Save sends it, several as SaveAll sends them (/batch), and those of an atomic
// SaveAll as one more atomic batch. It returns each object's error, aligned with savers.
func (sv *ObjectsService) sendSince(ctx context.Context, savers []Saver, atomic bool) []error {
	if len(savers) == 1 && !atomic {
		return []error{sv.saveOne(ctx, savers[0])}
	}
	objs := make([]*parse.Object, len(savers))
	for i, s := range savers {
		objs[i] = s.ParseObject()
	}
	if !atomic {
		return sv.saveFlat(ctx, objs)
	}
	errs := make([]error, len(objs))
	err := sv.saveAtomic(ctx, objs)
	var be *BatchError
	switch {
	case errors.As(err, &be):
		copy(errs, be.Errors)
	case err != nil:
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// ErrCreateHeld is matched (errors.Is) by the refusal to save or fetch an object whose create is in doubt and
// was sent without an id of the client's (the server chooses ids at the default config): the server may have
// stored it under an id it did not tell, so sending the create again could make a second object. Nothing is
// sent. Settle the object first with ObjectsService.Settle: with the id of the stored object once the app has
// found it (a query on fields it set), or with "" once it knows nothing was stored.
var ErrCreateHeld = errors.New("moralis: the object's create is in doubt and its id unknown; settle it first with Objects.Settle(ctx, obj, id) (id: the stored object's, found by a query; \"\" once nothing was stored)")

// heldCreate is the refusal of an object whose create is held.
func heldCreate(o *parse.Object) error {
	return fmt.Errorf("moralis: save new %s: %w", o.ClassName(), ErrCreateHeld)
}

// Settle settles an object whose create is in doubt (its error matched ErrWriteInDoubt) when the SDK cannot: a
// create the server chose the id of (the default) and whose answer was lost, or refused as a "Duplicate request"
// when it was sent again (the first attempt was applied), on any save path (Save, SaveAll, SaveAll with Atomic).
// Until then Save, SaveAll and Fetch refuse the object with ErrCreateHeld, so it can never be stored twice
// silently.
//
// With id, the id of the stored object (found by the app, e.g. a query on fields it set): the object is read by
// that id (as Fetch) and takes it; the changes made since the create stay pending and go out with the next save
// as an update. With "": the app knows nothing was stored; the next save (any path) sends the first attempt's
// changes again as a new create, then the changes made since as an update. An object without a create in doubt
// gives an error and changes nothing. A create in doubt with a client-chosen id (Config.ClientObjectIDs) needs no
// Settle: Save resends it under the same id and Fetch reads it by that id, but Settle works on it too.
func (sv *ObjectsService) Settle(ctx context.Context, s Saver, id string) error {
	if s == nil || isNil(s) || s.ParseObject() == nil {
		return errNoClass
	}
	o := s.ParseObject()
	if pending, _ := objstate.Of(o).CreateDoubt(); !pending {
		return fmt.Errorf("moralis: settle %s: the object has no create in doubt", describe(o))
	}
	if id == "" {
		objstate.Of(o).ReleaseCreate()
		return nil
	}
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	c := sv.client
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, objectPath(o.ClassName(), id), nil), &resp); err != nil {
		return fmt.Errorf("moralis: settle %s with %s: %w", describe(o), id, err)
	}
	if got, _ := resp["objectId"].(string); got != id {
		return fmt.Errorf("moralis: settle %s with %s: the server answered object %q", describe(o), id, got)
	}
	return mergeFetched(o, resp)
}

// inDoubt makes the in-doubt error of a write that op names, from the write's error and, when a look-up could
// not settle it, the look-up's error.
func inDoubt(op string, err, lookupErr error) error {
	e := &parse.Error{Code: rest.CodeConnectionFailed, Message: "the outcome of the write is unknown", Op: op, InDoubt: true, Err: err}
	var pe *parse.Error
	if errors.As(err, &pe) {
		e.Code, e.Message, e.Status = pe.Code, pe.Message, pe.Status
		if e.Code == rest.CodeDuplicateValue || e.Code == rest.CodeDuplicateRequest {
			e.Code = 0 // a refusal of a retry, not of the write
		}
	}
	if lookupErr != nil {
		e.Message += " (reading it back failed: " + lookupErr.Error() + ")"
	}
	switch {
	case strings.HasPrefix(op, "save new ") && strings.Contains(op[len("save new "):], " "):
		e.Message += "; to settle it, Save the object again (it resends the same create under the same id) or Fetch it (it reads the object by that id)"
	case strings.HasPrefix(op, "save new "):
		e.Message += "; " + settleHint
	}
	return e
}

// settleHint tells the app how to settle a held create.
const settleHint = "the server chose its id and did not tell it: to settle it, find the stored object and call Objects.Settle(ctx, obj, id), or Objects.Settle(ctx, obj, \"\") once you know nothing was stored; until then Save refuses the object (ErrCreateHeld)"
