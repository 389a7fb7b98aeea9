package wire

import (
	"context"
	"encoding/json"
)

// QueryRunner runs an encoded query; query.Runner is this interface. Implementations must be safe for
// concurrent use.
type QueryRunner interface {
	RunQuery(ctx context.Context, req *QueryRequest) (*QueryResponse, error)
}

// QueryRequest is a query in its wire form (query.Request).
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
}

// QueryResponse is a runner's answer (query.Response).
type QueryResponse struct {
	// Results are the raw JSON results (objects, or values for distinct).
	Results []json.RawMessage
	// Count is the total count when the request asked for one (count=1).
	Count int
	// HasCount reports whether Count was sent.
	HasCount bool
}
