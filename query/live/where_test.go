package live

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckWhere(t *testing.T) {
	def := whereLimits{maxRegexLength: DefaultMaxRegexLength}
	regexOn := whereLimits{allowRegex: true, maxRegexLength: DefaultMaxRegexLength}
	orOf := func(n int, clause string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = clause
		}
		return `{"$or":[` + strings.Join(parts, ",") + `]}`
	}
	cases := []struct {
		where string
		lim   whereLimits
		ok    bool
	}{
		{`{}`, def, true},
		{`{"room":"lobby","n":3,"done":false,"x":null}`, def, true},
		{`{"score":{"$gt":1,"$lte":9},"tag":{"$in":["a","b"]},"k":{"$exists":true}}`, def, true},
		{`{"owner":{"__type":"Pointer","className":"_User","objectId":"abc"}}`, def, true},
		{`{"at":{"$gt":{"__type":"Date","iso":"2024-01-01T00:00:00.000Z"}}}`, def, true},
		{`{"$or":[{"a":1},{"b":{"$ne":2}}],"$and":[{"c":{"$nin":[1]}}]}`, def, true},
		{`{"a.b":1}`, def, true},
		// The attack: catastrophic regexes in an $or, and one alone.
		{orOf(36, `{"v":{"$regex":"(a+)+$"}}`), def, false},
		{`{"v":{"$regex":"(a+)+$"}}`, def, false},
		{`{"v":{"$regex":"(a+)+$"}}`, regexOn, false},
		{`{"v":{"$regex":"(?:a|aa)*$"}}`, regexOn, false},
		{`{"v":{"$regex":"(\\w+\\s?)+$"}}`, regexOn, false},
		{`{"v":{"$regex":"(a*)*b"}}`, regexOn, false},
		{`{"v":{"$regex":"(.{1,9}){9}"}}`, regexOn, false},
		{`{"v":{"$regex":"a*a*a*a*b"}}`, regexOn, false},
		{`{"v":{"$regex":"(a)\\1"}}`, regexOn, false},
		{`{"v":{"$regex":"(?=a)a"}}`, regexOn, false},
		{`{"v":{"$regex":"` + strings.Repeat("a", DefaultMaxRegexLength+1) + `"}}`, regexOn, false},
		{orOf(5, `{"v":{"$regex":"^ab"}}`), regexOn, false},
		{`{"v":{"$regex":"^ab","$options":"g"}}`, regexOn, false},
		{`{"v":{"$regex":{"source":"a"}}}`, regexOn, false},
		// Opted in: plain patterns pass.
		{`{"v":{"$regex":"^ab.*cd$","$options":"i"}}`, regexOn, true},
		{`{"v":{"$regex":"^(ab)+[a-z]{2,4}\\d?$"}}`, regexOn, true},
		{`{"v":{"$regex":"^[(+*]x"}}`, regexOn, true},
		// Other operators and shapes.
		{`{"v":{"$options":"i"}}`, def, false},
		{`{"v":{"$where":"1"}}`, def, false},
		{`{"v":{"$text":{"$search":{"$term":"a"}}}}`, def, false},
		{`{"v":{"$select":{"query":{},"key":"k"}}}`, def, false},
		{`{"v":{"$inQuery":{"where":{},"className":"X"}}}`, def, false},
		{`{"$relatedTo":{"object":{},"key":"k"}}`, def, false},
		{`{"v":{"$nearSphere":{"__type":"GeoPoint","latitude":1,"longitude":2}}}`, def, false},
		{`{"$where":"sleep(1)"}`, def, false},
		{`{"v":{"nested":{"$regex":"a"}}}`, def, false},
		{`{"v":[1,2]}`, def, false},
		{`{"v":{}}`, def, false},
		{`{"v":{"$in":"a"}}`, def, false},
		{`{"v":{"$in":[{"$regex":"a"}]}}`, def, false},
		{`{"v":{"$exists":"yes"}}`, def, false},
		{`{"v":{"__type":"Bytes","base64":"AA=="}}`, def, false},
		{`{"v":{"__type":"Pointer","className":{"$regex":"a"}}}`, def, false},
		{`{"bad-name":1}`, def, false},
		{`{"$or":[]}`, def, false},
		{`{"$or":[1]}`, def, false},
		{`{"$or":{"a":1}}`, def, false},
		{orOf(17, `{"a":1}`), def, false},
		{`{"$or":[{"$or":[{"$or":[{"$or":[{"$or":[{"a":1}]}]}]}]}]}`, def, false},
		{`{"v":{"$in":[` + strings.TrimSuffix(strings.Repeat("1,", 257), ",") + `]}}`, def, false},
	}
	for _, c := range cases {
		var where map[string]any
		if err := json.Unmarshal([]byte(c.where), &where); err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		err := checkWhere(where, c.lim)
		if (err == nil) != c.ok {
			t.Errorf("%.120s (regex allowed %v): err %v, want ok=%v", c.where, c.lim.allowRegex, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "live: where: ") {
			t.Errorf("error text %q", err)
		}
	}
	// More field constraints than the bound.
	many := map[string]any{}
	for i := range maxConstraints + 1 {
		many["f"+strings.Repeat("x", i%50)+string(rune('a'+i%26))+string(rune('a'+i/26))] = 1
	}
	if err := checkWhere(many, def); err == nil {
		t.Error("too many constraints accepted")
	}
}

// Whatever a where holds, checkWhere answers without panicking.
func FuzzCheckWhere(f *testing.F) {
	f.Add(`{"v":{"$regex":"(a+)+$"}}`)
	f.Add(`{"$or":[{"a":{"$in":[1,{"__type":"Date","iso":"x"}]}}]}`)
	f.Add(`{"v":{"$regex":"[\\]((a)|b)*{2,}?"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var where map[string]any
		if json.Unmarshal([]byte(s), &where) != nil {
			return
		}
		_ = checkWhere(where, whereLimits{allowRegex: true, maxRegexLength: 64})
		_ = checkWhere(where, whereLimits{maxRegexLength: 64})
	})
}
