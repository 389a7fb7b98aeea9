package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
)

// maxWhereDepth bounds the nesting of where clauses FromJSON accepts ($or inside $inQuery inside ...).
const maxWhereDepth = 32

// FromJSON reads a query in its JSON form, the parameters the server takes on classes/{class}: where (an object,
// or a string holding one, as in a URL), limit, skip, order ("a,-b"), count (true, false, 1 or 0), keys, include,
// excludeKeys (comma-separated strings or arrays of strings), readPreference, includeReadPreference,
// subqueryReadPreference, hint, explain and redirectClassNameForKey (a relation field of className: the server
// runs the query on that field's target class, as parse.Relation.Query asks it to). Keys starting with "_" (_method, _ApplicationId, ... of the transport)
// are ignored; a "className" member, if present, must agree with className (which may be "" to take it from
// there). Any other member is an error.
//
// Every value is checked, with the original client's messages where it has one: "You can only set the limit to a
// numeric value", "You can only skip by a positive number", "You can only set withCount to a boolean value",
// "Invalid Key name for queries", "The value being searched for must be a string.", "Unknown option: {option}".
// All problems found are returned together (errors.Join). FromJSON never panics, whatever the input.
func FromJSON[T any](className string, data []byte) (*Query[T], error) {
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("query: FromJSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("query: FromJSON: trailing data after the query object")
	}
	if raw == nil {
		return nil, errors.New("query: FromJSON: the query must be a JSON object")
	}
	return FromMap[T](className, raw)
}

