package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/wirejson"
	"github.com/c13f5054/moralis-go/parse"
)

// Saver is anything saved as a backend object: *Object, *User, *Role.
type Saver interface {
	ParseObject() *parse.Object
}

// classPath is the REST path of a class: the special classes have routes of their own.
func classPath(className string) string {
	switch className {
	case "_User":
		return "users"
	case "_Role":
		return "roles"
	case "_Session":
		return "sessions"
	case "_Installation":
		return "installations"
	}
	return "classes/" + className
}

func objectPath(className, id string) string { return classPath(className) + "/" + id }

var errNoClass = errors.New("moralis: the object has no class name")

// saveOne saves one object, without the objects it points to (see Save): a create (POST) when it has no id, else
// its changed fields (PUT). Its class is set and ValidateSave has run.
func (sv *ObjectsService) saveOne(ctx context.Context, s Saver) error {
	c := sv.client
	o := s.ParseObject()
	if o.ID() != "" && len(o.DirtyKeys()) == 0 {
		return nil
	}
	if o.ID() == "" {
		if _, held := objstate.Of(o).CreateDoubt(); held {
			return heldCreate(o)
		}
		if c.cfg.DefaultACL != nil && o.ACL() == nil {
			o.SetACL(c.cfg.DefaultACL.Clone())
		}
	}
	sent := objstate.Of(o).Snapshot()
	body, err := objstate.Of(o).SaveBody()
	if err != nil {
		return fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
	}
	sessionToken := ""
	if u, ok := s.(*User); ok {
		sessionToken = u.SessionToken()
	}
	if o.ID() != "" {
		rc := c.call(http.MethodPut, objectPath(o.ClassName(), o.ID()), body)
		c.userSession(&rc, sessionToken)
		var resp map[string]any
		if err := c.do(ctx, rc, &resp); err != nil {
			if errors.Is(err, parse.ErrWriteInDoubt) {
				objstate.Of(o).DropSent(sent)
				return fmt.Errorf("moralis: save %s %s: %w", o.ClassName(), o.ID(), err)
			}
			return err
		}
		return objstate.Of(o).ApplySaved(resp, sent)
	}
	resending, _ := objstate.Of(o).CreateDoubt()
	if c.chooseIDs(o.ClassName()) {
		resp, id, err := c.createWithID(ctx, o, body, sessionToken)
		if !errors.Is(err, errCustomIDsRefused) {
			if err != nil {
				if errors.Is(err, parse.ErrWriteInDoubt) && o.ProposedID() != "" {
					objstate.Of(o).CreateInDoubt(sent)
				}
				return err
			}
			o.SetID(id)
			if err := objstate.Of(o).ApplySaved(resp, sent); err != nil {
				return err
			}
			return sv.updateAfterResend(ctx, s, resending)
		}
	}
	// The server chooses the id: the create carries a request id (see Client.call), and is sent again after an
	// ambiguous failure only where the server deduplicates it. In doubt, the object is held (see heldCreate).
	rc := c.call(http.MethodPost, classPath(o.ClassName()), body)
	c.userSession(&rc, sessionToken)
	var resp map[string]any
	if err := c.do(ctx, rc, &resp); err != nil {
		if errors.Is(err, parse.ErrWriteInDoubt) {
			objstate.Of(o).CreateInDoubt(sent)
			return inDoubt("save new "+o.ClassName(), err, nil)
		}
		return err
	}
	if err := objstate.Of(o).ApplySaved(resp, sent); err != nil {
		return err
	}
	return sv.updateAfterResend(ctx, s, resending)
}

