package client

import (
	"context"
	"reflect"
	"sort"
	"time"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// The nested-save graph: Save and SaveAll walk the objects they are given to the unsaved objects these point to,
// order them in rounds (children before parents) and send round after round, holding back what points to an
// object that failed.

// maxNesting is how deep values may nest, the original's MAX_RECURSIVE_CALLS.
const maxNesting = 999

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
