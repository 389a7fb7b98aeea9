package query

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
)

// Earth radii used to turn distances into radians, as the original client does.
const (
	EarthRadiusKilometers = 6371.0
	EarthRadiusMiles      = 3958.8
)

// setEqual sets where[key] to an encoded value.
func (q *Query[T]) setEqual(call, key string, value any) *Query[T] {
	if !validKey(key) {
		return q.fail(keyErr(call, key))
	}
	v, err := normalize(value)
	if err != nil {
		return q.fail(fmt.Errorf("query: %s(%q): %w", call, key, err))
	}
	if err := checkPlainValue(call, key, v); err != nil {
		return q.fail(err)
	}
	c := q.clone()
	c.where[key] = v
	return c
}

// checkPlainValue refuses a compared value that is a map of $-operators: the server would read it as
// constraints, not as a value (a caller passing user input must not be able to inject operators).
func checkPlainValue(call, key string, v any) error {
	if m, ok := v.(map[string]any); ok && hasOperator(m) {
		return fmt.Errorf("query: %s(%q): the value is a map of $-operators; use the constraint methods", call, key)
	}
	return nil
}

// valueCondition is addCondition for a caller's value compared with op ($ne, $lt, ...).
func (q *Query[T]) valueCondition(call, key, op string, value any) *Query[T] {
	if !validKey(key) {
		return q.fail(keyErr(call, key))
	}
	v, err := normalize(value)
	if err != nil {
		return q.fail(fmt.Errorf("query: %s(%q): %w", call, key, err))
	}
	if err := checkPlainValue(call, key, v); err != nil {
		return q.fail(err)
	}
	return q.addRaw(key, op, v)
}

// addCondition adds {op: value} to the condition map of key, encoding value with parse.Encode. An equality
// already set on the key is replaced by the condition map.
func (q *Query[T]) addCondition(call, key, op string, value any) *Query[T] {
	if !validKey(key) {
		return q.fail(keyErr(call, key))
	}
	v, err := normalize(value)
	if err != nil {
		return q.fail(fmt.Errorf("query: %s(%q): %w", call, key, err))
	}
	return q.addRaw(key, op, v)
}

// addRaw adds an already JSON-shaped condition; the key's condition map is copied, never changed in place.
func (q *Query[T]) addRaw(key, op string, v any) *Query[T] {
	c := q.clone()
	cond := map[string]any{}
	if m, ok := c.where[key].(map[string]any); ok && isConditionMap(m) {
		cond = maps.Clone(m)
	}
	cond[op] = v
	c.where[key] = cond
	return c
}

// isConditionMap reports whether m is a map of $-operators rather than an encoded value (Pointer, Date, ...) or an
// object used for equality.
func isConditionMap(m map[string]any) bool {
	if _, typed := m["__type"]; typed {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			return false
		}
	}
	return true
}

