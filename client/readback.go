package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// readBack reads the array fields whose save answer o did not take (objstate.State.Unconfirmed: with a beforeSave
// trigger on the class, parse-server answers an AddUnique or Remove that changed nothing with the op applied to an
// empty array instead of the stored array) in one GET with those keys, so that after a save o's fields are what
// the server stored. Nothing to read back: nil, and nothing is sent. The save itself succeeded either way: on an
// error the fields keep the local result (the op applied to the last value seen) and stay unconfirmed, and the
// next Save or Fetch of o reads them again.
func (sv *ObjectsService) readBack(ctx context.Context, o *parse.Object) error {
	st := objstate.Of(o)
	keys := st.Unconfirmed()
	if len(keys) == 0 || o.ID() == "" {
		return nil
	}
	c := sv.client
	var resp map[string]any
	params := map[string]any{"keys": strings.Join(keys, ",")}
	if err := c.do(ctx, c.call(http.MethodGet, objectPath(o.ClassName(), o.ID()), params), &resp); err != nil {
		return fmt.Errorf("moralis: %s %s was saved, but reading back %s failed (the server's answer to an array operation is not trusted): %w",
			o.ClassName(), o.ID(), strings.Join(keys, ", "), err)
	}
	return st.Confirm(resp)
}

// readBackAll reads back the saved objects' unconfirmed fields (see readBack), setting errs[i] for objs[i] when
// errs[i] is nil and its read back failed.
func (sv *ObjectsService) readBackAll(ctx context.Context, objs []*parse.Object, errs []error) {
	for i, o := range objs {
		if errs[i] == nil && o != nil {
			errs[i] = sv.readBack(ctx, o)
		}
	}
}

// readBackNodes reads back the unconfirmed fields of the objects a save graph sent and saved; a failed read back
// becomes the node's error.
func (sv *ObjectsService) readBackNodes(ctx context.Context, g *saveGraph) {
	for _, n := range g.nodes {
		if n.sent && n.err == nil {
			n.err = sv.readBack(ctx, n.o)
		}
	}
}