// updateAfterResend sends, after a create in doubt was sent again and settled, the changes made since as an
// update (the settled create was the first attempt's).
func (sv *ObjectsService) updateAfterResend(ctx context.Context, s Saver, resending bool) error {
	if resending && len(s.ParseObject().DirtyKeys()) > 0 {
		return sv.saveOne(ctx, s)
	}
	return nil
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
// when it was sent again (the first attempt was applied). Until then Save, SaveAll and Fetch refuse the object
// with ErrCreateHeld, so it can never be stored twice silently.
//
// With id, the id of the stored object (found by the app, e.g. a query on fields it set): the object is read by
// that id (as Fetch) and takes it; the changes made since the create stay pending and go out with the next Save
// as an update. With "": the app knows nothing was stored; the next Save sends the first attempt's changes again
// as a new create, then the changes made since as an update. An object without a create in doubt gives an
// error and changes nothing. A create in doubt with a client-chosen id (Config.ClientObjectIDs) needs no
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

// userSession makes a save of a user object act as that user when the view has no session of its own.
func (c *Client) userSession(rc *rest.Call, token string) {
	if token != "" && rc.SessionToken == "" && !rc.UseMasterKey {
		rc.SessionToken = token
	}
}

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

// errCustomIDsRefused is returned by createWithID when the server does not allow custom object ids.
var errCustomIDsRefused = errors.New("the server does not allow custom object ids")

// refusesCustomIDs reports whether err is the server's refusal of a client-chosen object id.
func refusesCustomIDs(err error) bool {
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Code == rest.CodeInvalidKeyName && strings.HasPrefix(pe.Message, "objectId is an invalid field name")
}

// createWithID creates o with body under an id the client chooses (proposeID), and returns the server's answer
// or what the server stored. The id makes the create harmless to send again, so it is retried after any
// ambiguous failure; when a retry is refused because the object exists ("duplicate value" or "duplicate
// request"), or the attempts run out, the object is looked up by its id: found, the create succeeded; not found,
// it is sent once more. If an attempt may have created it and that stays unsettled (an ACL can hide the object
// from its creator), the result is in doubt, never a definite failure. It returns errCustomIDsRefused (after
// remembering it for the client) when the server does not allow custom ids.
func (c *Client) createWithID(ctx context.Context, o *parse.Object, body map[string]any, sessionToken string) (map[string]any, string, error) {
	className := o.ClassName()
	// An id proposed by an earlier save whose outcome stayed unknown may already be stored.
	resending := o.ProposedID() != ""
	id, err := proposeID(o)
	if err != nil {
		return nil, "", fmt.Errorf("moralis: save %s: %w", className, err)
	}
	b := make(map[string]any, len(body)+1)
	for k, v := range body {
		b[k] = v
	}
	b["objectId"] = id
	var last error
	doubt := resending
	for round := 0; round < 2; round++ {
		rc := c.call(http.MethodPost, classPath(className), b)
		c.userSession(&rc, sessionToken)
		// The chosen id makes the create safe to repeat; a request id would only cost the server a write.
		rc.Replay, rc.NoIdempotency = httpx.ReplayAlways, true
		var resp map[string]any
		err := c.do(ctx, rc, &resp)
		if err == nil {
			return resp, id, nil
		}
		if refusesCustomIDs(err) && !doubt {
			c.server.noCustomIDs.Store(true)
			objstate.Of(o).SetProposedID("")
			return nil, "", errCustomIDsRefused
		}
		if !mayHaveCreated(err) && !(doubt && errors.Is(err, parse.ErrDuplicateValue)) {
			if doubt {
				return nil, "", inDoubt(fmt.Sprintf("save new %s %s", className, id), err, nil)
			}
			objstate.Of(o).SetProposedID("") // definitely not stored: a later save may choose afresh
			return nil, "", err
		}
		doubt = true
		stored, gerr := c.lookup(ctx, className, id, sessionToken)
		if gerr == nil {
			return stored, id, nil
		}
		if !errors.Is(gerr, parse.ErrObjectNotFound) {
			return nil, "", inDoubt(fmt.Sprintf("save new %s %s", className, id), err, gerr)
		}
		last = err
	}
	return nil, "", inDoubt(fmt.Sprintf("save new %s %s", className, id), last, nil)
}

// mayHaveCreated reports whether a create's error leaves open that an attempt of it created the object: it is in
// doubt, or a retry was refused as a duplicate.
func mayHaveCreated(err error) bool {
	if errors.Is(err, parse.ErrWriteInDoubt) {
		return true
	}
	var pe *parse.Error
	return errors.As(err, &pe) && pe.MaybeAppliedBefore && (pe.Code == rest.CodeDuplicateValue || pe.Code == rest.CodeDuplicateRequest)
}

// lookup reads one object's stored fields.
func (c *Client) lookup(ctx context.Context, className, id, sessionToken string) (map[string]any, error) {
	rc := c.call(http.MethodGet, objectPath(className, id), nil)
	c.userSession(&rc, sessionToken)
	var stored map[string]any
	if err := c.do(ctx, rc, &stored); err != nil {
		return nil, err
	}
	return stored, nil
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
		e.Message += "; the server chose its id and did not tell it: to settle it, find the stored object and call Objects.Settle(ctx, obj, id), or Objects.Settle(ctx, obj, \"\") once you know nothing was stored; until then Save refuses the object (ErrCreateHeld)"
	}
	return e
}

