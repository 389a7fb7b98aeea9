package authserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeRequest: decoding a POST body never panics; an accepted body re-encodes to an equal request.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"chain":"evm","address":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","message":"m","signature":"0x00"}`))
	f.Add([]byte(`{"chain":"solana","address":"FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z"}`))
	f.Add([]byte(`{"chain":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"chain":"evm"} {}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRequest(b)
		if err != nil {
			return
		}
		enc, _ := json.Marshal(r)
		r2, err := DecodeRequest(enc)
		if err != nil || *r2 != *r {
			t.Fatalf("re-decode: %v %+v %+v", err, r, r2)
		}
		_, _ = r.check(true)
	})
}

// FuzzHandlerSignIn: whatever body arrives at POST /signin, the handler answers a 4xx JSON error and never
// calls the backend (random input cannot carry a valid signature over an issued nonce).
func FuzzHandlerSignIn(f *testing.F) {
	f.Add([]byte(`{"chain":"evm","address":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","message":"m","signature":"0x00"}`), "application/json")
	f.Add([]byte(`{"chain":"solana","address":"FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z","message":"Moralis Authentication\n\nId: testAppId:abcDEF12345678","signature":"2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua"}`), "application/json; charset=utf-8")
	f.Add([]byte(`{}`), "text/plain")
	be := newFakeBackend()
	h, err := NewHandler(be, Config{AppID: "testAppId", Domain: "app.example", Now: time.Now})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, ct string) {
		req := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code < 400 || rec.Code > 499 {
			t.Fatalf("status %d for %q", rec.Code, b)
		}
		var e struct {
			Code  int    `json:"code"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code == 0 || e.Error == "" {
			t.Fatalf("answer %q", rec.Body.String())
		}
		if be.calls.Load() != 0 {
			t.Fatal("backend called")
		}
	})
}
