package wirejson

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the deepest nesting Decode accepts, as encoding/json's.
const maxDepth = 10000

// Decode parses data, one JSON value with optional white space around it, into what encoding/json.Unmarshal gives
// an `any`: map[string]any, []any, string, float64, bool or nil. It accepts and refuses the same inputs as
// encoding/json (a number out of float64's range included), and its values are equal to encoding/json's; it
// differs only in its error texts, and in needing no reflection: the object keys of the Parse wire format
// ("objectId", "createdAt", "results", ...) are not even allocated.
func Decode(data []byte) (any, error) {
	d := decoder{data: data}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos < len(d.data) {
		return nil, d.errorf("invalid character %q after top-level value", d.data[d.pos])
	}
	return v, nil
}

// DecodeObject is Decode of a JSON object (or null, which gives a nil map); any other value is an error.
func DecodeObject(data []byte) (map[string]any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case map[string]any:
		return m, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("wirejson: cannot decode %T into an object", v)
}

type decoder struct {
	data []byte
	pos  int
}

// SyntaxError is a malformed input; Offset is where it was seen.
type SyntaxError struct {
	msg    string
	Offset int
}

func (e *SyntaxError) Error() string { return "wirejson: " + e.msg }

func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{msg: fmt.Sprintf(format, args...) + " at offset " + strconv.Itoa(d.pos), Offset: d.pos}
}

var errEnd = errors.New("wirejson: unexpected end of JSON input")

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, errEnd
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		if depth >= maxDepth {
			return nil, d.errorf("exceeded max depth")
		}
		return d.object(depth + 1)
	case c == '[':
		if depth >= maxDepth {
			return nil, d.errorf("exceeded max depth")
		}
		return d.array(depth + 1)
	case c == '"':
		s, err := d.str(false)
		if err != nil {
			return nil, err
		}
		return s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	default:
		return nil, d.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (d *decoder) literal(word string, v any) (any, error) {
	if len(d.data)-d.pos < len(word) {
		if string(d.data[d.pos:]) == word[:len(d.data)-d.pos] {
			return nil, errEnd
		}
		return nil, d.errorf("invalid literal")
	}
	if string(d.data[d.pos:d.pos+len(word)]) != word {
		return nil, d.errorf("invalid literal")
	}
	d.pos += len(word)
	return v, nil
}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // {
	m := make(map[string]any)
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		if d.pos >= len(d.data) {
			return nil, errEnd
		}
		if d.data[d.pos] != '"' {
			return nil, d.errorf("invalid character %q looking for beginning of object key string", d.data[d.pos])
		}
		k, err := d.str(true)
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEnd
		}
		if d.data[d.pos] != ':' {
			return nil, d.errorf("invalid character %q after object key", d.data[d.pos])
		}
		d.pos++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEnd
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, d.errorf("invalid character %q after object key:value pair", d.data[d.pos])
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // [
	a := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, errEnd
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case ']':
			d.pos++
			return a, nil
		default:
			return nil, d.errorf("invalid character %q after array element", d.data[d.pos])
		}
	}
}

func (d *decoder) number() (any, error) {
	start := d.pos
	p := d.pos
	if d.data[p] == '-' {
		p++
	}
	digits := func() int {
		n := 0
		for p < len(d.data) && d.data[p] >= '0' && d.data[p] <= '9' {
			p++
			n++
		}
		return n
	}
	switch {
	case p >= len(d.data):
		return nil, errEnd
	case d.data[p] == '0':
		p++
	case d.data[p] >= '1' && d.data[p] <= '9':
		digits()
	default:
		d.pos = p
		return nil, d.errorf("invalid character %q in numeric literal", d.data[p])
	}
	if p < len(d.data) && d.data[p] == '.' {
		p++
		if digits() == 0 {
			d.pos = p
			if p >= len(d.data) {
				return nil, errEnd
			}
			return nil, d.errorf("invalid character %q after decimal point in numeric literal", d.data[p])
		}
	}
	if p < len(d.data) && (d.data[p] == 'e' || d.data[p] == 'E') {
		p++
		if p < len(d.data) && (d.data[p] == '+' || d.data[p] == '-') {
			p++
		}
		if digits() == 0 {
			d.pos = p
			if p >= len(d.data) {
				return nil, errEnd
			}
			return nil, d.errorf("invalid character %q in exponent of numeric literal", d.data[p])
		}
	}
	d.pos = p
	f, err := strconv.ParseFloat(string(d.data[start:p]), 64)
	if err != nil {
		return nil, fmt.Errorf("wirejson: number %s out of range", d.data[start:p])
	}
	return f, nil
}

