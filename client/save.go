package client

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// Refusals of Save and SaveAll, made before any request, with the original client's texts.
var (
	// ErrSaveCycle refuses objects without ids that point to each other, directly or through other objects
	// without ids: each would need the other's id first.
	ErrSaveCycle = errors.New("Tried to save a batch with a cycle.")
	// ErrUnsavedFile refuses a parse.File without a URL (one that was never uploaded) in a saved object: upload
	// its data with Files.Upload and set the File it returns.
	ErrUnsavedFile = errors.New("Tried to encode an unsaved file.")
	// ErrNestingTooDeep refuses values nested deeper than 999 levels (arrays and maps inside one another), most
	// likely a map or slice that holds itself.
	ErrNestingTooDeep = errors.New("Traversing object failed due to high number of recursive calls, likely caused by circular reference within object.")
)

// ErrNestedNotSaved is matched (errors.Is) by the error of an object that was not sent because an object it
// points to could not be saved before it (see Save). Nothing was sent for that object: saving it again is safe.
var ErrNestedNotSaved = errors.New("moralis: not sent, because an object it points to could not be saved first")

// maxNesting is how deep values may nest, the original's MAX_RECURSIVE_CALLS.
const maxNesting = 999

// NestedError is the error of a save (Save, or one item of SaveAll) whose object points to objects that were not
// saved: the unsaved objects Save and SaveAll find in an object's fields, arrays and maps are saved with it, and
// some of them failed, are in doubt, or were themselves held back. NotSent tells whether the object itself was
// sent; Err is its own error when it was sent and failed.
//
// errors.Is(err, ErrWriteInDoubt) reports only on the object itself (through Err); the nested objects whose
// outcome is unknown are counted by InDoubt. Saving the object again is safe in every case: a nested create in
// doubt is held (refused with ErrCreateHeld, holding the object back again, until the app settles it with
// ObjectsService.Settle), or, with Config.ClientObjectIDs, sent again with the id it was first sent with
// (Object.ProposedID), so it cannot make a second object.
// A NestedError is a plain value, not changed after it is returned.
type NestedError struct {
	// Object is the object that was given to Save or SaveAll.
	Object *parse.Object
	// NotSent is true when Object was not sent, because an object it points to could not be saved before it
	// (errors.Is(err, ErrNestedNotSaved) matches then). False: Object was sent, and saved unless Err is set.
	NotSent bool
	// Err is Object's own save error when it was sent and failed; nil otherwise.
	Err error
	// Nested are the objects Object points to (directly or through other objects) that were not saved, and
	// Errors their errors, index-aligned. An error matching ErrNestedNotSaved marks an object held back in turn.
	Nested []*parse.Object
	Errors []error
}

// Error names the object, whether it was sent, how many objects it points to were not saved (and how many of
// those are in doubt), and the first error among them that is not a hold-back.
func (e *NestedError) Error() string {
	cause := e.firstCause()
	doubt := ""
	if n := e.InDoubt(); n > 0 {
		doubt = fmt.Sprintf(" (%d in doubt)", n)
	}
	what := fmt.Sprintf("%d object(s) it points to", len(e.Nested))
	switch {
	case e.NotSent:
		return fmt.Sprintf("moralis: save %s: not sent, because %s could not be saved first%s; first: %v", describe(e.Object), what, doubt, cause)
	case e.Err != nil:
		return fmt.Sprintf("%v; and %s were not saved%s; first: %v", e.Err, what, doubt, cause)
	}
	return fmt.Sprintf("moralis: save %s: %s were not saved%s; first: %v", describe(e.Object), what, doubt, cause)
}

// firstCause is the first nested error that is not a hold-back, else the first one.
func (e *NestedError) firstCause() error {
	for _, err := range e.Errors {
		if !errors.Is(err, ErrNestedNotSaved) {
			return err
		}
	}
	if len(e.Errors) > 0 {
		return e.Errors[0]
	}
	return nil
}

