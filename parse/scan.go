package parse

import "encoding/json"

// ScanResults looks at a find answer ({"results":[...], ...}) without decoding it: it counts the results and reads
// the last one's objectId. It is a single pass over the bytes that only tracks strings and nesting, so a pager can
// ask for the next page before the answer is decoded. ok is false when body is not an object with a results array
// (then nothing can be said without decoding); lastID is "" when there are no results or the last one has no
// string objectId.
func ScanResults(body []byte) (n int, lastID string, ok bool) {
	found := false
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return 0, "", false
	}
	i++
	for {
		i = skipSpace(body, i)
		if i >= len(body) {
			return 0, "", false
		}
		if body[i] == '}' {
			if !found {
				return 0, "", false
			}
			return n, lastID, true
		}
		if body[i] == ',' {
			i++
			continue
		}
		if body[i] != '"' {
			return 0, "", false
		}
		keyStart := i
		end, good := skipString(body, i)
		if !good {
			return 0, "", false
		}
		key := body[keyStart:end]
		i = skipSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return 0, "", false
		}
		i = skipSpace(body, i+1)
		if string(key) == `"results"` {
			if found {
				return 0, "", false // a second results member: the decoder would keep that one
			}
			found = true
			var end int
			if n, lastID, end, ok = scanArray(body, i); !ok {
				return 0, "", false
			}
			i = end
			continue
		}
		if i, good = skipValue(body, i); !good {
			return 0, "", false
		}
	}
}

// scanArray counts the elements of the array starting at body[i], reads the last one's objectId, and returns the
// index just after the array.
func scanArray(body []byte, i int) (n int, lastID string, end int, ok bool) {
	if i >= len(body) || body[i] != '[' {
		return 0, "", i, false
	}
	i++
	lastStart, lastEnd := -1, -1
	for {
		i = skipSpace(body, i)
		if i >= len(body) {
			return 0, "", i, false
		}
		switch body[i] {
		case ']':
			if lastStart >= 0 && body[lastStart] == '{' {
				var last map[string]any
				if json.Unmarshal(body[lastStart:lastEnd], &last) != nil {
					return 0, "", i, false
				}
				lastID, _ = last["objectId"].(string)
			}
			return n, lastID, i + 1, true
		case ',':
			i++
			continue
		}
		e, good := skipValue(body, i)
		if !good {
			return 0, "", i, false
		}
		n++
		lastStart, lastEnd = i, e
		i = e
	}
}

// skipValue returns the index just after the JSON value starting at body[i]. Scalars are skipped up to the next
// delimiter; their validity is left to the decoder.
func skipValue(body []byte, i int) (int, bool) {
	if i >= len(body) {
		return i, false
	}
	switch body[i] {
	case '"':
		return skipString(body, i)
	case '{', '[':
		depth := 0
		for i < len(body) {
			switch body[i] {
			case '"':
				end, ok := skipString(body, i)
				if !ok {
					return i, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default:
		start := i
		for i < len(body) {
			switch body[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, i > start
			}
			i++
		}
		return i, i > start
	}
}

// skipString returns the index just after the string whose opening quote is body[i].
func skipString(body []byte, i int) (int, bool) {
	for i++; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}

func skipSpace(body []byte, i int) int {
	for i < len(body) {
		switch body[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