// newObjectID makes a 10-character object id like the server's, from crypto/rand.
func newObjectID() (string, error) { return randid.Alnum(rand.Read, 10) }

// Get loads one object by class and id. A missing or unreadable object gives ErrObjectNotFound.
func (s *ObjectsService) Get(ctx context.Context, className, id string) (*parse.Object, error) {
	c := s.client
	o := parse.NewObjectWithID(className, id)
	if err := c.Objects.Fetch(ctx, o); err != nil {
		return nil, err
	}
	return o, nil
}

// Fetch reloads the object's fields from the server (GET), keeping its unsaved changes on top. An object without
// an id gives a *parse.Error with code 104 and the original's text "Object does not have an ID" before any
// request; a missing or unreadable object gives ErrObjectNotFound.
func (sv *ObjectsService) Fetch(ctx context.Context, s Saver) error {
	return sv.fetch(ctx, s, nil)
}

// FetchWithInclude is Fetch that also loads the objects the given pointer fields point to (include), as the
// original's fetchWithInclude does: afterwards those fields hold *parse.Object values with their data. Dot
// notation reaches further ("post.author"); "*" includes every pointer field. No keys: as Fetch.
func (sv *ObjectsService) FetchWithInclude(ctx context.Context, s Saver, keys ...string) error {
	return sv.fetch(ctx, s, keys)
}

func (sv *ObjectsService) fetch(ctx context.Context, s Saver, include []string) error {
	c := sv.client
	if s == nil || isNil(s) {
		return &parse.Error{Code: parse.CodeMissingObjectID, Message: "Object does not have an ID", Op: "fetch"}
	}
	o := s.ParseObject()
	id := o.ID()
	if id == "" {
		// A create in doubt is read by the id it was sent with: found, the create is settled (the object takes
		// its id, and the changes made since stay pending); not found, it stays in doubt.
		id = o.ProposedID()
	}
	if _, held := objstate.Of(o).CreateDoubt(); id == "" && held {
		return fmt.Errorf("moralis: fetch new %s: %w", o.ClassName(), ErrCreateHeld)
	}
	if id == "" {
		return &parse.Error{Code: parse.CodeMissingObjectID, Message: "Object does not have an ID", Op: "fetch " + o.ClassName()}
	}
	var params map[string]any
	if len(include) > 0 {
		params = map[string]any{"include": strings.Join(include, ",")}
	}
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, objectPath(o.ClassName(), id), params), &resp); err != nil {
		return err
	}
	return mergeFetched(o, resp)
}

// mergeFetched replaces o's server state with a fetched one, keeping its unsaved changes and, for a user, its
// session token (users/{id} does not send it back).
func mergeFetched(o *parse.Object, resp map[string]any) error {
	tok, _ := o.Get("sessionToken").(string)
	if err := objstate.Of(o).MergeServer(resp); err != nil {
		return err
	}
	if tok != "" && !o.Has("sessionToken") {
		return objstate.Of(o).ApplySaved(map[string]any{"sessionToken": tok}, nil)
	}
	return nil
}

// Destroy deletes the object on the server.
func (sv *ObjectsService) Destroy(ctx context.Context, s Saver) error {
	c := sv.client
	o := s.ParseObject()
	if o.ID() == "" {
		return fmt.Errorf("moralis: destroy %s: the object has no id", o.ClassName())
	}
	err := c.do(ctx, c.call(http.MethodDelete, objectPath(o.ClassName(), o.ID()), nil), nil)
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Code == rest.CodeObjectNotFound && pe.MaybeAppliedBefore {
		pe.InDoubt = true // an earlier attempt may have deleted it
	}
	return err
}

