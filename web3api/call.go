package web3api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// Args are the parameters of one call by endpoint name: path, query and body parameters by their reference names
// ("address", "chain", "limit", "abi"…). Values are strings, integers, booleans, string slices or any JSON value.
type Args map[string]any

func (a Args) clone() Args {
	b := make(Args, len(a))
	for k, v := range a {
		b[k] = v
	}
	return b
}

// EndpointInfo describes one endpoint of the reference.
type EndpointInfo struct {
	Group, Name, Method, Path string
	// Required lists the required parameter names; PathParams, QueryParams and BodyParams the known ones.
	Required, PathParams, QueryParams, BodyParams []string
}

// Endpoints lists the 56 endpoints the package knows, in reference order.
func Endpoints() []EndpointInfo {
	var out []EndpointInfo
	for _, e := range ref.Endpoints() {
		ei := EndpointInfo{Group: e.Group, Name: e.Name, Method: e.Method, Path: e.Path}
		for _, p := range e.Params {
			if p.Required {
				ei.Required = append(ei.Required, p.Name)
			}
			switch p.In {
			case "path":
				ei.PathParams = append(ei.PathParams, p.Name)
			case "query":
				ei.QueryParams = append(ei.QueryParams, p.Name)
			default:
				ei.BodyParams = append(ei.BodyParams, p.Name)
			}
		}
		out = append(out, ei)
	}
	return out
}

// Call runs the endpoint called name (a reference name such as "getNFTs") with args and decodes the answer into
// out (a pointer; nil discards it). It checks required parameters, fills the default address, and goes to the API
// or the backend as configured. The typed methods all go through Call.
func (c *Client) Call(ctx context.Context, name string, args Args, out any) error {
	if ctx == nil {
		return errors.New("web3api: nil context")
	}
	ep, ok := ref.Lookup(name)
	if !ok {
		return fmt.Errorf("web3api: unknown endpoint %q", name)
	}
	if c == nil || (c.cfg.apiKey == "" && c.cfg.serverURL == "") {
		return ErrNotInitialized
	}
	args = args.clone()
	if _, has := ep.Param("address"); has && isEmpty(args["address"]) {
		if a := c.defaultAddr(); a != "" {
			args["address"] = a
		}
	}
	if c.cfg.apiKey == "" {
		return c.callFunction(ctx, ep, args, out)
	}
	path := ep.Path
	query := url.Values{}
	var body any
	var bodyMap map[string]any
	for _, p := range ep.Params {
		v, present := args[p.Name]
		if present && isEmpty(v) {
			present = false
		}
		switch p.In {
		case "path":
			if !present {
				return fmt.Errorf("required param %s not provided", p.Name)
			}
			path = strings.Replace(path, ":"+p.Name, url.PathEscape(scalar(v)), 1)
		case "query":
			if !present {
				if p.Required {
					return fmt.Errorf("required param %s not provided", p.Name)
				}
				continue
			}
			addQuery(query, p.Name, v)
		case "body":
			if !present {
				if p.Required {
					return fmt.Errorf("param %s is required!", p.Name)
				}
				continue
			}
			if p.WholeBody {
				body = v
				continue
			}
			if bodyMap == nil {
				bodyMap = map[string]any{}
			}
			bodyMap[p.Name] = v
		}
	}
	if bodyMap != nil {
		body = bodyMap
	}
	return c.do(ctx, ep.Method, path, query, body, out)
}

// Raw calls any API path directly, for endpoints the reference does not know yet: method and path (relative to
// the base, e.g. "/nft/0x…/stats"), query values and an optional JSON body. It needs an API key.
func (c *Client) Raw(ctx context.Context, method, path string, query url.Values, body any, out any) error {
	if ctx == nil {
		return errors.New("web3api: nil context")
	}
	if c == nil || c.cfg.apiKey == "" {
		return errors.New("web3api: Raw needs an API key")
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return c.do(ctx, strings.ToUpper(method), path, query, body, out)
}

func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, out any) error {
	u := c.cfg.baseURL + path
	req := &httpx.Request{Method: method, URL: u, Query: query, Header: http.Header{}}
	// The chain-data API's POSTs read (a contract call, an events query) except the IPFS upload and the NFT
	// sync, which are sent again after an ambiguous failure only when the first attempt provably never arrived.
	switch {
	case method == http.MethodPost && (strings.HasSuffix(path, "/function") || strings.HasSuffix(path, "/events")):
		req.Replay = httpx.ReplayAlways
	case method == http.MethodPut && strings.HasSuffix(path, "/sync"):
		req.Replay = httpx.ReplayAlways // asking for a re-sync twice is harmless
	}
	req.Header.Set("x-api-key", c.cfg.apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("web3api: encoding body of %s %s: %w", method, path, err)
		}
		req.Body = b
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(ctx, req)
	if err != nil {
		return &APIError{URL: u, Message: apiErrorMessage(nil, err, u), Err: err}
	}
	if resp.Status == http.StatusTooManyRequests {
		return newRateLimitError(u, resp)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return &APIError{URL: u, Status: resp.Status, Message: apiErrorMessage(resp.Body, nil, u)}
	}
	if out == nil || len(bytes.TrimSpace(resp.Body)) == 0 {
		return nil
	}
	if err := decode(resp.Body, out); err != nil {
		return fmt.Errorf("web3api: decoding answer of %s %s: %w", method, path, err)
	}
	return nil
}

func (c *Client) callFunction(ctx context.Context, ep *ref.Endpoint, args Args, out any) error {
	if c.cfg.serverURL == "" {
		return ErrNotInitialized
	}
	for _, p := range ep.Params {
		if !p.Required {
			continue
		}
		if v, ok := args[p.Name]; !ok || isEmpty(v) {
			if p.In == "body" {
				return fmt.Errorf("param %s is required!", p.Name)
			}
			return fmt.Errorf("required param %s not provided", p.Name)
		}
	}
	body := map[string]any{}
	for k, v := range args {
		if !isEmpty(v) {
			body[k] = v
		}
	}
	if isEmpty(body["chain"]) {
		body["chain"] = DefaultChain
	}
	if c.backendErr != nil {
		return fmt.Errorf("web3api: %w", c.backendErr)
	}
	// The backend's wire protocol (body fields, keys, session, retries, error shapes) is internal/rest's.
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	err := c.backend.DoJSON(ctx, rest.Call{Method: http.MethodPost, Path: "functions/" + ep.Name, Params: body,
		SessionToken: c.cfg.sessionToken}, &env)
	if err != nil {
		var re *rest.Error
		if errors.As(err, &re) {
			return &FunctionError{Function: ep.Name, Status: re.Status, Code: int(re.Code), Message: re.Message, Err: err}
		}
		return &FunctionError{Function: ep.Name, Message: err.Error(), Err: err}
	}
	if out == nil || len(env.Result) == 0 {
		return nil
	}
	if err := decode(env.Result, out); err != nil {
		return fmt.Errorf("web3api: decoding result of function %s: %w", ep.Name, err)
	}
	return nil
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []string:
		return x == nil
	}
	return false
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func addQuery(q url.Values, name string, v any) {
	switch x := v.(type) {
	case []string:
		for _, s := range x {
			q.Add(name, s)
		}
	case []any:
		for _, s := range x {
			q.Add(name, scalar(s))
		}
	default:
		q.Set(name, scalar(v))
	}
}
