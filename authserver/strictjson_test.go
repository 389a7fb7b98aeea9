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
