package web3api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// RateLimitHeaders are the rate headers a 429 answer may carry, in the order RateLimitError lists them.
var RateLimitHeaders = []string{
	"x-rate-limit-limit", "x-rate-limit-remaining-ttl", "x-rate-limit-used",
	"x-rate-limit-remaining-ip-ttl", "x-rate-limit-ip-used",
}

// RateLimitMessage starts the message of a RateLimitError; the rate headers follow as JSON.
const RateLimitMessage = "This Moralis Server is rate-limited because of the plan restrictions. See the details about the current rate and throttle limits: "

// RateLimitError is returned when the API answers HTTP 429 (never retried). Headers holds the rate headers the
// answer carried (a header it did not carry is absent from the map; the hosted API stopped sending them in
// September 2022); RetryAfter is the Retry-After header as a duration, 0 when absent.
type RateLimitError struct {
	URL        string
	Headers    map[string]string
	RetryAfter time.Duration
	// RetryAfterRaw is the Retry-After header as sent (seconds or an HTTP date).
	RetryAfterRaw string
}

// Error is the original client's text: RateLimitMessage followed by the JSON object of the rate headers the
// answer carried, in RateLimitHeaders order ({} when none). It never holds the API key.
func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString(RateLimitMessage)
	b.WriteByte('{')
	n := 0
	for _, h := range RateLimitHeaders {
		v, ok := e.Headers[h]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(jsString(h))
		b.WriteByte(':')
		b.WriteString(jsString(v))
	}
	b.WriteByte('}')
	return b.String()
}

func newRateLimitError(u string, resp *httpx.Response) *RateLimitError {
	e := &RateLimitError{URL: u, Headers: map[string]string{}}
	for _, h := range RateLimitHeaders {
		if vs, ok := resp.Header[http.CanonicalHeaderKey(h)]; ok {
			// Node reads header bytes as Latin-1 and joins repeated headers with ", ".
			e.Headers[h] = latin1(strings.Join(vs, ", "))
		}
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		e.RetryAfterRaw = ra
		// Retry-After is delay-seconds or an HTTP date (RFC 9110: IMF-fixdate, or the obsolete RFC 850 and
		// asctime forms); a date in the past means now.
		if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && s >= 0 {
			e.RetryAfter = time.Duration(s) * time.Second
		} else if t, err := http.ParseTime(ra); err == nil {
			e.RetryAfter = max(time.Until(t), 0)
		}
	}
	return e
}

// latin1 reads each byte of s as one character, as Node does with header values.
func latin1(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	rs := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		rs[i] = rune(s[i])
	}
	return string(rs)
}

// jsString quotes s as JSON.stringify does: only the quote, the backslash and control characters are escaped.
func jsString(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&15])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// APIError is any other failed API call. Status is the HTTP status (0 when no answer came). Message is, as in
// the original client, the answer's "message" when it has one, else "Request failed with status code {status}";
// without an answer, the transport's error (never holding the key or the query string), else "Web3 API error
// while calling {url}".
type APIError struct {
	URL     string
	Status  int
	Message string
	Err     error
}

// Error returns Message.
func (e *APIError) Error() string { return e.Message }

// Unwrap returns the transport error, if any.
func (e *APIError) Unwrap() error { return e.Err }

// FunctionError is a failed backend cloud-function call (no API key). Message is, as in the original client,
// the answer's "error" field when it has one, else "Request failed with status code {status}"; without an
// answer, the transport's error.
type FunctionError struct {
	Function string
	Status   int
	Code     int
	Message  string
	Err      error
}

// Error returns Message.
func (e *FunctionError) Error() string { return e.Message }

// Unwrap returns the transport error, if any.
func (e *FunctionError) Unwrap() error { return e.Err }

// statusText is the message the original's HTTP library gave a non-2xx answer.
func statusText(status int) string { return "Request failed with status code " + strconv.Itoa(status) }

// bodyField returns the text of field in a JSON object body when JavaScript would find it truthy (a non-empty
// string, a non-zero number, true, an object or an array); ok is false otherwise. Strings, numbers and
// booleans give their text, objects and arrays their JSON.
func bodyField(body []byte, field string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return "", false
	}
	raw, ok := m[field]
	if !ok {
		return "", false
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, x != ""
	case bool:
		return "true", x
	case json.Number:
		f, err := x.Float64()
		if err == nil && f == 0 {
			return "", false
		}
		if err == nil {
			return jsNumber(f), true
		}
		return x.String(), true
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw), true
	}
	return b.String(), true
}

// apiErrorMessage is the message of a non-2xx API answer.
func apiErrorMessage(body []byte, status int) string {
	if msg, ok := bodyField(body, "message"); ok {
		return msg
	}
	return statusText(status)
}

// transportMessage is the message of an API call that got no answer.
func transportMessage(err error, u string) string {
	if err != nil && err.Error() != "" {
		return err.Error()
	}
	return "Web3 API error while calling " + u
}
