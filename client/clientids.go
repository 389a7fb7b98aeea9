package client

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/settle"
	"github.com/c13f5054/moralis-go/parse"
)

// Client-chosen object ids (Config.ClientObjectIDs): a create carries an id the client made, which makes it
// harmless to send again; an ambiguous answer is settled by reading the object by that id (createWithID for one
// create, settleCreates for the creates of a /batch).

// chooseIDs reports whether new objects of className get client-chosen ids (Config.ClientObjectIDs). The
// server's own classes never do: parse-server creates users and sessions itself, and turns an installation
// create that repeats an installationId into an update, so a chosen id would not make those creates safe to
// repeat.
func (c *Client) chooseIDs(className string) bool {
	return c.cfg.ClientObjectIDs && !strings.HasPrefix(className, "_") && !c.server.noCustomIDs.Load()
}

// proposeID returns the id a create of o is sent with: the one an earlier create in doubt was sent with, or a
// new one, recorded on o so that a save after an in-doubt outcome sends it again.
func proposeID(o *parse.Object) (string, error) {
	if id := o.ProposedID(); id != "" {
		return id, nil
	}
	id, err := newObjectID()
	if err != nil {
		return "", err
	}
	objstate.Of(o).SetProposedID(id)
	return id, nil
}

// newObjectID makes a 10-character object id like the server's, from crypto/rand.
func newObjectID() (string, error) { return randid.Alnum(rand.Read, 10) }

// errCustomIDsRefused is returned by createWithID when the server does not allow custom object ids.
var errCustomIDsRefused = errors.New("the server does not allow custom object ids")

// refusesCustomIDs reports whether err is the server's refusal of a client-chosen object id.
func refusesCustomIDs(err error) bool {
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Code == rest.CodeInvalidKeyName && strings.HasPrefix(pe.Message, "objectId is an invalid field name")
}

// createWithID sends w, a create with an id the client chose, and returns the server's answer or what the server
// stored. The id makes the create harmless to send again, so it is retried after any ambiguous failure; its
// answers are decided by internal/settle: when one leaves open that an attempt stored it (in doubt, or a retry
// refused because the id or the request exists), the object is looked up by its id: found, the create
// succeeded; not found with the id free, it is sent once more. If an attempt may have created it and that stays
// unsettled (an ACL can hide the object from its creator), the result is in doubt, never a definite failure. It
// returns errCustomIDsRefused (after remembering it for the client) when the server does not allow custom ids.
func (c *Client) createWithID(ctx context.Context, w *write, sessionToken string) (map[string]any, error) {
	className := w.o.ClassName()
	b := w.item().body
	rule := w.rule()
	var last error
	for round := 0; round < 2; round++ {
		rc := c.call(http.MethodPost, classPath(className), b)
		c.userSession(&rc, sessionToken)
		// The chosen id makes the create safe to repeat; a request id would only cost the server a write.
		rc.Replay, rc.NoIdempotency = httpx.ReplayAlways, true
		var resp map[string]any
		err := c.do(ctx, rc, &resp)
		if err == nil {
			return resp, nil
		}
		if refusesCustomIDs(err) && !rule.Earlier {
			c.server.noCustomIDs.Store(true)
			objstate.Of(w.o).SetProposedID("")
			return nil, errCustomIDsRefused
		}
		if settle.Of(rule, err) != settle.ReadBack {
			return nil, err // refused: write.settle drops the id when nothing can have been stored
		}
		rule.Earlier = true
		stored, gerr := c.lookup(ctx, className, w.id, sessionToken)
		switch settle.AfterReadBack(rule, err, gerr) {
		case settle.Applied:
			return stored, nil
		case settle.SendAgain:
			last = err
			continue
		}
		if errors.Is(gerr, parse.ErrObjectNotFound) {
			gerr = nil
		}
		return nil, inDoubt(w.op(), err, gerr)
	}
	return nil, inDoubt(w.op(), last, nil)
}

// settleCreates settles the creates with client-chosen ids (ws, sent as items of a /batch) whose answers
// (answers, errs: aligned with ws) leave open that an attempt stored them, by the rule of internal/settle: a
// retried /batch whose first attempt was applied has each of them refused as a duplicate id, and a /batch whose
// attempts ran out leaves them in doubt. They are looked up by id, one query per class and 1,000 ids: found, the
// create succeeded; not found with the id free, it is sent once more (its id keeps that safe).
func (c *Client) settleCreates(ctx context.Context, ws []*write, answers []map[string]any, errs []error) {
	byClass := map[string][]int{}
	for k, w := range ws {
		if errs[k] != nil && !refusesCustomIDs(errs[k]) && settle.Of(w.rule(), errs[k]) == settle.ReadBack {
			byClass[w.o.ClassName()] = append(byClass[w.o.ClassName()], k)
		}
	}
	var resend []int
	for cls, ks := range byClass {
		for from := 0; from < len(ks); from += maxQueryLimit {
			part := ks[from:min(from+maxQueryLimit, len(ks))]
			ids := make([]any, len(part))
			for j, k := range part {
				ids[j] = ws[k].id
			}
			stored, err := c.rowsByID(ctx, cls, ids, "")
			if err != nil {
				for _, k := range part {
					errs[k] = inDoubt(ws[k].op(), errs[k], err)
				}
				continue
			}
			for _, k := range part {
				rule := ws[k].rule()
				rule.Earlier = true
				var readErr error = parse.ErrObjectNotFound
				if _, ok := stored[ws[k].id]; ok {
					readErr = nil
				}
				switch settle.AfterReadBack(rule, errs[k], readErr) {
				case settle.Applied:
					answers[k], errs[k] = stored[ws[k].id], nil
				case settle.SendAgain:
					resend = append(resend, k)
				default:
					errs[k] = inDoubt(ws[k].op(), errs[k], nil)
				}
			}
		}
	}
	if len(resend) == 0 {
		return
	}
	again := make([]batchItem, len(resend))
	for j, k := range resend {
		again[j] = ws[k].item()
	}
	a2, e2 := c.runBatch(ctx, again)
	for j, k := range resend {
		answers[k], errs[k] = a2[j], e2[j]
		if e2[j] != nil {
			// An earlier attempt may have stored it where the look-up could not see it (an ACL): whatever the
			// resend answered, the outcome is unknown.
			errs[k] = inDoubt(ws[k].op(), e2[j], nil)
		}
	}
}