// Is matches ErrNestedNotSaved when the object was not sent.
func (e *NestedError) Is(target error) bool { return target == ErrNestedNotSaved && e.NotSent }

// Unwrap returns the object's own error (nil when it was saved or not sent).
func (e *NestedError) Unwrap() error { return e.Err }

// InDoubt is the number of nested objects whose outcome is unknown (their errors match ErrWriteInDoubt).
func (e *NestedError) InDoubt() int {
	n := 0
	for _, err := range e.Errors {
		if errors.Is(err, parse.ErrWriteInDoubt) {
			n++
		}
	}
	return n
}

// describe names an object in an error: its class, and its id when it has one.
func describe(o *parse.Object) string {
	if o == nil {
		return "object"
	}
	if o.ID() != "" {
		return o.ClassName() + " " + o.ID()
	}
	return "new " + o.ClassName()
}

// Save saves the object and, before it, the objects it points to that have unsaved changes (as the original's
// save does with its unsaved children): objects found in its fields, in arrays and in nested maps, at any depth
// (a *parse.Object, *User or *Role value is sent as a Pointer). Children are saved before parents, as SaveAll
// saves them, so that every object is sent only after the objects without
// ids it points to are stored; the object itself is sent last, once every object it points to was saved (only
// objects that need its id come after it). Cycles of objects without ids are refused before any request with
// ErrSaveCycle, files that were never uploaded (a parse.File without a URL) with ErrUnsavedFile.
//
// The object is created (POST) when it has no id, or sends only its changed fields (PUT). The server's answer
// (id, timestamps, values the server computed such as the result of Increment) is merged into it, so after Save
// its fields equal what the server stored. An answer to AddUnique or Remove that may be parse-server's stand-in
// (under a beforeSave trigger, an op that changed nothing is answered with the op applied to an empty array) is
// not taken: the field is read back in one GET after the save; if that fails, the error says the object was saved.
//
// Save is exactly-once at the default config (see the package doc): a create carries no objectId (cloud code
// sees a create) and a request id, and is sent again after an ambiguous failure only where the server
// deduplicates it; an update likewise only when that cannot apply it twice. When the outcome stays unknown the
// error matches ErrWriteInDoubt and names the object; an update's sent changes are then no longer pending (a
// later Save will not apply them a second time) and its fields show the last values the server sent: Fetch it
// to see what the server stored. A create in doubt keeps its sent changes as that attempt, and the object is
// held: Save and Fetch refuse it with ErrCreateHeld until the app settles it with Settle (the server may have
// stored it under an id it never told). With Config.ClientObjectIDs the create carries an id the client chose
// (Object.ProposedID): the next Save sends the same create under the same id and then, once it is settled, the
// changes made since as an update; Fetch settles it too, reading the object by its proposed id. On
// any other error the object keeps its unsaved changes. When objects it points to were not saved, the error is
// a *NestedError (errors.Is(err, ErrNestedNotSaved) when the object itself was therefore not sent).
//
// Save changes the objects it saves, nested ones included: do not change or save them from another goroutine
// while it runs.
func (sv *ObjectsService) Save(ctx context.Context, s Saver) error {
	if s == nil || isNil(s) {
		return errNoClass
	}
	o := s.ParseObject()
	if o == nil || o.ClassName() == "" {
		return errNoClass
	}
	if v, ok := s.(interface{ ValidateSave() error }); ok {
		if err := v.ValidateSave(); err != nil {
			return err
		}
	}
	g, err := newSaveGraph([]*parse.Object{o})
	if err != nil {
		return err
	}
	root := g.inputs[0]
	if g.onlyInputs() && !g.linked() {
		// Nothing nested to save: one call, as before.
		if err := sv.saveOne(ctx, s); err != nil {
			return err
		}
		return sv.readBack(ctx, o)
	}
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	if err := g.order(); err != nil {
		return err
	}
	sv.run(ctx, g, root, s)
	sv.readBackNodes(ctx, g)
	return g.result(root)
}

