package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/wire"
)

// Saver is anything saved as a backend object: *Object, *User, *Role.
type Saver interface {
	ParseObject() *wire.Object
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

// Save creates the object (POST) when it has no id, or sends only its changed fields (PUT). The server's answer
// (id, timestamps, computed fields such as the result of Increment) is merged into the object. On error the
// object keeps its unsaved changes.
func (c *Client) Save(ctx context.Context, s Saver) error {
	o := s.ParseObject()
	if o.ClassName() == "" {
		return errNoClass
	}
	if v, ok := s.(interface{ ValidateSave() error }); ok {
		if err := v.ValidateSave(); err != nil {
			return err
		}
	}
	if o.ID() != "" && len(o.DirtyKeys()) == 0 {
		return nil
	}
	if o.ID() == "" && c.cfg.DefaultACL != nil && o.ACL() == nil {
		o.SetACL(c.cfg.DefaultACL.Clone())
	}
	sent := o.PendingSnapshot()
	body, err := o.SaveBody()
	if err != nil {
		return fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
	}
	method, path := http.MethodPost, classPath(o.ClassName())
	if o.ID() != "" {
		method, path = http.MethodPut, objectPath(o.ClassName(), o.ID())
	}
	newID := ""
	if o.ID() == "" && c.cfg.ClientObjectIDs && o.ClassName() != UserClass {
		if newID, err = newObjectID(); err != nil {
			return fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
		}
		body["objectId"] = newID
	}
	rc := c.call(method, path, body)
	if u, ok := s.(*User); ok && rc.SessionToken == "" && !rc.UseMasterKey {
		rc.SessionToken = u.SessionToken()
	}
	var resp map[string]any
	if err := c.do(ctx, rc, &resp); err != nil {
		if newID != "" && (errors.Is(err, ErrDuplicateRequest) || errors.Is(err, ErrDuplicateValue)) {
			// An earlier attempt created the object and its answer was lost; the retry was refused as a
			// duplicate. The object exists under the id we chose: load what the server stored.
			var stored map[string]any
			rc := c.call(http.MethodGet, objectPath(o.ClassName(), newID), nil)
			if gerr := c.do(ctx, rc, &stored); gerr == nil {
				o.SetID(newID)
				return o.ApplySaved(stored, sent)
			}
		}
		return err
	}
	return o.ApplySaved(resp, sent)
}

// newObjectID makes a 10-character object id like the server's, from crypto/rand.
func newObjectID() (string, error) { return randid.Alnum(rand.Read, 10) }

// Get loads one object by class and id. A missing or unreadable object gives ErrObjectNotFound.
func (c *Client) Get(ctx context.Context, className, id string) (*Object, error) {
	o := NewObjectWithID(className, id)
	if err := c.Fetch(ctx, o); err != nil {
		return nil, err
	}
	return o, nil
}

// Fetch reloads the object's fields from the server, keeping its unsaved changes on top.
func (c *Client) Fetch(ctx context.Context, s Saver) error {
	o := s.ParseObject()
	if o.ID() == "" {
		return fmt.Errorf("moralis: fetch %s: the object has no id", o.ClassName())
	}
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, objectPath(o.ClassName(), o.ID()), nil), &resp); err != nil {
		return err
	}
	// users/{id} does not send the session token back: keep the one the user has.
	tok, _ := o.Get("sessionToken").(string)
	if err := o.MergeServer(resp); err != nil {
		return err
	}
	if tok != "" && !o.Has("sessionToken") {
		return o.ApplySaved(map[string]any{"sessionToken": tok}, nil)
	}
	return nil
}

// Destroy deletes the object on the server.
func (c *Client) Destroy(ctx context.Context, s Saver) error {
	o := s.ParseObject()
	if o.ID() == "" {
		return fmt.Errorf("moralis: destroy %s: the object has no id", o.ClassName())
	}
	return c.do(ctx, c.call(http.MethodDelete, objectPath(o.ClassName(), o.ID()), nil), nil)
}

