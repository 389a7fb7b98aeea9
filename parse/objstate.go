package parse

import (
	"fmt"

	"github.com/c13f5054/moralis-go/internal/objstate"
)

// The save machinery of Object, reached by the client and the store through internal/objstate only.
func init() {
	objstate.Of = func(o any) objstate.State {
		if x, ok := o.(interface{ ParseObject() *Object }); ok { // *Object, and the types that embed one
			return objState{x.ParseObject()}
		}
		panic(fmt.Sprintf("objstate.Of(%T): not an object", o)) // a bug in the module, never user input
	}
}

// objState is an Object's save state seen through objstate.State.
type objState struct{ o *Object }

func (s objState) SaveBody() (map[string]any, error) { return s.o.saveBody() }
func (s objState) Snapshot() objstate.Sent {
	if s.o.id == "" && s.o.doubt != nil {
		return doubtSent(s.o.doubt)
	}
	return s.o.pendingSnapshot()
}
func (s objState) ApplySaved(resp map[string]any, sent objstate.Sent) error {
	if _, ok := sent.(doubtSent); ok {
		return s.o.applySaved(resp, nil) // the tentative values take the answer; later changes stay pending
	}
	return s.o.applySaved(resp, sentOps(sent))
}
func (s objState) DropSent(sent objstate.Sent) {
	if _, ok := sent.(doubtSent); !ok {
		s.o.dropSent(sentOps(sent))
	}
}
func (s objState) CreateInDoubt(sent objstate.Sent) {
	if d, ok := sent.(doubtSent); ok {
		s.o.createInDoubt(d) // a resend: only held again when it went without a proposed id
		return
	}
	s.o.createInDoubt(sentOps(sent))
}
func (s objState) CreateDoubt() (inDoubt, held bool) {
	return s.o.id == "" && s.o.doubt != nil, s.o.id == "" && s.o.held
}
func (s objState) ReleaseCreate() { s.o.held = false }
func (s objState) Since() (objstate.Sent, map[string]any, error) {
	body, err := bodyOf(s.o.pending)
	return s.o.pendingSnapshot(), body, err
}
func (s objState) MergeServer(resp map[string]any) error { return s.o.mergeServer(resp) }
func (s objState) SetProposedID(id string)               { s.o.setProposedID(id) }
func (s objState) Forget(key string)                     { s.o.forget(key) }
func (s objState) SetLocalID(id string)                  { s.o.setLocalID(id) }
func (s objState) Unconfirmed() []string                 { return s.o.unconfirmedKeys() }
func (s objState) Confirm(resp map[string]any) error     { return s.o.confirm(resp) }

// sentOps reads a snapshot made by Snapshot (nil: no changes).
func sentOps(sent objstate.Sent) map[string]Op {
	m, _ := sent.(map[string]Op)
	return m
}

func (s objState) PendingValues() []any { return s.o.pendingValues() }
