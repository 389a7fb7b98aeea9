package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/settle"
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

// saveOne saves one object, without the objects it points to (see Save): a create (POST) when it has no id, else
// its changed fields (PUT). Its class is set and ValidateSave has run. The outcome goes through the settle machine
// (write.settle), and the changes made since a create sent again go out after it (sendSince).
func (sv *ObjectsService) saveOne(ctx context.Context, s Saver) error {
	c := sv.client
	o := s.ParseObject()
	w, err := c.prepare(o, o.ID() == "" && c.chooseIDs(o.ClassName()))
	if err != nil || w == nil {
		return err
	}
	sessionToken := ""
	if u, ok := s.(*User); ok {
		sessionToken = u.SessionToken()
	}
	var resp map[string]any
	switch {
	case w.kind == settle.Update:
		rc := c.call(http.MethodPut, objectPath(o.ClassName(), o.ID()), w.body)
		c.userSession(&rc, sessionToken)
		err = c.do(ctx, rc, &resp)
	case w.id != "":
		resp, err = c.createWithID(ctx, w, sessionToken)
		if errors.Is(err, errCustomIDsRefused) {
			// The server assigns ids itself: nothing was stored; send the create without one.
			w.id = ""
			resp, err = sv.createPlain(ctx, w, sessionToken)
		}
	default:
		resp, err = sv.createPlain(ctx, w, sessionToken)
	}
	ierr, since := w.settle(resp, err)
	if ierr != nil || !since {
		return ierr
	}
	return sv.sendSince(ctx, []Saver{s}, false)[0]
}

// createPlain sends a create whose id the server chooses: it carries a request id (see Client.call), and is sent
// again after an ambiguous failure only where the server deduplicates it. In doubt, write.settle holds the object.
func (sv *ObjectsService) createPlain(ctx context.Context, w *write, sessionToken string) (map[string]any, error) {
	c := sv.client
	rc := c.call(http.MethodPost, classPath(w.o.ClassName()), w.body)
	c.userSession(&rc, sessionToken)
	var resp map[string]any
	err := c.do(ctx, rc, &resp)
	return resp, err
}

// userSession makes a save of a user object act as that user when the view has no session of its own.
func (c *Client) userSession(rc *rest.Call, token string) {
	if token != "" && rc.SessionToken == "" && !rc.UseMasterKey {
		rc.SessionToken = token
	}
}

// saveFlat saves objs, without the objects they point to (see SaveAll), and returns each one's error (nil when
// it was saved or had nothing to save), aligned with objs. Creates and updates go through /batch (see batchMode):
// a call of creates with client-chosen ids may be sent again, one of creates without (the default) or of updates
// never; a lone create without an id goes as Save sends it. Held creates are refused (ErrCreateHeld) and nothing
// is sent for them. Every outcome goes through write.settle; the changes made since a create sent again go out
// after it (sendSince).
func (s *ObjectsService) saveFlat(ctx context.Context, objs []*parse.Object) []error {
	c := s.client
	errs := make([]error, len(objs))
	var (
		withIDs []*write                  // creates with client-chosen ids: a /batch sent again freely
		creates []*write                  // creates whose ids the server chooses: a /batch sent once
		updates []*write                  // a /batch sent once
		single  []int                     // saved one by one (saveOne)
		first   = map[*parse.Object]int{} // an object listed twice is saved once
		dups    [][2]int                  // (repeat, first)
		since   []int                     // settled creates sent again, with changes made since
	)
	for i, o := range objs {
		if o == nil || o.ClassName() == "" {
			errs[i] = errNoClass
			continue
		}
		if j, seen := first[o]; seen {
			dups = append(dups, [2]int{i, j})
			continue
		}
		first[o] = i
		w, err := c.prepare(o, o.ID() == "" && c.chooseIDs(o.ClassName()))
		if err != nil || w == nil {
			errs[i] = err
			continue
		}
		w.index = i
		switch {
		case w.kind == settle.Update:
			// An update goes through /batch too, but such a call is never sent twice (see batchMode): an
			// update sent twice can undo another writer's change made in between.
			updates = append(updates, w)
		case w.id != "":
			withIDs = append(withIDs, w)
		default:
			// The server chooses the id (the default, so cloud code sees a create): the call is never sent
			// twice, as for updates; in doubt, the object is held.
			creates = append(creates, w)
		}
	}
	settleAll := func(ws []*write, answers []map[string]any, berrs []error) {
		for k, w := range ws {
			var more bool
			errs[w.index], more = w.settle(answers[k], berrs[k])
			if more {
				since = append(since, w.index)
			}
		}
	}
	if len(withIDs) > 0 {
		items := make([]batchItem, len(withIDs))
		for k, w := range withIDs {
			items[k] = w.item()
		}
		answers, berrs := c.runBatch(ctx, items)
		c.settleCreates(ctx, withIDs, answers, berrs)
		var kept []*write
		var ka []map[string]any
		var ke []error
		for k, w := range withIDs {
			if refusesCustomIDs(berrs[k]) && !w.again {
				// The server assigns ids itself: nothing was stored; save the object one by one.
				c.server.noCustomIDs.Store(true)
				objstate.Of(w.o).SetProposedID("")
				single = append(single, w.index)
				continue
			}
			kept, ka, ke = append(kept, w), append(ka, answers[k]), append(ke, berrs[k])
		}
		settleAll(kept, ka, ke)
	}
	if len(creates) == 1 {
		// One create alone goes as Save sends it, with a request id: sent again after an ambiguous failure where
		// the server deduplicates it, so it is less often left in doubt than in a /batch sent once.
		single = append(single, creates[0].index)
		creates = nil
	}
	for _, ws := range [][]*write{creates, updates} {
		if len(ws) == 0 {
			continue
		}
		items := make([]batchItem, len(ws))
		for k, w := range ws {
			items[k] = w.item()
		}
		answers, berrs := c.runBatchMode(ctx, items, batchMode{once: true})
		settleAll(ws, answers, berrs)
	}
	if len(single) > 0 {
		tasks := make([]func(), len(single))
		for j, i := range single {
			tasks[j] = func() { errs[i] = s.saveOne(ctx, objs[i]) }
		}
		parallel(c.cfg.BatchConcurrency, tasks)
	}
	if len(since) > 0 {
		savers := make([]Saver, len(since))
		for j, i := range since {
			savers[j] = objs[i]
		}
		for j, err := range s.sendSince(ctx, savers, false) {
			errs[since[j]] = err
		}
	}
	for _, d := range dups {
		errs[d[0]] = errs[d[1]]
	}
	return errs
}