// RunQuery runs an encoded query against the backend; it makes *Client a parse.QueryRunner.
func (c *Client) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	if req == nil || req.ClassName == "" {
		return nil, errors.New("moralis: query without a class name")
	}
	path := "classes/" + req.ClassName
	if req.Op == "aggregate" {
		path = "aggregate/" + req.ClassName
	}
	params := make(map[string]any, len(req.Params))
	for k, v := range req.Params {
		params[k] = v
	}
	rc := c.call(http.MethodGet, path, params)
	if req.UseMasterKey && !c.useMaster {
		// Aggregate, distinct and explain run with the master key only: the caller says so by using a master
		// view, so a session view never acts with the master key behind its user's back.
		return nil, fmt.Errorf("moralis: %s %s runs with the master key only: call it on c.WithMasterKey(): %w", masterOp(req), req.ClassName, ErrMasterKeyRequired)
	}
	// A find answers pages of objects; aggregate, distinct and explain answer other values.
	find := req.Op != "aggregate" && req.Params["distinct"] == nil && req.Params["explain"] == nil
	arrived := req.Arrived
	if !find {
		arrived = nil
	}
	if req.PreferObjects && find {
		// One JSON pass (without reflection): the answer's results become objects directly.
		var resp map[string]any
		if err := c.doArrived(ctx, rc, &resp, arrived); err != nil {
			return nil, err
		}
		results, _ := resp["results"].([]any)
		if resp["results"] != nil && results == nil {
			return nil, fmt.Errorf("moralis: query %s: results is not a list", req.ClassName)
		}
		out := &parse.QueryResponse{Objects: make([]*parse.Object, 0, len(results))}
		for i, r := range results {
			m, ok := r.(map[string]any)
			if !ok && r != nil {
				return nil, fmt.Errorf("moralis: query %s: result %d is not an object", req.ClassName, i)
			}
			o, err := parse.ObjectFromServer(req.ClassName, m)
			if err != nil {
				return nil, fmt.Errorf("moralis: query %s: result %d: %w", req.ClassName, i, err)
			}
			out.Objects = append(out.Objects, o)
		}
		if cnt, ok := resp["count"]; ok && cnt != nil {
			n, ok := cnt.(float64)
			if !ok || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
				return nil, fmt.Errorf("moralis: query %s: count %v is not a whole number", req.ClassName, cnt)
			}
			out.Count, out.HasCount = int(n), true
		}
		return out, nil
	}
	var resp struct {
		Results []json.RawMessage `json:"results"`
		Count   *int              `json:"count"`
	}
	if err := c.doArrived(ctx, rc, &resp, arrived); err != nil {
		return nil, err
	}
	out := &parse.QueryResponse{Results: resp.Results}
	if resp.Count != nil {
		out.Count, out.HasCount = *resp.Count, true
	}
	return out, nil
}

// masterOp names the query operation that needs the master key.
func masterOp(req *parse.QueryRequest) string {
	switch {
	case req.Params["distinct"] != nil:
		return "distinct"
	case req.Params["explain"] != nil:
		return "explain"
	case req.Op == "aggregate":
		return "aggregate"
	}
	return "query"
}

// doArrived is do for a find: when arrived is set, it is told the number of results and the last one's objectId
// as soon as the answer is read, before the answer is decoded into out.
func (c *Client) doArrived(ctx context.Context, rc rest.Call, out any, arrived func(int, string)) error {
	var peek func([]byte)
	if arrived != nil {
		peek = func(body []byte) {
			if n, last, ok := parse.ScanResults(body); ok {
				arrived(n, last)
			}
		}
	}
	return c.doPeek(ctx, rc, out, peek)
}

// BatchError reports the items of SaveAll or DestroyAll that were not saved (or deleted). Errors is
// index-aligned with the input: nil for each item that succeeded. An item whose error matches ErrWriteInDoubt
// may or may not have been applied; an item whose error is a *NestedError with NotSent false and Err nil was
// saved, but objects it points to were not (they are listed in it); the others were not applied.
type BatchError struct {
	Errors []error
	// Failed is the number of non-nil Errors, in-doubt ones and *NestedError ones included.
	Failed int
	// InDoubt is the number of items whose outcome is unknown.
	InDoubt int
}

func (e *BatchError) Error() string {
	var first error
	for _, err := range e.Errors {
		if err != nil {
			first = err
			break
		}
	}
	doubt := ""
	if e.InDoubt > 0 {
		doubt = fmt.Sprintf(" (%d in doubt)", e.InDoubt)
	}
	return fmt.Sprintf("moralis: %d of %d batch items failed%s; first: %v", e.Failed, len(e.Errors), doubt, first)
}

