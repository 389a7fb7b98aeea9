package query

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// FuzzDecode feeds arbitrary result JSON to the decoders of every kind of T: a runner's answer is input too, and
// decoding it must return an error, never panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"objectId":"a","score":1,"when":{"__type":"Date","iso":"2026-01-01T00:00:00.000Z"}}`))
	f.Add([]byte(`{"owner":{"__type":"Object","className":"O","objectId":"x","ACL":{"*":{"read":true}}}}`))
	f.Add([]byte(`{"__type":"Pointer","className":"O","objectId":"x"}`))
	f.Add([]byte(`{"ACL":{"u":{"read":"yes"}},"createdAt":5}`))
	f.Add([]byte(`{"loc":{"__type":"GeoPoint","latitude":100,"longitude":1},"p":{"__type":"Polygon","coordinates":[[1]]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		type row struct {
			ID    string         `json:"objectId"`
			When  time.Time      `json:"when"`
			Owner parse.Pointer  `json:"owner"`
			Loc   parse.GeoPoint `json:"loc"`
			Extra map[string]any `json:"extra"`
		}
		raw := json.RawMessage(data)
		_, _ = decode[*parse.Object](raw, "C")
		_, _ = decode[parse.Object](raw, "C")
		_, _ = decode[map[string]any](raw, "C")
		_, _ = decode[any](raw, "C")
		_, _ = decode[row](raw, "C")
		_, _ = decode[parse.Pointer](raw, "C")
		_, _ = decode[string](raw, "C")
	})
}
