package rest

import (
	"strings"
	"testing"
)

func FuzzDecodeError(f *testing.F) {
	for _, s := range []string{`{"code":101,"error":"Object not found."}`, `{"code":1,"message":"Internal server error."}`,
		`{"error":"unauthorized"}`, `<html>`, ``, `{"code":"x","error":5}`, `{"code":1e400}`} {
		f.Add(500, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := DecodeError("GET x", status, body)
		if e == nil || e.Message == "" && len(body) > 0 && !strings.Contains(string(body), `"error":""`) && !strings.Contains(string(body), `"message":""`) {
			t.Fatalf("no message for %q", body)
		}
		_ = e.Error()
	})
}
