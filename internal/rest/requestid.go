package rest

import "context"

type requestIDKey struct{}

// WithRequestID returns a copy of ctx whose POST and PUT calls carry id as X-Parse-Request-Id instead of a fresh
// one (see client.WithRequestID). An empty id removes one set on ctx.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// requestIDOf returns the request id set on ctx with WithRequestID ("" when none).
func requestIDOf(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
