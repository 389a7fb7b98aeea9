package client

import (
	"context"

	"github.com/c13f5054/moralis-go/internal/rest"
)

// WithCallContext returns a copy of ctx whose backend calls carry m as their _context, as the original client's
// `context` option does: parse-server hands it to cloud code as request.context (beforeSave and afterSave of a
// Save or SaveAll, the nested objects they save included; beforeDelete and afterDelete of a Destroy;
// beforeFind and afterFind of a Fetch, Get or query; and cloud functions called with Cloud.Call). Every call
// made with the returned context carries it, including the look-ups the SDK makes to settle a write; file
// uploads and downloads do not.
//
//	ctx = client.WithCallContext(ctx, map[string]any{"source": "import"})
//	err := c.Objects.Save(ctx, o) // a beforeSave trigger reads request.context.source
//
// m is encoded to JSON at once (as encoding/json encodes it: a time.Time becomes an RFC 3339 string), so later
// changes to m are not seen and m may be shared; a value that cannot be encoded makes every call made with the
// returned context fail before anything is sent. A nil m removes a call context set on ctx; without one, no
// _context is sent (the default). Safe for concurrent use.
func WithCallContext(ctx context.Context, m map[string]any) context.Context {
	return rest.WithCallContext(ctx, m)
}

// CallContext returns a copy of the call context set on ctx with WithCallContext, or nil when there is none.
func CallContext(ctx context.Context) map[string]any { return rest.CallContext(ctx) }
