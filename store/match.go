package store

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Values are compared in a normalised form: numbers are float64, strings, bools and nil stay as they are, a Date
// is a time.Time, a Pointer or a full (included) object is a ref, arrays are []any of normalised values, other
// objects are map[string]any of normalised values.

type ref struct{ class, id string }

func norm(v any) any {
	switch x := v.(type) {
	case map[string]any:
		switch x["__type"] {
		case "Date":
			if s, ok := x["iso"].(string); ok {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					return t
				}
			}
		case "Pointer", "Object":
			c, _ := x["className"].(string)
			id, _ := x["objectId"].(string)
			if id == "" {
				id, _ = x["_localId"].(string)
			}
			return ref{c, id}
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = norm(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e)
		}
		return out
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return v
}

// equal compares two normalised values.
func equal(a, b any) bool {
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// compare orders two normalised values of the same kind (numbers, strings, dates, bools); ok is false when they
// cannot be compared.
func compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, y), true
	case time.Time:
		y, ok := b.(time.Time)
		if !ok {
			return 0, false
		}
		return x.Compare(y), true
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	}
	return 0, false
}

// lookup returns the normalised value of a (possibly dotted) key.
func lookup(r *record, key string) (any, bool) {
	if !strings.Contains(key, ".") {
		return r.get(key)
	}
	parts := strings.Split(key, ".")
	v, ok := r.get(parts[0])
	for _, p := range parts[1:] {
		if !ok {
			return nil, false
		}
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		v, ok = m[p]
	}
	return v, ok
}

type matcher func(r *record) bool

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupportedQuery}, args...)...)
}

// compileWhere turns a where map (the server's JSON) into a matcher, or an error naming what the store cannot
// evaluate.
// arrays says which fields hold arrays in the class (the store's view of the schema), because PostgreSQL treats
// a missing value differently for array columns.
func compileWhere(where map[string]any, arrays map[string]bool) (matcher, error) {
	c, err := compileClause(where, arrays, false)
	return c.match, err
}

// clause is a compiled where map or condition. match reports whether its SQL value is TRUE for a record. unknown,
// when not nil, reports whether it is NULL: a NULL matches nothing, like FALSE, except under $nor, where NOT NULL
// stays NULL while NOT FALSE is TRUE. A nil unknown means never NULL.
//
// Each operator is NULL exactly where the SQL the PostgreSQL adapter writes for it is: a comparison, IN, ~, an
// array function (all STRICT) or ->> on a NULL value is NULL; IS [NOT] NULL (equality with null, $exists, $ne:
// null), "(col <> v OR col IS NULL)" ($ne on a plain column), an empty $in (IS NULL) and an empty $nin (1 = 1)
// never are.
//
// NULL and FALSE differ only under a $nor, so unknown is built only there (tri is true): elsewhere the compiled
// query is the same as a two-valued one, and as fast.
type clause struct {
	match   matcher
	unknown matcher
}

// isNull reports whether the SQL value of a (possibly dotted, read with ->>) key is NULL: missing or null.
func isNull(key string) matcher {
	return func(r *record) bool {
		got, ok := lookup(r, key)
		return !ok || got == nil
	}
}

func compileClause(where map[string]any, arrays map[string]bool, tri bool) (clause, error) {
	var parts []clause
	for _, k := range slices.Sorted(maps.Keys(where)) {
		v := where[k]
		switch k {
		case "$or", "$and", "$nor":
			list, ok := v.([]any)
			if !ok {
				return clause{}, fmt.Errorf("store: %s needs an array of queries, got %T", k, v)
			}
			subs := make([]clause, 0, len(list))
			for _, e := range list {
				w, ok := e.(map[string]any)
				if !ok {
					return clause{}, fmt.Errorf("store: %s needs an array of queries, got an element %T", k, e)
				}
				// Under $nor, NULL (NOT NULL is NULL) must be told from FALSE (NOT FALSE is TRUE).
				c, err := compileClause(w, arrays, tri || k == "$nor")
				if err != nil {
					return clause{}, err
				}
				subs = append(subs, c)
			}
			parts = append(parts, combine(k, subs))
			continue
		}
		if strings.HasPrefix(k, "$") {
			return clause{}, unsupported("top-level operator %s", k)
		}
		if cond, ok := v.(map[string]any); ok && isCondition(cond) {
			c, err := compileCondition(k, cond, arrays[k], tri)
			if err != nil {
				return clause{}, err
			}
			parts = append(parts, c)
			continue
		}
		if m, ok := v.(map[string]any); ok {
			if _, typed := m["__type"]; !typed {
				return clause{}, unsupported("equality with an object value on %q (the PostgreSQL server refuses it too)", k)
			}
		}
		want := norm(v)
		key := k
		if want == nil { // IS NULL, never NULL
			parts = append(parts, clause{match: isNull(key)})
			continue
		}
		c := clause{match: func(r *record) bool {
			got, ok := lookup(r, key)
			return ok && got != nil && equalOrContains(got, want)
		}}
		if tri { // col = v, (col->>'k') = v: NULL on a NULL value
			c.unknown = isNull(key)
		}
		parts = append(parts, c)
	}
	return allOf(parts), nil
}