// asList checks that values is a slice or array and returns it as []any.
func asList(call string, values any) ([]any, error) {
	if values == nil {
		return nil, fmt.Errorf("query: %s: values must be a slice, got nil", call)
	}
	if l, ok := values.([]any); ok {
		return l, nil
	}
	rv := reflect.ValueOf(values)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("query: %s: values must be a slice, got %T", call, values)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

func (q *Query[T]) listCondition(call, key, op string, values any) *Query[T] {
	l, err := asList(call, values)
	if err != nil {
		return q.fail(err)
	}
	return q.addCondition(call, key, op, l)
}

// EqualTo requires key to equal value. value is encoded with the Parse codecs: a time.Time is a Date, a saved
// *client.Object or a Pointer matches that object, a GeoPoint, File, ... their wire form. It replaces any earlier
// constraint on key. (On PostgreSQL, equality against an array field is answered with a server error; use
// ContainsAll or ContainedIn there.)
func (q *Query[T]) EqualTo(key string, value any) *Query[T] { return q.setEqual("EqualTo", key, value) }

// NotEqualTo requires key not to equal value ($ne).
func (q *Query[T]) NotEqualTo(key string, value any) *Query[T] {
	return q.valueCondition("NotEqualTo", key, "$ne", value)
}

// LessThan requires key to be less than value ($lt).
func (q *Query[T]) LessThan(key string, value any) *Query[T] {
	return q.valueCondition("LessThan", key, "$lt", value)
}

// LessThanOrEqualTo requires key to be at most value ($lte).
func (q *Query[T]) LessThanOrEqualTo(key string, value any) *Query[T] {
	return q.valueCondition("LessThanOrEqualTo", key, "$lte", value)
}

// GreaterThan requires key to be greater than value ($gt).
func (q *Query[T]) GreaterThan(key string, value any) *Query[T] {
	return q.valueCondition("GreaterThan", key, "$gt", value)
}

// GreaterThanOrEqualTo requires key to be at least value ($gte).
func (q *Query[T]) GreaterThanOrEqualTo(key string, value any) *Query[T] {
	return q.valueCondition("GreaterThanOrEqualTo", key, "$gte", value)
}

// ContainedIn requires key's value to be one of values ($in); values is any slice or array ([]string, []any,
// []int, ...). For an array field it matches when any element is in values.
func (q *Query[T]) ContainedIn(key string, values any) *Query[T] {
	return q.listCondition("ContainedIn", key, "$in", values)
}

// NotContainedIn requires key's value to be none of values ($nin); values is any slice or array.
func (q *Query[T]) NotContainedIn(key string, values any) *Query[T] {
	return q.listCondition("NotContainedIn", key, "$nin", values)
}

// ContainedBy requires every element of the array field key to be in values ($containedBy).
func (q *Query[T]) ContainedBy(key string, values any) *Query[T] {
	return q.listCondition("ContainedBy", key, "$containedBy", values)
}

// ContainsAll requires the array field key to contain every one of values ($all).
func (q *Query[T]) ContainsAll(key string, values any) *Query[T] {
	return q.listCondition("ContainsAll", key, "$all", values)
}

// ContainsAllStartingWith requires the array field key to hold, for each prefix, an element starting with it
// ($all of anchored, quoted $regex). parse-server on PostgreSQL counts the elements that match any prefix and
// compares that count with the number of prefixes, so one prefix that two elements start with does not match.
func (q *Query[T]) ContainsAllStartingWith(key string, prefixes ...string) *Query[T] {
	regs := make([]any, len(prefixes))
	for i, p := range prefixes {
		regs[i] = map[string]any{"$regex": regexStartsWith(p)}
	}
	if !validKey(key) {
		return q.fail(keyErr("ContainsAllStartingWith", key))
	}
	return q.addRaw(key, "$all", regs)
}

// Exists requires key to be set ($exists: true).
func (q *Query[T]) Exists(key string) *Query[T] {
	return q.addCondition("Exists", key, "$exists", true)
}

// DoesNotExist requires key to be unset ($exists: false).
func (q *Query[T]) DoesNotExist(key string) *Query[T] {
	return q.addCondition("DoesNotExist", key, "$exists", false)
}

// Matches requires the string field key to match the regular expression pattern ($regex), with modifiers
// ($options, any of i, m, x and s; empty for none). The pattern is evaluated by the server's database (PCRE on
// MongoDB, POSIX on PostgreSQL), not by Go's regexp.
func (q *Query[T]) Matches(key, pattern, modifiers string) *Query[T] {
	if modifiers != "" && !validRegexOptions(modifiers) {
		return q.fail(fmt.Errorf("query: Matches(%q): Bad $options value for query: %s", key, modifiers))
	}
	q = q.addCondition("Matches", key, "$regex", pattern)
	if modifiers != "" {
		q = q.addCondition("Matches", key, "$options", modifiers)
	}
	return q
}

func validRegexOptions(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("imxs", r) {
			return false
		}
	}
	return true
}

