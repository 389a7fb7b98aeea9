package store

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// The store keeps its data in buckets: a few flat ones, and two families of nested ones ("classes/<name>" and
// "pins/<pin key>"). kv hides whether they live in a bbolt file or in memory.

// bucket names. Nested buckets are addressed as {top, sub}.
const (
	bMeta    = "meta"     // format, appId
	bObjects = "objects"  // Parse_LDS_{class}_{id} -> object JSON
	bPinsOf  = "pinsOf"   // object key -> JSON list of pin keys holding it
	bDirty   = "dirty"    // object key -> JSON list of keys changed offline ("*" for a new object)
	bClasses = "classes"  // classes/<className>: objectId -> "" (per-class key set)
	bPins    = "pins"     // pins/<pin key>: object key -> ""
	bIDMap   = "localIds" // local id -> the server id Flush got for it
)

type bref struct{ top, sub string }

func flat(name string) bref { return bref{top: name} }

type kvTx interface {
	get(b bref, key string) []byte
	put(b bref, key string, val []byte) error
	del(b bref, key string) error
	// each calls fn for every key of b in key order; a missing bucket has no keys.
	each(b bref, fn func(k string, v []byte) error) error
	// count returns the number of keys of b, counting no further than max.
	count(b bref, max int) (int, error)
	// subs lists the nested bucket names under top, in order.
	subs(top string) []string
	dropSub(top, sub string) error
}

type kv interface {
	view(fn func(kvTx) error) error
	update(fn func(kvTx) error) error
	close() error
}

// ---- bbolt ----

type boltKV struct{ db *bolt.DB }

func (b *boltKV) view(fn func(kvTx) error) error {
	return b.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx: tx}) })
}

func (b *boltKV) update(fn func(kvTx) error) error {
	return b.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx: tx, buckets: map[bref]*bolt.Bucket{}}) })
}

func (b *boltKV) close() error { return b.db.Close() }

type boltTx struct {
	tx *bolt.Tx
	// buckets caches the buckets a write transaction has opened or made (nil in a read transaction); a
	// dropped nested bucket is forgotten by dropSub.
	buckets map[bref]*bolt.Bucket
}

func (t boltTx) bucket(b bref, create bool) (*bolt.Bucket, error) {
	if t.buckets == nil {
		return t.open(b, create)
	}
	if bk, ok := t.buckets[b]; ok {
		return bk, nil
	}
	bk, err := t.open(b, create)
	if err == nil && bk != nil {
		t.buckets[b] = bk
	}
	return bk, err
}

func (t boltTx) open(b bref, create bool) (*bolt.Bucket, error) {
	var top *bolt.Bucket
	if create && t.tx.Writable() {
		var err error
		if top, err = t.tx.CreateBucketIfNotExists([]byte(b.top)); err != nil {
			return nil, err
		}
	} else if top = t.tx.Bucket([]byte(b.top)); top == nil {
		return nil, nil
	}
	if b.sub == "" {
		return top, nil
	}
	if create && t.tx.Writable() {
		return top.CreateBucketIfNotExists([]byte(b.sub))
	}
	return top.Bucket([]byte(b.sub)), nil
}

func (t boltTx) get(b bref, key string) []byte {
	bk, _ := t.bucket(b, false)
	if bk == nil {
		return nil
	}
	v := bk.Get([]byte(key))
	if v == nil {
		return nil
	}
	return append([]byte{}, v...) // bbolt memory is only valid inside the transaction
}

func (t boltTx) put(b bref, key string, val []byte) error {
	bk, err := t.bucket(b, true)
	if err != nil {
		return err
	}
	if val == nil {
		val = []byte{}
	}
	return bk.Put([]byte(key), val)
}

func (t boltTx) del(b bref, key string) error {
	bk, _ := t.bucket(b, false)
	if bk == nil {
		return nil
	}
	return bk.Delete([]byte(key))
}

func (t boltTx) each(b bref, fn func(string, []byte) error) error {
	bk, _ := t.bucket(b, false)
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil && b.sub == "" && bk.Bucket(k) != nil {
			continue // a nested bucket
		}
		if err := fn(string(k), append([]byte{}, v...)); err != nil {
			return err
		}
	}
	return nil
}