// FromRequest makes a typed query from a find request (Op "find" or ""), such as the one parse.Relation.Query
// returns: its class and its parameters, read and checked as FromJSON reads them. The query can then be refined
// and run like any other:
//
//	req, err := rel.Query()
//	q, err := query.FromRequest[*client.Object](req)
//	liked, err := q.Ascending("name").Find(ctx, c)
//
// The request is not changed, and the query keeps no reference to it.
func FromRequest[T any](req *parse.QueryRequest) (*Query[T], error) {
	if req == nil {
		return nil, errors.New("query: FromRequest: nil request")
	}
	if req.Op != "" && req.Op != OpFind {
		return nil, fmt.Errorf("query: FromRequest: only a find request makes a query, got %q", req.Op)
	}
	params := map[string]any{}
	if req.Params != nil {
		v, err := normalize(req.Params)
		if err != nil {
			return nil, fmt.Errorf("query: FromRequest: %w", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("query: FromRequest: the parameters are %s", jsonType(v))
		}
		params = m
	}
	if _, has := params["className"]; has {
		return nil, errors.New("query: FromRequest: className belongs in the request, not its parameters")
	}
	if req.ClassName == "" {
		return nil, fmt.Errorf("query: FromRequest: %w", ErrInvalidClassName)
	}
	return FromMap[T](req.ClassName, params)
}

// FromMap is FromJSON for a query already decoded by encoding/json (maps, []any, float64, string, bool, nil).
// The map is not changed, and the query keeps no reference to it.
func FromMap[T any](className string, raw map[string]any) (*Query[T], error) {
	if cn, ok := raw["className"]; ok {
		s, isStr := cn.(string)
		switch {
		case !isStr:
			return nil, fmt.Errorf("query: FromJSON: className must be a string, got %s", jsonType(cn))
		case className == "":
			className = s
		case s != className:
			return nil, fmt.Errorf("query: FromJSON: className %q does not match %q", s, className)
		}
	}
	q := New[T](className)
	var errs []error
	bad := func(err error) { errs = append(errs, err) }

	for _, k := range sortedKeys(raw) {
		v := raw[k]
		switch k {
		case "className":
		case "where":
			w, err := whereValue(v)
			if err != nil {
				bad(err)
				continue
			}
			for _, err := range validateWhere(w, "where", 0) {
				bad(err)
			}
			q.where = deepCopy(w).(map[string]any)
		case "limit":
			n, ok := jsonInt(v)
			if !ok {
				bad(fmt.Errorf("query: limit %s: %w", short(v), ErrLimit))
				continue
			}
			q = q.Limit(n)
		case "skip":
			n, ok := jsonInt(v)
			if !ok || n < 0 {
				bad(fmt.Errorf("query: skip %s: %w", short(v), ErrSkip))
				continue
			}
			q = q.Skip(n)
		case "count":
			switch x := v.(type) {
			case bool:
				q = q.WithCount(x)
			case float64:
				if x != 0 && x != 1 {
					bad(fmt.Errorf("query: count %s: %w", short(v), ErrWithCount))
					continue
				}
				q = q.WithCount(x == 1)
			default:
				bad(fmt.Errorf("query: count %s: %w", short(v), ErrWithCount))
			}
		case "explain":
			b, ok := v.(bool)
			if !ok {
				bad(fmt.Errorf("query: explain %s: %w", short(v), ErrExplain))
				continue
			}
			q = q.Explain(b)
		case "order", "keys", "include", "excludeKeys":
			list, err := keyListValue(k, v)
			if err != nil {
				bad(err)
				continue
			}
			switch k {
			case "order":
				q = q.fromOrder(list)
			case "keys":
				q = q.Select(list...)
			case "include":
				q = q.Include(list...)
			case "excludeKeys":
				q = q.Exclude(list...)
			}
		case "readPreference", "includeReadPreference", "subqueryReadPreference":
			s, ok := v.(string)
			if !ok || !validReadPref(s) {
				bad(fmt.Errorf("query: %s %s: %w", k, short(v), ErrReadPreference))
				continue
			}
			c := q.clone()
			switch k {
			case "readPreference":
				c.readPref = s
			case "includeReadPreference":
				c.inclPref = s
			default:
				c.subPref = s
			}
			q = c
		case "hint":
			if v == nil {
				continue
			}
			q = q.Hint(v)
		case "redirectClassNameForKey":
			key, ok := v.(string)
			if !ok || !validKey(key) {
				bad(fmt.Errorf("query: redirectClassNameForKey: %w: %s", ErrInvalidKey, short(v)))
				continue
			}
			c := q.clone()
			c.redirect = key
			q = c
		default:
			if strings.HasPrefix(k, "_") {
				continue
			}
			bad(fmt.Errorf("query: FromJSON: unknown query parameter %q", k))
		}
	}
	if err := q.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return q, nil
}

// fromOrder applies an order list of "key" and "-key" entries.
func (q *Query[T]) fromOrder(list []string) *Query[T] {
	c := q.clone()
	c.order = nil
	for _, k := range list {
		name := strings.TrimPrefix(k, "-")
		if !validOrderKey(name) {
			c.errs = append(c.errs, keyErr("order", k))
			continue
		}
		c.order = append(c.order, k)
	}
	return c
}

func whereValue(v any) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return x, nil
	case string:
		var m map[string]any
		if err := json.Unmarshal([]byte(x), &m); err != nil || m == nil {
			return nil, errors.New("query: where parameter is not valid JSON")
		}
		return m, nil
	}
	return nil, fmt.Errorf("query: where must be an object, got %s", jsonType(v))
}

// keyListValue reads "a,b" or ["a","b"].
func keyListValue(name string, v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		return splitKeys([]string{x}), nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("query: %s: %w: %s", name, ErrInvalidKey, short(e))
			}
			out = append(out, s)
		}
		return splitKeys(out), nil
	}
	return nil, fmt.Errorf("query: %s must be a string or a list of strings, got %s", name, jsonType(v))
}

