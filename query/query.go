package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
)

// Query is a query on one class whose results decode into T: the client's object (*client.Object, which is
// *parse.Object), a map[string]any, or a struct of the caller's (decoded with the Parse codecs, so Date fields fill
// time.Time and Pointer/GeoPoint/File fields their wire types).
//
// Builder methods are copy-on-write: each returns a new *Query and never changes its receiver, so a query may be
// kept, reused and extended by several goroutines at once; a *Query is safe for concurrent use. Mistakes made
// while building (a bad key, a negative skip, a value that cannot be encoded) do not panic: they are kept in the
// query and returned, joined with errors.Join, by the call that runs or encodes it.
type Query[T any] struct {
	className string
	where     map[string]any // wire form, JSON-shaped values only; never mutated once shared
	include   []string
	keys      []string
	hasKeys   bool
	exclude   []string
	order     []string
	limit     int // -1: not set
	skip      int
	count     bool
	readPref  string
	inclPref  string
	subPref   string
	hint      any
	explain   bool
	redirect  string // redirectClassNameForKey: the server runs the query on this relation field's target class
	errs      []error
}

// New returns an empty query on className: no constraints, no order, no limit (the server's default of 100
// applies), skip 0, no count. An empty or malformed class name (letters, digits and underscores, not starting
// with a digit) is kept as an error wrapping ErrInvalidClassName ("A ParseQuery must be constructed with a
// ParseObject or class name.").
func New[T any](className string) *Query[T] {
	q := &Query[T]{className: className, where: map[string]any{}, limit: -1}
	if !validClassName(className) {
		q.errs = append(q.errs, fmt.Errorf("query: New(%q): %w", className, ErrInvalidClassName))
	}
	return q
}

// ClassName is the class the query runs on.
func (q *Query[T]) ClassName() string {
	if q == nil {
		return ""
	}
	return q.className
}

// Err returns the mistakes recorded while the query was built (nil when there are none), joined with errors.Join.
func (q *Query[T]) Err() error {
	if q == nil {
		return ErrNilQuery
	}
	return errors.Join(q.errs...)
}

// clone makes the copy that every builder method changes. Slices and the top-level where map are copied; the
// values inside where are never mutated in place, so sharing them is safe.
func (q *Query[T]) clone() *Query[T] {
	if q == nil {
		return &Query[T]{where: map[string]any{}, limit: -1, errs: []error{ErrNilQuery}}
	}
	c := *q
	c.where = maps.Clone(q.where)
	if c.where == nil {
		c.where = map[string]any{}
	}
	c.include = slices.Clone(q.include)
	c.keys = slices.Clone(q.keys)
	c.exclude = slices.Clone(q.exclude)
	c.order = slices.Clone(q.order)
	c.errs = slices.Clone(q.errs)
	return &c
}

// fail returns a copy of q carrying err.
func (q *Query[T]) fail(err error) *Query[T] {
	c := q.clone()
	c.errs = append(c.errs, err)
	return c
}

// Params returns the query's wire parameters (where, order, limit, skip, keys, excludeKeys, include, count,
// readPreference, includeReadPreference, subqueryReadPreference, hint, explain, redirectClassNameForKey), or the
// errors recorded while it was built. The map is fresh: the caller may change it.
func (q *Query[T]) Params() (map[string]any, error) {
	if q == nil {
		return nil, ErrNilQuery
	}
	if err := q.Err(); err != nil {
		return nil, err
	}
	return q.params(), nil
}