// RunQuery runs an encoded query against the backend; it makes *Client a query.Runner.
func (c *Client) RunQuery(ctx context.Context, req *wire.QueryRequest) (*wire.QueryResponse, error) {
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
	if req.UseMasterKey {
		rc.UseMasterKey = true
	}
	// A find answers pages of objects; aggregate, distinct and explain answer other values.
	find := req.Op != "aggregate" && req.Params["distinct"] == nil && req.Params["explain"] == nil
	arrived := req.Arrived
	if !find {
		arrived = nil
	}
	if req.PreferObjects && find {
		// One JSON pass: the answer's results become objects directly.
		var resp struct {
			Results []map[string]any `json:"results"`
			Count   *int             `json:"count"`
		}
		if err := c.doArrived(ctx, rc, &resp, arrived); err != nil {
			return nil, err
		}
		out := &wire.QueryResponse{Objects: make([]*wire.Object, 0, len(resp.Results))}
		for i, m := range resp.Results {
			o, err := wire.ObjectFromServer(req.ClassName, m)
			if err != nil {
				return nil, fmt.Errorf("moralis: query %s: result %d: %w", req.ClassName, i, err)
			}
			out.Objects = append(out.Objects, o)
		}
		if resp.Count != nil {
			out.Count, out.HasCount = *resp.Count, true
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
	out := &wire.QueryResponse{Results: resp.Results}
	if resp.Count != nil {
		out.Count, out.HasCount = *resp.Count, true
	}
	return out, nil
}

// doArrived is do for a find: when arrived is set, it is told the number of results and the last one's objectId
// as soon as the answer is read, before the answer is decoded into out.
func (c *Client) doArrived(ctx context.Context, rc rest.Call, out any, arrived func(int, string)) error {
	var peek func([]byte)
	if arrived != nil {
		peek = func(body []byte) {
			if n, last, ok := wire.ScanResults(body); ok {
				arrived(n, last)
			}
		}
	}
	return c.doPeek(ctx, rc, out, peek)
}

// BatchError reports the items of SaveAll or DestroyAll that failed. Errors is index-aligned with the input: nil
// for each item that succeeded.
type BatchError struct {
	Errors []error
	Failed int
}

func (e *BatchError) Error() string {
	var first error
	for _, err := range e.Errors {
		if err != nil {
			first = err
			break
		}
	}
	return fmt.Sprintf("moralis: %d of %d batch items failed; first: %v", e.Failed, len(e.Errors), first)
}

// Unwrap returns the per-item errors (so errors.Is finds a code among them).
func (e *BatchError) Unwrap() []error {
	var out []error
	for _, err := range e.Errors {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

type batchItem struct {
	method string
	path   string
	body   map[string]any
	// newID and className are set for a create whose object id the client chose (Config.ClientObjectIDs).
	newID     string
	className string
}

// maxQueryLimit is the largest page a find asks for.
const maxQueryLimit = 1000

// recoverChosenIDs settles the creates with client-chosen ids that a retry made look failed. When a /batch call's
// answer is lost and the call is retried, the server refuses it as a "Duplicate request" (with idempotency) or
// refuses each create it had already applied as a duplicate id (without). Such an object exists under the id we
// chose: it is loaded and the item succeeds. Creates refused as a duplicate request that the server never applied
// (the first attempt failed part-way) are sent once more, in batches of their own; their ids make that safe.
func (c *Client) recoverChosenIDs(ctx context.Context, items []batchItem, answers []map[string]any, errs []error) {
	byClass := map[string][]int{}
	for k, it := range items {
		if it.newID != "" && errs[k] != nil && (errors.Is(errs[k], ErrDuplicateRequest) || errors.Is(errs[k], ErrDuplicateValue)) {
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
					errs[k] = fmt.Errorf("%w (loading the object an earlier attempt created failed: %v)", errs[k], err)
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
				} else if errors.Is(errs[k], ErrDuplicateRequest) {
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
		again[j].newID = "" // no second recovery round
	}
	a2, e2 := c.runBatch(ctx, again)
	for j, k := range resend {
		answers[k], errs[k] = a2[j], e2[j]
	}
}

type batchAnswer struct {
	Success map[string]any `json:"success"`
	Error   *struct {
		Code  int    `json:"code"`
		Error string `json:"error"`
	} `json:"error"`
}

// runBatch sends items through /batch in chunks of BatchSize with BatchConcurrency chunks in flight, and returns
// each item's answer (or error) in input order.
func (c *Client) runBatch(ctx context.Context, items []batchItem) ([]map[string]any, []error) {
	answers := make([]map[string]any, len(items))
	errs := make([]error, len(items))
	size := c.cfg.BatchSize
	type chunk struct{ from, to int }
	chunks := make(chan chunk)
	var wg sync.WaitGroup
	workers := c.cfg.BatchConcurrency
	if n := (len(items) + size - 1) / size; n < workers {
		workers = n
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ch := range chunks {
				c.batchChunk(ctx, items[ch.from:ch.to], answers[ch.from:ch.to], errs[ch.from:ch.to])
			}
		}()
	}
	for from := 0; from < len(items); from += size {
		to := min(from+size, len(items))
		chunks <- chunk{from, to}
	}
	close(chunks)
	wg.Wait()
	return answers, errs
}

func (c *Client) batchChunk(ctx context.Context, items []batchItem, answers []map[string]any, errs []error) {
	reqs := make([]map[string]any, len(items))
	mount := c.t.MountPath()
	for i, it := range items {
		r := map[string]any{"method": it.method, "path": mount + "/" + it.path}
		if it.body != nil {
			r["body"] = it.body
		}
		reqs[i] = r
	}
	var resp []batchAnswer
	err := c.do(ctx, c.call(http.MethodPost, "batch", map[string]any{"requests": reqs}), &resp)
	if err == nil && len(resp) != len(items) {
		err = &Error{Code: rest.CodeInvalidJSON, Message: fmt.Sprintf("batch answered %d results for %d requests", len(resp), len(items)), Op: "POST batch"}
	}
	for i := range items {
		switch {
		case err != nil:
			errs[i] = err
		case resp[i].Error != nil:
			errs[i] = &Error{Code: resp[i].Error.Code, Message: resp[i].Error.Error, Op: items[i].method + " " + items[i].path}
		default:
			answers[i] = resp[i].Success
		}
	}
}

// SaveAll saves many objects through /batch: chunks of Config.BatchSize (default 20) with
// Config.BatchConcurrency (default 4) chunks in flight. Every object that succeeded is updated; when some failed
// the error is a *BatchError whose Errors are aligned with objs. Objects without changes are skipped.
// The server does not deduplicate a retried /batch; with Config.ClientObjectIDs a retry cannot create an object
// twice, and the objects it finds already created are loaded and succeed.
func (c *Client) SaveAll(ctx context.Context, objs []*Object) error {
	items := make([]batchItem, 0, len(objs))
	index := make([]int, 0, len(objs))
	sent := make([]map[string]any, 0, len(objs))
	errs := make([]error, len(objs))
	failed := 0
	for i, o := range objs {
		if o == nil || o.ClassName() == "" {
			errs[i] = errNoClass
			failed++
			continue
		}
		if o.ID() != "" && len(o.DirtyKeys()) == 0 {
			continue
		}
		if o.ID() == "" && c.cfg.DefaultACL != nil && o.ACL() == nil {
			o.SetACL(c.cfg.DefaultACL.Clone())
		}
		body, err := o.SaveBody()
		if err != nil {
			errs[i] = fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
			failed++
			continue
		}
		it := batchItem{method: http.MethodPost, path: classPath(o.ClassName()), body: body}
		if o.ID() != "" {
			it.method, it.path = http.MethodPut, objectPath(o.ClassName(), o.ID())
		} else if c.cfg.ClientObjectIDs && o.ClassName() != UserClass {
			if it.newID, err = newObjectID(); err != nil {
				errs[i] = fmt.Errorf("moralis: save %s: %w", o.ClassName(), err)
				failed++
				continue
			}
			body["objectId"] = it.newID
			it.className = o.ClassName()
		}
		items = append(items, it)
		index = append(index, i)
		sent = append(sent, o.PendingSnapshot())
	}
	answers, berrs := c.runBatch(ctx, items)
	c.recoverChosenIDs(ctx, items, answers, berrs)
	for k, i := range index {
		if berrs[k] != nil {
			errs[i] = berrs[k]
			failed++
			continue
		}
		if err := objs[i].ApplySaved(answers[k], sent[k]); err != nil {
			errs[i] = err
			failed++
		}
	}
	if failed > 0 {
		return &BatchError{Errors: errs, Failed: failed}
	}
	return nil
}

// DestroyAll deletes many objects through /batch, like SaveAll.
func (c *Client) DestroyAll(ctx context.Context, objs []*Object) error {
	items := make([]batchItem, 0, len(objs))
	index := make([]int, 0, len(objs))
	errs := make([]error, len(objs))
	failed := 0
	for i, o := range objs {
		if o == nil || o.ID() == "" {
			errs[i] = errors.New("moralis: destroy: the object has no id")
			failed++
			continue
		}
		items = append(items, batchItem{method: http.MethodDelete, path: objectPath(o.ClassName(), o.ID())})
		index = append(index, i)
	}
	_, berrs := c.runBatch(ctx, items)
	for k, i := range index {
		if berrs[k] != nil {
			errs[i] = berrs[k]
			failed++
		}
	}
	if failed > 0 {
		return &BatchError{Errors: errs, Failed: failed}
	}
	return nil
}

func trimSlash(s string) string { return strings.Trim(s, "/") }
