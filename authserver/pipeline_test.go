package authserver

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadBodyRule: the one body rule refuses a body over the limit whether Content-Length announces it or not
// (chunked), and a content type other than JSON, before reading.
func TestReadBodyRule(t *testing.T) {
	const max = 64
	big := "{" + strings.Repeat(" ", max) + "}"
	for _, tc := range []struct {
		name, ctype, body string
		length            int64 // Content-Length; -1 is unknown (chunked)
		want              error
	}{
		{"within the limit", "application/json; charset=utf-8", "{}", 2, nil},
		{"announced over the limit", "application/json", "{}", max + 1, errBodyTooLarge},
		{"chunked over the limit", "application/json", big, -1, errBodyTooLarge},
		{"not JSON", "text/plain", "{}", 2, errNotJSON},
		{"no content type", "", "{}", 2, errNotJSON},
	} {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(tc.body))
		r.ContentLength = tc.length
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		got, err := readBody(httptest.NewRecorder(), r, max, false)
		if err != tc.want {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
		if tc.want == nil && string(got) != tc.body {
			t.Errorf("%s: body %q", tc.name, got)
		}
	}
}
