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
	"github.com/c13f5054/moralis-go/internal/settle"
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
// its changed fields (PUT). Its class is set and ValidateSave has run. The outcome goes through the settle machine
// (write.settle), and the changes made since a create sent again go out after it (sendSince).
func (sv *ObjectsService) saveOne(ctx context.Context, s Saver) error {
	c := sv.client
	o := s.ParseObject()
	w, err := c.prepare(o, o.ID() == "" && c.chooseIDs(o.ClassName()))
	if err != nil || w == nil {
		return err
	}
	sessionToken := ""
	if u, ok := s.(*User); ok {
		sessionToken = u.SessionToken()
	}
	var resp map[string]any
	switch {
	case w.kind == settle.Update:
		rc := c.call(http.MethodPut, objectPath(o.ClassName(), o.ID()), w.body)
		c.userSession(&rc, sessionToken)
		err = c.do(ctx, rc, &resp)
	case w.id != "":
		resp, err = c.createWithID(ctx, w, sessionToken)
		if errors.Is(err, errCustomIDsRefused) {
			// The server assigns ids itself: nothing was stored; send the create without one.
			w.id = ""
			resp, err = sv.createPlain(ctx, w, sessionToken)
		}
	default:
		resp, err = sv.createPlain(ctx, w, sessionToken)
	}
	ierr, since := w.settle(resp, err)
	if ierr != nil || !since {
		return ierr
	}
	return sv.sendSince(ctx, []Saver{s}, false)[0]
}

// createPlain sends a create whose id the server chooses: it carries a request id (see Client.call), and is sent
// again after an ambiguous failure only where the server deduplicates it. In doubt, write.settle holds the object.
func (sv *ObjectsService) createPlain(ctx context.Context, w *write, sessionToken string) (map[string]any, error) {
	c := sv.client
	rc := c.call(http.MethodPost, classPath(w.o.ClassName()), w.body)
	c.userSession(&rc, sessionToken)
	var resp map[string]any
	err := c.do(ctx, rc, &resp)
	return resp, err
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

// Destroy deletes the object on the server. A delete is harmless to send twice, so it is retried after an
// ambiguous failure; "object not found" after such a retry is in doubt (an earlier attempt may have deleted it,
// or the object was never visible to the caller).
func (sv *ObjectsService) Destroy(ctx context.Context, s Saver) error {
	c := sv.client
	o := s.ParseObject()
	if o.ID() == "" {
		return fmt.Errorf("moralis: destroy %s: the object has no id", o.ClassName())
	}
	err := c.do(ctx, c.call(http.MethodDelete, objectPath(o.ClassName(), o.ID()), nil), nil)
	ierr, _ := deleteWrite(o).settle(nil, err)
	return ierr
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

// batchItem is one sub-request of /batch: its method, its path (without the mount path) and its body.
type batchItem struct {
	method string
	path   string
	body   map[string]any
}

// maxQueryLimit is the largest page a find asks for.
const maxQueryLimit = 1000

// rowsByID reads the rows of class cls whose ids are ids (at most maxQueryLimit) in one query, only keys when
// keys is set, and returns them by id (an id the server does not return is missing: not there, or hidden).
func (c *Client) rowsByID(ctx context.Context, cls string, ids []any, keys string) (map[string]map[string]any, error) {
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	params := map[string]any{"where": map[string]any{"objectId": map[string]any{"$in": ids}}, "limit": len(ids)}
	if keys != "" {
		params["keys"] = keys
	}
	if err := c.do(ctx, c.call(http.MethodGet, classPath(cls), params), &resp); err != nil {
		return nil, err
	}
	rows := make(map[string]map[string]any, len(resp.Results))
	for _, r := range resp.Results {
		if id, _ := r["objectId"].(string); id != "" {
			rows[id] = r
		}
	}
	return rows, nil
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
			// MaybeAppliedBefore: an earlier attempt of a retried call may have applied it (a delete refused as
			// "object not found" is then in doubt: see write.settle).
			errs[i] = &parse.Error{Code: parse.Code(resp[i].Error.Code), Message: resp[i].Error.Error, Op: items[i].method + " " + items[i].path, MaybeAppliedBefore: retried}
		default:
			answers[i] = resp[i].Success
		}
	}
}