// jsonInt accepts a whole JSON number that fits an int.
func jsonInt(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// short renders a value for an error message, cut to a readable length.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// operators known to the server, each with a check of its argument (nil: anything goes).
var operators map[string]func(path string, v any, depth int) []error

func init() {
	operators = map[string]func(path string, v any, depth int) []error{
		"$lt": nil, "$lte": nil, "$gt": nil, "$gte": nil, "$ne": nil, "$eq": nil,
		"$in": checkArray, "$nin": checkArray, "$all": checkAll, "$containedBy": checkArray,
		"$exists": checkBool,
		"$regex":  checkString,
		"$options": func(path string, v any, _ int) []error {
			s, ok := v.(string)
			if !ok || !validRegexOptions(s) {
				return []error{fmt.Errorf("query: %s: Bad $options value for query: %s", path, short(v))}
			}
			return nil
		},
		"$text":                    checkText,
		"$nearSphere":              checkObject,
		"$maxDistance":             checkNumber,
		"$maxDistanceInRadians":    checkNumber,
		"$maxDistanceInKilometers": checkNumber,
		"$maxDistanceInMiles":      checkNumber,
		"$within":                  checkObject,
		"$geoWithin":               checkObject,
		"$geoIntersects":           checkObject,
		"$inQuery":                 checkSubquery,
		"$notInQuery":              checkSubquery,
		"$select":                  checkSelect,
		"$dontSelect":              checkSelect,
		"$relativeTime":            checkString,
	}
}

func checkArray(path string, v any, _ int) []error {
	if _, ok := v.([]any); !ok {
		return []error{fmt.Errorf("query: %s needs an array, got %s", path, jsonType(v))}
	}
	return nil
}

func checkAll(path string, v any, _ int) []error {
	arr, ok := v.([]any)
	if !ok {
		return []error{fmt.Errorf("query: %s needs an array, got %s", path, jsonType(v))}
	}
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			if r, has := m["$regex"]; has {
				if _, isStr := r.(string); !isStr {
					return []error{fmt.Errorf("query: %s: %w", path, ErrNotString)}
				}
			}
		}
	}
	return nil
}

func checkBool(path string, v any, _ int) []error {
	if _, ok := v.(bool); !ok {
		return []error{fmt.Errorf("query: %s needs a boolean, got %s", path, jsonType(v))}
	}
	return nil
}

func checkString(path string, v any, _ int) []error {
	if _, ok := v.(string); !ok {
		return []error{fmt.Errorf("query: %s: %w", path, ErrNotString)}
	}
	return nil
}

func checkNumber(path string, v any, _ int) []error {
	if _, ok := v.(float64); !ok {
		return []error{fmt.Errorf("query: %s needs a number, got %s", path, jsonType(v))}
	}
	return nil
}

func checkObject(path string, v any, _ int) []error {
	if _, ok := v.(map[string]any); !ok {
		return []error{fmt.Errorf("query: %s needs an object, got %s", path, jsonType(v))}
	}
	return nil
}

func checkText(path string, v any, _ int) []error {
	m, ok := v.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("query: %s needs an object, got %s", path, jsonType(v))}
	}
	search, ok := m["$search"].(map[string]any)
	if !ok {
		return []error{fmt.Errorf("query: %s needs a $search object", path)}
	}
	var errs []error
	for _, k := range sortedKeys(m) {
		if k != "$search" {
			errs = append(errs, fmt.Errorf("query: %s: unknown member %q", path, k))
		}
	}
	term, has := search["$term"]
	switch t, isStr := term.(string); {
	case !has:
		errs = append(errs, fmt.Errorf("query: %s: %w", path, ErrSearchTermRequired))
	case !isStr:
		errs = append(errs, fmt.Errorf("query: %s: %w", path, ErrNotString))
	case t == "":
		errs = append(errs, fmt.Errorf("query: %s: %w", path, ErrSearchTermRequired))
	}
	for _, k := range sortedKeys(search) {
		val := search[k]
		switch k {
		case "$term":
		case "$language":
			if _, ok := val.(string); !ok {
				errs = append(errs, fmt.Errorf("query: %s: language must be a string", path))
			}
		case "$caseSensitive", "$diacriticSensitive":
			if _, ok := val.(bool); !ok {
				errs = append(errs, fmt.Errorf("query: %s: %s must be a boolean", path, strings.TrimPrefix(k, "$")))
			}
		default:
			errs = append(errs, fmt.Errorf("query: %s: %w", path, &UnknownOptionError{Option: strings.TrimPrefix(k, "$")}))
		}
	}
	return errs
}

