package web3api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// The query string is written the way the original client's HTTP library (axios 0.x) wrote it, which is what
// the hosted API reads: name=value pairs joined by "&"; an array as name[]=v1&name[]=v2 (a one-element array
// too, so that the API reads an array, not a string); true and false, 0 and other numbers as their text; an
// object as its JSON; a time as its ISO form in UTC. Names and values are escaped as encodeURIComponent does,
// then ":", "$", ",", "[" and "]" are written plainly and a space as "+".

// queryBuilder collects the pairs of one query string.
type queryBuilder struct{ b strings.Builder }

func (q *queryBuilder) pair(name, value string) {
	if q.b.Len() > 0 {
		q.b.WriteByte('&')
	}
	q.b.WriteString(axiosEscape(name))
	q.b.WriteByte('=')
	q.b.WriteString(axiosEscape(value))
}

// add writes the parameter name with value v. Nothing is written for an unset value (nil, a nil pointer) or an
// empty array.
func (q *queryBuilder) add(name string, v any) error {
	v, ok := deref(v)
	if !ok {
		return nil
	}
	if s, ok := textOf(v); ok {
		q.pair(name, s)
		return nil
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k == reflect.Slice || k == reflect.Array {
		for i := 0; i < rv.Len(); i++ {
			s, err := elemText(rv.Index(i).Interface())
			if err != nil {
				return fmt.Errorf("web3api: parameter %s[%d]: %w", name, i, err)
			}
			q.pair(name+"[]", s)
		}
		return nil
	}
	s, err := jsonText(v)
	if err != nil {
		return fmt.Errorf("web3api: parameter %s: %w", name, err)
	}
	q.pair(name, s)
	return nil
}

func (q *queryBuilder) String() string { return q.b.String() }

// elemText is the text of one array element: a scalar's text, "null" for nil, else JSON (as axios wrote an
// object or a nested array).
func elemText(v any) (string, error) {
	v, ok := deref(v)
	if !ok {
		return "null", nil
	}
	if s, ok := textOf(v); ok {
		return s, nil
	}
	return jsonText(v)
}

// deref follows pointers and interfaces; ok is false for nil.
func deref(v any) (any, bool) {
	if v == nil {
		return nil, false
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil, false
		}
		if rv.Kind() == reflect.Pointer && onlyPointerFormats(rv.Type()) {
			return rv.Interface(), true // e.g. *big.Int, whose String and MarshalText need the pointer
		}
		rv = rv.Elem()
	}
	return rv.Interface(), true
}

var (
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	stringerType      = reflect.TypeFor[fmt.Stringer]()
)

// onlyPointerFormats reports whether pointer type t formats itself (MarshalText or String) but its element
// type does not.
func onlyPointerFormats(t reflect.Type) bool {
	for _, i := range []reflect.Type{textMarshalerType, stringerType} {
		if t.Implements(i) && !t.Elem().Implements(i) {
			return true
		}
	}
	return false
}

// textOf gives the text of a scalar: strings, booleans, numbers, times, and values that marshal themselves to
// text (addresses, big integers). ok is false for arrays, maps and structs.
func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z"), true
	case encoding.TextMarshaler:
		if b, err := x.MarshalText(); err == nil {
			return string(b), true
		}
	case fmt.Stringer:
		return x.String(), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return jsNumber(rv.Float()), true
	}
	return "", false
}

// jsNumber formats f as JavaScript's String(number) does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
		mant, exp, _ := strings.Cut(s, "e")
		sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
		return mant + "e" + sign + digits
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// jsonText is v's JSON as JSON.stringify writes it (no escaping of <, > and &).
func jsonText(v any) (string, error) {
	b, err := marshalJSON(v)
	return string(b), err
}

// marshalJSON is json.Marshal without HTML escaping, as JSON.stringify writes.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// axiosEscape escapes s as encodeURIComponent does, then writes ":", "$", ",", "[" and "]" plainly and a space
// as "+".
func axiosEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case strings.IndexByte("-_.!~*'():$,[]", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