// str reads a string; a key (key true) of the Parse wire format comes back without an allocation.
func (d *decoder) str(key bool) (string, error) {
	d.pos++ // "
	start := d.pos
	// The common case: no escapes, valid ASCII.
	for p := start; p < len(d.data); p++ {
		c := d.data[p]
		if c == '"' {
			d.pos = p + 1
			raw := d.data[start:p]
			if key {
				if s, ok := knownKey(raw); ok {
					return s, nil
				}
			}
			return string(raw), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	// Escapes, control characters or non-ASCII: the careful way.
	var b []byte
	p := start
	for {
		if p >= len(d.data) {
			return "", errEnd
		}
		c := d.data[p]
		switch {
		case c == '"':
			d.pos = p + 1
			return string(b), nil
		case c < 0x20:
			d.pos = p
			return "", d.errorf("invalid character %q in string literal", c)
		case c == '\\':
			if p+1 >= len(d.data) {
				return "", errEnd
			}
			p++
			switch e := d.data[p]; e {
			case '"', '\\', '/':
				b = append(b, e)
				p++
			case 'b':
				b = append(b, '\b')
				p++
			case 'f':
				b = append(b, '\f')
				p++
			case 'n':
				b = append(b, '\n')
				p++
			case 'r':
				b = append(b, '\r')
				p++
			case 't':
				b = append(b, '\t')
				p++
			case 'u':
				r, ok, end := hex4(d.data, p+1)
				if end {
					return "", errEnd
				}
				if !ok {
					d.pos = p
					return "", d.errorf("invalid character in \\u hexadecimal character escape")
				}
				p += 5
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; a lone surrogate is U+FFFD, as encoding/json has it.
					r2 := replacementChar
					if p+1 < len(d.data) && d.data[p] == '\\' && d.data[p+1] == 'u' {
						if x, ok2, _ := hex4(d.data, p+2); ok2 {
							if dec := utf16.DecodeRune(r, x); dec != replacementChar {
								r2 = dec
								p += 6
							}
						}
					}
					r = r2
				}
				b = utf8.AppendRune(b, r)
			default:
				d.pos = p
				return "", d.errorf("invalid character %q in string escape code", e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			p++
		default:
			r, size := utf8.DecodeRune(d.data[p:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.data[p:p+size]...)
			}
			p += size
		}
	}
}

const replacementChar = utf8.RuneError

// hex4 reads the 4 hex digits at data[p:]; end reports that the input ended first.
func hex4(data []byte, p int) (r rune, ok, end bool) {
	if p+4 > len(data) {
		for i := p; i < len(data); i++ {
			if !isHex(data[i]) {
				return 0, false, false
			}
		}
		return 0, false, true
	}
	for i := p; i < p+4; i++ {
		c := data[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false, false
		}
		r = r<<4 | rune(v)
	}
	return r, true, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// knownKey returns the interned string of a key of the Parse wire format.
func knownKey(b []byte) (string, bool) {
	switch string(b) { // no allocation: the compiler compares the bytes
	case "objectId":
		return "objectId", true
	case "createdAt":
		return "createdAt", true
	case "updatedAt":
		return "updatedAt", true
	case "ACL":
		return "ACL", true
	case "read":
		return "read", true
	case "write":
		return "write", true
	case "results":
		return "results", true
	case "count":
		return "count", true
	case "__type":
		return "__type", true
	case "className":
		return "className", true
	case "iso":
		return "iso", true
	case "name":
		return "name", true
	case "url":
		return "url", true
	case "latitude":
		return "latitude", true
	case "longitude":
		return "longitude", true
	case "success":
		return "success", true
	case "error":
		return "error", true
	case "code":
		return "code", true
	case "sessionToken":
		return "sessionToken", true
	case "username":
		return "username", true
	case "email":
		return "email", true
	case "authData":
		return "authData", true
	case "result":
		return "result", true
	case "__op":
		return "__op", true
	case "objects":
		return "objects", true
	case "amount":
		return "amount", true
	}
	return "", false
}