// Unwrap returns the per-item errors (so errors.Is finds a code, or ErrWriteInDoubt, among them).
func (e *BatchError) Unwrap() []error {
	var out []error
	for _, err := range e.Errors {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// InDoubtItems returns the indexes of the items whose outcome is unknown.
func (e *BatchError) InDoubtItems() []int {
	var out []int
	for i, err := range e.Errors {
		if err != nil && errors.Is(err, parse.ErrWriteInDoubt) {
			out = append(out, i)
		}
	}
	return out
}

// batchItem is one sub-request of /batch. Every item SaveAll and DestroyAll put in a /batch is harmless to send
// twice (parse-server does not deduplicate /batch), so the call is retried after any ambiguous failure.
type batchItem struct {
	method string
	path   string
	body   map[string]any
	// newID and className are set for a create whose object id the client chose.
	newID     string
	className string
	// resend is set for a create whose id an earlier save, whose outcome stayed unknown, was sent with: the
	// object may already be stored under it.
	resend bool
}

// maxQueryLimit is the largest page a find asks for.
const maxQueryLimit = 1000

// settleCreates settles the creates with client-chosen ids whose outcome a retry or a lost answer left open: a
// retried /batch whose first attempt was applied has each of them refused as a duplicate id, and a /batch whose
// attempts ran out leaves them in doubt. They are looked up by id, one query per class and 1,000 ids: found,
// the create succeeded; not found, nothing was stored and the create is sent once more (its id keeps that safe).
func (c *Client) settleCreates(ctx context.Context, items []batchItem, answers []map[string]any, errs []error) {
	byClass := map[string][]int{}
	for k, it := range items {
		if it.newID != "" && errs[k] != nil && (mayHaveCreated(errs[k]) || it.resend && errors.Is(errs[k], parse.ErrDuplicateValue)) {
			byClass[it.className] = append(byClass[it.className], k)
		}
	}
	var resend []int
	for cls, ks := range byClass {
		for from := 0; from < len(ks); from += maxQueryLimit {
			part := ks[from:min(from+maxQueryLimit, len(ks))]
			ids := make([]any, len(part))
			for j, k := range part {
				ids[j] = items[k].newID
			}
			var resp struct {
				Results []map[string]any `json:"results"`
			}
			params := map[string]any{"where": map[string]any{"objectId": map[string]any{"$in": ids}}, "limit": len(ids)}
			if err := c.do(ctx, c.call(http.MethodGet, classPath(cls), params), &resp); err != nil {
				for _, k := range part {
					errs[k] = inDoubt(fmt.Sprintf("save new %s %s", cls, items[k].newID), errs[k], err)
				}
				continue
			}
			stored := make(map[string]map[string]any, len(resp.Results))
			for _, r := range resp.Results {
				if id, _ := r["objectId"].(string); id != "" {
					stored[id] = r
				}
			}
			for _, k := range part {
				if r, ok := stored[items[k].newID]; ok {
					answers[k], errs[k] = r, nil
				} else {
					resend = append(resend, k)
				}
			}
		}
	}
	if len(resend) == 0 {
		return
	}
	again := make([]batchItem, len(resend))
	for j, k := range resend {
		again[j] = items[k]
	}
	a2, e2 := c.runBatch(ctx, again)
	for j, k := range resend {
		answers[k], errs[k] = a2[j], e2[j]
		if e2[j] != nil {
			// An earlier attempt may have stored it where the look-up could not see it (an ACL): whatever the
			// resend answered, the outcome is unknown.
			errs[k] = inDoubt(fmt.Sprintf("save new %s %s", items[k].className, items[k].newID), e2[j], nil)
		}
	}
}

type batchAnswer struct {
	Success map[string]any `json:"success"`
	Error   *struct {
		Code  int    `json:"code"`
		Error string `json:"error"`
	} `json:"error"`
}

// decodeBatchAnswers reads /batch's answer, a list of {"success": {...}} or {"error": {"code": n, "error": text}},
// without reflection; any other shape is an error, as it is for encoding/json into []batchAnswer.
func decodeBatchAnswers(body []byte) ([]batchAnswer, error) {
	v, err := wirejson.Decode(body)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok && v != nil {
		return nil, errors.New("the answer is not a list")
	}
	out := make([]batchAnswer, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			if e == nil {
				continue
			}
			return nil, fmt.Errorf("answer %d is not an object", i)
		}
		if s, ok := m["success"]; ok && s != nil {
			if out[i].Success, ok = s.(map[string]any); !ok {
				return nil, fmt.Errorf("answer %d: success is not an object", i)
			}
		}
		if x, ok := m["error"]; ok && x != nil {
			em, ok := x.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("answer %d: error is not an object", i)
			}
			be := &struct {
				Code  int    `json:"code"`
				Error string `json:"error"`
			}{}
			if code, ok := em["code"]; ok && code != nil {
				f, ok := code.(float64)
				if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
					return nil, fmt.Errorf("answer %d: code %v is not a whole number", i, code)
				}
				be.Code = int(f)
			}
			if text, ok := em["error"]; ok && text != nil {
				if be.Error, ok = text.(string); !ok {
					return nil, fmt.Errorf("answer %d: error text is not a string", i)
				}
			}
			out[i].Error = be
		}
	}
	return out, nil
}

