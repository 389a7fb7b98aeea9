// Package settle is the one rule that decides what an answer (or its absence) says about a write: applied,
// refused, in doubt, or to be read back by the id the client chose for it. The client's save paths (Save,
// SaveAll, atomic batches, DestroyAll) and the store's write queue all decide by it, so that a write left in doubt
// is treated the same way whichever path sent it; what each path then does with the object or the queued write
// (hold a create, drop an update's sent changes, pause the queue) is the caller's.
package settle

import (
	"errors"

	"github.com/c13f5054/moralis-go/parse"
)

// Kind is what a write does.
type Kind uint8

// The kinds of writes.
const (
	Create Kind = iota
	Update
	Delete
)

// Write describes the write an answer is about.
type Write struct {
	Kind Kind
	// ChosenID is set for a create sent with an object id the client chose (Config.ClientObjectIDs, a queued
	// create): an attempt that stored it can be found by that id, so the create is never in doubt for long.
	ChosenID bool
	// Earlier is set when an attempt of the same write made before this one may have been applied: a create in
	// doubt sent again, a write replayed from a durable queue (an earlier process may have sent it).
	Earlier bool
	// Queued is set for a write replayed from a durable queue under the request id its first attempt carried,
	// in an earlier process or this one. The queue's contract: a "Duplicate request" refusal of an update means the
	// server handled that request id before, and a delete of an object that is not found is done.
	Queued bool
}

// Verdict is what an answer says about a write.
type Verdict uint8

// The verdicts.
const (
	// Applied: the write is applied, by this attempt or an earlier one.
	Applied Verdict = iota
	// Refused: the write was not applied and will not be by this attempt (a definite refusal, or no attempt
	// reached the server); a create's and an update's changes stay pending.
	Refused
	// InDoubt: it may or may not have been applied, and the answer says no more.
	InDoubt
	// ReadBack: a create with a chosen id whose answer leaves open that an attempt stored it: read the object by
	// that id, then decide with AfterReadBack.
	ReadBack
	// SendAgain: a create with a chosen id that a read back did not find, after an answer that leaves its id
	// free (no answer, a 5xx, a "Duplicate request"): sending it again under the same id cannot make a second
	// object.
	SendAgain
)

func (v Verdict) String() string {
	switch v {
	case Applied:
		return "applied"
	case Refused:
		return "refused"
	case InDoubt:
		return "in doubt"
	case ReadBack:
		return "read back"
	case SendAgain:
		return "send again"
	}
	return "unknown"
}

// Of decides what err, the answer to one attempt of w (nil: success), says about w.
//
//   - nil: Applied.
//   - A queued create (chosen id) whose answer leaves its id free (see LeavesIDFree) but is not a "Duplicate
//     request": SendAgain, by a later replay.
//   - A create with a chosen id: ReadBack when the answer leaves open that an attempt stored it (in doubt; a
//     retry, or a write sent again, refused as a duplicate id or a duplicate request; any refusal of a create sent
//     again, which says nothing of the earlier attempt), else Refused.
//   - A create without one, or an update: InDoubt when the error is in doubt (parse.ErrWriteInDoubt), else
//     Refused; a queued update refused as a "Duplicate request": Applied.
//   - A delete: "object not found" after an earlier attempt may have deleted it: Applied for a queued write (the
//     object is gone), else InDoubt (it may never have been visible to the caller); in doubt: InDoubt; else
//     Refused.
func Of(w Write, err error) Verdict {
	if err == nil {
		return Applied
	}
	var pe *parse.Error
	isPE := errors.As(err, &pe)
	doubt := errors.Is(err, parse.ErrWriteInDoubt)
	retried := w.Earlier || isPE && pe.MaybeAppliedBefore
	code := parse.Code(0)
	if isPE {
		code = pe.Code
	}
	switch w.Kind {
	case Create:
		if w.Queued && w.ChosenID && code != parse.CodeDuplicateRequest && LeavesIDFree(err) {
			return SendAgain // a later replay sends it again under the same id, and settles it then
		}
		dup := code == parse.CodeDuplicateValue || code == parse.CodeDuplicateRequest
		if w.ChosenID && (doubt || w.Earlier || retried && dup) {
			return ReadBack
		}
	case Update:
		if w.Queued && code == parse.CodeDuplicateRequest {
			return Applied
		}
	case Delete:
		if code == parse.CodeObjectNotFound && (w.Queued || retried) {
			if w.Queued {
				return Applied
			}
			return InDoubt
		}
	}
	if doubt {
		return InDoubt
	}
	return Refused
}

// AfterReadBack decides a ReadBack verdict of a create with a chosen id: err is the answer that called for it,
// readErr the read back's error (nil: the object was found under its id).
//
//   - found: Applied;
//   - the read failed otherwise than "not found": InDoubt;
//   - not found after an answer that leaves the id free (in doubt, no answer, a 5xx, a "Duplicate request", a rate
//     limit): SendAgain;
//   - not found after any other refusal: InDoubt when the create was sent again or retried (the object may be
//     stored where the reader cannot see it: an ACL), else Refused. A refusal as a duplicate value whose id is
//     free (another unique field, or an object hidden from the reader) is InDoubt for that reason.
func AfterReadBack(w Write, err, readErr error) Verdict {
	if readErr == nil {
		return Applied
	}
	if !errors.Is(readErr, parse.ErrObjectNotFound) {
		return InDoubt
	}
	if LeavesIDFree(err) {
		return SendAgain
	}
	var pe *parse.Error
	if w.Earlier || errors.As(err, &pe) && (pe.MaybeAppliedBefore || pe.Code == parse.CodeDuplicateValue) {
		return InDoubt
	}
	return Refused
}

// LeavesIDFree reports whether err, the answer to a create with a chosen id, leaves the id free for another
// attempt: in doubt (the write may not have arrived), no answer at all, a 5xx, a rate limit or a "Duplicate
// request" (the server saw the request id, and the id itself was not found taken).
func LeavesIDFree(err error) bool {
	if errors.Is(err, parse.ErrWriteInDoubt) {
		return true
	}
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == parse.CodeDuplicateRequest || pe.Code == parse.CodeConnectionFailed ||
		pe.Code == parse.CodeRequestLimitExceeded || pe.Status == 0 || pe.Status >= 500 || pe.Status == 429
}