// saveFlat saves objs, without the objects they point to (see SaveAll), and returns each one's error (nil when
// it was saved or had nothing to save), aligned with objs. Creates and updates go through /batch (see batchMode):
// a call of creates with client-chosen ids may be sent again, one of creates without (the default) or of updates
// never; a lone create without an id goes as Save sends it. Held creates are refused (ErrCreateHeld) and nothing
// is sent for them. Every outcome goes through write.settle; the changes made since a create sent again go out
// after it (sendSince).
func (s *ObjectsService) saveFlat(ctx context.Context, objs []*parse.Object) []error {
	c := s.client
	errs := make([]error, len(objs))
	var (
		withIDs []*write                  // creates with client-chosen ids: a /batch sent again freely
		creates []*write                  // creates whose ids the server chooses: a /batch sent once
		updates []*write                  // a /batch sent once
		single  []int                     // saved one by one (saveOne)
		first   = map[*parse.Object]int{} // an object listed twice is saved once
		dups    [][2]int                  // (repeat, first)
		since   []int                     // settled creates sent again, with changes made since
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
		w, err := c.prepare(o, o.ID() == "" && c.chooseIDs(o.ClassName()))
		if err != nil || w == nil {
			errs[i] = err
			continue
		}
		w.index = i
		switch {
		case w.kind == settle.Update:
			// An update goes through /batch too, but such a call is never sent twice (see batchMode): an
			// update sent twice can undo another writer's change made in between.
			updates = append(updates, w)
		case w.id != "":
			withIDs = append(withIDs, w)
		default:
			// The server chooses the id (the default, so cloud code sees a create): the call is never sent
			// twice, as for updates; in doubt, the object is held.
			creates = append(creates, w)
		}
	}
	settleAll := func(ws []*write, answers []map[string]any, berrs []error) {
		for k, w := range ws {
			var more bool
			errs[w.index], more = w.settle(answers[k], berrs[k])
			if more {
				since = append(since, w.index)
			}
		}
	}
	if len(withIDs) > 0 {
		items := make([]batchItem, len(withIDs))
		for k, w := range withIDs {
			items[k] = w.item()
		}
		answers, berrs := c.runBatch(ctx, items)
		c.settleCreates(ctx, withIDs, answers, berrs)
		var kept []*write
		var ka []map[string]any
		var ke []error
		for k, w := range withIDs {
			if refusesCustomIDs(berrs[k]) && !w.again {
				// The server assigns ids itself: nothing was stored; save the object one by one.
				c.server.noCustomIDs.Store(true)
				objstate.Of(w.o).SetProposedID("")
				single = append(single, w.index)
				continue
			}
			kept, ka, ke = append(kept, w), append(ka, answers[k]), append(ke, berrs[k])
		}
		settleAll(kept, ka, ke)
	}
	if len(creates) == 1 {
		// One create alone goes as Save sends it, with a request id: sent again after an ambiguous failure where
		// the server deduplicates it, so it is less often left in doubt than in a /batch sent once.
		single = append(single, creates[0].index)
		creates = nil
	}
	for _, ws := range [][]*write{creates, updates} {
		if len(ws) == 0 {
			continue
		}
		items := make([]batchItem, len(ws))
		for k, w := range ws {
			items[k] = w.item()
		}
		answers, berrs := c.runBatchMode(ctx, items, batchMode{once: true})
		settleAll(ws, answers, berrs)
	}
	if len(single) > 0 {
		tasks := make([]func(), len(single))
		for j, i := range single {
			tasks[j] = func() { errs[i] = s.saveOne(ctx, objs[i]) }
		}
		parallel(c.cfg.BatchConcurrency, tasks)
	}
	if len(since) > 0 {
		savers := make([]Saver, len(since))
		for j, i := range since {
			savers[j] = objs[i]
		}
		for j, err := range s.sendSince(ctx, savers, false) {
			errs[since[j]] = err
		}
	}
	for _, d := range dups {
		errs[d[0]] = errs[d[1]]
	}
	return errs
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
	ws := make([]*write, 0, len(objs))
	items := make([]batchItem, 0, len(objs))
	errs := make([]error, len(objs))
	for i, o := range objs {
		if o == nil || o.ID() == "" {
			errs[i] = errors.New("moralis: destroy: the object has no id")
			continue
		}
		w := deleteWrite(o)
		w.index = i
		ws = append(ws, w)
		items = append(items, w.item())
	}
	answers, berrs := c.runBatch(ctx, items)
	for k, w := range ws {
		errs[w.index], _ = w.settle(answers[k], berrs[k])
	}
	return batchResult(errs)
}

func trimSlash(s string) string { return strings.Trim(s, "/") }
