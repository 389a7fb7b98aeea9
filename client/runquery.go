package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/parse"
)

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
