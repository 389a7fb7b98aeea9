package query

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

type obj = *parse.Object

func base() *Query[obj] { return New[obj]("GameScore") }

// whereJSON renders a query's where map as canonical JSON.
func whereJSON(t *testing.T, q *Query[obj]) string {
	t.Helper()
	p, err := q.Params()
	if err != nil {
		t.Fatalf("Params: %v", err)
	}
	b, err := json.Marshal(p["where"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConstraintWireForms(t *testing.T) {
	pt := parse.GeoPoint{Latitude: 10, Longitude: 20}
	sw := parse.GeoPoint{Latitude: 1, Longitude: 2}
	ne := parse.GeoPoint{Latitude: 3, Longitude: 4}
	saved := parse.NewObjectWithID("Player", "p1")
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	sub := New[obj]("Player").EqualTo("team", "red").Limit(5)

	cases := []struct {
		name string
		q    *Query[obj]
		want string
	}{
		{"equalTo", base().EqualTo("name", "Sean"), `{"name":"Sean"}`},
		{"equalTo date", base().EqualTo("when", day), `{"when":{"__type":"Date","iso":"2026-11-22T00:00:00.000Z"}}`},
		{"equalTo object", base().EqualTo("player", saved), `{"player":{"__type":"Pointer","className":"Player","objectId":"p1"}}`},
		{"equalTo nil", base().EqualTo("name", nil), `{"name":null}`},
		{"notEqualTo", base().NotEqualTo("n", 1), `{"n":{"$ne":1}}`},
		{"lessThan", base().LessThan("n", 1), `{"n":{"$lt":1}}`},
		{"lessThanOrEqualTo", base().LessThanOrEqualTo("n", 1.5), `{"n":{"$lte":1.5}}`},
		{"greaterThan", base().GreaterThan("n", int64(2)), `{"n":{"$gt":2}}`},
		{"greaterThanOrEqualTo", base().GreaterThanOrEqualTo("n", uint8(3)), `{"n":{"$gte":3}}`},
		{"range", base().GreaterThan("n", 1).LessThan("n", 9), `{"n":{"$gt":1,"$lt":9}}`},
		{"equality replaced by condition", base().EqualTo("player", saved).Exists("player"), `{"player":{"$exists":true}}`},
		{"containedIn", base().ContainedIn("tag", []string{"a", "b"}), `{"tag":{"$in":["a","b"]}}`},
		{"containedIn any", base().ContainedIn("n", []any{1, "x", day}), `{"n":{"$in":[1,"x",{"__type":"Date","iso":"2026-11-22T00:00:00.000Z"}]}}`},
		{"notContainedIn", base().NotContainedIn("n", [2]int{1, 2}), `{"n":{"$nin":[1,2]}}`},
		{"containedBy", base().ContainedBy("tags", []string{"a"}), `{"tags":{"$containedBy":["a"]}}`},
		{"containsAll", base().ContainsAll("tags", []string{"a", "b"}), `{"tags":{"$all":["a","b"]}}`},
		{"containsAllStartingWith", base().ContainsAllStartingWith("tags", "ab", "c"), `{"tags":{"$all":[{"$regex":"^\\Qab\\E"},{"$regex":"^\\Qc\\E"}]}}`},
		{"exists", base().Exists("x"), `{"x":{"$exists":true}}`},
		{"doesNotExist", base().DoesNotExist("x"), `{"x":{"$exists":false}}`},
		{"matches", base().Matches("name", "^se.n$", "im"), `{"name":{"$options":"im","$regex":"^se.n$"}}`},
		{"matches no modifiers", base().Matches("name", "a+", ""), `{"name":{"$regex":"a+"}}`},
		{"contains", base().Contains("name", "a.b"), `{"name":{"$regex":"\\Qa.b\\E"}}`},
		{"contains quotes \\E", base().Contains("name", `x\Ey`), `{"name":{"$regex":"\\Qx\\E\\\\E\\Qy\\E"}}`},
		{"startsWith", base().StartsWith("name", "Se"), `{"name":{"$regex":"^\\QSe\\E"}}`},
		{"endsWith", base().EndsWith("name", "an"), `{"name":{"$regex":"\\Qan\\E$"}}`},
		{"fullText", base().FullText("body", "coffee"), `{"body":{"$text":{"$search":{"$term":"coffee"}}}}`},
		{"fullText options", base().FullText("body", "café", WithLanguage("fr"), WithCaseSensitive(false), WithDiacriticSensitive(true)),
			`{"body":{"$text":{"$search":{"$caseSensitive":false,"$diacriticSensitive":true,"$language":"fr","$term":"café"}}}}`},
		{"near", base().Near("loc", pt), `{"loc":{"$nearSphere":{"__type":"GeoPoint","latitude":10,"longitude":20}}}`},
		{"withinRadians sorted", base().WithinRadians("loc", pt, 0.5, true), `{"loc":{"$maxDistance":0.5,"$nearSphere":{"__type":"GeoPoint","latitude":10,"longitude":20}}}`},
		{"withinRadians unsorted", base().WithinRadians("loc", pt, 0.5, false), `{"loc":{"$geoWithin":{"$centerSphere":[[20,10],0.5]}}}`},
		{"withinMiles", base().WithinMiles("loc", pt, 3958.8, false), `{"loc":{"$geoWithin":{"$centerSphere":[[20,10],1]}}}`},
		{"withinKilometers", base().WithinKilometers("loc", pt, 6371*2, true), `{"loc":{"$maxDistance":2,"$nearSphere":{"__type":"GeoPoint","latitude":10,"longitude":20}}}`},
		{"withinGeoBox", base().WithinGeoBox("loc", sw, ne), `{"loc":{"$within":{"$box":[{"__type":"GeoPoint","latitude":1,"longitude":2},{"__type":"GeoPoint","latitude":3,"longitude":4}]}}}`},
		{"withinPolygon", base().WithinPolygon("loc", sw, ne, pt), `{"loc":{"$geoWithin":{"$polygon":[{"__type":"GeoPoint","latitude":1,"longitude":2},{"__type":"GeoPoint","latitude":3,"longitude":4},{"__type":"GeoPoint","latitude":10,"longitude":20}]}}}`},
		{"polygonContains", base().PolygonContains("area", pt), `{"area":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":10,"longitude":20}}}}`},
		{"matchesQuery", base().MatchesQuery("player", sub), `{"player":{"$inQuery":{"className":"Player","limit":5,"where":{"team":"red"}}}}`},
		{"doesNotMatchQuery", base().DoesNotMatchQuery("player", sub), `{"player":{"$notInQuery":{"className":"Player","limit":5,"where":{"team":"red"}}}}`},
		{"matchesKeyInQuery", base().MatchesKeyInQuery("city", "hometown", sub), `{"city":{"$select":{"key":"hometown","query":{"className":"Player","limit":5,"where":{"team":"red"}}}}}`},
		{"doesNotMatchKeyInQuery", base().DoesNotMatchKeyInQuery("city", "hometown", sub), `{"city":{"$dontSelect":{"key":"hometown","query":{"className":"Player","limit":5,"where":{"team":"red"}}}}}`},
		{"relatedTo", base().RelatedTo(parse.Pointer{ClassName: "Post", ObjectID: "x1"}, "likes"), `{"$relatedTo":{"key":"likes","object":{"__type":"Pointer","className":"Post","objectId":"x1"}}}`},
		{"dotted key", base().EqualTo("stats.level", 3), `{"stats.level":3}`},
		{"and", And(base().EqualTo("a", 1), base().EqualTo("b", 2)), `{"$and":[{"a":1},{"b":2}]}`},
		{"nor", Nor(base().EqualTo("a", 1)), `{"$nor":[{"a":1}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := whereJSON(t, c.q); got != c.want {
				t.Errorf("where\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestShapeParams(t *testing.T) {
	q := base().
		Ascending("a, b").AddDescending("c").AddAscending("d", "e,f").
		Skip(3).Limit(7).WithCount(true).
		Include("owner", "owner.team").IncludeAll().
		Select("score", "name").Exclude("secret").
		ReadPreference(SecondaryPreferred, Nearest, Primary).
		Hint("score_1").Explain(true)
	b, err := q.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":1,"excludeKeys":"secret","explain":true,"hint":"score_1","include":"owner,owner.team,*","includeReadPreference":"NEAREST","keys":"score,name","limit":7,"order":"a,b,-c,d,e,f","readPreference":"SECONDARY_PREFERRED","skip":3,"subqueryReadPreference":"PRIMARY","where":{}}`
	if string(b) != want {
		t.Errorf("params\n got %s\nwant %s", b, want)
	}
	req, err := q.Request()
	if err != nil || req.Op != OpFind || req.ClassName != "GameScore" || !req.UseMasterKey {
		t.Errorf("request = %+v, %v; want a find on GameScore with the master key (explain)", req, err)
	}
	// Descending replaces the order; limit -1 unsets it; hint map.
	q2 := q.Descending("z").Limit(-5).Hint(map[string]any{"score": 1}).Explain(false).WithCount(false)
	p, _ := q2.Params()
	if p["order"] != "-z" || p["limit"] != nil || p["explain"] != nil || p["count"] != nil {
		t.Errorf("params after changes = %v", p)
	}
	if h, _ := json.Marshal(p["hint"]); string(h) != `{"score":1}` {
		t.Errorf("hint = %s", h)
	}
	// Limit(0) is sent (count-only queries).
	if p, _ := base().Limit(0).Params(); p["limit"] != 0 {
		t.Errorf("limit 0 not sent: %v", p)
	}
	// SortByTextScore.
	if p, _ := base().SortByTextScore().Params(); p["order"] != "$score" || p["keys"] != "$score" {
		t.Errorf("SortByTextScore params = %v", p)
	}
	// Select with no keys still sends keys.
	if p, _ := base().Select().Params(); p["keys"] != "" {
		t.Errorf("empty select = %v", p)
	}
}

func TestCopyOnWrite(t *testing.T) {
	q1 := base().GreaterThan("n", 1)
	q2 := q1.LessThan("n", 5).Limit(3).Include("a")
	q3 := q1.Exists("n")
	if got := whereJSON(t, q1); got != `{"n":{"$gt":1}}` {
		t.Errorf("q1 changed: %s", got)
	}
	if got := whereJSON(t, q2); got != `{"n":{"$gt":1,"$lt":5}}` {
		t.Errorf("q2 = %s", got)
	}
	if got := whereJSON(t, q3); got != `{"n":{"$exists":true,"$gt":1}}` {
		t.Errorf("q3 = %s", got)
	}
	if p, _ := q1.Params(); p["limit"] != nil || p["include"] != nil {
		t.Errorf("q1 params changed: %v", p)
	}
	// Changing the caller's slice after the call does not change the query.
	names := []string{"a", "b"}
	q4 := base().ContainedIn("x", names)
	names[0] = "zzz"
	if got := whereJSON(t, q4); got != `{"x":{"$in":["a","b"]}}` {
		t.Errorf("query follows caller's slice: %s", got)
	}
	// Changing what Params returned does not change the query.
	p, _ := q1.Params()
	p["where"].(map[string]any)["n"].(map[string]any)["$gt"] = 99
	if got := whereJSON(t, q1); got != `{"n":{"$gt":1}}` {
		t.Errorf("Params result aliases the query: %s", got)
	}
	// Concurrent extension of one shared query (run with -race).
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := q1.LessThan("n", i).Ascending("n").Skip(i)
			if _, err := q.Params(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestBuildErrorsAreKeptAndJoined(t *testing.T) {
	q := base().
		EqualTo("", 1).
		LessThan("1abc", 2).
		Skip(-1).
		StartsWith("$where", "x").
		Ascending("ok", "bad-key").
		ContainedIn("n", 5).
		EqualTo("f", func() {}).
		EqualTo("nan", math.NaN()).
		Near("loc", parse.GeoPoint{Latitude: 91}).
		WithinPolygon("loc", parse.GeoPoint{}, parse.GeoPoint{}).
		Matches("name", "x", "q").
		FullText("body", "").
		FullText("", "x").
		FullText("body", "x", TextOption{name: "stemming", value: true}).
		Select("a b c!").
		ReadPreference("FASTEST", "", "").
		Hint(42).
		EqualTo("inject", map[string]any{"$ne": nil}).
		LessThan("inject2", map[string]any{"$regex": ".*"}).
		EqualTo("ok", 1)
	err := q.Err()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []error{ErrInvalidKey, ErrSkip, parse.ErrLatitudeRange, parse.ErrPolygonTooSmall, ErrSearchTermRequired, ErrKeyRequired, ErrReadPreference} {
		if !errors.Is(err, want) {
			t.Errorf("errors.Is(err, %q) = false; err:\n%v", want, err)
		}
	}
	var uo *UnknownOptionError
	if !errors.As(err, &uo) || uo.Error() != "Unknown option: stemming" {
		t.Errorf("no UnknownOptionError for stemming: %v", err)
	}
	msg := err.Error()
	for _, part := range []string{`EqualTo: Invalid Key name for queries: ""`, `"1abc"`, `"$where"`, `"bad-key"`, "values must be a slice, got int",
		"Bad $options value for query: q", "cannot encode", "Hint", `EqualTo("inject"): the value is a map of $-operators`,
		`LessThan("inject2")`} {
		if !strings.Contains(msg, part) {
			t.Errorf("error lacks %q:\n%s", part, msg)
		}
	}
	// The query refuses to encode or run.
	if _, err := q.Params(); err == nil {
		t.Error("Params succeeded on a query with errors")
	}
	if _, err := q.MarshalJSON(); err == nil {
		t.Error("MarshalJSON succeeded on a query with errors")
	}
	if !strings.HasPrefix(q.String(), "query error: ") {
		t.Errorf("String = %q", q.String())
	}
	// Class names are checked.
	for _, cn := range []string{"", "1bad", "a/b", "../x"} {
		if err := New[obj](cn).Err(); !errors.Is(err, ErrInvalidClassName) {
			t.Errorf("New(%q).Err() = %v", cn, err)
		}
	}
	// Or of different classes.
	if err := Or(base(), New[obj]("Other")).Err(); !errors.Is(err, ErrSameClass) {
		t.Errorf("Or of two classes: %v", err)
	}
	if err := Or[obj]().Err(); err == nil {
		t.Error("Or of nothing: no error")
	}
	if err := Or(base().Skip(-1)).Err(); !errors.Is(err, ErrSkip) {
		t.Errorf("Or keeps sub-errors: %v", err)
	}
	// Subquery errors reach the outer query.
	if err := base().MatchesQuery("p", New[obj]("P").Skip(-2)).Err(); !errors.Is(err, ErrSkip) {
		t.Errorf("subquery error lost: %v", err)
	}
	// RelatedTo needs a saved parent.
	if err := base().RelatedTo(parse.Pointer{ClassName: "Post"}, "likes").Err(); err == nil {
		t.Error("RelatedTo an unsaved parent: no error")
	}
	// An unsaved object cannot be a constraint value.
	if err := base().EqualTo("p", parse.NewObject("Player")).Err(); err == nil || !strings.Contains(err.Error(), "unsaved") {
		t.Errorf("unsaved object: %v", err)
	}
}

func TestNilQueryAndSubqueryDoNotPanic(t *testing.T) {
	var q *Query[obj]
	if q.ClassName() != "" || !errors.Is(q.Err(), ErrNilQuery) {
		t.Error("nil query accessors")
	}
	if err := q.EqualTo("a", 1).Err(); !errors.Is(err, ErrNilQuery) {
		t.Errorf("builder on nil: %v", err)
	}
	if _, err := q.Params(); !errors.Is(err, ErrNilQuery) {
		t.Errorf("Params on nil: %v", err)
	}
	var nilSub *Query[map[string]any]
	if err := base().MatchesQuery("p", nilSub).Err(); !errors.Is(err, ErrNilQuery) {
		t.Errorf("nil subquery: %v", err)
	}
	if err := base().MatchesQuery("p", nil).Err(); !errors.Is(err, ErrNilQuery) {
		t.Errorf("nil interface subquery: %v", err)
	}
	if err := Or(base(), nil).Err(); !errors.Is(err, ErrNilQuery) {
		t.Errorf("Or with nil: %v", err)
	}
}

func TestTextOptionsFromMap(t *testing.T) {
	opts, err := TextOptionsFromMap(map[string]any{"language": "en", "caseSensitive": true, "diacriticSensitive": false})
	if err != nil || len(opts) != 3 {
		t.Fatalf("opts = %v, %v", opts, err)
	}
	got := whereJSON(t, base().FullText("b", "t", opts...))
	if got != `{"b":{"$text":{"$search":{"$caseSensitive":true,"$diacriticSensitive":false,"$language":"en","$term":"t"}}}}` {
		t.Errorf("where = %s", got)
	}
	_, err = TextOptionsFromMap(map[string]any{"language": "en", "fuzzy": true})
	if err == nil || err.Error() != "Unknown option: fuzzy" {
		t.Errorf("unknown option error = %v", err)
	}
	if _, err := TextOptionsFromMap(map[string]any{"language": 3}); err == nil {
		t.Error("language 3 accepted")
	}
	if _, err := TextOptionsFromMap(map[string]any{"caseSensitive": "yes"}); err == nil {
		t.Error("caseSensitive \"yes\" accepted")
	}
}

func TestErrObjectNotFoundMatchesByCode(t *testing.T) {
	q := New[*parse.Object]("GameScore")
	f := &fakeRunner{answer: func(context.Context, *parse.QueryRequest) (*parse.QueryResponse, error) {
		return &parse.QueryResponse{}, nil
	}}
	_, err := q.First(t.Context(), f)
	if !errors.Is(err, ErrObjectNotFound) || !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("First on no match: %v", err)
	}
	var pe *parse.Error
	if !errors.As(err, &pe) || pe.Code != parse.CodeObjectNotFound || pe.Message != "Object not found." || pe.Op != "GET classes/GameScore" {
		t.Errorf("details: %#v", pe)
	}
	if errors.Is(err, &parse.Error{Code: parse.CodeInvalidQuery}) {
		t.Error("matches code 102")
	}
}
