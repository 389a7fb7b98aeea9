package live

import (
	"fmt"
	"regexp"
	"strings"
)

// Bounds on the where of a browser's live query (NewSSEHandler). parse-server evaluates every subscription's
// where against every saved object of its class, on its one event loop, so a where is work done for everyone.
const (
	// DefaultMaxRegexLength bounds each $regex pattern when SSEConfig.AllowRegex is on.
	DefaultMaxRegexLength = 32
	maxRegexes            = 4   // $regex constraints per where, when allowed
	maxUnboundedQuant     = 2   // *, + and {n,} per pattern
	maxWhereDepth         = 4   // nesting of $or / $and / $nor
	maxClauses            = 16  // entries of one $or / $and / $nor
	maxConstraints        = 64  // field constraints in the whole where
	maxListLength         = 256 // elements of an $in / $nin / $all / $containedBy list
)

// whereOps are the operators a browser's where may use on a field. Others ($regex unless allowed, $text,
// $select, $inQuery, $relatedTo, geo queries, ...) are refused, not ignored.
var whereOps = map[string]bool{
	"$eq": true, "$ne": true, "$lt": true, "$lte": true, "$gt": true, "$gte": true,
	"$in": true, "$nin": true, "$all": true, "$containedBy": true, "$exists": true,
}

var fieldNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}(\.[A-Za-z0-9_]{1,128}){0,3}$`)

// whereLimits is the policy checkWhere applies.
type whereLimits struct {
	allowRegex     bool
	maxRegexLength int
}

type whereCheck struct {
	whereLimits
	constraints, regexes int
}

// WhereError is a where a browser may not subscribe with; its text says why and is safe to show.
type WhereError struct{ Reason string }

func (e *WhereError) Error() string { return "live: where: " + e.Reason }

func refuseWhere(format string, args ...any) error {
	return &WhereError{Reason: fmt.Sprintf(format, args...)}
}

// checkWhere accepts a where made of field names, equality values and the operators of whereOps (plus $regex and
// $options when allowed), combined with $or, $and and $nor, within the bounds above.
func checkWhere(where map[string]any, lim whereLimits) error {
	c := &whereCheck{whereLimits: lim}
	return c.query(where, 0)
}

func (c *whereCheck) query(q map[string]any, depth int) error {
	for key, v := range q {
		switch key {
		case "$or", "$and", "$nor":
			if depth >= maxWhereDepth {
				return refuseWhere("%s nested deeper than %d", key, maxWhereDepth)
			}
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return refuseWhere("%s needs a non-empty array of queries", key)
			}
			if len(list) > maxClauses {
				return refuseWhere("%s has more than %d queries", key, maxClauses)
			}
			for _, sub := range list {
				m, ok := sub.(map[string]any)
				if !ok {
					return refuseWhere("%s needs a non-empty array of queries", key)
				}
				if err := c.query(m, depth+1); err != nil {
					return err
				}
			}
		default:
			if strings.HasPrefix(key, "$") {
				return refuseWhere("operator %s is not allowed here", shorten(key))
			}
			if !fieldNameRE.MatchString(key) {
				return refuseWhere("invalid field name %q", shorten(key))
			}
			if c.constraints++; c.constraints > maxConstraints {
				return refuseWhere("more than %d constraints", maxConstraints)
			}
			if err := c.constraint(key, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// constraint checks the value a field is matched against: a scalar, a typed value ({"__type": ...}) or a map of
// operators.
func (c *whereCheck) constraint(field string, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		if !scalar(v) {
			return refuseWhere("%s: a value must be a string, number, boolean or null", field)
		}
		return nil
	}
	if _, typed := m["__type"]; typed {
		return typedValue(field, m)
	}
	if len(m) == 0 {
		return refuseWhere("%s: empty constraint", field)
	}
	for op, arg := range m {
		switch {
		case op == "$regex":
			if err := c.regex(field, arg, m["$options"]); err != nil {
				return err
			}
		case op == "$options":
			if _, has := m["$regex"]; !has {
				return refuseWhere("%s: $options without $regex", field)
			}
		case !whereOps[op]:
			return refuseWhere("%s: operator %s is not allowed", field, shorten(op))
		case op == "$exists":
			if _, ok := arg.(bool); !ok {
				return refuseWhere("%s: $exists needs true or false", field)
			}
		case op == "$in" || op == "$nin" || op == "$all" || op == "$containedBy":
			list, ok := arg.([]any)
			if !ok {
				return refuseWhere("%s: %s needs an array", field, op)
			}
			if len(list) > maxListLength {
				return refuseWhere("%s: %s has more than %d values", field, op, maxListLength)
			}
			for _, e := range list {
				if err := operand(field, op, e); err != nil {
					return err
				}
			}
		default:
			if err := operand(field, op, arg); err != nil {
				return err
			}
		}
	}
	return nil
}

func operand(field, op string, v any) error {
	if m, ok := v.(map[string]any); ok {
		if _, typed := m["__type"]; typed {
			return typedValue(field, m)
		}
	}
	if !scalar(v) {
		return refuseWhere("%s: %s needs a string, number, boolean, null or typed value", field, op)
	}
	return nil
}

func scalar(v any) bool {
	switch v.(type) {
	case nil, string, float64, bool:
		return true
	}
	return false
}

// typedValue accepts the Parse value types a where can compare with: Pointer, Date, GeoPoint, with scalar members.
func typedValue(field string, m map[string]any) error {
	switch m["__type"] {
	case "Pointer", "Date", "GeoPoint":
	default:
		return refuseWhere("%s: unsupported __type", field)
	}
	for k, v := range m {
		if strings.HasPrefix(k, "$") || !scalar(v) {
			return refuseWhere("%s: malformed %v value", field, m["__type"])
		}
	}
	return nil
}

// regex applies the opt-in $regex policy: allowed at all, few per where, short, no options but i, m and s, and
// no construct that makes a backtracking engine (JavaScript's, in parse-server) take exponential time: a
// quantified group that holds a quantifier or an alternation ((a+)+, (a|a)*), backreferences, lookaround; and at
// most two unbounded quantifiers, so the polynomial blow-up of a*a*a*a*b stays small.
func (c *whereCheck) regex(field string, pat, opts any) error {
	if !c.allowRegex {
		return refuseWhere("%s: $regex is not allowed", field)
	}
	if c.regexes++; c.regexes > maxRegexes {
		return refuseWhere("more than %d $regex constraints", maxRegexes)
	}
	s, ok := pat.(string)
	if !ok {
		return refuseWhere("%s: $regex needs a string", field)
	}
	if len(s) > c.maxRegexLength {
		return refuseWhere("%s: $regex longer than %d bytes", field, c.maxRegexLength)
	}
	if opts != nil {
		o, ok := opts.(string)
		if !ok || strings.Trim(o, "ims") != "" {
			return refuseWhere("%s: $options may only hold i, m and s", field)
		}
	}
	if reason := unsafeRegex(s); reason != "" {
		return refuseWhere("%s: $regex %s", field, reason)
	}
	return nil
}

// unsafeRegex returns why a pattern is refused, or "".
func unsafeRegex(p string) string {
	type group struct{ quant, alt bool }
	stack := []group{{}}
	unbounded := 0
	// quantifierAt reports the quantifier starting at p[i] ("" if none) and whether it is unbounded.
	quantifierAt := func(i int) (string, bool) {
		if i >= len(p) {
			return "", false
		}
		switch p[i] {
		case '*', '+':
			return p[i : i+1], true
		case '?':
			return "?", false
		case '{':
			j := strings.IndexByte(p[i:], '}')
			if j < 0 {
				return "", false
			}
			body := p[i+1 : i+j]
			if body == "" || strings.Trim(body, "0123456789,") != "" || body[0] == ',' {
				return "", false
			}
			return p[i : i+j+1], strings.HasSuffix(body, ",")
		}
		return "", false
	}
	for i := 0; i < len(p); i++ {
		switch ch := p[i]; ch {
		case '\\':
			if i+1 < len(p) && (p[i+1] >= '1' && p[i+1] <= '9' || p[i+1] == 'k') {
				return "uses a backreference"
			}
			i++
		case '[':
			// Skip the class: ']' right after '[' or '[^' is a member; escapes are skipped.
			j := i + 1
			if j < len(p) && p[j] == '^' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '(':
			if strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
				strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!") {
				return "uses lookaround"
			}
			stack = append(stack, group{})
			switch {
			case strings.HasPrefix(p[i:], "(?:"):
				i += 2
			case strings.HasPrefix(p[i:], "(?<"):
				j := strings.IndexByte(p[i:], '>')
				if j < 0 {
					return "has a malformed group name"
				}
				i += j
			case strings.HasPrefix(p[i:], "(?"):
				return "uses an unsupported group"
			}
		case ')':
			if len(stack) == 1 {
				return "has an unbalanced parenthesis"
			}
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			q, unb := quantifierAt(i + 1)
			if q != "" {
				if g.quant || g.alt {
					return "repeats a group that holds a quantifier or an alternation"
				}
				if unb {
					unbounded++
				}
				g.quant = true
				i += len(q)
				if i+1 < len(p) && p[i+1] == '?' { // lazy
					i++
				}
			}
			if g.quant {
				stack[len(stack)-1].quant = true
			}
		case '|':
			stack[len(stack)-1].alt = true
		default:
			if q, unb := quantifierAt(i); q != "" && i > 0 {
				stack[len(stack)-1].quant = true
				if unb {
					unbounded++
				}
				i += len(q) - 1
				if i+1 < len(p) && p[i+1] == '?' {
					i++
				}
			}
		}
		if unbounded > maxUnboundedQuant {
			return fmt.Sprintf("has more than %d unbounded quantifiers", maxUnboundedQuant)
		}
	}
	if len(stack) != 1 {
		return "has an unbalanced parenthesis"
	}
	return ""
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