// allOf is the AND of parts: FALSE when one is FALSE, else NULL when one is NULL.
func allOf(parts []clause) clause {
	match := func(r *record) bool {
		for i := range parts {
			if !parts[i].match(r) {
				return false
			}
		}
		return true
	}
	for _, p := range parts {
		if p.unknown == nil {
			continue
		}
		return clause{match: match, unknown: func(r *record) bool {
			null := false
			for _, p := range parts {
				switch {
				case p.match(r):
				case p.unknown != nil && p.unknown(r):
					null = true
				default:
					return false
				}
			}
			return null
		}}
	}
	return clause{match: match}
}

// anyOf is the OR of parts: TRUE when one is TRUE, else NULL when one is NULL.
func anyOf(parts []clause) clause {
	match := func(r *record) bool {
		for i := range parts {
			if parts[i].match(r) {
				return true
			}
		}
		return false
	}
	for _, p := range parts {
		if p.unknown == nil {
			continue
		}
		return clause{match: match, unknown: func(r *record) bool {
			null := false
			for _, p := range parts {
				switch {
				case p.match(r):
					return false
				case p.unknown != nil && p.unknown(r):
					null = true
				}
			}
			return null
		}}
	}
	return clause{match: match}
}

func combine(op string, subs []clause) clause {
	switch op {
	case "$or":
		return anyOf(subs)
	case "$and":
		return allOf(subs)
	}
	// $nor: NOT (a OR b ...), which is NULL, and matches nothing, where the OR is NULL.
	or := anyOf(subs)
	if or.unknown == nil {
		return clause{match: func(r *record) bool {
			for i := range subs {
				if subs[i].match(r) {
					return false
				}
			}
			return true
		}}
	}
	return clause{
		match:   func(r *record) bool { return !or.match(r) && !or.unknown(r) },
		unknown: or.unknown,
	}
}

func isCondition(m map[string]any) bool {
	if _, typed := m["__type"]; typed || len(m) == 0 {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			return false
		}
	}
	return true
}

// equalOrContains is equality, where an array field equal to a scalar means the array contains it.
func equalOrContains(got, want any) bool {
	if arr, ok := got.([]any); ok {
		if _, wantArr := want.([]any); !wantArr {
			return contains(arr, want)
		}
	}
	return equal(got, want)
}

func contains(arr []any, v any) bool {
	for _, e := range arr {
		if equal(e, v) {
			return true
		}
	}
	return false
}

