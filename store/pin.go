package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// pinValue is what a pin list holds for each object key: the class and id, so no key has to be parsed.
func pinValue(class, id string) []byte { return []byte(class + "\x00" + id) }

func splitPinValue(v []byte) (class, id string, ok bool) {
	class, id, ok = strings.Cut(string(v), "\x00")
	return
}

// Pin stores objs in the default pin (see PinWithName).
func (s *Store) Pin(ctx context.Context, objs ...*parse.Object) error {
	return s.PinWithName(ctx, DefaultPin, objs...)
}

// PinWithName stores objs, and the saved objects nested in their fields (included pointers), in the pin list
// name ("" or "_default" is the default pin), in one transaction. An object stored before replaces the stored copy.
// An object never saved on the server is given a local id first (see Object.LocalID), which it keeps until Flush saves
// it. Objects without a class name are refused.
func (s *Store) PinWithName(ctx context.Context, name string, objs ...*parse.Object) error {
	if err := s.enabled(ctx, "PinWithName"); err != nil {
		return err
	}
	all, err := withChildren(objs)
	if err != nil {
		return err
	}
	pin := PinKey(name)
	return s.update(func(tx kvTx, w *writeSet) error {
		for _, o := range all {
			if err := pinOne(tx, w, pin, o); err != nil {
				return err
			}
		}
		return nil
	})
}

func pinOne(tx kvTx, w *writeSet, pin string, o *parse.Object) error {
	if o.ID() == "" && o.LocalID() != "" {
		// Flushed since this copy was made: it takes its server id.
		if sid := tx.get(flat(bIDMap), o.LocalID()); sid != nil {
			o.SetID(string(sid))
		}
	}
	class, id := o.ClassName(), idOf(o)
	data, err := objectData(o)
	if err != nil {
		return fmt.Errorf("store: pin %s: %w", ObjectKey(class, id), err)
	}
	key := ObjectKey(class, id)
	// An object stored under a local id and saved since (it now has a server id too) moves to its server id,
	// keeping its pin lists.
	var moved []string
	if o.ID() != "" && o.LocalID() != "" {
		oldKey := ObjectKey(class, o.LocalID())
		if tx.get(flat(bObjects), oldKey) != nil {
			moved = pinsOf(tx, oldKey)
			if err := dropObject(tx, w, class, o.LocalID()); err != nil {
				return err
			}
			for _, p := range moved {
				if err := tx.put(bref{bPins, p}, key, pinValue(class, id)); err != nil {
					return err
				}
			}
		}
	}
	if err := putObject(tx, w, class, id, data); err != nil {
		return err
	}
	if err := tx.put(bref{bPins, pin}, key, pinValue(class, id)); err != nil {
		return err
	}
	pins := pinsOf(tx, key)
	for _, p := range moved {
		if !slices.Contains(pins, p) {
			pins = append(pins, p)
		}
	}
	if !slices.Contains(pins, pin) {
		pins = append(pins, pin)
	}
	return setPinsOf(tx, key, pins)
}

