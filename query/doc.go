// Package query builds backend queries and runs them, remotely or locally, with typed results.
//
// A query is made for a class and a result type, refined with constraints and options, and run through a
// parse.QueryRunner: *client.Client runs it against the backend, the local store against pinned objects. The
// runner's request and answer are parse.QueryRequest and parse.QueryResponse (the types live in parse, which
// client, store and parse.Relation share; query has no other names for them).
//
//	q := query.New[*client.Object]("GameScore").
//		GreaterThanOrEqualTo("score", 1000).
//		Descending("score").
//		Limit(10)
//	top, err := q.Find(ctx, c)
//
// Results decode into the client's objects or into the caller's own structs:
//
//	type Score struct {
//		ID     string    `json:"objectId"`
//		Player string    `json:"playerName"`
//		Score  int       `json:"score"`
//		At     time.Time `json:"createdAt"`
//	}
//	scores, err := query.New[Score]("GameScore").EqualTo("playerName", "Sean").Find(ctx, c)
//
// Every object a query matches, however many, is walked with All, which pages by objectId (a first page of 100,
// then pages of 1,000) and fetches the next page while the caller works on the current one; Batches walks page by
// page, in pages of the spec's 100 (the original's each and eachBatch) unless told otherwise:
//
//	for s, err := range query.New[Score]("GameScore").All(ctx, c) { ... }
//	for page, err := range query.New[Score]("GameScore").Batches(ctx, c, nil) { ... }
//
// Builder methods are copy-on-write: they return a new *Query and leave the receiver unchanged, so queries are
// safe to share, reuse and extend from several goroutines. Building never panics; a mistake (a bad key name, a
// negative skip, a value that cannot be encoded) is kept in the query and returned, with any others, by the call
// that runs it. FromJSON reads the same query from its wire JSON (where, limit, skip, order, count, keys, ...),
// checking every value with the original client's messages, for code that receives queries as data.
//
// The wire form follows the Parse REST API: constraints become the where map ($lt, $in, $regex, $nearSphere,
// $inQuery, ...), values are encoded with the Parse codecs (dates, pointers, GeoPoints), and Query.Request returns
// the parse.QueryRequest a runner is given.
package query
