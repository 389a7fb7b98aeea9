package web3api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// RateLimitHeaders are the rate headers a 429 answer may carry, in the order RateLimitError lists them.
var RateLimitHeaders = []string{
	"x-rate-limit-limit", "x-rate-limit-remaining-ttl", "x-rate-limit-used",
	"x-rate-limit-remaining-ip-ttl", "x-rate-limit-ip-used",
}

// RateLimitError is returned when the API answers HTTP 429. Headers holds the rate headers (empty when the API
// did not send them); RetryAfter the Retry-After header as a duration, 0 when absent.
type RateLimitError struct {
	URL        string
	Headers    map[string]string
	RetryAfter time.Duration
	// RetryAfterRaw is the Retry-After header as sent (seconds or an HTTP date).
	RetryAfterRaw string
}

// Error lists the rate headers and Retry-After; it never holds the API key.
func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString("Too many requests to Web3 API (HTTP 429) while calling ")
	b.WriteString(e.URL)
	b.WriteString(":")
	for i, h := range RateLimitHeaders {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s: %s", h, e.Headers[h])
	}
	if e.RetryAfterRaw != "" {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfterRaw)
	}
	return b.String()
}

func newRateLimitError(u string, resp *httpx.Response) *RateLimitError {
	e := &RateLimitError{URL: u, Headers: map[string]string{}}
	for _, h := range RateLimitHeaders {
		e.Headers[h] = resp.Header.Get(h)
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

// APIError is any other failed API call: Status is the HTTP status (0 when no answer came), Message the
// response's message, else the transport error's message, else "Web3 API error while calling {url}".
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

// FunctionError is a failed backend cloud-function call (no-key mode): Message is the response's "error" field.
type FunctionError struct {
	Function string
	Status   int
	Code     int
	Message  string
	Err      error
}

// Error returns Message, the backend's error field.
func (e *FunctionError) Error() string { return e.Message }

// Unwrap returns the transport error, if any.
func (e *FunctionError) Unwrap() error { return e.Err }

func apiErrorMessage(body []byte, err error, u string) string {
	if len(body) > 0 {
		var m struct {
			Message any `json:"message"`
		}
		if json.Unmarshal(body, &m) == nil && m.Message != nil {
			switch x := m.Message.(type) {
			case string:
				if x != "" {
					return x
				}
			default:
				if b, err := json.Marshal(x); err == nil {
					return string(b)
				}
			}
		}
	}
	if err != nil && err.Error() != "" {
		return err.Error()
	}
	return "Web3 API error while calling " + u
}