// SaveAll saves many objects, exactly once each at the default config, with the objects they point to that have
// unsaved changes (found as Save finds them; children before parents, an object listed before the objects
// without ids that point to it). Creates and updates go through /batch in chunks of Config.BatchSize (default 20)
// with Config.BatchConcurrency (default 4) calls in flight, as the original's saveAll sends them in chunks of 20.
// parse-server does not deduplicate /batch, so at the default config (the server chooses ids, and cloud code sees
// each create as a create) a call of creates, like a call of updates, is never sent twice: when its outcome is
// unknown, each of its creates is in doubt and held as Save holds it, and each of its updates is in doubt with its
// changes no longer pending (an update sent twice could undo another writer's change made in between). With
// Config.ClientObjectIDs a call of creates is retried after any ambiguous failure, and creates a retry finds already
// stored are loaded and succeed. An object listed twice is saved once. Objects without changes are skipped.
//
// Every object that succeeded is updated; when some did not, the error is a *BatchError whose Errors are aligned
// with objs, telling which failed and which are in doubt (ErrWriteInDoubt); an item whose nested objects were not
// saved has a *NestedError. Cycles of objects without ids (ErrSaveCycle), files never uploaded (ErrUnsavedFile)
// and values nested too deep (ErrNestingTooDeep) are refused before any request, with that error alone.
//
// With Atomic, the writes are one transaction, all or nothing (see Atomic for its limits).
func (sv *ObjectsService) SaveAll(ctx context.Context, objs []*parse.Object, opts ...BatchOption) error {
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	if batchOpts(opts).atomic {
		return sv.saveAtomic(ctx, objs)
	}
	errs := make([]error, len(objs))
	valid := make([]*parse.Object, 0, len(objs))
	for i, o := range objs {
		if o == nil || o.ClassName() == "" {
			errs[i] = errNoClass
			continue
		}
		valid = append(valid, o)
	}
	g, err := newSaveGraph(valid)
	if err != nil {
		return err
	}
	if g.onlyInputs() && !g.linked() {
		// Only the given objects, none pointing to another unsaved one: one flat save, as before.
		flat := sv.saveFlat(ctx, valid)
		sv.readBackAll(ctx, valid, flat)
		k := 0
		for i := range objs {
			if errs[i] == nil {
				errs[i] = flat[k]
				k++
			}
		}
		return batchResult(errs)
	}
	if err := g.order(); err != nil {
		return err
	}
	sv.run(ctx, g, nil, nil)
	sv.readBackNodes(ctx, g)
	for i, o := range objs {
		if errs[i] == nil {
			errs[i] = g.result(g.index[o])
		}
	}
	return batchResult(errs)
}

// isNil reports whether v holds a nil pointer (a nil *User given as a Saver).
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// saveNode is one object met while walking the values of the objects to save.
type saveNode struct {
	o     *parse.Object
	input bool // given by the caller
	save  bool // it has unsaved changes (or no id)
	refs  []*saveNode
	hard  []*saveNode // refs without an id: stored before it, or it cannot be encoded
	after []*saveNode // what it waits for: hard, and for an input the nested objects it reaches (see order)
	round int
	sent  bool
	err   error
}

// failed reports whether the node was to be saved and was not.
func (n *saveNode) failed() bool { return n.save && n.err != nil }

// saveGraph is the objects a save reaches from the given ones, and the order to save them in.
type saveGraph struct {
	index  map[*parse.Object]*saveNode
	nodes  []*saveNode // every object met, in the order met
	inputs []*saveNode // the given objects, repeats removed
	toSave []*saveNode // the nodes with unsaved changes
	rounds [][]*saveNode
}