// parallel runs tasks with at most n at once and waits for them.
func parallel(n int, tasks []func()) {
	if n > len(tasks) {
		n = len(tasks)
	}
	next := make(chan func())
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				t()
			}
		}()
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
}

// batchMode is how a /batch call may be sent. The zero value is for items harmless to send twice (creates with
// client-chosen ids, deletes): the call is sent again after any ambiguous failure.
type batchMode struct {
	// once is for items that a second delivery could apply twice (updates): parse-server does not deduplicate
	// /batch (it runs no idempotency check on /batch, and its sub-requests carry no X-Parse-Request-Id), so the
	// call is sent again only when it provably never reached the server; after an ambiguous failure every item
	// of the call is in doubt.
	once bool
	// atomic sends the call with "transaction": true: parse-server applies all of its sub-requests or none.
	atomic bool
}

// runBatch sends items through /batch in chunks of BatchSize with BatchConcurrency chunks in flight, and returns
// each item's answer (or error) in input order. The items are harmless to send twice (see batchMode).
func (c *Client) runBatch(ctx context.Context, items []batchItem) ([]map[string]any, []error) {
	return c.runBatchMode(ctx, items, batchMode{})
}

// runBatchMode is runBatch with the given mode.
func (c *Client) runBatchMode(ctx context.Context, items []batchItem, mode batchMode) ([]map[string]any, []error) {
	answers := make([]map[string]any, len(items))
	errs := make([]error, len(items))
	size := c.cfg.BatchSize
	var tasks []func()
	for from := 0; from < len(items); from += size {
		to := min(from+size, len(items))
		tasks = append(tasks, func() { c.batchChunk(ctx, items[from:to], answers[from:to], errs[from:to], mode) })
	}
	parallel(c.cfg.BatchConcurrency, tasks)
	return answers, errs
}

func (c *Client) batchChunk(ctx context.Context, items []batchItem, answers []map[string]any, errs []error, mode batchMode) {
	reqs := make([]map[string]any, len(items))
	mount := c.t.MountPath()
	for i, it := range items {
		r := map[string]any{"method": it.method, "path": mount + "/" + it.path}
		if it.body != nil {
			r["body"] = it.body
		}
		reqs[i] = r
	}
	params := map[string]any{"requests": reqs}
	if mode.atomic {
		params["transaction"] = true
	}
	rc := c.call(http.MethodPost, "batch", params)
	// parse-server ignores request ids on /batch, so none is sent: a call is sent again after an ambiguous failure
	// only when its items are harmless to send twice (see batchMode).
	rc.Replay, rc.NoIdempotency = httpx.ReplayAlways, true
	if mode.once || mode.atomic {
		rc.Replay = httpx.ReplayNever
	}
	// parse-server (9.x, PostgreSQL) destroys the connection after answering a rolled-back transaction; the next
	// call written onto it would be reset in doubt (a SaveAll sent once would report all of its items in doubt).
	rc.CloseConnection = mode.atomic
	var resp []batchAnswer
	res, err := c.t.Do(ctx, rc)
	if err == nil {
		var jerr error
		if resp, jerr = decodeBatchAnswers(res.Body); jerr != nil || len(resp) != len(items) {
			// The server took the call (2xx), so its sub-requests may have been applied: in doubt.
			err = &parse.Error{Code: rest.CodeInvalidJSON, Message: fmt.Sprintf("batch answered %d results for %d requests", len(resp), len(items)), Op: "POST batch", Status: res.Status, InDoubt: true}
		}
	}
	retried := res != nil && res.MaybeAppliedBefore
	for i := range items {
		switch {
		case err != nil:
			errs[i] = err
		case resp[i].Error != nil:
			e := &parse.Error{Code: parse.Code(resp[i].Error.Code), Message: resp[i].Error.Error, Op: items[i].method + " " + items[i].path, MaybeAppliedBefore: retried}
			if retried && items[i].method == http.MethodDelete && e.Code == rest.CodeObjectNotFound {
				// An earlier attempt may have deleted it, or it was never there for us (an ACL): in doubt.
				e.InDoubt = true
			}
			errs[i] = e
		default:
			answers[i] = resp[i].Success
		}
	}
}

