package client

import (
	"context"

	"github.com/c13f5054/moralis-go/internal/rest"
)

// WithRequestID returns a copy of ctx whose writes carry id as their X-Parse-Request-Id (the idempotency key
// parse-server deduplicates a create or an update by, within its idempotency ttl) instead of a fresh random one.
// It is for a write sent again by another process or after a restart, such as a replay from store.Queue: the
// server then answers a repeat of an already applied write with "Duplicate request" (code 159) instead of
// applying it twice. Use one id for one logical write only: every POST and PUT made with the returned context
// carries it (creates with a client-chosen object id, which carry none, and files excepted). With
// Config.DisableIdempotency no request id is sent at all. An empty id removes one set on ctx.
func WithRequestID(ctx context.Context, id string) context.Context {
	return rest.WithRequestID(ctx, id)
}
