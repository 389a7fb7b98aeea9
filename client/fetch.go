package client

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
)

// FetchOptions are the optional settings of FetchAll and FetchAllIfNeeded; nil means the defaults. The calls
// only read it: one FetchOptions may be shared by concurrent calls.
type FetchOptions struct {
	// Include loads the objects these pointer fields point to, as FetchWithInclude does (the original's
	// fetchAllWithInclude). Default: none.
	Include []string
}

// FetchAll reloads many objects of one class in one query (GET classes/{class} where objectId is in their ids,
// limit their number; 1,000 ids a query), as the original's fetchAll does, keeping each object's unsaved changes
// on top (as Fetch does). Before any request it refuses objects of different classes (a *parse.Error with code
// 103, "All objects should be of the same class") and objects without ids (code 104, "All objects must have an
// ID"). When the server does not return one of them (deleted, or hidden by its ACL) nothing is changed and the
// error is a *parse.Error with code 101, "All objects must exist on the server." (errors.Is(err,
// parse.ErrObjectNotFound)). No objects: nil, and nothing is sent.
func (sv *ObjectsService) FetchAll(ctx context.Context, objs []*parse.Object, opts *FetchOptions) error {
	return sv.fetchAll(ctx, objs, true, opts)
}

// FetchAllIfNeeded is FetchAll for the objects that hold no data from the server yet (see
// parse.Object.IsDataAvailable), as the original's fetchAllIfNeeded: the others are left as they are, and so are
// the objects the server does not return (no error for them). The checks are FetchAll's, on every object; when
// every object has data, nothing is sent.
func (sv *ObjectsService) FetchAllIfNeeded(ctx context.Context, objs []*parse.Object, opts *FetchOptions) error {
	return sv.fetchAll(ctx, objs, false, opts)
}

func (sv *ObjectsService) fetchAll(ctx context.Context, objs []*parse.Object, force bool, opts *FetchOptions) error {
	c := sv.client
	op := "fetch all"
	if !force {
		op = "fetch all if needed"
	}
	var (
		className string
		refusal   *parse.Error
		want      []*parse.Object
		ids       []any
		seen      = map[string]bool{}
	)
	// The original's checks, in its order: the first object with a problem decides, and of its two checks the
	// id's comes last.
	for _, o := range objs {
		var class, id string
		if o != nil {
			class, id = o.ClassName(), o.ID()
		}
		if className == "" {
			className = class
		}
		if class != className {
			refusal = &parse.Error{Code: parse.CodeInvalidClassName, Message: "All objects should be of the same class", Op: op}
		}
		if id == "" {
			refusal = &parse.Error{Code: parse.CodeMissingObjectID, Message: "All objects must have an ID", Op: op}
		}
		if refusal != nil {
			return refusal
		}
		if force || !o.IsDataAvailable() {
			want = append(want, o)
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	found := make(map[string]map[string]any, len(ids))
	for from := 0; from < len(ids); from += maxQueryLimit {
		part := ids[from:min(from+maxQueryLimit, len(ids))]
		params := map[string]any{"where": map[string]any{"objectId": map[string]any{"$in": part}}, "limit": len(part)}
		if opts != nil && len(opts.Include) > 0 {
			params["include"] = strings.Join(opts.Include, ",")
		}
		var resp struct {
			Results []map[string]any `json:"results"`
		}
		if err := c.do(ctx, c.call(http.MethodGet, classPath(className), params), &resp); err != nil {
			return err
		}
		for _, r := range resp.Results {
			if id, _ := r["objectId"].(string); id != "" {
				found[id] = r
			}
		}
	}
	if force {
		for _, o := range want {
			if found[o.ID()] == nil {
				return &parse.Error{Code: parse.CodeObjectNotFound, Message: "All objects must exist on the server.", Op: op + " " + className}
			}
		}
	}
	for _, o := range want {
		if r := found[o.ID()]; r != nil {
			if err := mergeFetched(o, r); err != nil {
				return err
			}
		}
	}
	return nil
}
