package query

import (
	"fmt"
	"sort"
	"strings"
)

// splitKeys turns "a, b" and "c" into [a b c], removing white space as the original client does.
func splitKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		k = strings.Join(strings.Fields(k), "")
		for _, p := range strings.Split(k, ",") {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// validOrderKey accepts a field name, $score (full-text relevance) and the server's _created_at/_updated_at.
func validOrderKey(k string) bool {
	return validKey(k) || k == "$score" || k == "_created_at" || k == "_updated_at"
}

func (q *Query[T]) setOrder(call string, reset bool, prefix string, keys []string) *Query[T] {
	c := q.clone()
	if reset {
		c.order = nil
	}
	for _, k := range splitKeys(keys) {
		if !validOrderKey(k) {
			c.errs = append(c.errs, keyErr(call, k))
			continue
		}
		c.order = append(c.order, prefix+k)
	}
	return c
}

// Ascending sorts by keys, ascending, replacing any earlier order. Each key may also be a comma-separated list.
func (q *Query[T]) Ascending(keys ...string) *Query[T] {
	return q.setOrder("Ascending", true, "", keys)
}

// AddAscending adds keys, ascending, after the current order.
func (q *Query[T]) AddAscending(keys ...string) *Query[T] {
	return q.setOrder("AddAscending", false, "", keys)
}

// Descending sorts by keys, descending, replacing any earlier order.
func (q *Query[T]) Descending(keys ...string) *Query[T] {
	return q.setOrder("Descending", true, "-", keys)
}

// AddDescending adds keys, descending, after the current order.
func (q *Query[T]) AddDescending(keys ...string) *Query[T] {
	return q.setOrder("AddDescending", false, "-", keys)
}

// Skip skips the first n results (default 0). A negative n is an error ("You can only skip by a positive
// number").
func (q *Query[T]) Skip(n int) *Query[T] {
	if n < 0 {
		return q.fail(fmt.Errorf("query: Skip(%d): %w", n, ErrSkip))
	}
	c := q.clone()
	c.skip = n
	return c
}

// Limit caps the number of results at n. Without a limit the server returns at most 100; 0 asks for none (useful
// with WithCount); a negative n removes the limit, as in the original client.
func (q *Query[T]) Limit(n int) *Query[T] {
	c := q.clone()
	if n < 0 {
		n = -1
	}
	c.limit = n
	return c
}

// WithCount asks the server for the total number of matches, regardless of skip and limit (count=1); FindWithCount
// returns it.
func (q *Query[T]) WithCount(on bool) *Query[T] {
	c := q.clone()
	c.count = on
	return c
}

func (q *Query[T]) keyList(call string, keys []string, allowStar, allowScore bool) ([]string, []error) {
	var out []string
	var errs []error
	for _, k := range splitKeys(keys) {
		if validKey(k) || (allowStar && k == "*") || (allowScore && k == "$score") {
			out = append(out, k)
			continue
		}
		errs = append(errs, keyErr(call, k))
	}
	return out, errs
}

// Include fetches the objects that the Pointer fields keys point to, in the same request. Dots reach further
// ("post.author"); "*" includes every pointer at the first level.
func (q *Query[T]) Include(keys ...string) *Query[T] {
	ks, errs := q.keyList("Include", keys, true, false)
	c := q.clone()
	c.include = append(c.include, ks...)
	c.errs = append(c.errs, errs...)
	return c
}

// IncludeAll includes every Pointer field (Include("*")).
func (q *Query[T]) IncludeAll() *Query[T] { return q.Include("*") }

// Select restricts the returned fields to keys (plus objectId, createdAt, updatedAt and ACL, which always come).
// Calls add up. Select with no keys asks for no fields besides those.
func (q *Query[T]) Select(keys ...string) *Query[T] {
	ks, errs := q.keyList("Select", keys, false, true)
	c := q.clone()
	c.hasKeys = true
	c.keys = append(c.keys, ks...)
	c.errs = append(c.errs, errs...)
	return c
}

// Exclude leaves keys out of the returned objects (excludeKeys). It wins over Select and Include.
func (q *Query[T]) Exclude(keys ...string) *Query[T] {
	ks, errs := q.keyList("Exclude", keys, false, false)
	c := q.clone()
	c.exclude = append(c.exclude, ks...)
	c.errs = append(c.errs, errs...)
	return c
}

// Read preferences (MongoDB replica sets; PostgreSQL ignores them).
const (
	Primary            = "PRIMARY"
	PrimaryPreferred   = "PRIMARY_PREFERRED"
	Secondary          = "SECONDARY"
	SecondaryPreferred = "SECONDARY_PREFERRED"
	Nearest            = "NEAREST"
)

var readPrefs = map[string]bool{Primary: true, PrimaryPreferred: true, Secondary: true, SecondaryPreferred: true, Nearest: true}

func validReadPref(p string) bool { return p == "" || readPrefs[p] }

// ReadPreference sets the read preference of the query, of the queries that fetch included objects, and of
// subqueries (each one of Primary, PrimaryPreferred, Secondary, SecondaryPreferred, Nearest; "" leaves it unset).
func (q *Query[T]) ReadPreference(readPref, includeReadPref, subqueryReadPref string) *Query[T] {
	c := q.clone()
	for _, p := range []string{readPref, includeReadPref, subqueryReadPref} {
		if !validReadPref(p) {
			c.errs = append(c.errs, fmt.Errorf("query: ReadPreference(%q): %w", p, ErrReadPreference))
		}
	}
	c.readPref, c.inclPref, c.subPref = readPref, includeReadPref, subqueryReadPref
	return c
}

// Hint tells the database which index to use: an index name (string) or an index specification (a map). nil
// removes it.
func (q *Query[T]) Hint(index any) *Query[T] {
	if index == nil {
		c := q.clone()
		c.hint = nil
		return c
	}
	v, err := normalize(index)
	if err != nil {
		return q.fail(fmt.Errorf("query: Hint: %w", err))
	}
	switch v.(type) {
	case string, map[string]any:
	default:
		return q.fail(fmt.Errorf("query: Hint: an index name or specification is needed, got %T", index))
	}
	c := q.clone()
	c.hint = v
	return c
}

// Explain asks the server for the query plan instead of the results. It needs the master key, which the request
// then asks for; decode the results into map[string]any.
func (q *Query[T]) Explain(on bool) *Query[T] {
	c := q.clone()
	c.explain = on
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
