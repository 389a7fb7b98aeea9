package parse

import (
	"context"
	"encoding/json"
)

// QueryRunner runs an encoded query: *client.Client against the backend, the local store (store.Store) against
// pinned objects; package query's Find, First, All and the rest take one. Implementations must be safe for
// concurrent use.
type QueryRunner interface {
	RunQuery(ctx context.Context, req *QueryRequest) (*QueryResponse, error)
}

// QueryRequest is a query in its wire form, as package query builds it (Query.Request).
type QueryRequest struct {
	// ClassName is the class queried.
	ClassName string
	// Op is "find" (GET classes/{ClassName}) or "aggregate" (GET aggregate/{ClassName}).
	Op string
	// Params are the wire parameters: where (a map), order, limit, skip, keys, excludeKeys, include, count,
	// readPreference, includeReadPreference, subqueryReadPreference, hint, explain, distinct, pipeline.
	Params map[string]any
	// UseMasterKey asks the runner to send the master key (aggregate, explain).
	UseMasterKey bool
	// PreferObjects says the caller wants objects: a runner may then answer with Objects instead of Results and
	// save a JSON pass (the client decodes the server's answer straight into objects). Runners may ignore it.
	PreferObjects bool
	// Arrived, when set, is called by a runner that can, once, before RunQuery returns: as soon as a find's answer
	// has arrived and before it is decoded, with the number of results and the last result's objectId ("" when it
	// has none), so a pager asks for the next page while this one is decoded. Runners may ignore it; it must not
	// block.
	Arrived func(results int, lastObjectID string)
}

// QueryResponse is a runner's answer.
type QueryResponse struct {
	// Results are the raw JSON results (objects, or values for distinct).
	Results []json.RawMessage
	// Objects, optional, are the results as fresh objects, for a runner that holds them decoded (the local
	// store): a runner fills either Results or Objects, and each object belongs to the caller. The query
	// package hands them over as they are when it decodes into *Object or Object, and encodes them otherwise.
	Objects []*Object
	// Count is the total count when the request asked for one (count=1).
	Count int
	// HasCount reports whether Count was sent.
	HasCount bool
}
