package query

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

func TestFromJSONRoundTrip(t *testing.T) {
	sub := New[obj]("Player").EqualTo("team", "red")
	built := New[obj]("GameScore").
		GreaterThan("score", 10).LessThanOrEqualTo("score", 99).
		ContainedIn("tag", []string{"a"}).
		ContainsAllStartingWith("tags", "x").
		Matches("name", "^s", "i").
		FullText("body", "coffee", WithLanguage("en")).
		WithinKilometers("loc", parse.GeoPoint{Latitude: 1, Longitude: 2}, 10, false).
		WithinGeoBox("loc2", parse.GeoPoint{}, parse.GeoPoint{Latitude: 1, Longitude: 1}).
		PolygonContains("area", parse.GeoPoint{Latitude: 1, Longitude: 1}).
		MatchesQuery("player", sub).
		MatchesKeyInQuery("city", "home", sub).
		RelatedTo(parse.Pointer{ClassName: "Post", ObjectID: "p"}, "likes").
		Descending("score").AddAscending("name").
		Skip(5).Limit(10).WithCount(true).
		Include("player").Select("score", "name").Exclude("secret").
		ReadPreference(Primary, Secondary, Nearest).Hint("idx").Explain(true)
	b1, err := built.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	q, err := FromJSON[obj]("GameScore", b1)
	if err != nil {
		t.Fatalf("FromJSON of %s: %v", b1, err)
	}
	b2, err := q.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(b1) != string(b2) {
		t.Errorf("round trip\n got %s\nwant %s", b2, b1)
	}
	// Or keeps working on a decoded query.
	or := Or(q.Limit(-1).Skip(0), New[obj]("GameScore").EqualTo("x", 1))
	if err := or.Err(); err != nil {
		t.Error(err)
	}
}