// withChildren checks objs, gives unsaved ones a local id, and adds the objects nested in their fields.
func withChildren(objs []*parse.Object) ([]*parse.Object, error) {
	var out []*parse.Object
	seen := map[*parse.Object]bool{}
	var walk func(v any)
	add := func(o *parse.Object, top bool) error {
		if o == nil {
			if top {
				return errors.New("store: pin: nil object")
			}
			return nil
		}
		if seen[o] {
			return nil
		}
		if o.ClassName() == "" {
			return errors.New("store: pin: the object has no class name")
		}
		if !top && o.ID() == "" {
			return nil // an unsaved nested object is saved with its parent, not pinned alone
		}
		seen[o] = true
		if o.ID() == "" && o.LocalID() == "" {
			objstate.Of(o).SetLocalID(NewLocalID())
		}
		out = append(out, o)
		for _, k := range o.Keys() {
			walk(o.Get(k))
		}
		return nil
	}
	walk = func(v any) {
		switch x := v.(type) {
		case *parse.Object:
			_ = add(x, false)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, o := range objs {
		if err := add(o, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Unpin removes objs from the default pin (see UnpinWithName).
func (s *Store) Unpin(ctx context.Context, objs ...*parse.Object) error {
	return s.UnpinWithName(ctx, DefaultPin, objs...)
}

// UnpinWithName removes objs from the pin list name. An object left in no pin list is deleted from the store
// (with any offline changes it had). Objects not in the list are ignored.
func (s *Store) UnpinWithName(ctx context.Context, name string, objs ...*parse.Object) error {
	if err := s.enabled(ctx, "UnpinWithName"); err != nil {
		return err
	}
	pin := PinKey(name)
	return s.update(func(tx kvTx, w *writeSet) error {
		for _, o := range objs {
			if o == nil {
				continue
			}
			if err := unpinOne(tx, w, pin, o.ClassName(), idOf(o)); err != nil {
				return err
			}
		}
		return nil
	})
}

func unpinOne(tx kvTx, w *writeSet, pin, class, id string) error {
	key := ObjectKey(class, id)
	if err := tx.del(bref{bPins, pin}, key); err != nil {
		return err
	}
	pins := slices.DeleteFunc(pinsOf(tx, key), func(p string) bool { return p == pin })
	if len(pins) == 0 {
		return dropObject(tx, w, class, id)
	}
	return setPinsOf(tx, key, pins)
}

// UnpinAll empties the default pin (see UnpinAllWithName).
func (s *Store) UnpinAll(ctx context.Context) error { return s.UnpinAllWithName(ctx, DefaultPin) }

// UnpinAllWithName empties the pin list name and deletes it; objects left in no pin list are deleted.
func (s *Store) UnpinAllWithName(ctx context.Context, name string) error {
	if err := s.enabled(ctx, "UnpinAllWithName"); err != nil {
		return err
	}
	pin := PinKey(name)
	return s.update(func(tx kvTx, w *writeSet) error {
		type ref struct{ class, id string }
		var refs []ref
		if err := tx.each(bref{bPins, pin}, func(_ string, v []byte) error {
			class, id, ok := splitPinValue(v)
			if ok {
				refs = append(refs, ref{class, id})
			}
			return nil
		}); err != nil {
			return err
		}
		for _, r := range refs {
			if err := unpinOne(tx, w, pin, r.class, r.id); err != nil {
				return err
			}
		}
		return tx.dropSub(bPins, pin)
	})
}

// Clear deletes everything in the store: all pins, objects and offline changes.
func (s *Store) Clear(ctx context.Context) error {
	if err := s.enabled(ctx, "Clear"); err != nil {
		return err
	}
	return s.update(func(tx kvTx, w *writeSet) error {
		for _, top := range []string{bPins, bClasses} {
			for _, sub := range tx.subs(top) {
				if top == bClasses {
					if err := tx.each(bref{bClasses, sub}, func(id string, _ []byte) error {
						w.drops = append(w.drops, [2]string{sub, id})
						return nil
					}); err != nil {
						return err
					}
				}
				if err := tx.dropSub(top, sub); err != nil {
					return err
				}
			}
		}
		for _, b := range []string{bObjects, bPinsOf, bDirty, bIDMap} {
			var keys []string
			_ = tx.each(flat(b), func(k string, _ []byte) error { keys = append(keys, k); return nil })
			for _, k := range keys {
				if err := tx.del(flat(b), k); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// PinNames lists the names of the pin lists that hold at least one object ("_default" for the default pin).
func (s *Store) PinNames(ctx context.Context) ([]string, error) {
	if err := s.enabled(ctx, "PinNames"); err != nil {
		return nil, err
	}
	var out []string
	err := s.kv.view(func(tx kvTx) error {
		for _, p := range tx.subs(bPins) {
			if p == DefaultPin {
				out = append(out, DefaultPin)
			} else {
				out = append(out, strings.TrimPrefix(p, PinPrefix))
			}
		}
		return nil
	})
	return out, err
}

// PinnedKeys lists the object keys (Parse_LDS_{class}_{id}) in the pin list name, sorted.
func (s *Store) PinnedKeys(ctx context.Context, name string) ([]string, error) {
	if err := s.enabled(ctx, "PinnedKeys"); err != nil {
		return nil, err
	}
	var out []string
	err := s.kv.view(func(tx kvTx) error {
		return tx.each(bref{bPins, PinKey(name)}, func(k string, _ []byte) error { out = append(out, k); return nil })
	})
	return out, err
}

// Get returns a copy of the stored object className/id (a server id or a local id), or an error wrapping
// ErrNotFound.
func (s *Store) Get(ctx context.Context, className, id string) (*parse.Object, error) {
	if err := s.enabled(ctx, "Get"); err != nil {
		return nil, err
	}
	recs, err := s.records(className, []string{id})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, ObjectKey(className, id))
	}
	return recs[0].object(nil)
}

// Fetch fills o from its stored copy (found by class and id or local id), replacing its fields.
func (s *Store) Fetch(ctx context.Context, o *parse.Object) error {
	if o == nil {
		return errors.New("store: Fetch: nil object")
	}
	got, err := s.Get(ctx, o.ClassName(), idOf(o))
	if err != nil {
		return err
	}
	*o = *got
	return nil
}

func (s *Store) records(class string, ids []string) ([]*record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrNotEnabled
	}
	c, err := s.loadClass(class)
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, id := range ids {
		if r, ok := c.byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}
