package web3api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// Args are the parameters of one call by name: the endpoint's path, query and body parameters by their reference
// names ("address", "chain", "limit", "abi"…), and any other name, which is sent in the query string as the
// original client did (for parameters the reference does not list, such as "providerUrl" on getDateToBlock).
//
// A parameter is unset, and not sent, when it is absent, nil, a nil pointer or ""; false, 0 and every other
// value are sent. Values are strings, booleans, numbers, slices (sent as name[]=v1&name[]=v2), pointers to
// these, or any JSON value (sent as JSON text in the query, as is in a body).
type Args map[string]any

func (a Args) clone() Args {
	b := make(Args, len(a))
	for k, v := range a {
		b[k] = v
	}
	return b
}

// withExtra adds the extra parameters of a typed call; a name the endpoint knows is refused, since its field
// is the place to set it.
func (a Args) withExtra(endpoint string, extra map[string]any) (Args, error) {
	if len(extra) == 0 {
		return a, nil
	}
	ep, _ := ref.Lookup(endpoint)
	for k, v := range extra {
		if k == "" {
			return nil, fmt.Errorf("web3api: %s: an extra parameter has an empty name", endpoint)
		}
		if ep != nil {
			if _, known := ep.Param(k); known {
				return nil, fmt.Errorf("web3api: %s: extra parameter %q is a parameter of the endpoint; set its field instead", endpoint, k)
			}
		}
		a[k] = v
	}
	return a, nil
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

var errNilContext = errors.New("web3api: nil context")

// Call runs the endpoint called name (a reference name such as "getNFTs") with args and decodes the answer into
// out (a pointer; nil discards it). It fills the default address (Config.DefaultAddress) on endpoints that have
// an "address" parameter, checks the required parameters, and goes to the API or to the backend as configured.
// args is not changed. The typed methods all go through Call.
//
// To the API, the query string holds the endpoint's query parameters in reference order, then the other
// parameters by name; a POST or PUT with body parameters sends a JSON body, {} when none is set.
func (c *Client) Call(ctx context.Context, name string, args Args, out any) error {
	if ctx == nil {
		return errNilContext
	}
	ep, ok := ref.Lookup(name)
	if !ok {
		return fmt.Errorf("web3api: unknown endpoint %q", name)
	}
	if !c.initialized() {
		return ErrNotInitialized
	}
	if _, bad := args[""]; bad {
		return fmt.Errorf("web3api: %s: a parameter has an empty name", name)
	}
	args = args.clone()
	if _, has := ep.Param("address"); has && !isSet(args["address"]) && c.cfg.DefaultAddress != nil {
		a, err := c.cfg.DefaultAddress(ctx)
		if err != nil {
			return fmt.Errorf("web3api: %s: default address: %w", name, err)
		}
		if a != "" {
			args["address"] = a
		}
	}
	if err := checkRequired(ep, args); err != nil {
		return err
	}
	if c.cfg.APIKey == "" {
		return c.callFunction(ctx, ep, args, out)
	}
	path, query, body, err := buildRequest(ep, args)
	if err != nil {
		return err
	}
	return c.do(ctx, ep.Name, ep.Method, path, query, body, out)
}

// checkRequired gives the original client's errors for missing required parameters.
func checkRequired(ep *ref.Endpoint, args Args) error {
	for _, p := range ep.Params {
		if !p.Required {
			continue
		}
		v := args[p.Name]
		switch {
		case p.In == "body":
			if !isSet(v) {
				return fmt.Errorf("param %s is required!", p.Name)
			}
		case !isSet(v) || isEmptyList(v):
			return fmt.Errorf("required param %s not provided", p.Name)
		}
	}
	return nil
}

// buildRequest makes the path, the query string and the body (nil: none) of a call to the API.
func buildRequest(ep *ref.Endpoint, args Args) (path, query string, body []byte, err error) {
	path = ep.Path
	var q queryBuilder
	var fields [][]byte // "name":value of the body object, in reference order
	hasBody, whole := false, false
	for _, p := range ep.Params {
		v := args[p.Name]
		switch p.In {
		case "path":
			s, err := pathText(v)
			if err != nil {
				return "", "", nil, fmt.Errorf("web3api: %s: path parameter %s: %w", ep.Name, p.Name, err)
			}
			path = strings.Replace(path, ":"+p.Name, url.PathEscape(s), 1)
		case "query":
			if isSet(v) {
				if err := q.add(p.Name, v); err != nil {
					return "", "", nil, fmt.Errorf("%w (%s)", err, ep.Name)
				}
			}
		case "body":
			hasBody = true
			if !isSet(v) {
				continue
			}
			b, err := marshalJSON(v)
			if err != nil {
				return "", "", nil, fmt.Errorf("web3api: %s: body parameter %s: %w", ep.Name, p.Name, err)
			}
			if p.WholeBody {
				whole, body = true, b
				continue
			}
			k, _ := marshalJSON(p.Name)
			fields = append(fields, append(append(k, ':'), b...))
		}
	}
	var extra []string
	for k := range args {
		if _, known := ep.Param(k); !known {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		if !isSet(args[k]) {
			continue
		}
		if err := q.add(k, args[k]); err != nil {
			return "", "", nil, fmt.Errorf("%w (%s)", err, ep.Name)
		}
	}
	if hasBody && !whole {
		body = append(append([]byte{'{'}, bytes.Join(fields, []byte{','})...), '}')
	}
	return path, q.String(), body, nil
}

// pathText is the text of a path parameter: a string, a number or a value that formats itself.
func pathText(v any) (string, error) {
	v, ok := deref(v)
	if !ok {
		return "", errors.New("not set")
	}
	s, ok := textOf(v)
	if !ok {
		return "", fmt.Errorf("must be a string or a number, got %T", v)
	}
	return s, nil
}

// Raw calls any API path directly, for endpoints the reference does not know yet: method and path (relative to
// the base, e.g. "/nft/0x…/stats"), query values and an optional JSON body. It needs an API key.
func (c *Client) Raw(ctx context.Context, method, path string, query url.Values, body any, out any) error {
	if ctx == nil {
		return errNilContext
	}
	if !c.initialized() || c.cfg.APIKey == "" {
		return errors.New("web3api: Raw needs a client made by New with an API key")
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var b []byte
	if body != nil {
		var err error
		if b, err = marshalJSON(body); err != nil {
			return fmt.Errorf("web3api: encoding body of %s %s: %w", method, path, err)
		}
	}
	return c.do(ctx, path, strings.ToUpper(method), path, query.Encode(), b, out)
}

// do sends one call to the API; name is the endpoint's, or Raw's path (made into the operation name of its telemetry
// by routeTemplate, only when telemetry is on).
func (c *Client) do(ctx context.Context, name, method, path, query string, body []byte, out any) error {
	u := c.cfg.BaseURL + path
	target := u
	if query != "" {
		target += "?" + query
	}
	req := &httpx.Request{Method: method, URL: target, Header: http.Header{}, Op: method, Route: name}
	// The chain-data API's POSTs read (a contract call, an events query) except the IPFS upload and the NFT
	// sync, which are sent again after an ambiguous failure only when the first attempt provably never arrived.
	switch {
	case method == http.MethodPost && (strings.HasSuffix(path, "/function") || strings.HasSuffix(path, "/events")):
		req.Replay = httpx.ReplayAlways
	case method == http.MethodPut && strings.HasSuffix(path, "/sync"):
		req.Replay = httpx.ReplayAlways // asking for a re-sync twice is harmless
	}
	req.Header.Set("x-api-key", c.cfg.APIKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Body = body
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(ctx, req)
	if err != nil {
		return &APIError{URL: u, Message: transportMessage(err, u), Err: err}
	}
	if resp.Status == http.StatusTooManyRequests {
		return newRateLimitError(u, resp)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return &APIError{URL: u, Status: resp.Status, Message: apiErrorMessage(resp.Body, resp.Status)}
	}
	if out == nil || len(bytes.TrimSpace(resp.Body)) == 0 {
		return nil
	}
	if err := decode(resp.Body, out); err != nil {
		return fmt.Errorf("web3api: decoding answer of %s %s: %w", method, path, err)
	}
	return nil
}

// isSet reports whether a parameter value is to be sent: not nil, not a nil pointer, not "".
func isSet(v any) bool {
	v, ok := deref(v)
	if !ok {
		return false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.Len() > 0
	}
	return true
}

// isEmptyList reports whether v is a slice or array without elements (nothing of it reaches the query string).
func isEmptyList(v any) bool {
	v, ok := deref(v)
	if !ok {
		return true
	}
	rv := reflect.ValueOf(v)
	return (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Len() == 0
}

// routeTemplate is the operation name of a call for telemetry: an endpoint name as it is; a Raw path with its
// addresses, hashes, numbers and names of a user's choosing replaced ("/{address}/erc20"); a backend path as
// internal/rest names it.
func routeTemplate(route string) string {
	if !strings.HasPrefix(route, "/") {
		return rest.Template(route)
	}
	seg := strings.Split(strings.Trim(route, "/"), "/")
	for i, s := range seg {
		if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") || strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0 || len(s) > 24 {
			seg[i] = "{param}"
		}
	}
	return "/" + strings.Join(seg, "/")
}
