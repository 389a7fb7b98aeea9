package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// Fetch reloads the object's fields from the server (GET), keeping its unsaved changes on top. An object without
// an id gives a *parse.Error with code 104 and the original's text "Object does not have an ID" before any
// request; a missing or unreadable object gives ErrObjectNotFound.
func (sv *ObjectsService) Fetch(ctx context.Context, s Saver) error {
	return sv.fetch(ctx, s, nil)
}

// FetchWithInclude is Fetch that also loads the objects the given pointer fields point to (include), as the
// original's fetchWithInclude does: afterwards those fields hold *parse.Object values with their data. Dot
// notation reaches further ("post.author"); "*" includes every pointer field. No keys: as Fetch.
func (sv *ObjectsService) FetchWithInclude(ctx context.Context, s Saver, keys ...string) error {
	return sv.fetch(ctx, s, keys)
}

func (sv *ObjectsService) fetch(ctx context.Context, s Saver, include []string) error {
	c := sv.client
	if s == nil || isNil(s) {
		return &parse.Error{Code: parse.CodeMissingObjectID, Message: "Object does not have an ID", Op: "fetch"}
	}
	o := s.ParseObject()
	id := o.ID()
	if id == "" {
		// A create in doubt is read by the id it was sent with: found, the create is settled (the object takes
		// its id, and the changes made since stay pending); not found, it stays in doubt.
		id = o.ProposedID()
	}
	if _, held := objstate.Of(o).CreateDoubt(); id == "" && held {
		return fmt.Errorf("moralis: fetch new %s: %w", o.ClassName(), ErrCreateHeld)
	}
	if id == "" {
		return &parse.Error{Code: parse.CodeMissingObjectID, Message: "Object does not have an ID", Op: "fetch " + o.ClassName()}
	}
	var params map[string]any
	if len(include) > 0 {
		params = map[string]any{"include": strings.Join(include, ",")}
	}
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, objectPath(o.ClassName(), id), params), &resp); err != nil {
		return err
	}
	return mergeFetched(o, resp)
}

// mergeFetched replaces o's server state with a fetched one, keeping its unsaved changes and, for a user, its
// session token (users/{id} does not send it back).
func mergeFetched(o *parse.Object, resp map[string]any) error {
	tok, _ := o.Get("sessionToken").(string)
	if err := objstate.Of(o).MergeServer(resp); err != nil {
		return err
	}
	if tok != "" && !o.Has("sessionToken") {
		return objstate.Of(o).ApplySaved(map[string]any{"sessionToken": tok}, nil)
	}
	return nil
}

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