func (q *Query[T]) params() map[string]any {
	p := map[string]any{"where": deepCopy(q.where)}
	if len(q.include) > 0 {
		p["include"] = strings.Join(q.include, ",")
	}
	if len(q.exclude) > 0 {
		p["excludeKeys"] = strings.Join(q.exclude, ",")
	}
	if q.hasKeys {
		p["keys"] = strings.Join(q.keys, ",")
	}
	if q.count {
		p["count"] = 1
	}
	if q.limit >= 0 {
		p["limit"] = q.limit
	}
	if q.skip > 0 {
		p["skip"] = q.skip
	}
	if len(q.order) > 0 {
		p["order"] = strings.Join(q.order, ",")
	}
	if q.readPref != "" {
		p["readPreference"] = q.readPref
	}
	if q.inclPref != "" {
		p["includeReadPreference"] = q.inclPref
	}
	if q.subPref != "" {
		p["subqueryReadPreference"] = q.subPref
	}
	if q.hint != nil {
		p["hint"] = deepCopy(q.hint)
	}
	if q.explain {
		p["explain"] = true
	}
	if q.redirect != "" {
		p["redirectClassNameForKey"] = q.redirect
	}
	return p
}

// Request returns the find request the query sends (Op "find"). Explain sets UseMasterKey, as the server requires.
func (q *Query[T]) Request() (*parse.QueryRequest, error) {
	p, err := q.Params()
	if err != nil {
		return nil, err
	}
	return &parse.QueryRequest{ClassName: q.className, Op: OpFind, Params: p, UseMasterKey: q.explain, PreferObjects: wantsObjects[T]()}, nil
}

// MarshalJSON writes the query's wire parameters (the form FromJSON reads back), or fails with the errors recorded
// while it was built.
func (q *Query[T]) MarshalJSON() ([]byte, error) {
	p, err := q.Params()
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// String renders the query's wire parameters as JSON, or the build errors; for logs and debugging.
func (q *Query[T]) String() string {
	b, err := q.MarshalJSON()
	if err != nil {
		return "query error: " + err.Error()
	}
	return q.ClassName() + " " + string(b)
}

// Subquery is a query used inside another (MatchesQuery, MatchesKeyInQuery, ...). Every *Query[T] is one,
// whatever its T.
type Subquery interface {
	// ClassName is the class the subquery runs on.
	ClassName() string
	subqueryJSON() (map[string]any, error)
}

func (q *Query[T]) subqueryJSON() (map[string]any, error) {
	p, err := q.Params()
	if err != nil {
		return nil, err
	}
	p["className"] = q.className
	return p, nil
}

// Operation names of a Request.
const (
	// OpFind is a find on classes/{ClassName}.
	OpFind = "find"
	// OpAggregate is a call on aggregate/{ClassName} (distinct and pipelines).
	OpAggregate = "aggregate"
)

var (
	classNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	keyRe       = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$`)
)

// specialKeys are top-level where keys that do not follow the field-name rule.
var specialKeys = map[string]bool{
	"$and": true, "$or": true, "$nor": true, "$relatedTo": true,
	"_rperm": true, "_wperm": true, "_perishable_token": true, "_email_verify_token": true,
	"_email_verify_token_expires_at": true, "_account_lockout_expires_at": true, "_failed_login_count": true,
}

func validClassName(c string) bool { return classNameRe.MatchString(c) }

// validKey reports whether k names a field a query may use: a letter, then letters, digits and underscores, with
// dots for sub-fields of objects.
func validKey(k string) bool { return len(k) <= 1024 && keyRe.MatchString(k) }

// keyErr is the error for an unusable key name.
func keyErr(call, key string) error {
	return fmt.Errorf("query: %s: %w: %q", call, ErrInvalidKey, key)
}

// normalize encodes a Go value with parse.Encode and then reduces it to plain JSON values (maps, []any, float64,
// string, bool, nil) by a JSON round trip, so the where map holds nothing the caller can mutate later and the
// local store sees the same shapes the server would.
func normalize(v any) (any, error) {
	ev, err := parse.Encode(v)
	if err != nil {
		return nil, err
	}
	switch x := ev.(type) {
	case nil, string, bool, float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// deepCopy copies JSON-shaped values so callers of Params may change what they get.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// wantsObjects reports whether results decode into the client's objects, so a runner may hand them over decoded.
func wantsObjects[T any]() bool {
	var zero T
	switch any(&zero).(type) {
	case **parse.Object, *parse.Object:
		return true
	}
	return false
}
