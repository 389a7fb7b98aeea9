package web3api

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// A limit of any integer type (and an integral float or json.Number) counts for offset paging.
func TestIntArgAcceptsEveryIntegerType(t *testing.T) {
	for _, v := range []any{int(7), int8(7), int16(7), int32(7), int64(7), uint(7), uint8(7), uint16(7), uint32(7), uint64(7), 7.0, json.Number("7")} {
		if n, ok := intArg(v); !ok || n != 7 {
			t.Errorf("intArg(%T) = %d, %v", v, n, ok)
		}
	}
	for _, v := range []any{7.5, "7", nil, json.Number("x"), uint64(1 << 63)} {
		if _, ok := intArg(v); ok {
			t.Errorf("intArg(%#v) accepted", v)
		}
	}
}

// Retry-After in seconds and in each HTTP date form; a date in the past means now.
func TestRetryAfterForms(t *testing.T) {
	future := time.Now().Add(90 * time.Second).UTC()
	for _, c := range []struct {
		header string
		min    time.Duration
		max    time.Duration
	}{
		{"7", 7 * time.Second, 7 * time.Second},
		{future.Format(http.TimeFormat), 80 * time.Second, 91 * time.Second},
		{future.Format(time.RFC850), 80 * time.Second, 91 * time.Second},
		{future.Format(time.ANSIC), 80 * time.Second, 91 * time.Second},
		{"Mon, 02 Jan 2006 15:04:05 GMT", 0, 0},
		{"soon", 0, 0},
	} {
		h := http.Header{}
		h.Set("Retry-After", c.header)
		e := newRateLimitError("http://x", &httpx.Response{Status: 429, Header: h})
		if e.RetryAfter < c.min || e.RetryAfter > c.max || e.RetryAfterRaw != c.header {
			t.Errorf("Retry-After %q: %v (raw %q)", c.header, e.RetryAfter, e.RetryAfterRaw)
		}
	}
}

// An iterator with a nil context yields an error instead of panicking.
func TestPagesNilContext(t *testing.T) {
	n := 0
	//lint:ignore SA1012 the nil context is the point of the test
	for _, err := range Pages[any](nil, nil, "getBlock", nil) { //nolint:staticcheck
		n++
		if err == nil || err.Error() != "web3api: nil context" {
			t.Fatalf("err = %v", err)
		}
	}
	if n != 1 {
		t.Fatalf("%d yields", n)
	}
}