// quote turns s into a regular expression that matches it literally (\Q...\E, with any \E inside escaped).
func quote(s string) string {
	return `\Q` + strings.ReplaceAll(s, `\E`, `\E\\E\Q`) + `\E`
}

func regexStartsWith(s string) string { return "^" + quote(s) }

// Contains requires the string field key to contain substring ($regex of the quoted text; slow on big classes).
func (q *Query[T]) Contains(key, substring string) *Query[T] {
	return q.addCondition("Contains", key, "$regex", quote(substring))
}

// StartsWith requires the string field key to start with prefix (an anchored $regex, which can use an index).
func (q *Query[T]) StartsWith(key, prefix string) *Query[T] {
	return q.addCondition("StartsWith", key, "$regex", regexStartsWith(prefix))
}

// EndsWith requires the string field key to end with suffix.
func (q *Query[T]) EndsWith(key, suffix string) *Query[T] {
	return q.addCondition("EndsWith", key, "$regex", quote(suffix)+"$")
}

// TextOption is an option of FullText; make them with WithLanguage, WithCaseSensitive and WithDiacriticSensitive
// (or TextOptionsFromMap for untyped input).
type TextOption struct {
	name  string
	value any
}

// WithLanguage sets the language that decides stop words and stemming ($language).
func WithLanguage(lang string) TextOption { return TextOption{name: "language", value: lang} }

// WithCaseSensitive turns case-sensitive search on or off ($caseSensitive). PostgreSQL refuses true.
func WithCaseSensitive(on bool) TextOption { return TextOption{name: "caseSensitive", value: on} }

// WithDiacriticSensitive turns diacritic-sensitive search on or off ($diacriticSensitive). PostgreSQL without the
// unaccent extension refuses false.
func WithDiacriticSensitive(on bool) TextOption {
	return TextOption{name: "diacriticSensitive", value: on}
}

// TextOptionsFromMap reads full-text options from untyped input (language: string, caseSensitive and
// diacriticSensitive: bool). Any other name gives an *UnknownOptionError ("Unknown option: {option}").
func TextOptionsFromMap(m map[string]any) ([]TextOption, error) {
	var out []TextOption
	for _, name := range sortedKeys(m) {
		v := m[name]
		switch name {
		case "language":
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("query: fullText option language must be a string, got %T", v)
			}
			out = append(out, WithLanguage(s))
		case "caseSensitive", "diacriticSensitive":
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("query: fullText option %s must be a boolean, got %T", name, v)
			}
			out = append(out, TextOption{name: name, value: b})
		default:
			return nil, &UnknownOptionError{Option: name}
		}
	}
	return out, nil
}

// FullText requires the string field key to match the full-text search term ($text: {$search: {$term, ...}}).
// Sort by relevance with SortByTextScore. parse-server on PostgreSQL reads the term as tsquery syntax ("a | b" is
// either word) and refuses WithCaseSensitive(true); see those options.
func (q *Query[T]) FullText(key, term string, opts ...TextOption) *Query[T] {
	if key == "" {
		return q.fail(fmt.Errorf("query: FullText: %w", ErrKeyRequired))
	}
	if term == "" {
		return q.fail(fmt.Errorf("query: FullText(%q): %w", key, ErrSearchTermRequired))
	}
	search := map[string]any{"$term": term}
	for _, o := range opts {
		switch o.name {
		case "language", "caseSensitive", "diacriticSensitive":
			search["$"+o.name] = o.value
		default:
			return q.fail(fmt.Errorf("query: FullText(%q): %w", key, &UnknownOptionError{Option: o.name}))
		}
	}
	return q.addCondition("FullText", key, "$text", map[string]any{"$search": search})
}

// SortByTextScore orders by the full-text score and selects it ($score), for use with FullText.
func (q *Query[T]) SortByTextScore() *Query[T] {
	return q.Ascending("$score").Select("$score")
}

