package web3apitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// exampleValue builds a JSON value for f from the published examples, coerced to the declared type.
func exampleValue(f ref.Field) any {
	switch f.Type {
	case "object":
		m := map[string]any{}
		for _, c := range f.Fields {
			m[c.Name] = exampleValue(c)
		}
		return m
	case "array":
		if ex, ok := f.Example.([]any); ok && len(ex) > 0 {
			return ex
		}
		if f.Elem == nil {
			return []any{}
		}
		return []any{exampleValue(*f.Elem)}
	case "string":
		switch x := f.Example.(type) {
		case nil:
			return nil
		case string:
			return x
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64)
		default:
			b, _ := json.Marshal(x)
			return string(b)
		}
	case "number", "integer":
		switch x := f.Example.(type) {
		case float64:
			if f.Type == "integer" {
				return int64(x)
			}
			return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
		case string:
			if _, err := strconv.ParseFloat(x, 64); err == nil {
				if f.Type == "integer" || f.Name == "total" || f.Name == "page" || f.Name == "page_size" {
					if n, err := strconv.ParseInt(x, 10, 64); err == nil {
						return n
					}
				}
				return json.Number(x)
			}
		}
		return 1
	case "boolean":
		if b, ok := f.Example.(bool); ok {
			return b
		}
		return false
	}
	if f.Example != nil {
		return f.Example
	}
	return nil
}

// resultField returns the element description of a paged answer's "result".
func resultField(ep *ref.Endpoint) (ref.Field, bool) {
	for _, f := range ep.Response.Fields {
		if f.Name == "result" && f.Type == "array" && f.Elem != nil {
			return *f.Elem, true
		}
	}
	return ref.Field{}, false
}

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func decodeCursor(c string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "offset:") {
		return 0, badRequest("invalid cursor %q", c)
	}
	return strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
}

// paginate cuts items into the page the request asks for (cursor, offset, limit) and wraps it like the API.
func paginate(q *request, items []any) (map[string]any, error) {
	return paginateLazy(q, len(items), func(i int) (any, error) { return items[i], nil })
}

// paginateLazy is paginate over n items of which only the page's are built, by build(i).
func paginateLazy(q *request, n int, build func(i int) (any, error)) (map[string]any, error) {
	limit := q.intParam("limit", DefaultPageSize)
	if limit <= 0 {
		limit = DefaultPageSize
	}
	offset := q.intParam("offset", 0)
	if c := q.str("cursor"); c != "" {
		o, err := decodeCursor(c)
		if err != nil {
			return nil, err
		}
		offset = o
	}
	if offset < 0 {
		offset = 0
	}
	end := min(offset+limit, n)
	page := []any{}
	for i := offset; i < end; i++ {
		it, err := build(i)
		if err != nil {
			return nil, err
		}
		page = append(page, it)
	}
	ans := map[string]any{"total": n, "page": offset / limit, "page_size": limit, "result": page}
	if _, ok := q.ep.Param("cursor"); ok && !q.offsetPaging {
		ans["cursor"] = ""
		if end < n {
			ans["cursor"] = encodeCursor(end)
		}
	}
	if _, ok := q.ep.Param("disable_total"); ok && q.str("disable_total") == "true" {
		ans["total"] = nil
	}
	for _, f := range q.ep.Response.Fields {
		if _, set := ans[f.Name]; !set && !(f.Name == "cursor" && q.offsetPaging) {
			ans[f.Name] = exampleValue(f)
		}
	}
	return ans, nil
}

// hasField reports whether the object f has a field called name.
func hasField(f ref.Field, name string) bool {
	for _, c := range f.Fields {
		if c.Name == name {
			return true
		}
	}
	return false
}

// syntheticPage serves n distinct items built from the endpoint's example item.
func syntheticPage(q *request, n int) (any, error) {
	el, ok := resultField(q.ep)
	if !ok {
		return nil, badRequest("%s is not a paged endpoint", q.ep.Name)
	}
	base, _ := exampleValue(el).(map[string]any)
	items := make([]any, n)
	for i := range n {
		idx := n - 1 - i // newest first
		m := make(map[string]any, len(base))
		for k, v := range base {
			m[k] = v
		}
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				continue
			}
			switch {
			case k == "token_id" || k == "block_number" || k == "log_index":
				m[k] = strconv.Itoa(idx)
			case strings.HasPrefix(s, "0x") && len(s) == 66:
				m[k] = fmt.Sprintf("0x%064x", idx)
			}
		}
		items[i] = m
	}
	return paginate(q, items)
}