// checkSubquery checks {className, where, ...} of $inQuery and $notInQuery.
func checkSubquery(path string, v any, depth int) []error {
	m, ok := v.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("query: %s needs a query object, got %s", path, jsonType(v))}
	}
	var errs []error
	cn, _ := m["className"].(string)
	if !validClassName(cn) {
		errs = append(errs, fmt.Errorf("query: %s: %w: %s", path, ErrInvalidClassName, short(m["className"])))
	}
	switch w := m["where"].(type) {
	case nil:
	case map[string]any:
		errs = append(errs, validateWhere(w, path+".where", depth+1)...)
	default:
		errs = append(errs, fmt.Errorf("query: %s.where must be an object, got %s", path, jsonType(w)))
	}
	return errs
}

func checkSelect(path string, v any, depth int) []error {
	m, ok := v.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("query: %s needs {key, query}, got %s", path, jsonType(v))}
	}
	var errs []error
	if k, ok := m["key"].(string); !ok || !validKey(k) {
		errs = append(errs, fmt.Errorf("query: %s.key: %w: %s", path, ErrInvalidKey, short(m["key"])))
	}
	return append(errs, checkSubquery(path+".query", m["query"], depth)...)
}

// validateWhere checks a where clause: key names, operators and the shape of their arguments.
func validateWhere(w map[string]any, path string, depth int) []error {
	if depth > maxWhereDepth {
		return []error{fmt.Errorf("query: %s: nested more than %d levels deep", path, maxWhereDepth)}
	}
	var errs []error
	for _, k := range sortedKeys(w) {
		v := w[k]
		kp := path + "." + k
		switch k {
		case "$or", "$and", "$nor":
			arr, ok := v.([]any)
			if !ok {
				errs = append(errs, fmt.Errorf("query: %s needs an array of where clauses, got %s", kp, jsonType(v)))
				continue
			}
			for i, e := range arr {
				sub, ok := e.(map[string]any)
				if !ok {
					errs = append(errs, fmt.Errorf("query: %s[%d] must be an object, got %s", kp, i, jsonType(e)))
					continue
				}
				errs = append(errs, validateWhere(sub, fmt.Sprintf("%s[%d]", kp, i), depth+1)...)
			}
			continue
		case "$relatedTo":
			m, ok := v.(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("query: %s needs {object, key}, got %s", kp, jsonType(v)))
				continue
			}
			obj, _ := m["object"].(map[string]any)
			if obj == nil || obj["__type"] != "Pointer" {
				errs = append(errs, fmt.Errorf("query: %s.object must be a Pointer", kp))
			}
			if key, ok := m["key"].(string); !ok || !validKey(key) {
				errs = append(errs, fmt.Errorf("query: %s.key: %w: %s", kp, ErrInvalidKey, short(m["key"])))
			}
			continue
		}
		if !specialKeys[k] && !validKey(k) {
			errs = append(errs, fmt.Errorf("query: %w: %q", ErrInvalidKey, k))
			continue
		}
		cond, ok := v.(map[string]any)
		if !ok || !hasOperator(cond) {
			continue // equality with a value (a typed value or plain object included)
		}
		for _, op := range sortedKeys(cond) {
			if !strings.HasPrefix(op, "$") {
				errs = append(errs, fmt.Errorf("query: %s: %q mixes operators and fields", kp, op))
				continue
			}
			check, known := operators[op]
			if !known {
				errs = append(errs, fmt.Errorf("query: %s: unknown operator %q", kp, op))
				continue
			}
			if check != nil {
				errs = append(errs, check(kp+"."+op, cond[op], depth)...)
			}
		}
		if _, has := cond["$options"]; has {
			if _, hasRe := cond["$regex"]; !hasRe {
				errs = append(errs, fmt.Errorf("query: %s: $options without $regex", kp))
			}
		}
	}
	return errs
}

func hasOperator(m map[string]any) bool {
	if _, typed := m["__type"]; typed {
		return false
	}
	for k := range m {
		if strings.HasPrefix(k, "$") {
			return true
		}
	}
	return false
}
