package authserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// POST /data/query and POST /data/function: backend requests run as the user of the request, within the class
// and function allow-lists.

var functionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// query is POST /data/query: the class (and every subquery's) allowed, no $regex unless AllowRegex, the limit
// bounded, then the query as the user; included objects of classes not allowed come back as pointers.
func (p *dataProxy) query(c *call, in QueryRequest) (QueryResponse, error) {
	if !validClassName(in.ClassName) {
		return QueryResponse{}, refuse(parse.CodeInvalidClassName, "Invalid class name")
	}
	if !p.classAllowed(in.ClassName) {
		return QueryResponse{}, refuse(parse.CodeOperationForbidden, "Class not allowed")
	}
	// A subquery reads its own class: $inQuery, $notInQuery, $select and $dontSelect name only allowed ones.
	if cn, bad := p.subqueryRefused(in.Where); bad {
		return QueryResponse{}, refuse(parse.CodeOperationForbidden, fmt.Sprintf("Class not allowed in a subquery: %q", truncate(cn, 64)))
	}
	if !p.o.AllowRegex && usesRegex(in.Where) {
		return QueryResponse{}, refuse(parse.CodeInvalidQuery, "$regex is not allowed")
	}
	req, err := queryRequest(in)
	if err != nil {
		return QueryResponse{}, err
	}
	res, err := p.o.Backend.RunQuery(c.ctx, c.token, req)
	if err != nil {
		return QueryResponse{}, err
	}
	results := res.Results
	if results == nil {
		results = []json.RawMessage{}
	}
	if len(in.Include) > 0 {
		if results, err = p.hideIncluded(results); err != nil {
			return QueryResponse{}, err
		}
	}
	answer := QueryResponse{Results: results}
	if res.HasCount {
		answer.Count = &res.Count
	}
	return answer, nil
}

// queryRequest turns the body of /data/query into the backend's request (its checks: parse.CodeInvalidQuery).
func queryRequest(in QueryRequest) (*parse.QueryRequest, error) {
	raw := map[string]any{}
	if in.Where != nil {
		raw["where"] = in.Where
	}
	if in.Order != nil {
		raw["order"] = *in.Order
	}
	if in.Limit != nil {
		n, err := in.Limit.Int64()
		if err != nil || n < 0 || n > MaxDataQueryLimit {
			return nil, refuse(parse.CodeInvalidQuery, fmt.Sprintf("limit must be an integer from 0 to %d", MaxDataQueryLimit))
		}
		raw["limit"] = float64(n)
	}
	if in.Skip != nil {
		f, err := in.Skip.Float64()
		if err != nil {
			return nil, refuse(parse.CodeInvalidQuery, "You can only skip by a positive number")
		}
		raw["skip"] = f
	}
	if in.Keys != nil {
		raw["keys"] = toAnySlice(in.Keys)
	}
	if in.Include != nil {
		raw["include"] = toAnySlice(in.Include)
	}
	if in.Count != nil {
		raw["count"] = *in.Count
	}
	// Numbers inside where came as json.Number; the query package wants what encoding/json gives by default.
	if w2, ok := plainJSON(raw["where"]).(map[string]any); ok {
		raw["where"] = w2
	}
	q, err := query.FromMap[map[string]any](in.ClassName, raw)
	if err == nil {
		err = q.Err()
	}
	var req *parse.QueryRequest
	if err == nil {
		req, err = q.Request()
	}
	if err != nil {
		return nil, refuse(parse.CodeInvalidQuery, strings.TrimPrefix(firstLine(err.Error()), "query: "))
	}
	return req, nil
}

// function is POST /data/function: a function listed in AllowedFunctions, run as the user.
func (p *dataProxy) function(c *call, in FunctionRequest) (FunctionResponse, error) {
	if !functionName.MatchString(in.Name) || !slices.Contains(p.o.AllowedFunctions, in.Name) {
		return FunctionResponse{}, refuse(parse.CodeScriptFailed, fmt.Sprintf("Invalid function: %q", truncate(in.Name, 64)))
	}
	params, _ := plainJSON(in.Params).(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	out, err := p.o.Backend.CallFunction(c.ctx, c.token, in.Name, params)
	if err != nil {
		return FunctionResponse{}, err
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	return FunctionResponse{Result: out}, nil
}

func validClassName(c string) bool {
	if c == "" || len(c) > 64 {
		return false
	}
	for i, r := range c {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (p *dataProxy) classAllowed(c string) bool {
	if len(p.o.AllowedClasses) > 0 {
		return slices.Contains(p.o.AllowedClasses, c)
	}
	return !strings.HasPrefix(c, "_")
}

// subqueryRefused returns the class of the first subquery ($inQuery, $notInQuery, $select, $dontSelect, at any
// depth) of a where clause that classAllowed refuses.
func (p *dataProxy) subqueryRefused(v any) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			var sub any
			switch k {
			case "$inQuery", "$notInQuery":
				sub = e
			case "$select", "$dontSelect":
				if m, ok := e.(map[string]any); ok {
					sub = m["query"]
				}
			}
			if m, ok := sub.(map[string]any); ok {
				if cn, ok := m["className"].(string); ok && !p.classAllowed(cn) {
					return cn, true
				}
			}
			if cn, bad := p.subqueryRefused(e); bad {
				return cn, true
			}
		}
	case []any:
		for _, e := range x {
			if cn, bad := p.subqueryRefused(e); bad {
				return cn, true
			}
		}
	}
	return "", false
}

// hideIncluded turns every object of a class that classAllowed refuses, included in results through include,
// back into a pointer: include does not read classes /data/query may not.
func (p *dataProxy) hideIncluded(results []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(results))
	for i, raw := range results {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		v, changed := p.hideObjects(v)
		if !changed {
			out[i] = raw
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (p *dataProxy) hideObjects(v any) (any, bool) {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		if x["__type"] == "Object" {
			if cn, _ := x["className"].(string); !p.classAllowed(cn) {
				ptr := map[string]any{"__type": "Pointer", "className": cn}
				if id, ok := x["objectId"]; ok {
					ptr["objectId"] = id
				}
				return ptr, true
			}
		}
		for k, e := range x {
			if e2, c := p.hideObjects(e); c {
				x[k], changed = e2, true
			}
		}
	case []any:
		for i, e := range x {
			if e2, c := p.hideObjects(e); c {
				x[i], changed = e2, true
			}
		}
	}
	return v, changed
}

// usesRegex reports whether a where clause holds a $regex operator (at any depth).
func usesRegex(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "$regex" || usesRegex(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if usesRegex(e) {
				return true
			}
		}
	}
	return false
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// plainJSON turns json.Number values into float64, as encoding/json decodes by default.
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plainJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = plainJSON(e)
		}
		return s
	}
	return v
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
