package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/wirejson"
	"github.com/c13f5054/moralis-go/parse"
)

// The /batch engine: SaveAll and DestroyAll send their writes as sub-requests of POST batch, in chunks of
// Config.BatchSize with Config.BatchConcurrency calls in flight (an atomic batch is one call); each sub-request's
// answer or error comes back in input order, and BatchError reports the items that failed.

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

// batchItem is one sub-request of /batch: its method, its path (without the mount path) and its body.
type batchItem struct {
	method string
	path   string
	body   map[string]any
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