// saveFlat saves objs, without the objects they point to (see SaveAll), and returns each one's error (nil when
// it was saved or had nothing to save), aligned with objs. Creates and updates go through /batch (see batchMode):
// a call of creates with client-chosen ids may be sent again, one of creates without (the default) or of updates
// never; held creates go to saveOne, which refuses them.
func (s *ObjectsService) saveFlat(ctx context.Context, objs []*parse.Object) []error {
	c := s.client
	errs := make([]error, len(objs))
	var (
		items  []batchItem
		index  []int
		sent   []objstate.Sent
		single []int                     // objects saved one by one
		first  = map[*parse.Object]int{} // an object listed twice is saved once
		dups   [][2]int                  // (repeat, first)
		// updates, their indexes in objs and their snapshots
		updates []batchItem
		uindex  []int
		usent   []objstate.Sent
		// creates without an id of the client's (sent once), their indexes and snapshots
		creates []batchItem
		cindex  []int
		csent   []objstate.Sent
	)
	for i, o := range objs {
		if o == nil || o.ClassName() == "" {
			errs[i] = errNoClass
			continue
		}
		if j, seen := first[o]; seen {
			dups = append(dups, [2]int{i, j})
			continue
		}
		first[o] = i
		if o.ID() != "" && len(o.DirtyKeys()) == 0 {
			continue
		}
		if o.ID() == "" && c.cfg.DefaultACL != nil && o.ACL() == nil {
			o.SetACL(c.cfg.DefaultACL.Clone())
		}
		if o.ID() != "" {
			// An update goes through /batch too, but such a call is never sent twice (see batchMode): an
			// update sent twice can undo another writer's change made in between.
			it, snap, err := updateItem(o)
			if err != nil {
				errs[i] = err
				continue
			}
			updates = append(updates, it)
			uindex = append(uindex, i)
			usent = append(usent, snap)
			continue
		}
		// A held create goes to saveOne, which refuses it.
		if _, held := objstate.Of(o).CreateDoubt(); held {
			single = append(single, i)
			continue
		}
		if !c.chooseIDs(o.ClassName()) {
			// The server chooses the id (the default, so cloud code sees a create): such a create goes through
			// /batch too, but the call is never sent twice, as for updates; in doubt, the object is held.
			if c.cfg.DefaultACL != nil && o.ACL() == nil {
				o.SetACL(c.cfg.DefaultACL.Clone())
			}
			body, err := objstate.Of(o).SaveBody()
			if err != nil {
				errs[i] = fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
				continue
			}
			creates = append(creates, batchItem{method: http.MethodPost, path: classPath(o.ClassName()), body: body, className: o.ClassName()})
			cindex = append(cindex, i)
			csent = append(csent, objstate.Of(o).Snapshot())
			continue
		}
		if c.cfg.DefaultACL != nil && o.ACL() == nil {
			o.SetACL(c.cfg.DefaultACL.Clone())
		}
		body, err := objstate.Of(o).SaveBody()
		if err != nil {
			errs[i] = fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
			continue
		}
		it := batchItem{method: http.MethodPost, path: classPath(o.ClassName()), body: body, className: o.ClassName(), resend: o.ProposedID() != ""}
		if it.newID, err = proposeID(o); err != nil {
			errs[i] = fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
			continue
		}
		body["objectId"] = it.newID
		items = append(items, it)
		index = append(index, i)
		sent = append(sent, objstate.Of(o).Snapshot())
	}
	answers, berrs := c.runBatch(ctx, items)
	c.settleCreates(ctx, items, answers, berrs)
	for k, i := range index {
		switch err := berrs[k]; {
		case err == nil:
			if items[k].newID != "" {
				objs[i].SetID(items[k].newID)
			}
			if aerr := objstate.Of(objs[i]).ApplySaved(answers[k], sent[k]); aerr != nil {
				errs[i] = aerr
			} else if items[k].resend && len(objs[i].DirtyKeys()) > 0 {
				// The settled create was the first attempt's; the changes made since go out as an update.
				single = append(single, i)
			}
		case items[k].resend && !errors.Is(err, parse.ErrWriteInDoubt):
			// An earlier save may have stored the object under this id (as for Save, see createWithID): whatever
			// this attempt answered, the outcome is unknown, and the object keeps its proposed id.
			errs[i] = inDoubt(fmt.Sprintf("save new %s %s", items[k].className, items[k].newID), err, nil)
			objstate.Of(objs[i]).CreateInDoubt(sent[k])
		case refusesCustomIDs(err):
			// The server assigns ids itself: nothing was stored; save the object one by one.
			c.server.noCustomIDs.Store(true)
			objstate.Of(objs[i]).SetProposedID("")
			single = append(single, i)
		case errors.Is(err, parse.ErrWriteInDoubt):
			errs[i] = err // the object keeps its proposed id: saving it again cannot make a second object
			objstate.Of(objs[i]).CreateInDoubt(sent[k])
		default:
			objstate.Of(objs[i]).SetProposedID("")
			errs[i] = err
		}
	}
	if len(creates) == 1 {
		// One create alone goes as Save sends it, with a request id: sent again after an ambiguous failure where
		// the server deduplicates it, so it is less often left in doubt than in a /batch sent once.
		single = append(single, cindex[0])
		creates = nil
	}
	if len(creates) > 0 {
		answers, cerrs := c.runBatchMode(ctx, creates, batchMode{once: true})
		for k, i := range cindex {
			switch err := cerrs[k]; {
			case err == nil:
				errs[i] = objstate.Of(objs[i]).ApplySaved(answers[k], csent[k])
			case errors.Is(err, parse.ErrWriteInDoubt):
				objstate.Of(objs[i]).CreateInDoubt(csent[k]) // held until the app settles it (ErrCreateHeld)
				errs[i] = inDoubt("save new "+creates[k].className, err, nil)
			default:
				errs[i] = err // refused: nothing stored, the changes stay pending
			}
		}
	}
	if len(updates) > 0 {
		answers, uerrs := c.runBatchMode(ctx, updates, batchMode{once: true})
		for k, i := range uindex {
			errs[i] = settleUpdate(objs[i], answers[k], usent[k], uerrs[k])
		}
	}
	if len(single) > 0 {
		tasks := make([]func(), len(single))
		for j, i := range single {
			tasks[j] = func() { errs[i] = s.saveOne(ctx, objs[i]) }
		}
		parallel(c.cfg.BatchConcurrency, tasks)
	}
	for _, d := range dups {
		errs[d[0]] = errs[d[1]]
	}
	return errs
}