// Near requires the GeoPoint field key to be near point, and sorts by distance ($nearSphere).
func (q *Query[T]) Near(key string, point parse.GeoPoint) *Query[T] {
	return q.addCondition("Near", key, "$nearSphere", point)
}

// WithinRadians requires the GeoPoint field key to be within maxDistance radians of point. When sorted is true
// the results come nearest first ($nearSphere with $maxDistance); when false they are not sorted ($geoWithin
// with $centerSphere), which is cheaper.
func (q *Query[T]) WithinRadians(key string, point parse.GeoPoint, maxDistance float64, sorted bool) *Query[T] {
	if sorted {
		return q.Near(key, point).addCondition("WithinRadians", key, "$maxDistance", maxDistance)
	}
	if err := point.Validate(); err != nil {
		return q.fail(fmt.Errorf("query: WithinRadians(%q): %w", key, err))
	}
	return q.addCondition("WithinRadians", key, "$geoWithin", map[string]any{
		"$centerSphere": []any{[]any{point.Longitude, point.Latitude}, maxDistance},
	})
}

// WithinKilometers is WithinRadians with the distance in kilometres (earth radius 6371 km).
func (q *Query[T]) WithinKilometers(key string, point parse.GeoPoint, maxDistance float64, sorted bool) *Query[T] {
	return q.WithinRadians(key, point, maxDistance/EarthRadiusKilometers, sorted)
}

// WithinMiles is WithinRadians with the distance in miles (earth radius 3958.8 miles).
func (q *Query[T]) WithinMiles(key string, point parse.GeoPoint, maxDistance float64, sorted bool) *Query[T] {
	return q.WithinRadians(key, point, maxDistance/EarthRadiusMiles, sorted)
}

// WithinGeoBox requires the GeoPoint field key to lie in the box from southwest to northeast, edges included
// ($within $box).
func (q *Query[T]) WithinGeoBox(key string, southwest, northeast parse.GeoPoint) *Query[T] {
	return q.addCondition("WithinGeoBox", key, "$within", map[string]any{"$box": []any{southwest, northeast}})
}

// WithinPolygon requires the GeoPoint field key to lie within, or on the edge of, the polygon through points
// (at least three; the path is closed for you) ($geoWithin $polygon). Each point is a parse.GeoPoint (or a
// *parse.GeoPoint) or a bare pair of numbers ([2]float64, []float64, []any of two numbers); or pass the whole list
// as the one argument: []parse.GeoPoint, [][2]float64, [][]float64, []any or a parse.Polygon.
//
// Pairs are sent as given, as moralis-v1's withinPolygon sends them, and the server reads a bare pair as
// [longitude, latitude] (x, y): [2.35, 48.86] is Paris. GeoPoints are sent as GeoPoints, which the server reads by
// their names. A parse.Polygon is sent as its GeoPoints, so its [latitude, longitude] pairs mean what they mean
// in a Polygon field (moralis-v1 would send the Polygon itself, whose pairs the server then reads as
// [longitude, latitude]: the transposed shape).
//
// Points are checked as the server checks them (a pair's second number is the latitude), and mistakes are kept
// with the original client's texts ("Coordinates must be an Array of GeoPoints or Points", "Polygon must have at
// least 3 GeoPoints or Points", "GeoPoint latitude out of bounds: 91 > 90.0.").
func (q *Query[T]) WithinPolygon(key string, points ...any) *Query[T] {
	var coords any = points
	if len(points) == 1 && isPointList(points[0]) {
		coords = points[0]
	}
	ps, err := polygonVertices(coords)
	if err != nil {
		return q.fail(fmt.Errorf("query: WithinPolygon(%q): %w", key, err))
	}
	return q.addCondition("WithinPolygon", key, "$geoWithin", map[string]any{"$polygon": ps})
}

