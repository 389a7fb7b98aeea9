package wirejson

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// A map or slice that contains itself is an error, as encoding/json reports it ("encountered a cycle"), not a
// stack overflow that ends the program.
func TestAppendCycleIsAnError(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20)) // without the fix: a quick fatal overflow, not 1 GB
	m := map[string]any{"a": 1}
	m["self"] = m
	s := []any{"x", nil}
	s[1] = s
	deep := map[string]any{"l": []any{map[string]any{"m": nil}}}
	deep["l"].([]any)[0].(map[string]any)["m"] = deep
	for _, v := range []any{m, s, deep, map[string]any{"params": m}, []map[string]any{m}} {
		_, werr := json.Marshal(v)
		_, gerr := Append(nil, v)
		if werr == nil || gerr == nil || gerr.Error() != werr.Error() {
			t.Errorf("%T: error %v, encoding/json %v", v, gerr, werr)
		}
		if _, gerr := AppendObject(nil, map[string]any{"v": v}, []byte(`"_x":1`)); gerr == nil || !strings.Contains(gerr.Error(), "cycle") {
			t.Errorf("AppendObject of %T: error %v", v, gerr)
		}
	}
}

// Deep values that are not cycles encode as encoding/json encodes them, past the depth where cycles are looked
// for.
func TestAppendDeepValueMatchesEncodingJSON(t *testing.T) {
	var v any = "leaf"
	for i := range 3000 {
		if i%2 == 0 {
			v = []any{v, i}
		} else {
			v = map[string]any{"k": v, "<": i}
		}
	}
	want, werr := json.Marshal(v)
	got, gerr := Append(nil, v)
	if werr != nil || gerr != nil || string(got) != string(want) {
		t.Errorf("deep value: error %v (encoding/json %v), equal %v", gerr, werr, string(got) == string(want))
	}
}

// AppendObject of a value deeper than maxEncodeDepth still splices its extra members in.
func TestAppendObjectOfADeepValueSplicesItsMembers(t *testing.T) {
	var v any = 1
	for range 1500 {
		v = []any{v}
	}
	got, err := AppendObject([]byte("x"), map[string]any{"b": v, "a": "<"}, []byte(`"_x":1`))
	want, _ := json.Marshal(v)
	if err != nil || string(got) != `x{"a":"\u003c","b":`+string(want)+`,"_x":1}` {
		t.Errorf("%.80s..., %v", got, err)
	}
}

type named string
type ptrMarsh struct{}

func (*ptrMarsh) MarshalJSON() ([]byte, error) { return []byte(`"p"`), nil }

type textM struct{ s string }

func (t textM) MarshalText() ([]byte, error) { return []byte(t.s), nil }

func randString(r *rand.Rand) string {
	alpha := []string{"a", "<", ">", "&", "\u2028", "\u2029", "\xff", "\xc3", "\x00", "\x1f", "\x7f", "\"", "\\", "é", "😀", "\ufffd", "\xed\xa0\x80", "\b", "\f", "/"}
	n := r.IntN(6)
	s := ""
	for range n {
		s += alpha[r.IntN(len(alpha))]
	}
	return s
}

func randFloat(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return math.Float64frombits(r.Uint64())
	case 1:
		return float64(r.IntN(1000)) * math.Pow(10, float64(r.IntN(60)-30))
	case 2:
		return r.NormFloat64() * 1e21
	case 3:
		return r.NormFloat64() * 1e-6
	case 4:
		return math.Copysign(0, -1)
	}
	return r.Float64()
}

func randValue(r *rand.Rand, depth int) any {
	k := r.IntN(22)
	if depth > 4 && k >= 14 {
		k = r.IntN(14)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return randString(r)
	case 2:
		return r.IntN(2) == 0
	case 3:
		return randFloat(r)
	case 4:
		return float32(randFloat(r))
	case 5:
		return int(r.Int64())
	case 6:
		return int64(r.Int64())
	case 7:
		return uint64(r.Uint64())
	case 8:
		return json.Number("1e5")
	case 9:
		return named(randString(r))
	case 10:
		return time.Unix(r.Int64N(1e10), r.Int64N(1e9)).UTC()
	case 11:
		return json.RawMessage(`{"b" : [1, 2], "a":"<"}`)
	case 12:
		return &ptrMarsh{}
	case 13:
		return map[textM]int{{randString(r)}: 1, {randString(r)}: 2}
	case 14:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randString(r)] = randValue(r, depth+1)
		}
		if r.IntN(8) == 0 {
			return map[string]any(nil)
		}
		return m
	case 15:
		a := []any{}
		for range r.IntN(5) {
			a = append(a, randValue(r, depth+1))
		}
		if r.IntN(8) == 0 {
			return []any(nil)
		}
		return a
	case 16:
		var a []map[string]any
		for range r.IntN(3) {
			m, _ := randValue(r, 10).(map[string]any)
			a = append(a, m)
		}
		return a
	case 17:
		var a []string
		for range r.IntN(3) {
			a = append(a, randString(r))
		}
		return a
	case 18:
		m := map[string]string{}
		for range r.IntN(4) {
			m[randString(r)] = randString(r)
		}
		return m
	case 19:
		return []byte(randString(r))
	case 20:
		return map[string]int{randString(r): 1}
	}
	return struct {
		A any `json:"a"`
	}{randValue(r, depth+1)}
}

// Random values of every shape Append knows and some it hands to encoding/json encode, and fail, as
// encoding/json.Marshal has them.
func TestAppendMatchesEncodingJSONOnRandomValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		v := randValue(r, 0)
		want, werr := json.Marshal(v)
		got, gerr := Append(nil, v)
		if (werr != nil) != (gerr != nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%d %#v: err %v want %v", i, v, gerr, werr)
		}
		if werr == nil && string(got) != string(want) {
			t.Fatalf("%d %#v:\n got %s\nwant %s", i, v, got, want)
		}
	}
}