func TestFromJSONForms(t *testing.T) {
	q, err := FromJSON[obj]("", []byte(`{"className":"GameScore","where":"{\"a\":1}","count":1,"keys":["a","b"],"order":" -a , b","_method":"GET","_ApplicationId":"x","limit":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if q.ClassName() != "GameScore" {
		t.Errorf("class %q", q.ClassName())
	}
	p, _ := q.Params()
	if b, _ := json.Marshal(p); string(b) != `{"count":1,"keys":"a,b","order":"-a,b","where":{"a":1}}` {
		t.Errorf("params %s", b)
	}
	q, err = FromJSON[obj]("T", []byte(`{"count":false,"explain":false,"where":null,"hint":null,"limit":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := q.Params(); p["count"] != nil || p["limit"] != 0 {
		t.Errorf("params %v", p)
	}
	if q, err := FromJSON[obj]("T", []byte(`{}`)); err != nil || q.ClassName() != "T" {
		t.Errorf("empty query: %v", err)
	}
}

func TestFromJSONErrors(t *testing.T) {
	cases := []struct {
		in   string
		want []error
		text []string
	}{
		{`{"limit":"10"}`, []error{ErrLimit}, nil},
		{`{"limit":1.5}`, []error{ErrLimit}, nil},
		{`{"limit":true}`, []error{ErrLimit}, nil},
		{`{"skip":-1}`, []error{ErrSkip}, nil},
		{`{"skip":"a"}`, []error{ErrSkip}, nil},
		{`{"count":"yes"}`, []error{ErrWithCount}, nil},
		{`{"count":2}`, []error{ErrWithCount}, nil},
		{`{"explain":1}`, []error{ErrExplain}, nil},
		{`{"where":{"bad key":1}}`, []error{ErrInvalidKey}, nil},
		{`{"where":{"$or":[{"1x":1}]}}`, []error{ErrInvalidKey}, nil},
		{`{"where":{"a":{"$regex":5}}}`, []error{ErrNotString}, []string{"The value being searched for must be a string."}},
		{`{"where":{"a":{"$all":[{"$regex":5}]}}}`, []error{ErrNotString}, nil},
		{`{"where":{"a":{"$text":{"$search":{"$term":7}}}}}`, []error{ErrNotString}, nil},
		{`{"where":{"a":{"$text":{"$search":{"$term":"x","$stemming":true}}}}}`, nil, []string{"Unknown option: stemming"}},
		{`{"where":{"a":{"$text":{"$search":{}}}}}`, []error{ErrSearchTermRequired}, nil},
		{`{"where":{"a":{"$regex":"x","$options":"z"}}}`, nil, []string{"Bad $options value for query: \"z\""}},
		{`{"where":{"a":{"$bogus":1}}}`, nil, []string{`unknown operator "$bogus"`}},
		{`{"where":{"a":{"$in":3}}}`, nil, []string{"needs an array"}},
		{`{"where":{"a":{"$exists":"yes"}}}`, nil, []string{"needs a boolean"}},
		{`{"where":{"a":{"$inQuery":{"className":"../x","where":{}}}}}`, []error{ErrInvalidClassName}, nil},
		{`{"where":{"a":{"$select":{"key":"$k","query":{"className":"P"}}}}}`, []error{ErrInvalidKey}, nil},
		{`{"where":{"$relatedTo":{"object":1,"key":"k"}}}`, nil, []string{"must be a Pointer"}},
		{`{"where":{"$or":{}}}`, nil, []string{"needs an array"}},
		{`{"where":"notjson"}`, nil, []string{"where parameter is not valid JSON"}},
		{`{"where":[1]}`, nil, []string{"where must be an object"}},
		{`{"order":"-bad$key"}`, []error{ErrInvalidKey}, nil},
		{`{"keys":[1]}`, []error{ErrInvalidKey}, nil},
		{`{"include":{}}`, nil, []string{"include must be a string"}},
		{`{"readPreference":"FAST"}`, []error{ErrReadPreference}, nil},
		{`{"hint":3}`, nil, []string{"Hint"}},
		{`{"frobnicate":1}`, nil, []string{`unknown query parameter "frobnicate"`}},
		{`{"className":"Other"}`, nil, []string{"does not match"}},
		{`{"className":5}`, nil, []string{"className must be a string"}},
		{`[1]`, nil, []string{"FromJSON"}},
		{`null`, nil, []string{"must be a JSON object"}},
		{`{} {}`, nil, []string{"trailing data"}},
		{`{"limit":"x","skip":-4,"count":"y"}`, []error{ErrLimit, ErrSkip, ErrWithCount}, nil},
	}
	for _, c := range cases {
		q, err := FromJSON[obj]("GameScore", []byte(c.in))
		if err == nil || q != nil {
			t.Errorf("%s: no error", c.in)
			continue
		}
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: %v is not %v", c.in, err, w)
			}
		}
		for _, s := range c.text {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q lacks %q", c.in, err, s)
			}
		}
	}
	var uo *UnknownOptionError
	_, err := FromJSON[obj]("T", []byte(`{"where":{"a":{"$text":{"$search":{"$term":"x","$fuzzy":1}}}}}`))
	if !errors.As(err, &uo) || uo.Option != "fuzzy" {
		t.Errorf("UnknownOptionError: %v", err)
	}
	deep := strings.Repeat(`{"$or":[`, 40) + `{}` + strings.Repeat(`]}`, 40)
	if _, err := FromJSON[obj]("T", []byte(`{"where":`+deep+`}`)); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestFromMapDoesNotAlias(t *testing.T) {
	raw := map[string]any{"where": map[string]any{"a": map[string]any{"$gt": 1.0}}}
	q, err := FromMap[obj]("T", raw)
	if err != nil {
		t.Fatal(err)
	}
	raw["where"].(map[string]any)["a"].(map[string]any)["$gt"] = 50.0
	if got := whereJSON(t, q); got != `{"a":{"$gt":1}}` {
		t.Errorf("query follows the caller's map: %s", got)
	}
}
