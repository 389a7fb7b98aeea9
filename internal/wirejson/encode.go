// Package wirejson encodes the values of backend request bodies without reflection: map[string]any, []any,
// strings, numbers, booleans and nil, the shapes the SDK builds its bodies from, are written straight into a byte
// slice; any other value goes through encoding/json. The output is byte for byte what encoding/json.Marshal
// writes (keys sorted, HTML characters escaped, the same number forms), so the two can be mixed freely.
//
// The backend transport encodes every call's body here, once per call: profiling SaveAll and the transport showed
// encoding/json's map encoder (reflection, a sorted key slice per map, a pooled encoder state) as the largest
// allocation site on the client side of a request (see BENCHMARKS.md).
package wirejson

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Append appends the JSON encoding of v to dst.
func Append(dst []byte, v any) ([]byte, error) {
	out, err := appendValue(dst, v, 0)
	if err == errTooDeep {
		return appendMarshal(dst, v)
	}
	return out, err
}

// maxEncodeDepth is how deep appendValue walks nested maps and slices, as deep as encoding/json goes before it
// looks for cycles. A value nested deeper is encoded again, whole, by encoding/json, so that a map or slice that
// contains itself is encoding/json's error ("encountered a cycle"), not a stack overflow that ends the program.
const maxEncodeDepth = 1000

// errTooDeep is appendValue's answer for a value nested deeper than maxEncodeDepth.
var errTooDeep = errors.New("wirejson: nested too deep")

// appendValue is Append of a value nested depth maps and slices deep.
func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxEncodeDepth {
		return dst, errTooDeep
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, x), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case float64:
		return appendFloat(dst, x, 64)
	case float32:
		return appendFloat(dst, float64(x), 32)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case map[string]any:
		return appendObject(dst, x, nil, depth)
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendObject(dst, e, nil, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, e)
		}
		return append(dst, ']'), nil
	case map[string]string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		var small [16]string
		keys := sortedKeys(small[:0], x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			dst = AppendString(dst, x[k])
		}
		return append(dst, '}'), nil
	}
	return appendMarshal(dst, v)
}

// appendMarshal appends encoding/json's encoding of v.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// AppendObject appends m as a JSON object with its keys sorted, as encoding/json writes a map, then the members
// of extra (already encoded: `"key":value` pairs, comma separated, keys not in m) before the closing brace. A nil
// m with no extra is null.
func AppendObject(dst []byte, m map[string]any, extra []byte) ([]byte, error) {
	out, err := appendObject(dst, m, extra, 0)
	if err != errTooDeep {
		return out, err
	}
	// Too deep (see maxEncodeDepth): encoding/json's object, extra spliced in before its closing brace.
	b, err := json.Marshal(m)
	if err != nil {
		return dst, err
	}
	dst = append(dst, b[:len(b)-1]...)
	if len(m) > 0 && len(extra) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, extra...)
	return append(dst, '}'), nil
}

// appendObject is AppendObject of a map nested depth maps and slices deep.
func appendObject(dst []byte, m map[string]any, extra []byte, depth int) ([]byte, error) {
	if m == nil && extra == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '{')
	var small [16]string
	keys := sortedKeys(small[:0], m)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, m[k], depth+1); err != nil {
			return dst, err
		}
	}
	if len(extra) > 0 {
		if len(keys) > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, extra...)
	}
	return append(dst, '}'), nil
}

// sortedKeys appends m's keys to keys (a caller's array, so that small maps need no allocation) and sorts them.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendFloat writes f as encoding/json does (ES6 number formatting); NaN and infinities are its error.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f)
		return dst, err
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json escapes it (HTML characters, U+2028 and
// U+2029 included; invalid UTF-8 becomes U+FFFD).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
