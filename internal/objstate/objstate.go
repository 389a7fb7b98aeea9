// Package objstate is how the client and the local store reach the save state of a parse.Object: what the next
// save sends, what it sent, the server's answer merged back, the id a create in doubt was sent with. This state
// is not part of parse.Object's public method set, so code outside the module cannot put an object's save state
// out of step with the server; package parse fills in Of when it is initialised (any package that can name a
// *parse.Object has imported parse, so Of is always set before it is called).
package objstate

// Sent is the unsaved changes of an object as a save took them before sending (State.Snapshot), given back to
// ApplySaved or DropSent once the outcome is known; only package parse looks inside. nil means no changes.
type Sent any

// State is the save machinery of one object. It is not safe for concurrent use, as the object is not.
type State interface {
	// SaveBody is the wire body of the next save: the changed fields only. A reserved or invalid field name is
	// an error.
	SaveBody() (map[string]any, error)
	// Snapshot returns the unsaved changes, to be given back to ApplySaved or DropSent.
	Snapshot() Sent
	// ApplySaved records a successful save: the changes in sent become the server's values, then the answer
	// (objectId, timestamps, values the server computed) is merged over them. Changes made after the snapshot
	// stay pending.
	ApplySaved(resp map[string]any, sent Sent) error
	// DropSent gives up the changes in sent after a save whose outcome is unknown: they are no longer pending,
	// and the fields show the last values the server sent.
	DropSent(sent Sent)
	// CreateInDoubt records that a create which sent the changes in sent (a Snapshot) has an unknown outcome,
	// its proposed id set: those changes leave pending and show as the object's values, and until the create
	// is settled (its id known: ApplySaved or MergeServer with an objectId) SaveBody and Snapshot give that first
	// attempt again, so a resend stores the same row whichever attempt the server applied. Changes made after it
	// stay pending through the settled resend and go out as an update. A snapshot of a resend changes nothing.
	CreateInDoubt(sent Sent)
	// CreateDoubt reports whether the object has a create in doubt that is not settled yet, and whether it is
	// held: sent without a proposed id (the server chooses ids), its row, if stored, cannot be found by the
	// client, so the create must not be sent again until the app settles it (ReleaseCreate, or MergeServer with
	// the stored row). CreateInDoubt holds such a create, again after each resend in doubt.
	CreateDoubt() (inDoubt, held bool)
	// Since returns the changes pending on top of a create in doubt's first attempt (those made after it), as a
	// snapshot for ApplySaved and as a wire body, for a caller that sends them as an update right after the
	// create (the store's queue). For any other object it returns the pending changes as well.
	Since() (Sent, map[string]any, error)
	// ReleaseCreate lifts the hold of a create in doubt (the app knows it was not stored): the next save sends
	// the first attempt again as a new create, then the changes made since as an update.
	ReleaseCreate()
	// Unconfirmed lists the fields whose save answer was not taken (an AddUnique or Remove answered with what may
	// be parse-server's stand-in under a beforeSave trigger, not the stored array): they show the local result
	// until Confirm, and the client reads them back after the save. MergeServer clears them too.
	Unconfirmed() []string
	// Confirm merges a read back of the Unconfirmed fields (a GET with those keys); a field the answer lacks has
	// no value on the server.
	Confirm(resp map[string]any) error
	// MergeServer replaces the server state with a full server answer (a fetch), keeping unsaved changes on top.
	MergeServer(resp map[string]any) error
	// SetProposedID records the id a create was sent with ("" clears it).
	SetProposedID(id string)
	// Forget drops a field locally without recording a change (a password after sign-up).
	Forget(key string)
	// PendingValues lists the values the unsaved changes hold (a Set's value, an Add's or Remove's values, a
	// relation change's objects), by key order: the objects a save must store first may be among them.
	PendingValues() []any
	// SetLocalID sets the id the local store gave an object never saved on the server.
	SetLocalID(id string)
}

// Of returns the save state of o, a *parse.Object or a type that embeds one (client.User, client.Role). Package parse sets it in its init.
var Of func(o any) State