// newSaveGraph walks the values of roots (their fields and their unsaved changes), the objects found in them,
// and so on, and refuses files never uploaded and values nested too deep. Nothing is sent.
func newSaveGraph(roots []*parse.Object) (*saveGraph, error) {
	g := &saveGraph{index: map[*parse.Object]*saveNode{}}
	for _, o := range roots {
		n := g.node(o)
		if !n.input {
			n.input = true
			g.inputs = append(g.inputs, n)
		}
	}
	for i := 0; i < len(g.nodes); i++ { // g.nodes grows as objects are met
		n := g.nodes[i]
		seen := map[*saveNode]bool{}
		for _, v := range objectValues(n.o) {
			err := g.walk(v, 0, func(m *saveNode) {
				if !seen[m] {
					seen[m] = true
					n.refs = append(n.refs, m)
				}
			})
			if err != nil {
				return nil, err
			}
		}
	}
	for _, n := range g.nodes {
		if !n.save {
			continue
		}
		g.toSave = append(g.toSave, n)
		for _, m := range n.refs {
			if m.o.ID() == "" {
				n.hard = append(n.hard, m)
			}
		}
	}
	return g, nil
}

// node returns the node of o, adding it when o is met for the first time.
func (g *saveGraph) node(o *parse.Object) *saveNode {
	if n, ok := g.index[o]; ok {
		return n
	}
	n := &saveNode{o: o, save: o.Dirty(), round: -1}
	g.index[o] = n
	g.nodes = append(g.nodes, n)
	return n
}

// onlyInputs reports whether the given objects are the only ones to save.
func (g *saveGraph) onlyInputs() bool {
	for _, n := range g.toSave {
		if !n.input {
			return false
		}
	}
	return true
}

// linked reports whether a node to save points to another node to save without an id.
func (g *saveGraph) linked() bool {
	for _, n := range g.toSave {
		if len(n.hard) > 0 {
			return true
		}
	}
	return false
}

// objectValues lists what an object holds: its fields' current values, then the values of its unsaved changes
// (an Add's or Remove's values, which the current values may not show), in key order.
func objectValues(o *parse.Object) []any {
	var out []any
	for _, k := range o.Keys() {
		out = append(out, o.Get(k))
	}
	return append(out, objstate.Of(o).PendingValues()...)
}

// walk visits the objects in v (calling found for each), at any depth of arrays and maps.
func (g *saveGraph) walk(v any, depth int, found func(*saveNode)) error {
	if depth > maxNesting {
		return ErrNestingTooDeep
	}
	switch x := v.(type) {
	case nil, string, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		time.Time, *time.Time, parse.Pointer, *parse.Pointer, parse.Relation, *parse.ACL, parse.GeoPoint,
		parse.Polygon, parse.Bytes, []byte:
		return nil
	case parse.File:
		if x.URL == "" {
			return ErrUnsavedFile
		}
		return nil
	case *parse.File:
		if x != nil && x.URL == "" {
			return ErrUnsavedFile
		}
		return nil
	case *parse.Object:
		if x != nil {
			found(g.node(x))
		}
		return nil
	case Saver: // *User, *Role and other types that embed an object
		if !isNil(x) && x.ParseObject() != nil {
			found(g.node(x.ParseObject()))
		}
		return nil
	case []any:
		for _, e := range x {
			if err := g.walk(e, depth+1, found); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := g.walk(x[k], depth+1, found); err != nil {
				return err
			}
		}
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			if err := g.walk(rv.Index(i).Interface(), depth+1, found); err != nil {
				return err
			}
		}
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil // Encode refuses it when the object is saved
		}
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			if err := g.walk(rv.MapIndex(k).Interface(), depth+1, found); err != nil {
				return err
			}
		}
	}
	return nil
}

// order splits the nodes to save into rounds: a node comes after every node without an id that it points to
// (or it could not be encoded), and a given object also after the nested objects it reaches, except those that
// need its own id first (so that it is sent only once they are saved, as the original saves an object's
// unsaved children before it). It refuses a cycle of nodes without ids with ErrSaveCycle.
func (g *saveGraph) order() error {
	needers := map[*saveNode][]*saveNode{} // who needs each node's id
	for _, n := range g.toSave {
		for _, h := range n.hard {
			needers[h] = append(needers[h], n)
		}
	}
	for _, n := range g.toSave {
		n.after = n.hard
		if !n.input {
			continue
		}
		needsMe := needing(n, needers)
		extra := map[*saveNode]bool{}
		for _, m := range n.hard {
			extra[m] = true
		}
		for _, m := range g.reach(n) {
			if m.save && !m.input && !needsMe[m] && !extra[m] {
				extra[m] = true
				n.after = append(n.after, m)
			}
		}
	}
	if g.split(func(n *saveNode) []*saveNode { return n.after }) {
		return nil
	}
	// Waiting for nested objects made a cycle that the ids alone do not: keep only what the ids need.
	if g.split(func(n *saveNode) []*saveNode { return n.hard }) {
		return nil
	}
	return ErrSaveCycle
}

