package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/c13f5054/moralis-go/parse"
)

// Saver is anything saved as a backend object: *Object, *User, *Role.
type Saver interface {
	ParseObject() *parse.Object
}

// Get loads one object by class and id. A missing or unreadable object gives ErrObjectNotFound.
func (s *ObjectsService) Get(ctx context.Context, className, id string) (*parse.Object, error) {
	c := s.client
	o := parse.NewObjectWithID(className, id)
	if err := c.Objects.Fetch(ctx, o); err != nil {
		return nil, err
	}
	return o, nil
}

// Destroy deletes the object on the server. A delete is harmless to send twice, so it is retried after an
// ambiguous failure; "object not found" after such a retry is in doubt (an earlier attempt may have deleted it,
// or the object was never visible to the caller).
func (sv *ObjectsService) Destroy(ctx context.Context, s Saver) error {
	c := sv.client
	o := s.ParseObject()
	if o.ID() == "" {
		return fmt.Errorf("moralis: destroy %s: the object has no id", o.ClassName())
	}
	err := c.do(ctx, c.call(http.MethodDelete, objectPath(o.ClassName(), o.ID()), nil), nil)
	ierr, _ := deleteWrite(o).settle(nil, err)
	return ierr
}

// DestroyAll deletes many objects through /batch, like SaveAll. A delete is harmless to send twice, so a call is
// retried after an ambiguous failure; an object a retried call answers "object not found" for is reported in
// doubt (an earlier attempt may have deleted it, or it was never visible to the caller). With Atomic, the deletes
// are one transaction, all or nothing (see Atomic for its limits).
func (s *ObjectsService) DestroyAll(ctx context.Context, objs []*parse.Object, opts ...BatchOption) error {
	c := s.client
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	if batchOpts(opts).atomic {
		return s.destroyAtomic(ctx, objs)
	}
	ws := make([]*write, 0, len(objs))
	items := make([]batchItem, 0, len(objs))
	errs := make([]error, len(objs))
	for i, o := range objs {
		if o == nil || o.ID() == "" {
			errs[i] = errors.New("moralis: destroy: the object has no id")
			continue
		}
		w := deleteWrite(o)
		w.index = i
		ws = append(ws, w)
		items = append(items, w.item())
	}
	answers, berrs := c.runBatch(ctx, items)
	for k, w := range ws {
		errs[w.index], _ = w.settle(answers[k], berrs[k])
	}
	return batchResult(errs)
}

// classPath is the REST path of a class: the special classes have routes of their own.
func classPath(className string) string {
	switch className {
	case "_User":
		return "users"
	case "_Role":
		return "roles"
	case "_Session":
		return "sessions"
	case "_Installation":
		return "installations"
	}
	return "classes/" + className
}

func objectPath(className, id string) string { return classPath(className) + "/" + id }

var errNoClass = errors.New("moralis: the object has no class name")

// isNil reports whether v holds a nil pointer (a nil *User given as a Saver).
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// lookup reads one object's stored fields.
func (c *Client) lookup(ctx context.Context, className, id, sessionToken string) (map[string]any, error) {
	rc := c.call(http.MethodGet, objectPath(className, id), nil)
	c.userSession(&rc, sessionToken)
	var stored map[string]any
	if err := c.do(ctx, rc, &stored); err != nil {
		return nil, err
	}
	return stored, nil
}

// maxQueryLimit is the largest page a find asks for.
const maxQueryLimit = 1000

// rowsByID reads the rows of class cls whose ids are ids (at most maxQueryLimit) in one query, only keys when
// keys is set, and returns them by id (an id the server does not return is missing: not there, or hidden).
func (c *Client) rowsByID(ctx context.Context, cls string, ids []any, keys string) (map[string]map[string]any, error) {
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	params := map[string]any{"where": map[string]any{"objectId": map[string]any{"$in": ids}}, "limit": len(ids)}
	if keys != "" {
		params["keys"] = keys
	}
	if err := c.do(ctx, c.call(http.MethodGet, classPath(cls), params), &resp); err != nil {
		return nil, err
	}
	rows := make(map[string]map[string]any, len(resp.Results))
	for _, r := range resp.Results {
		if id, _ := r["objectId"].(string); id != "" {
			rows[id] = r
		}
	}
	return rows, nil
}
