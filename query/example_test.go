package query_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// The wire JSON of a query built with constraints and options.
func ExampleNew() {
	q := query.New[*parse.Object]("GameScore").
		GreaterThanOrEqualTo("score", 1000).
		LessThan("createdAt", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)).
		ContainedIn("playerName", []string{"Sean", "Ann"}).
		Descending("score").
		Select("score", "playerName").
		Limit(10).
		Skip(20)
	b, err := q.MarshalJSON()
	fmt.Println(string(b), err)
	// Output:
	// {"keys":"score,playerName","limit":10,"order":"-score","skip":20,"where":{"createdAt":{"$lt":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"}},"playerName":{"$in":["Sean","Ann"]},"score":{"$gte":1000}}} <nil>
}

// Compound queries: objects matching either query.
func ExampleOr() {
	low := query.New[*parse.Object]("GameScore").LessThan("score", 10)
	high := query.New[*parse.Object]("GameScore").GreaterThan("score", 90)
	b, _ := query.Or(low, high).MarshalJSON()
	fmt.Println(string(b))
	// Output:
	// {"where":{"$or":[{"score":{"$lt":10}},{"score":{"$gt":90}}]}}
}

// Geo constraints: sorted by distance ($nearSphere) or not ($geoWithin $centerSphere).
func ExampleQuery_WithinKilometers() {
	here := parse.GeoPoint{Latitude: 52.5, Longitude: 13.4}
	sorted, _ := query.New[*parse.Object]("Place").WithinKilometers("location", here, 6371, true).MarshalJSON()
	unsorted, _ := query.New[*parse.Object]("Place").WithinKilometers("location", here, 6371, false).MarshalJSON()
	fmt.Println(string(sorted))
	fmt.Println(string(unsorted))
	// Output:
	// {"where":{"location":{"$maxDistance":1,"$nearSphere":{"__type":"GeoPoint","latitude":52.5,"longitude":13.4}}}}
	// {"where":{"location":{"$geoWithin":{"$centerSphere":[[13.4,52.5],1]}}}}
}

// A subquery: scores of players in one team.
func ExampleQuery_MatchesQuery() {
	team := query.New[*parse.Object]("Player").EqualTo("team", "red")
	b, _ := query.New[*parse.Object]("GameScore").MatchesQuery("player", team).MarshalJSON()
	fmt.Println(string(b))
	// Output:
	// {"where":{"player":{"$inQuery":{"className":"Player","where":{"team":"red"}}}}}
}

// Mistakes are kept and returned, all together, by the call that runs or encodes the query.
func ExampleQuery_Err() {
	q := query.New[*parse.Object]("GameScore").Skip(-1).EqualTo("bad key", 1)
	fmt.Println(q.Err())
	// Output:
	// query: Skip(-1): You can only skip by a positive number
	// query: EqualTo: Invalid Key name for queries: "bad key"
}

// A query read from its JSON form, as the server takes it.
func ExampleFromJSON() {
	q, err := query.FromJSON[map[string]any]("GameScore",
		[]byte(`{"where":{"score":{"$gt":5}},"limit":"ten","count":2,"order":"-score"}`))
	fmt.Println(q == nil)
	fmt.Println(err)
	// Output:
	// true
	// query: count 2: You can only set withCount to a boolean value
	// query: limit "ten": You can only set the limit to a numeric value
}

// pagesRunner serves ids a..e, ordered by objectId, honouring objectId > after and limit, and prints each request.
type pagesRunner struct{}

func (pagesRunner) RunQuery(_ context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	b, _ := json.Marshal(req.Params)
	fmt.Println("request:", string(b))
	after := ""
	if c, ok := req.Params["where"].(map[string]any)["objectId"].(map[string]any); ok {
		after = c["$gt"].(string)
	}
	var out []json.RawMessage
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if id > after && len(out) < req.Params["limit"].(int) {
			out = append(out, json.RawMessage(`{"objectId":"`+id+`","score":1}`))
		}
	}
	return &parse.QueryResponse{Results: out}, nil
}

// Walking every match with All: keyset-paged by objectId, a first page of 100, then pages of 1,000.
func ExampleQuery_All() {
	q := query.New[*parse.Object]("GameScore").EqualTo("score", 1)
	for o, err := range q.All(context.Background(), pagesRunner{}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println("object:", o.ClassName(), o.ID())
	}
	// Output:
	// request: {"limit":100,"order":"objectId","where":{"score":1}}
	// object: GameScore a
	// object: GameScore b
	// object: GameScore c
	// object: GameScore d
	// object: GameScore e
}

// Walking every match page by page with Batches, in pages of two (the default is the spec's 100).
func ExampleQuery_Batches() {
	q := query.New[*parse.Object]("GameScore").EqualTo("score", 1)
	for page, err := range q.Batches(context.Background(), pagesRunner{}, &query.BatchOptions{Size: 2}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println("page of", len(page))
	}
	// Unordered output:
	// request: {"limit":2,"order":"objectId","where":{"score":1}}
	// request: {"limit":2,"order":"objectId","where":{"objectId":{"$gt":"b"},"score":1}}
	// request: {"limit":2,"order":"objectId","where":{"objectId":{"$gt":"d"},"score":1}}
	// page of 2
	// page of 2
	// page of 1
}
