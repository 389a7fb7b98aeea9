package rest

import (
	"context"
	"encoding/json"
	"fmt"
)

// callContextKey is the context key of a call context set with WithCallContext.
type callContextKey struct{}

// callContext is a call context as it was when it was set: its JSON, or the reason it has none.
type callContext struct {
	raw json.RawMessage // nil: no call context (an inner WithCallContext(ctx, nil) removes an outer one)
	err error
}

// WithCallContext returns a copy of ctx whose backend calls send m as their _context. m is encoded to JSON at
// once, so later changes to m (or to the values in it) are not seen; a value that cannot be encoded makes every
// call made with the returned context fail before anything is sent. A nil m removes a call context set on ctx.
func WithCallContext(ctx context.Context, m map[string]any) context.Context {
	cc := callContext{}
	if m != nil {
		cc.raw, cc.err = json.Marshal(m)
		if cc.err != nil {
			cc.raw, cc.err = nil, fmt.Errorf("the call context cannot be encoded as JSON: %w", cc.err)
		}
	}
	return context.WithValue(ctx, callContextKey{}, cc)
}

// CallContext returns a decoded copy of the call context set on ctx with WithCallContext, or nil when there is
// none (or it could not be encoded).
func CallContext(ctx context.Context) map[string]any {
	cc, _ := ctx.Value(callContextKey{}).(callContext)
	if cc.raw == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(cc.raw, &m) != nil {
		return nil
	}
	return m
}

// callContextOf returns the JSON of the call context set on ctx (nil when none), or the error that makes it
// unusable.
func callContextOf(ctx context.Context) (json.RawMessage, error) {
	if ctx == nil {
		return nil, nil
	}
	cc, _ := ctx.Value(callContextKey{}).(callContext)
	return cc.raw, cc.err
}
