package authserver

import (
	"encoding/json"

	"testing"
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

// TestDecodeRequestStrict: the sign-in body's field names are exact (encoding/json would take "Chain" or
// "SIGNATURE"), a field may appear once, values are strings or null, and nothing follows the object.
func TestDecodeRequestStrict(t *testing.T) {
	ok, err := DecodeRequest([]byte(`{"chain":"evm","address":"0xab","message":"m","signature":null}`))
	if err != nil || *ok != (SignedRequest{Chain: "evm", Address: "0xab", Message: "m"}) {
		t.Fatalf("plain body: %+v %v", ok, err)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"Chain":"evm"}`, `Unknown field "Chain"`},
		{`{"chain":"evm","SIGNATURE":"0x00"}`, `Unknown field "SIGNATURE"`},
		{`{"chain":"evm","extra":1}`, `Unknown field "extra"`},
		{`{"chain":"evm","chain":"solana"}`, `Duplicate field "chain"`},
		{`{"signature":"a","signature":"b"}`, `Duplicate field "signature"`},
		{`{"chain":1}`, `Invalid type for field "chain"`},
		{`{"chain":"evm"} {}`, "Invalid JSON body"},
		{`[]`, "Invalid JSON body"},
	} {
		r, err := DecodeRequest([]byte(tc.body))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %+v, %v; want %q", tc.body, r, err, tc.want)
		}
	}
}
