package query

import "github.com/c13f5054/moralis-go/parse"

// Runner runs an encoded query. Both *client.Client (against the backend) and the local store satisfy it, so the
// same query runs remotely or against pinned objects. Implementations must be safe for concurrent use.
//
//	RunQuery(ctx context.Context, req *Request) (*Response, error)
type Runner = parse.QueryRunner

// Request is a query in its wire form: ClassName, Op ("find" or "aggregate"), Params (where as a map, order,
// limit, skip, keys, excludeKeys, include, count, readPreference, includeReadPreference, subqueryReadPreference,
// hint, explain, distinct, pipeline) and UseMasterKey.
type Request = parse.QueryRequest

// Response is a runner's answer: the raw JSON Results, and Count with HasCount when a count was asked for.
type Response = parse.QueryResponse