// updateItem is the /batch sub-request of an update of o (which has an id), and the snapshot of the changes it
// sends (for settleUpdate).
func updateItem(o *parse.Object) (batchItem, objstate.Sent, error) {
	sent := objstate.Of(o).Snapshot()
	body, err := objstate.Of(o).SaveBody()
	if err != nil {
		return batchItem{}, nil, fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
	}
	return batchItem{method: http.MethodPut, path: objectPath(o.ClassName(), o.ID()), body: body, className: o.ClassName()}, sent, nil
}

// settleUpdate records the outcome of an update of o sent through /batch, as Save does for one: saved, the
// answer is merged; in doubt, the sent changes are no longer pending (a later save cannot apply them a second
// time); refused, they stay pending. It returns the item's error.
func settleUpdate(o *parse.Object, answer map[string]any, sent objstate.Sent, err error) error {
	switch {
	case err == nil:
		return objstate.Of(o).ApplySaved(answer, sent)
	case errors.Is(err, parse.ErrWriteInDoubt):
		objstate.Of(o).DropSent(sent)
		return fmt.Errorf("moralis: save %s %s: %w", o.ClassName(), o.ID(), err)
	}
	return err
}

// batchResult is nil when every item succeeded, else a *BatchError.
func batchResult(errs []error) error {
	be := &BatchError{Errors: errs}
	for _, err := range errs {
		if err != nil {
			be.Failed++
			if errors.Is(err, parse.ErrWriteInDoubt) {
				be.InDoubt++
			}
		}
	}
	if be.Failed > 0 {
		return be
	}
	return nil
}

// DestroyAll deletes many objects through /batch, like SaveAll. A delete is harmless to send twice, so a call is
// retried after an ambiguous failure; an object a retried call answers "object not found" for is reported in
// doubt (an earlier attempt may have deleted it, or it was never visible to the caller). With Atomic, the deletes
// are one transaction, all or nothing (see Atomic for its limits).
func (s *ObjectsService) DestroyAll(ctx context.Context, objs []*parse.Object, opts ...BatchOption) error {
	c := s.client
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	if batchOpts(opts).atomic {
		return s.destroyAtomic(ctx, objs)
	}
	items := make([]batchItem, 0, len(objs))
	index := make([]int, 0, len(objs))
	errs := make([]error, len(objs))
	for i, o := range objs {
		if o == nil || o.ID() == "" {
			errs[i] = errors.New("moralis: destroy: the object has no id")
			continue
		}
		items = append(items, batchItem{method: http.MethodDelete, path: objectPath(o.ClassName(), o.ID())})
		index = append(index, i)
	}
	_, berrs := c.runBatch(ctx, items)
	for k, i := range index {
		errs[i] = berrs[k]
	}
	return batchResult(errs)
}

func trimSlash(s string) string { return strings.Trim(s, "/") }
