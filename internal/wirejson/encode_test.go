package wirejson

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

type marshaler struct{}

func (m marshaler) MarshalJSON() ([]byte, error) { return []byte(`{"m" : 1}`), nil }

// Every value encodes byte for byte as encoding/json.Marshal encodes it.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", "quote \" backslash \\ slash /", "<a href='x'>&amp;</a>", "\x00\x01\x1f\b\f\n\r\t\x7f",
		"ünïcödé 😀", "\u2028\u2029", "bad \xff utf8 \xc3", strings.Repeat("é", 300),
		0.0, math.Copysign(0, -1), 1.0, -1.5, 3.14159, 1e20, 1e21, 1e-6, 1e-7, 123456789012345678.0, 5e-324, math.MaxFloat64, float32(0.1), float32(1e-7),
		0, -7, int64(math.MinInt64), int32(5), uint64(math.MaxUint64),
		map[string]any{}, map[string]any(nil), map[string]any{"b": 1, "a": "x", "_method": "GET", "Z": nil, "é": []any{1, "2", nil}},
		[]any{}, []any(nil), []any{map[string]any{"k": []any{}}},
		[]map[string]any{{"method": "POST", "path": "/parse/classes/A", "body": map[string]any{"n": 1}}}, []map[string]any(nil),
		[]string{"a", "<b>"}, []string(nil), map[string]string{"y": "1", "x": "2"}, map[string]string(nil),
		marshaler{}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), json.RawMessage(`[1, 2]`), json.Number("12.50"),
		map[string]any{"deep": map[string]any{"t": time.Unix(0, 0).UTC(), "m": marshaler{}, "n": json.Number("1")}},
	}
	big := map[string]any{}
	for i := range 40 {
		big[strings.Repeat("k", i%7)+string(rune('a'+i%26))+string(rune('0'+i/26))] = i
	}
	values = append(values, big)
	for _, v := range values {
		want, werr := json.Marshal(v)
		got, gerr := Append([]byte("prefix"), v)
		if (werr != nil) != (gerr != nil) {
			t.Errorf("%#v: error %v, encoding/json %v", v, gerr, werr)
			continue
		}
		if werr == nil && string(got) != "prefix"+string(want) {
			t.Errorf("%#v:\n got %s\nwant %s", v, got[len("prefix"):], want)
		}
	}
}

func TestAppendRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), map[string]any{"x": math.Inf(-1)}, []any{func() {}}, make(chan int)} {
		_, werr := json.Marshal(v)
		_, gerr := Append(nil, v)
		if werr == nil || gerr == nil || gerr.Error() != werr.Error() {
			t.Errorf("%T: error %v, encoding/json %v", v, gerr, werr)
		}
	}
}

func TestAppendObjectExtra(t *testing.T) {
	got, err := AppendObject(nil, map[string]any{"b": 1, "a": 2}, []byte(`"_x":"y"`))
	if err != nil || string(got) != `{"a":2,"b":1,"_x":"y"}` {
		t.Errorf("%s, %v", got, err)
	}
	got, _ = AppendObject(nil, nil, []byte(`"_x":"y"`))
	if string(got) != `{"_x":"y"}` {
		t.Errorf("nil map with extra: %s", got)
	}
	got, _ = AppendObject(nil, map[string]any{}, nil)
	if string(got) != `{}` {
		t.Errorf("empty: %s", got)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "<>&", "\u2028", "\xff", "\x00", "é😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

func BenchmarkAppendBody(b *testing.B) {
	body := map[string]any{"requests": []map[string]any{{"method": "POST", "path": "/parse/classes/A", "body": map[string]any{"n": 1, "objectId": "abcdefghij"}}}}
	b.ReportAllocs()
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf, _ = AppendObject(buf[:0], body, []byte(`"_ApplicationId":"app"`))
	}
}

func BenchmarkEncodingJSONBody(b *testing.B) {
	body := map[string]any{"requests": []map[string]any{{"method": "POST", "path": "/parse/classes/A", "body": map[string]any{"n": 1, "objectId": "abcdefghij"}}}, "_ApplicationId": "app"}
	b.ReportAllocs()
	for b.Loop() {
		json.Marshal(body)
	}
}
