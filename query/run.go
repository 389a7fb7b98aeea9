package query

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/c13f5054/moralis-go/internal/wirejson"
	"github.com/c13f5054/moralis-go/parse"
)

// run sends req through r, refusing nil runners and a done context before any I/O.
func run(ctx context.Context, r parse.QueryRunner, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	if r == nil || reflect.ValueOf(r).Kind() == reflect.Pointer && reflect.ValueOf(r).IsNil() {
		return nil, ErrNilRunner
	}
	if ctx == nil {
		return nil, fmt.Errorf("query: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := r.RunQuery(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, fmt.Errorf("query: %s %s: the runner returned no response", req.Op, req.ClassName)
	}
	return resp, nil
}

// decode decodes one result into T. A *parse.Object (the client's Object) gets the query's class name, since the
// server leaves it out of find results.
func decode[T any](raw json.RawMessage, className string) (T, error) {
	var out T
	switch p := any(&out).(type) {
	case **parse.Object:
		o := parse.NewObject(className)
		if err := o.UnmarshalJSON(raw); err != nil {
			return out, err
		}
		*p = o
		return out, nil
	case *parse.Object:
		*p = *parse.NewObject(className)
		if err := p.UnmarshalJSON(raw); err != nil {
			return out, err
		}
		return out, nil
	case *map[string]any:
		// Decoded value by value: a typed map at the top (a Pointer from distinct, say) stays a plain map.
		m, err := wirejson.DecodeObject(raw)
		if err != nil {
			return out, err
		}
		if m == nil {
			return out, parse.ErrNotJSONObject
		}
		for k, v := range m {
			m[k] = parse.Decode(v)
		}
		*p = m
		return out, nil
	case *any:
		v, err := wirejson.Decode(raw)
		if err != nil {
			return out, err
		}
		*p = parse.Decode(v)
		return out, nil
	}
	if err := parse.Unmarshal(raw, &out); err != nil {
		return out, err
	}
	return out, nil
}

func decodeAll[T any](results []json.RawMessage, className string) ([]T, error) {
	out := make([]T, 0, len(results))
	for i, raw := range results {
		v, err := decode[T](raw, className)
		if err != nil {
			return nil, fmt.Errorf("query: decoding result %d of %s: %w", i, className, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// resultCount is the number of results in resp (its Objects when the runner filled them, else its Results).
func resultCount(resp *parse.QueryResponse) int {
	if resp.Objects != nil {
		return len(resp.Objects)
	}
	return len(resp.Results)
}

// decodeResponse decodes the results of resp into T: the runner's Objects when it filled them, else its Results.
func decodeResponse[T any](resp *parse.QueryResponse, className string) ([]T, error) {
	if resp.Objects == nil {
		return decodeAll[T](resp.Results, className)
	}
	out := make([]T, 0, len(resp.Objects))
	for i, o := range resp.Objects {
		v, err := fromObject[T](o, className)
		if err != nil {
			return nil, fmt.Errorf("query: decoding result %d of %s: %w", i, className, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// fromObject turns an object a runner handed over into T: the object itself for *parse.Object and parse.Object,
// else its JSON (in the server's result form, without __type and className) decoded as decode does. (An object
// read with createdAt but no updatedAt reports, and so writes, createdAt as its updatedAt too.)
func fromObject[T any](o *parse.Object, className string) (T, error) {
	var out T
	if o == nil {
		return out, fmt.Errorf("the runner returned a nil object")
	}
	switch p := any(&out).(type) {
	case **parse.Object:
		*p = o
		return out, nil
	case *parse.Object:
		*p = *o
		return out, nil
	}
	raw, err := o.MarshalJSON()
	if err != nil {
		return out, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return out, err
	}
	delete(m, "__type")
	delete(m, "className")
	if raw, err = json.Marshal(m); err != nil {
		return out, err
	}
	return decode[T](raw, className)
}

// Find runs the query through r and returns the matching objects, decoded into T (at most the limit, 100 when
// none is set).
func (q *Query[T]) Find(ctx context.Context, r parse.QueryRunner) ([]T, error) {
	req, err := q.Request()
	if err != nil {
		return nil, err
	}
	resp, err := run(ctx, r, req)
	if err != nil {
		return nil, err
	}
	return decodeResponse[T](resp, q.className)
}

// FindWithCount runs the query with count=1 and returns the matching objects and the total number of matches,
// regardless of skip and limit.
func (q *Query[T]) FindWithCount(ctx context.Context, r parse.QueryRunner) ([]T, int, error) {
	req, err := q.WithCount(true).Request()
	if err != nil {
		return nil, 0, err
	}
	resp, err := run(ctx, r, req)
	if err != nil {
		return nil, 0, err
	}
	if !resp.HasCount {
		return nil, 0, fmt.Errorf("query: find on %s with count: the answer has no count", q.className)
	}
	out, err := decodeResponse[T](resp, q.className)
	if err != nil {
		return nil, 0, err
	}
	return out, resp.Count, nil
}

// First returns the first matching object (limit 1), or ErrObjectNotFound when nothing matches.
func (q *Query[T]) First(ctx context.Context, r parse.QueryRunner) (T, error) {
	var zero T
	req, err := q.Limit(1).Request()
	if err != nil {
		return zero, err
	}
	resp, err := run(ctx, r, req)
	if err != nil {
		return zero, err
	}
	if resultCount(resp) == 0 {
		return zero, &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Status: 404, Op: "GET classes/" + q.className}
	}
	if resp.Objects != nil {
		return fromObject[T](resp.Objects[0], q.className)
	}
	return decode[T](resp.Results[0], q.className)
}

// Get returns the object with the given id that also matches the query's constraints, or ErrObjectNotFound
// (Parse code 101, "Object not found.").
func (q *Query[T]) Get(ctx context.Context, r parse.QueryRunner, objectID string) (T, error) {
	if objectID == "" {
		var zero T
		return zero, fmt.Errorf("query: Get: an object id is needed")
	}
	return q.EqualTo("objectId", objectID).First(ctx, r)
}

// Count returns the number of matching objects (limit 0, count=1).
func (q *Query[T]) Count(ctx context.Context, r parse.QueryRunner) (int, error) {
	req, err := q.Limit(0).WithCount(true).Request()
	if err != nil {
		return 0, err
	}
	resp, err := run(ctx, r, req)
	if err != nil {
		return 0, err
	}
	if !resp.HasCount {
		return 0, fmt.Errorf("query: count on %s: the answer has no count", q.className)
	}
	return resp.Count, nil
}

// Distinct, Aggregate, AggregateInto and Explain run with the master key only: against the backend client, call
// them with a master view (c.WithMasterKey()); any other view refuses them before sending, so a user's session
// view never acts with the master key behind its back.
//
// Distinct returns the distinct values of key among the objects q matches, decoded into V (string, float64, a
// struct, any, ...). It runs on aggregate/{class} and needs the master key, which the request asks for.
func Distinct[V, T any](ctx context.Context, r parse.QueryRunner, q *Query[T], key string) ([]V, error) {
	if q == nil {
		return nil, ErrNilQuery
	}
	if err := q.Err(); err != nil {
		return nil, err
	}
	if !validKey(key) {
		return nil, keyErr("Distinct", key)
	}
	params := map[string]any{"distinct": key, "where": deepCopy(q.where)}
	if q.hint != nil {
		params["hint"] = deepCopy(q.hint)
	}
	resp, err := run(ctx, r, &parse.QueryRequest{ClassName: q.className, Op: OpAggregate, Params: params, UseMasterKey: true})
	if err != nil {
		return nil, err
	}
	out := make([]V, 0, len(resp.Results))
	for i, raw := range resp.Results {
		v, err := decode[V](raw, q.className)
		if err != nil {
			return nil, fmt.Errorf("query: distinct %s of %s: value %d: %w", key, q.className, i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Aggregate runs an aggregation pipeline on the query's class (aggregate/{class}; master key required, which the
// request asks for). pipeline is one of:
//   - a list of stages ([]map[string]any, []any, ...), each an object with exactly one key, the stage name;
//   - a single stage (a map[string]any with one key);
//   - JSON text (json.RawMessage) holding either: an object with several stages, {"match":{...},"group":{...}},
//     becomes one stage per key in the order the keys appear, as parse-server splits such an object.
//
// A Go map with several stages is refused (ErrPipelineOrder): it has no order, and the order of stages changes
// the result. Stage names are taken with or without "$" ("match" or "$match") and sent with it, as the server
// requires; a "group" stage in the moralis-v1 form, with objectId and no _id, sends its objectId as _id. When the
// query has constraints they are put first, as a $match stage. The query's hint, explain and read preference
// are sent too. Results are the stages' raw output, decoded with the Parse codecs.
func (q *Query[T]) Aggregate(ctx context.Context, r parse.QueryRunner, pipeline any) ([]map[string]any, error) {
	return AggregateInto[map[string]any](ctx, r, q, pipeline)
}

// AggregateInto is Aggregate with its results decoded into V (a struct of the caller's, say).
func AggregateInto[V, T any](ctx context.Context, r parse.QueryRunner, q *Query[T], pipeline any) ([]V, error) {
	if q == nil {
		return nil, ErrNilQuery
	}
	if err := q.Err(); err != nil {
		return nil, err
	}
	stages, err := pipelineStages(pipeline)
	if err != nil {
		return nil, err
	}
	if len(q.where) > 0 {
		stages = append([]any{map[string]any{"$match": deepCopy(q.where)}}, stages...)
	}
	params := map[string]any{"pipeline": stages}
	if q.hint != nil {
		params["hint"] = deepCopy(q.hint)
	}
	if q.explain {
		params["explain"] = true
	}
	if q.readPref != "" {
		params["readPreference"] = q.readPref
	}
	resp, err := run(ctx, r, &parse.QueryRequest{ClassName: q.className, Op: OpAggregate, Params: params, UseMasterKey: true})
	if err != nil {
		return nil, err
	}
	out := make([]V, 0, len(resp.Results))
	for i, raw := range resp.Results {
		v, err := decode[V](raw, q.className)
		if err != nil {
			return nil, fmt.Errorf("query: aggregate on %s: result %d: %w", q.className, i, err)
		}
		out = append(out, v)
	}
	return out, nil
}
