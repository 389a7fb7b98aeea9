package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// SyncResult tells what a Sync did.
type SyncResult struct {
	// Updated is the number of stored objects refreshed from the server.
	Updated int
	// NotReturned lists the keys (ObjectKey) of the stored objects the server did not return: deleted there, or
	// not readable by the client's user (an ACL change, a view with another session). Sync never drops a local
	// copy it could not read back: they are kept as they were; unpin them when you know they are gone.
	NotReturned []string
	// Skipped is the number of objects left alone: local ids (never saved) and objects with offline changes.
	Skipped int
}

// Sync refreshes every stored object from the server (the original's updateFromServer): per class it queries
// objectId $in the stored ids with a limit equal to the number of ids (in chunks of Options.SyncChunk, default
// 500), replaces the stored copies with the answers, and deletes the objects the server did not return. Objects
// with a local id or with offline changes not yet flushed are skipped. Only one Sync or Flush runs at a time: a
// second concurrent call returns ErrSyncRunning. A failed query changes nothing for its chunk and is returned.
// Runs only on an enabled store (else ErrNotEnabled).
func (s *Store) Sync(ctx context.Context, c parse.QueryRunner) (SyncResult, error) {
	var res SyncResult
	if err := s.enabled(ctx, "Sync"); err != nil {
		return res, err
	}
	if c == nil {
		return res, errors.New("store: Sync needs a client")
	}
	if !s.syncing.CompareAndSwap(false, true) {
		return res, ErrSyncRunning
	}
	defer s.syncing.Store(false)

	byClass := map[string][]string{}
	err := s.kv.view(func(tx kvTx) error {
		for _, class := range tx.subs(bClasses) {
			if err := tx.each(bref{bClasses, class}, func(id string, _ []byte) error {
				if IsLocalID(id) || tx.get(flat(bDirty), ObjectKey(class, id)) != nil {
					res.Skipped++
					return nil
				}
				byClass[class] = append(byClass[class], id)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	chunk := s.opts.SyncChunk
	if chunk <= 0 {
		chunk = DefaultSyncChunk
	}
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, class := range classes {
		ids := byClass[class]
		for from := 0; from < len(ids); from += chunk {
			part := ids[from:min(from+chunk, len(ids))]
			u, missing, err := s.syncChunk(ctx, c, class, part)
			res.Updated += u
			res.NotReturned = append(res.NotReturned, missing...)
			if err != nil {
				if s.opts.Logger != nil {
					s.opts.Logger.Warn("store: sync failed", "class", class, "error", err)
				}
				return res, fmt.Errorf("store: sync %s: %w", class, err)
			}
		}
	}
	return res, nil
}

func (s *Store) syncChunk(ctx context.Context, c parse.QueryRunner, class string, ids []string) (updated int, notReturned []string, err error) {
	in := make([]any, len(ids))
	for i, id := range ids {
		in[i] = id
	}
	req := &parse.QueryRequest{ClassName: class, Op: query.OpFind, Params: map[string]any{
		"where": map[string]any{"objectId": map[string]any{"$in": in}},
		"limit": len(ids),
	}}
	resp, err := c.RunQuery(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	fresh := map[string]map[string]any{}
	for _, raw := range resp.Results {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return 0, nil, fmt.Errorf("decoding a result: %w", err)
		}
		if id, _ := m["objectId"].(string); id != "" {
			fresh[id] = m
		}
	}
	for _, o := range resp.Objects { // a runner that answers with objects (another Store, say)
		if o == nil || o.ID() == "" {
			continue
		}
		m, err := objectData(o)
		if err != nil {
			return 0, nil, fmt.Errorf("encoding a result: %w", err)
		}
		fresh[o.ID()] = m
	}
	err = s.update(func(tx kvTx, w *writeSet) error {
		updated, notReturned = 0, nil
		for _, id := range ids {
			key := ObjectKey(class, id)
			if tx.get(flat(bObjects), key) == nil || tx.get(flat(bDirty), key) != nil {
				continue // unpinned or changed offline while the query ran
			}
			if m, ok := fresh[id]; ok {
				if err := putObject(tx, w, class, id, m); err != nil {
					return err
				}
				updated++
				continue
			}
			notReturned = append(notReturned, key)
		}
		return nil
	})
	return updated, notReturned, err
}

// SaveLocal stores objs (pinned in the default pin) as changed offline, SaveEventually-style: an object never
// saved gets a local id ("local" + random) and is created on the server by Flush; an object with a server id has
// its changed fields sent by Flush. Changes are sent as plain values (an offline Increment is sent as the
// resulting number).
func (s *Store) SaveLocal(ctx context.Context, objs ...*parse.Object) error {
	if err := s.enabled(ctx, "SaveLocal"); err != nil {
		return err
	}
	all, err := withChildren(objs)
	if err != nil {
		return err
	}
	top := map[*parse.Object]bool{}
	for _, o := range objs {
		top[o] = true
	}
	return s.update(func(tx kvTx, w *writeSet) error {
		for _, o := range all {
			if err := pinOne(tx, w, DefaultPin, o); err != nil {
				return err
			}
			if !top[o] || (o.ID() != "" && len(o.DirtyKeys()) == 0) {
				continue
			}
			key := ObjectKey(o.ClassName(), idOf(o))
			var dirty []string
			if raw := tx.get(flat(bDirty), key); raw != nil {
				_ = json.Unmarshal(raw, &dirty)
			}
			if o.ID() == "" {
				dirty = []string{"*"}
			} else if !slices.Contains(dirty, "*") {
				for _, k := range o.DirtyKeys() {
					if !slices.Contains(dirty, k) {
						dirty = append(dirty, k)
					}
				}
			}
			raw, _ := json.Marshal(dirty)
			if err := tx.put(flat(bDirty), key, raw); err != nil {
				return err
			}
		}
		return nil
	})
}

// Pending lists the keys of the objects with offline changes that Flush would send, sorted.
func (s *Store) Pending(ctx context.Context) ([]string, error) {
	if err := s.enabled(ctx, "Pending"); err != nil {
		return nil, err
	}
	var out []string
	err := s.kv.view(func(tx kvTx) error {
		return tx.each(flat(bDirty), func(k string, _ []byte) error { out = append(out, k); return nil })
	})
	return out, err
}

// FlushResult tells what a Flush did.
type FlushResult struct {
	// Saved is the number of objects saved on the server.
	Saved int
	// IDs maps each local id that was replaced to the server id it became.
	IDs map[string]string
}

// Flush saves the objects changed offline (see SaveLocal) on the server through c, one by one. A new object is
// created and its local id is replaced by the server id everywhere in the store (its key, its pin lists, and
// pointers to it held by other stored objects); an object with a server id gets its changed fields. Objects the
// caller still holds keep their local id: FlushResult.IDs maps it to the server id, Fetch reloads them, and a
// later Pin or SaveLocal of such an object gives it its server id. An object
// whose save fails keeps its offline changes for the next Flush; the errors are joined. It shares Sync's guard:
// a Flush during a Sync (or another Flush) returns ErrSyncRunning.
func (s *Store) Flush(ctx context.Context, c *client.Client) (FlushResult, error) {
	res := FlushResult{IDs: map[string]string{}}
	if err := s.enabled(ctx, "Flush"); err != nil {
		return res, err
	}
	if c == nil {
		return res, errors.New("store: Flush needs a client")
	}
	if !s.syncing.CompareAndSwap(false, true) {
		return res, ErrSyncRunning
	}
	defer s.syncing.Store(false)

	type item struct {
		key   string
		dirty []string
	}
	var items []item
	if err := s.kv.view(func(tx kvTx) error {
		return tx.each(flat(bDirty), func(k string, v []byte) error {
			var d []string
			_ = json.Unmarshal(v, &d)
			items = append(items, item{k, d})
			return nil
		})
	}); err != nil {
		return res, err
	}
	var errs []error
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		class, id, ok := s.classOfKey(it.key)
		if !ok {
			continue
		}
		recs, err := s.records(class, []string{id})
		if err != nil || len(recs) == 0 {
			continue
		}
		stored, err := recs[0].object(nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var send *parse.Object
		isNew := slices.Contains(it.dirty, "*") || IsLocalID(id)
		if isNew {
			send = parse.NewObject(class)
			for _, k := range stored.Keys() {
				send.Set(k, stored.Get(k))
			}
		} else {
			send = parse.NewObjectWithID(class, id)
			for _, k := range it.dirty {
				if stored.Has(k) {
					send.Set(k, stored.Get(k))
				} else {
					send.Set(k, parse.Unset())
				}
			}
		}
		if err := c.Objects.Save(ctx, send); err != nil {
			errs = append(errs, fmt.Errorf("store: flush %s: %w", it.key, err))
			continue
		}
		if err := s.afterFlush(class, id, send, isNew); err != nil {
			errs = append(errs, err)
			continue
		}
		res.Saved++
		if isNew {
			res.IDs[id] = send.ID()
		}
	}
	return res, errors.Join(errs...)
}

// classOfKey finds the class and id of an object key.
func (s *Store) classOfKey(key string) (class, id string, ok bool) {
	_ = s.kv.view(func(tx kvTx) error {
		for _, p := range pinsOf(tx, key) {
			if v := tx.get(bref{bPins, p}, key); v != nil {
				class, id, ok = splitPinValue(v)
				return nil
			}
		}
		return nil
	})
	if !ok {
		class, id, ok = splitObjectKey(key)
	}
	return
}

// afterFlush records a successful flush: the stored copy gets the server's fields and, for a new object, moves
// from its local id to the server id.
func (s *Store) afterFlush(class, oldID string, saved *parse.Object, isNew bool) error {
	newID := saved.ID()
	return s.update(func(tx kvTx, w *writeSet) error {
		oldKey, newKey := ObjectKey(class, oldID), ObjectKey(class, newID)
		raw := tx.get(flat(bObjects), oldKey)
		if raw == nil {
			return nil // unpinned meanwhile
		}
		var data map[string]any
		if err := json.Unmarshal(raw, &data); err != nil {
			return err
		}
		data["objectId"] = newID
		delete(data, "_localId")
		if t := saved.UpdatedAt(); !t.IsZero() {
			data["updatedAt"] = t.UTC().Format("2006-01-02T15:04:05.000Z")
		}
		if t := saved.CreatedAt(); isNew && !t.IsZero() {
			data["createdAt"] = t.UTC().Format("2006-01-02T15:04:05.000Z")
		}
		if !isNew {
			if err := tx.del(flat(bDirty), oldKey); err != nil {
				return err
			}
			return putObject(tx, w, class, oldID, data)
		}
		if err := tx.put(flat(bIDMap), oldID, []byte(newID)); err != nil {
			return err
		}
		pins := pinsOf(tx, oldKey)
		if err := dropObject(tx, w, class, oldID); err != nil {
			return err
		}
		if err := putObject(tx, w, class, newID, data); err != nil {
			return err
		}
		for _, p := range pins {
			if err := tx.put(bref{bPins, p}, newKey, pinValue(class, newID)); err != nil {
				return err
			}
		}
		if err := setPinsOf(tx, newKey, pins); err != nil {
			return err
		}
		return s.repoint(tx, w, class, oldID, newID)
	})
}

// repoint rewrites pointers to class/oldID held by stored objects so they name newID.
func (s *Store) repoint(tx kvTx, w *writeSet, class, oldID, newID string) error {
	type hit struct {
		class, id string
		data      map[string]any
	}
	var hits []hit
	for _, cl := range tx.subs(bClasses) {
		if err := tx.each(bref{bClasses, cl}, func(id string, _ []byte) error {
			raw := tx.get(flat(bObjects), ObjectKey(cl, id))
			if raw == nil {
				return nil
			}
			var data map[string]any
			if err := json.Unmarshal(raw, &data); err != nil {
				return nil
			}
			changed := false
			for k, v := range data {
				if nv, ch := replacePointer(v, class, oldID, newID); ch {
					data[k], changed = nv, true
				}
			}
			if changed {
				hits = append(hits, hit{cl, id, data})
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, h := range hits {
		if err := putObject(tx, w, h.class, h.id, h.data); err != nil {
			return err
		}
	}
	return nil
}

func replacePointer(v any, class, oldID, newID string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if (x["__type"] == "Pointer" || x["__type"] == "Object") && x["className"] == class &&
			(x["objectId"] == oldID || x["_localId"] == oldID) {
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = e
			}
			m["objectId"] = newID
			delete(m, "_localId")
			return m, true
		}
		changed := false
		m := make(map[string]any, len(x))
		for k, e := range x {
			nv, ch := replacePointer(e, class, oldID, newID)
			m[k] = nv
			changed = changed || ch
		}
		return m, changed
	case []any:
		changed := false
		out := make([]any, len(x))
		for i, e := range x {
			nv, ch := replacePointer(e, class, oldID, newID)
			out[i] = nv
			changed = changed || ch
		}
		return out, changed
	}
	return v, false
}