// polygonVertices reads WithinPolygon's points into their wire form: a GeoPoint stays a GeoPoint, a pair of
// numbers stays the pair [x, y] = [longitude, latitude], checked as the server checks it.
func polygonVertices(coords any) ([]any, error) {
	switch x := coords.(type) {
	case parse.Polygon:
		coords = x.Coordinates
	case *parse.Polygon:
		if x == nil {
			return nil, parse.ErrCoordinatesNotArray
		}
		coords = x.Coordinates
	}
	rv := reflect.ValueOf(coords)
	if !rv.IsValid() || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, parse.ErrCoordinatesNotArray
	}
	if rv.Len() < 3 {
		return nil, parse.ErrPolygonTooSmall
	}
	out := make([]any, rv.Len())
	for i := range rv.Len() {
		v, err := polygonVertex(rv.Index(i).Interface())
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// polygonVertex reads one point of WithinPolygon: a GeoPoint (or its decoded wire form) or a pair of numbers.
func polygonVertex(v any) (any, error) {
	switch x := v.(type) {
	case parse.GeoPoint:
		return x, x.Validate()
	case *parse.GeoPoint:
		if x == nil {
			return nil, parse.ErrCoordinatesNotPoints
		}
		return *x, x.Validate()
	case map[string]any:
		g, ok := parse.Decode(x).(parse.GeoPoint)
		if !ok {
			return nil, parse.ErrCoordinatesNotPoints
		}
		return g, g.Validate()
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array || rv.Len() != 2 {
		return nil, parse.ErrCoordinatesNotPoints
	}
	lng, ok1 := number(rv.Index(0).Interface())
	lat, ok2 := number(rv.Index(1).Interface())
	if !ok1 || !ok2 {
		return nil, parse.ErrGeoPointNotNumber
	}
	// The server checks a bare pair as Parse.GeoPoint(latitude: pair[1], longitude: pair[0]).
	if _, err := parse.NewGeoPoint(lat, lng); err != nil {
		return nil, err
	}
	return []any{lng, lat}, nil
}

// isPointList reports whether v, given as WithinPolygon's only argument, is the whole list of points rather than
// one point: a Polygon, or a slice or array whose members are not numbers (a pair's members are).
func isPointList(v any) bool {
	switch v.(type) {
	case parse.Polygon, *parse.Polygon:
		return true
	case parse.GeoPoint, *parse.GeoPoint, nil:
		return false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return false
	}
	if rv.Len() == 0 {
		return true
	}
	first := rv.Index(0)
	for first.Kind() == reflect.Interface && !first.IsNil() {
		first = first.Elem()
	}
	switch first.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return false
	}
	return true
}

// PolygonContains requires the Polygon field key to contain point ($geoIntersects $point).
func (q *Query[T]) PolygonContains(key string, point parse.GeoPoint) *Query[T] {
	return q.addCondition("PolygonContains", key, "$geoIntersects", map[string]any{"$point": point})
}

func (q *Query[T]) subCondition(call, key, op string, sub Subquery, wrap func(map[string]any) any) *Query[T] {
	if !validKey(key) {
		return q.fail(keyErr(call, key))
	}
	if sub == nil || reflect.ValueOf(sub).Kind() == reflect.Pointer && reflect.ValueOf(sub).IsNil() {
		return q.fail(fmt.Errorf("query: %s(%q): %w", call, key, ErrNilQuery))
	}
	sj, err := sub.subqueryJSON()
	if err != nil {
		return q.fail(fmt.Errorf("query: %s(%q): subquery: %w", call, key, err))
	}
	return q.addRaw(key, op, wrap(sj))
}

// MatchesQuery requires the Pointer (or array of pointers) field key to point to an object matched by sub
// ($inQuery).
func (q *Query[T]) MatchesQuery(key string, sub Subquery) *Query[T] {
	return q.subCondition("MatchesQuery", key, "$inQuery", sub, func(m map[string]any) any { return m })
}

// DoesNotMatchQuery requires the Pointer field key not to point to an object matched by sub ($notInQuery).
func (q *Query[T]) DoesNotMatchQuery(key string, sub Subquery) *Query[T] {
	return q.subCondition("DoesNotMatchQuery", key, "$notInQuery", sub, func(m map[string]any) any { return m })
}

// MatchesKeyInQuery requires key's value to equal the value of queryKey in some object matched by sub ($select).
func (q *Query[T]) MatchesKeyInQuery(key, queryKey string, sub Subquery) *Query[T] {
	if !validKey(queryKey) {
		return q.fail(keyErr("MatchesKeyInQuery", queryKey))
	}
	return q.subCondition("MatchesKeyInQuery", key, "$select", sub, func(m map[string]any) any {
		return map[string]any{"key": queryKey, "query": m}
	})
}

// DoesNotMatchKeyInQuery requires key's value to differ from the value of queryKey in every object matched by sub
// ($dontSelect).
func (q *Query[T]) DoesNotMatchKeyInQuery(key, queryKey string, sub Subquery) *Query[T] {
	if !validKey(queryKey) {
		return q.fail(keyErr("DoesNotMatchKeyInQuery", queryKey))
	}
	return q.subCondition("DoesNotMatchKeyInQuery", key, "$dontSelect", sub, func(m map[string]any) any {
		return map[string]any{"key": queryKey, "query": m}
	})
}

// RelatedTo restricts the query to the objects in the relation field key of parent ($relatedTo). The query's
// class must be the relation's target class.
func (q *Query[T]) RelatedTo(parent parse.Pointer, key string) *Query[T] {
	if !validKey(key) {
		return q.fail(keyErr("RelatedTo", key))
	}
	if parent.ObjectID == "" || !validClassName(parent.ClassName) {
		return q.fail(fmt.Errorf("query: RelatedTo(%q): the parent must be a saved object with a class", key))
	}
	p, err := normalize(parent)
	if err != nil {
		return q.fail(fmt.Errorf("query: RelatedTo(%q): %w", key, err))
	}
	c := q.clone()
	c.where["$relatedTo"] = map[string]any{"object": p, "key": key}
	return c
}

// compound builds the $or/$and/$nor of queries on one class.
func compound[T any](call, op string, queries []*Query[T]) *Query[T] {
	if len(queries) == 0 {
		return (&Query[T]{where: map[string]any{}, limit: -1}).fail(fmt.Errorf("query: %s needs at least one query", call))
	}
	class := ""
	var errs []error
	wheres := make([]any, 0, len(queries))
	for _, sq := range queries {
		if sq == nil {
			errs = append(errs, fmt.Errorf("query: %s: %w", call, ErrNilQuery))
			continue
		}
		if class == "" {
			class = sq.className
		} else if sq.className != class {
			errs = append(errs, fmt.Errorf("query: %s: %w", call, ErrSameClass))
		}
		if err := sq.Err(); err != nil {
			errs = append(errs, fmt.Errorf("query: %s: %w", call, err))
			continue
		}
		wheres = append(wheres, deepCopy(sq.where))
	}
	out := New[T](class)
	out.errs = append(out.errs, errs...)
	out.where[op] = wheres
	return out
}

// Or returns a query on the queries' class matching objects that match any of queries ($or). The queries must be
// on the same class; only their constraints are used (not their order, limit, ...).
func Or[T any](queries ...*Query[T]) *Query[T] { return compound("Or", "$or", queries) }

// And returns a query matching objects that match all of queries ($and).
func And[T any](queries ...*Query[T]) *Query[T] { return compound("And", "$and", queries) }

// Nor returns a query matching objects that match none of queries ($nor).
func Nor[T any](queries ...*Query[T]) *Query[T] { return compound("Nor", "$nor", queries) }

// number reads a Go number (any int, uint or float kind, or a json.Number) as a float64.
func number(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return 0, false
	case rv.CanInt():
		return float64(rv.Int()), true
	case rv.CanUint():
		return float64(rv.Uint()), true
	case rv.CanFloat():
		return rv.Float(), true
	}
	return 0, false
}
