package rest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeJSON fills out as json.Unmarshal does, an any that holds a pointer already included: json.Unmarshal
// decodes into what the pointer points to.
func TestDecodeJSONMatchesUnmarshal(t *testing.T) {
	type answer struct {
		Result string `json:"result"`
	}
	for _, body := range []string{`{"result":"ok"}`, `null`, `[1]`, `{"result":1}`, `"x"`} {
		for _, start := range []func() any{
			func() any { return nil },
			func() any { return &answer{Result: "before"} },
			func() any { return map[string]any{"kept": true} },
			func() any { return answer{} },
			func() any { return new(any) },
		} {
			var got, want any = start(), start()
			gerr := decodeJSON([]byte(body), &got)
			werr := json.Unmarshal([]byte(body), &want)
			if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s into any holding %#v: got %#v (%v), json.Unmarshal %#v (%v)", body, start(), got, gerr, want, werr)
			}
		}
		for _, start := range []map[string]any{nil, {"kept": true, "result": "before"}} {
			got, want := cloneMap(start), cloneMap(start)
			gerr := decodeJSON([]byte(body), &got)
			werr := json.Unmarshal([]byte(body), &want)
			if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s into map %v: got %#v (%v), json.Unmarshal %#v (%v)", body, start, got, gerr, want, werr)
			}
		}
	}
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := map[string]any{}
	for k, v := range m {
		c[k] = v
	}
	return c
}