// split assigns rounds by deps, and reports false when some nodes can never go (a cycle).
func (g *saveGraph) split(deps func(*saveNode) []*saveNode) bool {
	g.rounds = nil
	for _, n := range g.toSave {
		n.round = -1
	}
	left := g.toSave
	for r := 0; len(left) > 0; r++ {
		var ready, rest []*saveNode
		for _, n := range left {
			ok := true
			for _, d := range deps(n) {
				if d.round < 0 || d.round == r {
					ok = false
					break
				}
			}
			if ok {
				ready = append(ready, n)
			} else {
				rest = append(rest, n)
			}
		}
		if len(ready) == 0 {
			return false
		}
		for _, n := range ready {
			n.round = r
		}
		g.rounds = append(g.rounds, ready)
		left = rest
	}
	return true
}

// reach lists the nodes reachable from n through the objects' values (n excluded), in the order met.
func (g *saveGraph) reach(n *saveNode) []*saveNode {
	seen := map[*saveNode]bool{n: true}
	var out []*saveNode
	queue := []*saveNode{n}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, m := range cur.refs {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
				queue = append(queue, m)
			}
		}
	}
	return out
}

// needing returns the nodes that need n's id first, directly or through others; needers lists, for each node
// without an id, the nodes that point to it.
func needing(n *saveNode, needers map[*saveNode][]*saveNode) map[*saveNode]bool {
	out := map[*saveNode]bool{}
	queue := []*saveNode{n}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, m := range needers[cur] {
			if !out[m] && m != n {
				out[m] = true
				queue = append(queue, m)
			}
		}
	}
	return out
}

// run saves the rounds in order. A node is held back (not sent) when a node it waits for was not saved. root and
// rs, when set, are the object given to Save: it is saved through saveOne with its Saver (a *User keeps its
// session).
func (sv *ObjectsService) run(ctx context.Context, g *saveGraph, root *saveNode, rs Saver) {
	for _, round := range g.rounds {
		var send []*parse.Object
		var nodes []*saveNode
		sendRoot := false
		for _, n := range round {
			if held := heldBy(n); held {
				n.err = ErrNestedNotSaved
				continue
			}
			n.sent = true
			if n == root {
				sendRoot = true
				continue
			}
			send = append(send, n.o)
			nodes = append(nodes, n)
		}
		if len(send) > 0 {
			for k, err := range sv.saveFlat(ctx, send) {
				nodes[k].err = err
			}
		}
		if sendRoot {
			root.err = sv.saveOne(ctx, rs)
		}
	}
}

// heldBy reports whether a node n waits for was not saved (only nodes that already had their turn count).
func heldBy(n *saveNode) bool {
	for _, d := range n.after {
		if d.round < n.round && d.failed() {
			return true
		}
	}
	return false
}

// result is the error to report for the given node n: nil when it and every object it reaches were saved.
func (g *saveGraph) result(n *saveNode) error {
	if n == nil {
		return nil
	}
	var nested []*parse.Object
	var errs []error
	for _, m := range g.reach(n) {
		if m.failed() {
			nested = append(nested, m.o)
			errs = append(errs, m.err)
		}
	}
	if !n.sent && n.save && n.err != nil {
		return &NestedError{Object: n.o, NotSent: true, Nested: nested, Errors: errs}
	}
	if len(nested) == 0 {
		return n.err
	}
	return &NestedError{Object: n.o, Err: n.err, Nested: nested, Errors: errs}
}