func compileCondition(key string, cond map[string]any, arrayField, tri bool) (clause, error) {
	ops := slices.Sorted(maps.Keys(cond))
	var ms []matcher
	var geo []clause
	// nulls[i], when tri, says when ms[i] is NULL (nil: never); see clause. null(m) sets it for the last matcher
	// (nil m: when the key's value is NULL), and builds nothing unless tri.
	var nulls []matcher
	null := func(m matcher) {
		if !tri {
			return
		}
		if m == nil {
			m = isNull(key)
		}
		for len(nulls) < len(ms)-1 {
			nulls = append(nulls, nil)
		}
		nulls = append(nulls, m)
	}
	dotted := strings.Contains(key, ".")
	for _, op := range ops {
		raw := cond[op]
		arg := norm(raw)
		switch op {
		case "$eq":
			if arg == nil { // IS NULL
				ms = append(ms, isNull(key))
				continue
			}
			ms = append(ms, func(r *record) bool {
				got, ok := lookup(r, key)
				return ok && got != nil && equalOrContains(got, arg)
			})
			null(nil)
		case "$ne":
			ms = append(ms, func(r *record) bool {
				got, ok := lookup(r, key)
				if !ok || got == nil {
					// PostgreSQL: "x <> v OR x IS NULL" for plain columns, NOT array_contains(...) (NULL, so
					// no match) for array columns.
					return arg != nil && !arrayField
				}
				return !equalOrContains(got, arg)
			})
			if arrayField && !dotted { // NOT array_contains(col, ...), STRICT; else IS NOT NULL or "... OR col IS NULL"
				null(nil)
			}
		case "$lt", "$lte", "$gt", "$gte":
			if arg == nil {
				return clause{}, fmt.Errorf("store: %s on %q needs a value", op, key)
			}
			op := op
			ms = append(ms, func(r *record) bool {
				got, ok := lookup(r, key)
				if !ok {
					return false
				}
				c, ok := compare(got, arg)
				if !ok {
					return false
				}
				switch op {
				case "$lt":
					return c < 0
				case "$lte":
					return c <= 0
				case "$gt":
					return c > 0
				}
				return c >= 0
			})
			null(nil)
		case "$in", "$nin":
			list, ok := arg.([]any)
			if !ok {
				return clause{}, fmt.Errorf("store: bad %s value on %q: need an array", op, key)
			}
			in := op == "$in"
			if !arrayField && len(list) > 0 && !slices.ContainsFunc(list, func(v any) bool { return v != nil }) {
				return clause{}, fmt.Errorf("store: %s on %q holds only null (the PostgreSQL server refuses it too: it leaves null out of IN (...))", op, key)
			}
			ms = append(ms, func(r *record) bool {
				got, ok := lookup(r, key)
				if !ok || got == nil {
					// As on PostgreSQL: a missing field matches an empty $in or $nin ("IS NULL", "1 = 1"),
					// and is never in (or out of) a non-empty list: a null in the list is left out of
					// "col IN (...)" and is a JSON null element for array_contains.
					return len(list) == 0
				}
				if len(list) == 0 {
					return !in
				}
				if arr, isArr := got.([]any); isArr {
					hit := false
					for _, e := range arr {
						if contains(list, e) {
							hit = true
							break
						}
					}
					return hit == in
				}
				return contains(list, got) == in
			})
			switch {
			case len(list) == 0: // IS NULL, 1 = 1
			case dotted && in: // (col->'k')::jsonb @> list: a JSON null is not NULL there
				if tri {
					null(func(r *record) bool { _, ok := lookup(r, key); return !ok })
				}
			default: // col [NOT] IN (...), [NOT] array_contains(col, ...)
				null(nil)
			}
		case "$exists":
			want, ok := raw.(bool)
			if !ok {
				return clause{}, fmt.Errorf("store: $exists on %q needs true or false", key)
			}
			ms = append(ms, func(r *record) bool {
				got, ok := lookup(r, key)
				return (ok && got != nil) == want
			})
		case "$regex":
			pat, ok := raw.(string)
			if !ok {
				return clause{}, fmt.Errorf("store: $regex on %q needs a string", key)
			}
			opts, _ := cond["$options"].(string)
			match, err := regexMatcher(pat, opts)
			if err != nil {
				return clause{}, fmt.Errorf("store: bad $regex on %q: %w", key, err)
			}
			ms = append(ms, func(r *record) bool {
				got, ok := lookup(r, key)
				s, isStr := got.(string)
				return ok && isStr && match(s)
			})
			null(nil)
		case "$options":
			if _, ok := cond["$regex"]; !ok {
				return clause{}, fmt.Errorf("store: $options on %q without $regex", key)
			}
			if _, ok := raw.(string); !ok {
				return clause{}, fmt.Errorf("store: $options on %q needs a string", key)
			}
		case "$all":
			list, ok := raw.([]any)
			if !ok {
				return clause{}, fmt.Errorf("store: bad $all value on %q: need an array", key)
			}
			elems := make([]func(any) bool, 0, len(list))
			for _, e := range list {
				if m, ok := e.(map[string]any); ok && isCondition(m) {
					pat, ok := m["$regex"].(string)
					if !ok || len(m) > 2 {
						return clause{}, unsupported("$all element %v on %q", e, key)
					}
					opts, _ := m["$options"].(string)
					match, err := regexMatcher(pat, opts)
					if err != nil {
						return clause{}, fmt.Errorf("store: bad $regex in $all on %q: %w", key, err)
					}
					elems = append(elems, func(v any) bool { s, ok := v.(string); return ok && match(s) })
					continue
				}
				want := norm(e)
				elems = append(elems, func(v any) bool { return equal(v, want) })
			}
			ms = append(ms, func(r *record) bool {
				got, _ := lookup(r, key)
				arr, ok := got.([]any)
				if !ok {
					return false
				}
				for _, el := range elems {
					found := false
					for _, v := range arr {
						if el(v) {
							found = true
							break
						}
					}
					if !found {
						return false
					}
				}
				return true
			})
			null(nil) // array_contains_all[_regex], STRICT
		case "$containedBy":
			list, ok := arg.([]any)
			if !ok {
				return clause{}, fmt.Errorf("store: bad $containedBy value on %q: need an array", key)
			}
			ms = append(ms, func(r *record) bool {
				got, _ := lookup(r, key)
				arr, ok := got.([]any)
				if !ok {
					return false
				}
				for _, v := range arr {
					if !contains(list, v) {
						return false
					}
				}
				return true
			})
			null(nil) // col <@ list
		case "$nearSphere", "$maxDistance", "$maxDistanceInRadians", "$maxDistanceInKilometers", "$maxDistanceInMiles",
			"$within", "$geoWithin", "$geoIntersects":
			c, err := compileGeo(key, op, cond)
			if err != nil {
				return clause{}, err
			}
			if c.match != nil {
				geo = append(geo, c)
			}
		default:
			return clause{}, unsupported("operator %s on %q", op, key)
		}
	}
	if len(geo) == 0 && len(nulls) == 0 {
		return clause{match: func(r *record) bool {
			for _, m := range ms {
				if !m(r) {
					return false
				}
			}
			return true
		}}, nil
	}
	parts := make([]clause, 0, len(ms)+len(geo))
	for i, m := range ms {
		c := clause{match: m}
		if i < len(nulls) {
			c.unknown = nulls[i]
		}
		parts = append(parts, c)
	}
	return allOf(append(parts, geo...)), nil
}