func (t boltTx) count(b bref, max int) (int, error) {
	bk, _ := t.bucket(b, false)
	if bk == nil {
		return 0, nil
	}
	n := 0
	c := bk.Cursor()
	for k, v := c.First(); k != nil && n < max; k, v = c.Next() {
		if v == nil && b.sub == "" && bk.Bucket(k) != nil {
			continue
		}
		n++
	}
	return n, nil
}

func (t boltTx) subs(top string) []string {
	bk := t.tx.Bucket([]byte(top))
	if bk == nil {
		return nil
	}
	var out []string
	_ = bk.ForEachBucket(func(k []byte) error { out = append(out, string(k)); return nil })
	return out
}

func (t boltTx) dropSub(top, sub string) error {
	bk := t.tx.Bucket([]byte(top))
	if bk == nil || bk.Bucket([]byte(sub)) == nil {
		return nil
	}
	delete(t.buckets, bref{top, sub})
	return bk.DeleteBucket([]byte(sub))
}

// ---- memory ----

// memKV keeps buckets in maps. update runs under a write lock and undoes its changes when fn fails, so it has
// the same all-or-nothing behaviour as a bbolt transaction.
type memKV struct {
	mu     sync.RWMutex
	data   map[bref]map[string][]byte
	closed bool
}

func newMemKV() *memKV { return &memKV{data: map[bref]map[string][]byte{}} }

var errMemClosed = errors.New("store: closed")

func (m *memKV) view(fn func(kvTx) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return errMemClosed
	}
	return fn(&memTx{m: m})
}

func (m *memKV) update(fn func(kvTx) error) (err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errMemClosed
	}
	t := &memTx{m: m, writable: true}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: panic in transaction: %v", r)
		}
		if err != nil {
			for i := len(t.undo) - 1; i >= 0; i-- {
				t.undo[i]()
			}
		}
	}()
	return fn(t)
}

func (m *memKV) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

type memTx struct {
	m        *memKV
	writable bool
	undo     []func()
}

func (t *memTx) get(b bref, key string) []byte {
	v, ok := t.m.data[b][key]
	if !ok {
		return nil
	}
	return append([]byte{}, v...)
}

func (t *memTx) record(b bref, key string) {
	bk, had := t.m.data[b]
	old, ok := bk[key]
	t.undo = append(t.undo, func() {
		if !had {
			delete(t.m.data, b)
			return
		}
		if ok {
			t.m.data[b][key] = old
		} else {
			delete(t.m.data[b], key)
		}
	})
}

func (t *memTx) put(b bref, key string, val []byte) error {
	if !t.writable {
		return errors.New("store: write in a read transaction")
	}
	t.record(b, key)
	if t.m.data[b] == nil {
		t.m.data[b] = map[string][]byte{}
	}
	t.m.data[b][key] = append([]byte{}, val...)
	return nil
}

func (t *memTx) del(b bref, key string) error {
	if !t.writable {
		return errors.New("store: write in a read transaction")
	}
	if _, ok := t.m.data[b][key]; !ok {
		return nil
	}
	t.record(b, key)
	delete(t.m.data[b], key)
	return nil
}

func (t *memTx) each(b bref, fn func(string, []byte) error) error {
	bk := t.m.data[b]
	for _, k := range slices.Sorted(maps.Keys(bk)) {
		if err := fn(k, append([]byte{}, bk[k]...)); err != nil {
			return err
		}
	}
	return nil
}

func (t *memTx) count(b bref, max int) (int, error) { return min(len(t.m.data[b]), max), nil }

func (t *memTx) subs(top string) []string {
	var out []string
	for b := range t.m.data {
		if b.top == top && b.sub != "" {
			out = append(out, b.sub)
		}
	}
	sort.Strings(out)
	return out
}

func (t *memTx) dropSub(top, sub string) error {
	if !t.writable {
		return errors.New("store: write in a read transaction")
	}
	b := bref{top, sub}
	old, ok := t.m.data[b]
	if !ok {
		return nil
	}
	t.undo = append(t.undo, func() { t.m.data[b] = maps.Clone(old) })
	delete(t.m.data, b)
	return nil
}
