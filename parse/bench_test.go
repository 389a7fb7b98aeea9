package parse

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/wirejson"
)

var benchJSON = []byte(`{"objectId":"XzkEvASBvJ","createdAt":"2026-11-21T22:36:39.296Z","updatedAt":"2026-11-21T22:36:40.000Z","score":1337,"playerName":"Sean","at":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"},"owner":{"__type":"Pointer","className":"Owner","objectId":"o1"},"tags":["a","b"],"ACL":{"*":{"read":true}}}`)

// Decoding one object with the Parse codecs, against plain encoding/json into a map.
func BenchmarkObjectUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		o := NewObject("GameScore")
		if err := o.UnmarshalJSON(benchJSON); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlainJSONUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(benchJSON, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// Encoding a save body with field operations, as the transport encodes it (wirejson, no reflection), against
// building the same map by hand and marshalling it with encoding/json.
func BenchmarkSaveBody(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		o := NewObjectWithID("GameScore", "x")
		o.Set("playerName", "Sean")
		o.Set("at", at)
		o.Increment("score", 1)
		body, err := o.saveBody()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := wirejson.Append(nil, body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlainJSONMarshal(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		m := map[string]any{"playerName": "Sean", "at": map[string]any{"__type": "Date", "iso": at.Format(DateLayout)},
			"score": map[string]any{"__op": "Increment", "amount": 1}}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