// regexMatcher returns a function matching strings against a $regex. The patterns startsWith, endsWith and
// contains produce (^\Q...\E, \Q...\E$, \Q...\E, without options) are answered with plain string functions;
// everything else with a compiled regular expression.
func regexMatcher(pat, opts string) (func(string) bool, error) {
	if opts == "" {
		if lit, anchor, ok := quotedLiteral(pat); ok {
			switch anchor {
			case '^':
				return func(s string) bool { return strings.HasPrefix(s, lit) }, nil
			case '$':
				return func(s string) bool { return strings.HasSuffix(s, lit) }, nil
			default:
				return func(s string) bool { return strings.Contains(s, lit) }, nil
			}
		}
	}
	re, err := compileRegex(pat, opts)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// quotedLiteral recognises ^\Q...\E, \Q...\E$ and \Q...\E holding no \E inside, and returns the literal text
// and the anchor ('^', '$' or 0).
func quotedLiteral(pat string) (lit string, anchor byte, ok bool) {
	switch {
	case strings.HasPrefix(pat, "^"):
		anchor, pat = '^', pat[1:]
	case strings.HasSuffix(pat, `\E$`):
		anchor, pat = '$', pat[:len(pat)-1]
	}
	if !strings.HasPrefix(pat, `\Q`) || !strings.HasSuffix(pat, `\E`) || len(pat) < 4 {
		return "", 0, false
	}
	lit = pat[2 : len(pat)-2]
	if strings.Contains(lit, `\E`) {
		return "", 0, false
	}
	return lit, anchor, true
}

// compileRegex compiles a $regex with its $options the way the PostgreSQL adapter runs it: "i" makes it
// case-insensitive, "x" removes unescaped white space and # comments; as in PostgreSQL's regular expressions, "."
// also matches a newline and ^ and $ anchor the whole string ("m" and "s" change nothing there). \Q...\E quoting,
// which startsWith, endsWith and contains use, is understood.
func compileRegex(pat, opts string) (*regexp.Regexp, error) {
	for _, c := range opts {
		if !strings.ContainsRune("imxs", c) {
			return nil, fmt.Errorf("unknown $options flag %q", c)
		}
	}
	if strings.ContainsRune(opts, 'x') {
		pat = removeWhiteSpace(pat)
	}
	flags := "s"
	if strings.ContainsRune(opts, 'i') {
		flags += "i"
	}
	return regexp.Compile("(?" + flags + ")" + pat)
}

var (
	reComment     = regexp.MustCompile(`(?m)([^\\])#.*\n`)
	reLineComment = regexp.MustCompile(`(?m)^#.*\n`)
	reSpace       = regexp.MustCompile(`([^\\])\s+`)
	reLeadSpace   = regexp.MustCompile(`^\s+`)
)

// removeWhiteSpace is the "x" option: drop # comments and white space that is not escaped.
func removeWhiteSpace(s string) string {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	s = reComment.ReplaceAllString(s, "$1")
	s = reLineComment.ReplaceAllString(s, "")
	s = reSpace.ReplaceAllString(s, "$1")
	s = reLeadSpace.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// toInt reads a numeric query parameter.
func toInt(name string, v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		if x != float64(int(x)) {
			return 0, fmt.Errorf("store: %s must be a whole number, got %v", name, x)
		}
		return int(x), nil
	case json.Number:
		n, err := x.Int64()
		return int(n), err
	case string:
		n, err := strconv.Atoi(x)
		if err != nil {
			return 0, fmt.Errorf("store: %s must be a number, got %q", name, x)
		}
		return n, nil
	}
	return 0, fmt.Errorf("store: %s must be a number, got %T", name, v)
}
