package parse

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestScanResults(t *testing.T) {
	for _, c := range []struct {
		body string
		n    int
		last string
		ok   bool
	}{
		{`{"results":[]}`, 0, "", true},
		{`{"results":[{"objectId":"a"},{"objectId":"b","x":{"objectId":"nested"}}]}`, 2, "b", true},
		{` { "count" : 3 , "results" : [ {"n":"}]\"{"} , {"objectId":"z\"q","s":"[{"} ] } `, 2, `z"q`, true},
		{`{"results":[{"x":1,"objectId":"late"}],"count":7}`, 1, "late", true},
		{`{"results":[{"objectId":5}]}`, 1, "", true},
		{`{"results":["a","b",3]}`, 3, "", true},
		{`{"results":[{"ObjectId":"wrongcase"}]}`, 1, "", true},
		{`{"count":1}`, 0, "", false},
		{`{"results":{"objectId":"a"}}`, 0, "", false},
		{`{"results":[{"objectId":"a"},{"objectId":"b"}],"results":[]}`, 0, "", false},
		{`{"results":[{"objectId":"a"}`, 0, "", false},
		{`[]`, 0, "", false},
		{``, 0, "", false},
		{`{"results":[{"objectId":"a\u0062"}]}`, 1, "ab", true},
	} {
		n, last, ok := ScanResults([]byte(c.body))
		assert.Equal(t, c.ok, ok, "ok for %s", c.body)
		if c.ok {
			assert.Equal(t, c.n, n, "count for %s", c.body)
			assert.Equal(t, c.last, last, "last id for %s", c.body)
		}
	}
}

// FuzzScanResults: whenever the scan answers and the decoder accepts the body, they agree on the number of
// results and the last one's objectId.
func FuzzScanResults(f *testing.F) {
	for _, s := range []string{`{"results":[]}`, `{"results":[{"objectId":"a"},{"objectId":"b"}],"count":2}`,
		`{"count":1,"results":[{"x":"]}","objectId":"q\\"r"}]}`, `{"results":[1,"2",null,{"objectId":null}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, last, ok := ScanResults(body)
		var decoded struct {
			Results []json.RawMessage `json:"results"`
		}
		var top map[string]json.RawMessage
		if !ok || json.Unmarshal(body, &top) != nil || top["results"] == nil || json.Unmarshal(body, &decoded) != nil || decoded.Results == nil {
			return
		}
		if n != len(decoded.Results) {
			t.Fatalf("scan counted %d results, the decoder %d: %q", n, len(decoded.Results), body)
		}
		want := ""
		if n > 0 {
			var m map[string]any
			if json.Unmarshal(decoded.Results[n-1], &m) == nil {
				want, _ = m["objectId"].(string)
			}
		}
		if last != want {
			t.Fatalf("scan read last id %q, the decoder %q: %q", last, want, body)
		}
	})
}
