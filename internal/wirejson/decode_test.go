package wirejson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var decodeSeeds = []string{
	`{"objectId":"XzkEvASBvJ","createdAt":"2026-11-21T22:36:39.296Z","score":1337,"playerName":"Sean"}`,
	`{"results":[{"objectId":"a","n":1.5e3,"t":true,"f":false,"z":null,"arr":[],"o":{}}],"count":2}`,
	`[1, -0, 0.5, -1.25e-7, 1E+2, 123456789012345678901234567890]`,
	` "esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800 \udc00x \ud800\u0041" `,
	"\"raw \xff bytes \xc3\x28 é\"", `{"a":1,"a":2}`, `null`, `true`, `false`, `0`, `-`, `01`, `1.`, `1e`, `.5`, `+1`,
	`{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{,}`, `{"a":1}x`, `"\x01"`, "\"\x01\"", `"\u12"`, `"\uZZZZ"`, `"\q"`, `1e400`, `-1e400`,
	`{"ACL":{"*":{"read":true}},"__type":"Date","iso":"x"}`, "", " ", `{`, `[`, `"abc`, `tru`, `nul`, `nulx`, `[1,2`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

// Decode accepts and refuses what encoding/json does, with equal values.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		werr := json.Unmarshal(data, &want)
		got, gerr := Decode(data)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", data, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
		}
		var wantMap map[string]any
		werr = json.Unmarshal(data, &wantMap)
		gotMap, gerr := DecodeObject(data)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%q as an object: error %v, encoding/json %v", data, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(gotMap, wantMap) {
			t.Fatalf("%q as an object:\n got %#v\nwant %#v", data, gotMap, wantMap)
		}
	})
}

// The keys of the Parse wire format are not allocated: a document of only such keys costs fewer allocations than
// encoding/json's decoding of it, and as many as the same document whose keys are all unknown minus one per key.
func TestDecodeKnownKeysAreNotAllocated(t *testing.T) {
	known := []byte(`{"objectId":"a","createdAt":"b","updatedAt":"c","ACL":{"*":{"read":true,"write":false}}}`)
	unknown := []byte(`{"objectIX":"a","createdAX":"b","updatedAX":"c","ACX":{"*":{"reaX":true,"writX":false}}}`)
	allocs := func(data []byte) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, err := Decode(data); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Six keys, and "*", which is unknown in both.
	if k, u := allocs(known), allocs(unknown); u-k != 6 {
		t.Errorf("%v allocations with known keys, %v with unknown ones; want 6 fewer", k, u)
	}
	var m map[string]any
	if k, j := allocs(known), testing.AllocsPerRun(100, func() { _ = json.Unmarshal(known, &m) }); k >= j {
		t.Errorf("%v allocations per decode, encoding/json %v", k, j)
	}
}

var benchDoc = []byte(`{"objectId":"XzkEvASBvJ","createdAt":"2026-11-21T22:36:39.296Z","updatedAt":"2026-11-21T22:36:40.000Z","score":1337,"playerName":"Sean","at":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"},"owner":{"__type":"Pointer","className":"Owner","objectId":"o1"},"tags":["a","b"],"ACL":{"*":{"read":true}}}`)

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchDoc)))
	for b.Loop() {
		if _, err := DecodeObject(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchDoc)))
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(benchDoc, &m); err != nil {
			b.Fatal(err)
		}
	}
}
