package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unique"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// Key prefixes and the default pin, as in the original client.
const (
	// ObjectPrefix starts the key of every stored object: Parse_LDS_{className}_{objectId}.
	ObjectPrefix = "Parse_LDS_"
	// PinPrefix starts the key of a named pin list: Parse_LDS_PIN_{name}.
	PinPrefix = "Parse_LDS_PIN_"
	// DefaultPin is the pin used by Pin and Unpin (and its key).
	DefaultPin = "_default"
	// LocalIDPrefix starts the id given to an object stored before it was ever saved on the server.
	LocalIDPrefix = "local"
	// DefaultLimit is the number of results a query without a limit returns, as on the server.
	DefaultLimit = 100
	// DefaultSyncChunk is the number of object ids asked for in one Sync query.
	DefaultSyncChunk = 500
	// FormatVersion is written into every store file; a file with another value is refused.
	FormatVersion = "moralis-go/store 1"
)

// Errors. Match them with errors.Is.
var (
	// ErrNotEnabled is returned by every call on a nil or closed Store (the original's text).
	ErrNotEnabled = errors.New("Parse.enableLocalDatastore() must be called first")
	// ErrSyncRunning is returned by Sync (and Flush) while another Sync (or Flush) is running.
	ErrSyncRunning = errors.New("store: a sync is already running")
	// ErrNotFound is returned by Get when the object is not in the store.
	ErrNotFound = errors.New("store: object not in the local store")
	// ErrUnsupportedQuery is wrapped by every error about a query the store cannot run locally.
	ErrUnsupportedQuery = errors.New("store: unsupported query")
	// ErrForeignFile is wrapped by Open's error when the file is not a store of this package (or is damaged);
	// the file is left untouched.
	ErrForeignFile = errors.New("store: not a moralis-go store file")
)

// Config configures Open and NewMemory. The zero value is usable; the store copies it.
type Config struct {
	// AppID, when set, is written into a new file and checked on every later Open: a file made for another
	// application is refused, untouched. Empty: no check (a new file records no application).
	AppID string
	// Logger receives the spec's warnings (use of a store that is not enabled, sync failures). Nil: silent.
	Logger *slog.Logger
	// LockTimeout bounds the wait for another process that holds the file (0 = 1s).
	LockTimeout time.Duration
	// SyncChunk is the number of ids per Sync query (0 = DefaultSyncChunk).
	SyncChunk int
}

// Store is a local store of pinned objects. It is safe for concurrent use by several goroutines; one file is used
// by one process at a time (a second process's Open waits LockTimeout, then fails).
type Store struct {
	kv     kv
	path   string
	opts   Config
	closed atomic.Bool

	mu    sync.Mutex             // guards cache and strs, and orders writes with cache updates
	cache map[string]*classCache // loaded classes
	strs  interner               // short string values shared by the loaded records

	syncing atomic.Bool
	queued  atomic.Bool // NewQueue was called
}

type classCache struct {
	byID map[string]*record
	list []*record // sorted by id; nil when stale
	// added are records new to the class since list was built, merged into a new list on the next snapshot.
	added []*record
	// arrays are the fields that hold an array in some object of the class (rebuilt with list).
	arrays map[string]bool
	// idx are the equality indexes built so far (dropped with list).
	idx map[string]fieldIndex
}

// NewMemory returns a store kept in memory only (for tests and short-lived programs). It is enabled at once.
func NewMemory(cfg Config) *Store {
	s := &Store{kv: newMemKV(), path: ":memory:", cache: map[string]*classCache{}, opts: cfg}
	_ = s.kv.update(func(tx kvTx) error { return writeMeta(tx, s.opts.AppID) })
	return s
}

// Open opens (or creates) the store file at path: a single bbolt file. An existing file is first opened read-only
// and checked (bbolt's own checks, then this package's meta data: format and application id); a damaged file, a
// file that is not a bbolt file, or a bbolt file of another program or application is refused with an error
// wrapping ErrForeignFile, and is neither changed nor overwritten. Close the store when done.
func Open(path string, cfg Config) (*Store, error) {
	if cfg.LockTimeout < 0 || cfg.SyncChunk < 0 {
		return nil, errors.New("store: LockTimeout and SyncChunk must not be negative")
	}
	s := &Store{path: path, cache: map[string]*classCache{}, opts: cfg}
	if path == "" {
		return nil, errors.New("store: Open needs a file path (use NewMemory for a store in memory)")
	}
	timeout := s.opts.LockTimeout
	if timeout <= 0 {
		timeout = time.Second
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("store: %s is a directory", path)
	case err == nil && fi.Size() > 0:
		if err := checkFile(path, s.opts.AppID, timeout); err != nil {
			return nil, err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("store: %w", err)
	}
	db, err := openBolt(path, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	s.kv = &boltKV{db: db}
	if err := s.kv.update(func(tx kvTx) error {
		if tx.get(flat(bMeta), "format") != nil {
			return nil
		}
		return writeMeta(tx, s.opts.AppID)
	}); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: initialising %s: %w", path, err)
	}
	return s, nil
}

// openBolt opens a bbolt file, turning a panic on a damaged file into an error.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("damaged file: %v", r)
		}
	}()
	return bolt.Open(path, 0o600, o)
}

// checkFile opens an existing file read-only and checks it is one of ours.
func checkFile(path, appID string, timeout time.Duration) (err error) {
	if err := looksLikeBolt(path); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrForeignFile, path, err)
	}
	db, err := openBolt(path, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return fmt.Errorf("store: %s is in use by another process", path)
		}
		return fmt.Errorf("%w: %s: %v", ErrForeignFile, path, err)
	}
	defer db.Close()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: damaged file: %v", ErrForeignFile, path, r)
		}
	}()
	return db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte(bMeta))
		if meta == nil {
			return fmt.Errorf("%w: %s is a bbolt file of another program (no %q bucket)", ErrForeignFile, path, bMeta)
		}
		if f := string(meta.Get([]byte("format"))); f != FormatVersion {
			return fmt.Errorf("%w: %s has format %q, want %q", ErrForeignFile, path, f, FormatVersion)
		}
		if got := string(meta.Get([]byte("appId"))); appID != "" && got != "" && got != appID {
			return fmt.Errorf("%w: %s belongs to application %q, not %q", ErrForeignFile, path, got, appID)
		}
		return nil
	})
}

// looksLikeBolt reads the first meta page header and checks bbolt's magic number, so that a file of another kind
// is refused before bbolt reads it at all.
func looksLikeBolt(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [32]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return errors.New("file too short to be a bbolt file")
	}
	// page header: id(8) flags(2) count(2) overflow(4); then meta: magic(4, little endian).
	magic := uint32(hdr[16]) | uint32(hdr[17])<<8 | uint32(hdr[18])<<16 | uint32(hdr[19])<<24
	if magic != 0xED0CDAED {
		return errors.New("not a bbolt file")
	}
	return nil
}

func writeMeta(tx kvTx, appID string) error {
	if err := tx.put(flat(bMeta), "format", []byte(FormatVersion)); err != nil {
		return err
	}
	return tx.put(flat(bMeta), "appId", []byte(appID))
}

// Path is the store's file (":memory:" for a store made by NewMemory).
func (s *Store) Path() string { return s.path }

// Enabled reports whether s can be used (not nil, not closed).
func (s *Store) Enabled() bool { return s != nil && !s.closed.Load() }

// Close closes the store; later calls return ErrNotEnabled. Closing twice is not an error.
func (s *Store) Close() error {
	if s == nil || !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache, s.strs = map[string]*classCache{}, interner{}
	return s.kv.close()
}

// enabled returns ErrNotEnabled (and logs the spec's warning) when s cannot be used.
func (s *Store) enabled(ctx context.Context, call string) error {
	if s == nil {
		return fmt.Errorf("store: %s: %w", call, ErrNotEnabled)
	}
	if s.closed.Load() {
		if s.opts.Logger != nil {
			s.opts.Logger.Warn("local datastore is not enabled", "call", call, "error", ErrNotEnabled.Error())
		}
		return fmt.Errorf("store: %s: %w", call, ErrNotEnabled)
	}
	if ctx == nil {
		return fmt.Errorf("store: %s: nil context", call)
	}
	return ctx.Err()
}

// ObjectKey is the key of an object in the store: Parse_LDS_{className}_{objectId}.
func ObjectKey(className, objectID string) string { return ObjectPrefix + className + "_" + objectID }

// PinKey is the key of a pin list: DefaultPin for "" or "_default", else Parse_LDS_PIN_{name}.
func PinKey(name string) string {
	if name == "" || name == DefaultPin {
		return DefaultPin
	}
	return PinPrefix + name
}

// NewLocalID returns a fresh local id: "local" followed by 16 random hex digits.
func NewLocalID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return LocalIDPrefix + hex.EncodeToString(b[:])
}

// IsLocalID reports whether id is a local id (made by the store, not by the server).
func IsLocalID(id string) bool { return strings.HasPrefix(id, LocalIDPrefix) }

// idOf is the id an object is stored under: its server id, else its local id.
func idOf(o *parse.Object) string {
	if o.ID() != "" {
		return o.ID()
	}
	return o.LocalID()
}

// record is one stored object, decoded once. A record whose top-level values are all plain JSON scalars (strings,
// numbers, booleans, null) besides objectId, createdAt and updatedAt is kept compact: its fields as a short list
// and its dates parsed, with no JSON copy and no map; any other record keeps its normalised values (vals) and its
// JSON (out).
type record struct {
	class string
	id    string
	// full records
	vals map[string]any // top-level values normalised for comparisons (see norm)
	out  []byte         // the object's JSON as a result: wire form, without __type and className
	// compact records (vals == nil)
	flds  []field
	dates *[2]time.Time // createdAt and updatedAt (zero: absent); nil when both are absent
}

// field is one top-level value of a compact record; its value is at once normalised and decoded.
type field struct {
	name string
	v    any
}

func (r *record) key() string { return ObjectKey(r.class, r.id) }

// get returns a top-level normalised value.
func (r *record) get(name string) (any, bool) {
	if r.vals != nil {
		v, ok := r.vals[name]
		return v, ok
	}
	switch name {
	case "objectId":
		return r.id, true
	case "createdAt", "updatedAt":
		if t := r.date(name); !t.IsZero() {
			return t, true
		}
		return nil, false
	}
	for i := range r.flds {
		if r.flds[i].name == name {
			return r.flds[i].v, true
		}
	}
	return nil, false
}

// date returns a compact record's createdAt or updatedAt (zero when absent).
func (r *record) date(name string) time.Time {
	if r.dates == nil {
		return time.Time{}
	}
	if name == "createdAt" {
		return r.dates[0]
	}
	return r.dates[1]
}

// makeRecord decodes a stored object.
func makeRecord(in *interner, class, id string, raw []byte) (*record, error) {
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("store: damaged object %s: %w", ObjectKey(class, id), err)
	}
	return newRecord(in, class, id, data, raw)
}

// compactDate parses a date string for a compact record: only when it is written exactly as the wire package
// writes it, so that the record renders back to the same text.
func compactDate(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := parse.ParseDate(s)
	if err != nil || t.IsZero() || parse.FormatDate(t) != s {
		return time.Time{}, false
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return time.Time{}, false
	}
	return t, true
}

// compactRecord makes a compact record from data, or returns nil when data does not fit one.
func compactRecord(in *interner, class, id string, data map[string]any) *record {
	if IsLocalID(id) {
		return nil
	}
	n := 0
	for k := range data {
		switch k {
		case "__type", "className", "objectId", "createdAt", "updatedAt":
		default:
			n++
		}
	}
	r := &record{class: class, id: id, flds: make([]field, 0, n)}
	for k, v := range data {
		switch k {
		case "__type", "className":
			continue
		case "objectId":
			if s, ok := v.(string); !ok || s != id {
				return nil
			}
			continue
		case "createdAt", "updatedAt":
			t, ok := compactDate(v)
			if !ok {
				return nil
			}
			if r.dates == nil {
				r.dates = new([2]time.Time)
			}
			if k == "createdAt" {
				r.dates[0] = t
			} else {
				r.dates[1] = t
			}
			continue
		case "_localId", "ACL":
			return nil
		}
		switch x := v.(type) {
		case string:
			v = in.value(x)
		case float64, bool, nil:
		default:
			return nil
		}
		r.flds = append(r.flds, field{name: unique.Make(k).Value(), v: v})
	}
	if _, ok := data["objectId"]; !ok {
		return nil
	}
	return r
}

// newRecord makes a record; raw, when not nil, is data's JSON (stored without __type and className).
func newRecord(in *interner, class, id string, data map[string]any, raw []byte) (*record, error) {
	if r := compactRecord(in, class, id, data); r != nil {
		return r, nil
	}
	return fullRecord(class, id, data, raw)
}

// fullRecord makes a record that keeps its normalised values and its JSON (any object fits one).
func fullRecord(class, id string, data map[string]any, raw []byte) (*record, error) {
	r := &record{class: class, id: id}
	r.vals = make(map[string]any, len(data))
	outm := make(map[string]any, len(data))
	if raw != nil {
		outm = nil
	}
	for k, v := range data {
		switch k {
		case "__type", "className":
			continue
		case "createdAt", "updatedAt":
			if s, ok := v.(string); ok {
				v = map[string]any{"__type": "Date", "iso": s}
			}
			r.vals[k] = norm(v)
		default:
			r.vals[k] = norm(v)
		}
		if outm != nil {
			outm[k] = data[k]
		}
	}
	if IsLocalID(id) {
		r.vals["objectId"] = id
	}
	if raw != nil {
		r.out = raw
		return r, nil
	}
	out, err := json.Marshal(outm)
	if err != nil {
		return nil, err
	}
	r.out = out
	return r, nil
}

// decoded returns a fresh copy of the record's JSON as a map.
func (r *record) decoded() (map[string]any, error) {
	if r.vals == nil {
		m := make(map[string]any, len(r.flds)+3)
		for _, f := range r.flds {
			m[f.name] = f.v
		}
		m["objectId"] = r.id
		for _, k := range []string{"createdAt", "updatedAt"} {
			if t := r.date(k); !t.IsZero() {
				m[k] = parse.FormatDate(t)
			}
		}
		return m, nil
	}
	var m map[string]any
	if err := json.Unmarshal(r.out, &m); err != nil {
		return nil, fmt.Errorf("store: decoding %s: %w", r.key(), err)
	}
	delete(m, "__type")
	delete(m, "className")
	return m, nil
}

// object returns the record as a fresh Object, as the query package would decode its JSON. scratch, when not
// nil, is a map object may use and leave changed (it saves a map per object when many are made in a row).
func (r *record) object(scratch map[string]any) (*parse.Object, error) {
	if r.vals == nil {
		// A zero Object takes its class from "className" and makes its maps in MergeServer: the same object as
		// NewObject(class) would give, with one map less to make.
		o := &parse.Object{}
		m := scratch
		if m == nil {
			m = make(map[string]any, len(r.flds)+3)
		}
		clear(m)
		for _, f := range r.flds {
			m[f.name] = f.v
		}
		m["objectId"] = r.id
		m["className"] = r.class
		for _, k := range []string{"createdAt", "updatedAt"} {
			if t := r.date(k); !t.IsZero() {
				m[k] = t
			}
		}
		if err := objstate.Of(o).MergeServer(m); err != nil {
			return nil, fmt.Errorf("store: decoding %s: %w", r.key(), err)
		}
		return o, nil
	}
	o := parse.NewObject(r.class)
	if err := o.UnmarshalJSON(r.out); err != nil {
		return nil, fmt.Errorf("store: decoding %s: %w", r.key(), err)
	}
	return o, nil
}

// loadClass returns the cache of a class, reading it from the kv store on first use. Call with s.mu held.
func (s *Store) loadClass(class string) (*classCache, error) {
	if c, ok := s.cache[class]; ok {
		return c, nil
	}
	c := &classCache{byID: map[string]*record{}}
	err := s.kv.view(func(tx kvTx) error {
		return tx.each(bref{bClasses, class}, func(id string, _ []byte) error {
			raw := tx.get(flat(bObjects), ObjectKey(class, id))
			if raw == nil {
				return nil
			}
			r, err := makeRecord(&s.strs, class, id, raw)
			if err != nil {
				return err
			}
			c.byID[id] = r
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	s.cache[class] = c
	return c, nil
}

// snapshot returns the records of a class, sorted by id, and its array fields. Both are shared: do not change
// them. When where has an indexable equality, only the candidates from the index are returned.
func (s *Store) snapshot(class string, where map[string]any) ([]*record, map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, nil, ErrNotEnabled
	}
	c, err := s.loadClass(class)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case c.list == nil:
		c.list = make([]*record, 0, len(c.byID))
		c.arrays = map[string]bool{}
		for _, r := range c.byID {
			c.list = append(c.list, r)
			c.noteArrays(r)
		}
		slices.SortFunc(c.list, byID)
		c.added, c.idx = nil, nil
	case len(c.added) > 0:
		c.mergeAdded()
	}
	if recs, ok := c.plan(where); ok {
		return recs, c.arrays, nil
	}
	return c.list, c.arrays, nil
}

func byID(a, b *record) int { return strings.Compare(a.id, b.id) }

// mergeAdded sorts the records added since list was built and merges them into a new list (readers may still
// hold the old one). Call with s.mu held, list not nil.
func (c *classCache) mergeAdded() {
	slices.SortFunc(c.added, byID)
	merged := make([]*record, 0, len(c.list)+len(c.added))
	i, j := 0, 0
	for i < len(c.list) && j < len(c.added) {
		if c.list[i].id < c.added[j].id {
			merged = append(merged, c.list[i])
			i++
		} else {
			merged = append(merged, c.added[j])
			j++
		}
	}
	merged = append(append(merged, c.list[i:]...), c.added[j:]...)
	for _, r := range c.added {
		c.noteArrays(r)
	}
	c.list, c.added, c.idx = merged, nil, nil
}

// noteArrays records the array fields of r (compact records hold none). Call with s.mu held.
func (c *classCache) noteArrays(r *record) {
	for k, v := range r.vals {
		if _, ok := v.([]any); ok {
			c.arrays[k] = true
		}
	}
}

// cachePut and cacheDrop update loaded classes after a committed write. Call with s.mu held.
func (s *Store) cachePut(r *record) {
	c, ok := s.cache[r.class]
	if !ok {
		return
	}
	_, had := c.byID[r.id]
	c.byID[r.id] = r
	if had || c.list == nil {
		c.list, c.added, c.idx = nil, nil, nil
		return
	}
	c.added = append(c.added, r)
	c.idx = nil
}

func (s *Store) cacheDrop(class, id string) {
	if c, ok := s.cache[class]; ok {
		delete(c.byID, id)
		c.list, c.added, c.idx = nil, nil, nil
	}
}

// wholeClasses returns the classes written by w that are not loaded yet and that hold, after the write, exactly
// the objects w put: those are loaded from w's records instead of being read back later. Call inside the write
// transaction, with s.mu held.
func (s *Store) wholeClasses(tx kvTx, w *writeSet) map[string]bool {
	ids := map[string]map[string]bool{}
	for _, r := range w.puts {
		if _, loaded := s.cache[r.class]; loaded {
			continue
		}
		if ids[r.class] == nil {
			ids[r.class] = map[string]bool{}
		}
		ids[r.class][r.id] = true
	}
	out := map[string]bool{}
	for class, set := range ids {
		if n, err := tx.count(bref{bClasses, class}, len(set)+1); err == nil && n == len(set) {
			out[class] = true
		}
	}
	return out
}

// update runs fn in a write transaction with s.mu held; after a successful commit, the cache changes fn queued
// are applied.
func (s *Store) update(fn func(tx kvTx, w *writeSet) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrNotEnabled
	}
	w := &writeSet{strs: &s.strs}
	var whole map[string]bool
	if err := s.kv.update(func(tx kvTx) error {
		w.reset()
		if err := fn(tx, w); err != nil {
			return err
		}
		whole = s.wholeClasses(tx, w)
		return nil
	}); err != nil {
		return err
	}
	for class := range whole {
		s.cache[class] = &classCache{byID: map[string]*record{}, list: []*record{}, arrays: map[string]bool{}}
	}
	for _, d := range w.drops {
		s.cacheDrop(d[0], d[1])
	}
	touched := map[*classCache]bool{}
	for _, r := range w.puts {
		s.cachePut(r)
		if c, ok := s.cache[r.class]; ok {
			touched[c] = true
		}
	}
	// Merged now once they are a good part of the list, so that the next query has little left to sort while
	// the copying stays proportionate to the writes.
	for c := range touched {
		if c.list != nil && len(c.added) > 0 && len(c.added)*4 >= len(c.list) {
			c.mergeAdded()
		}
	}
	return nil
}

type writeSet struct {
	puts  []*record
	drops [][2]string
	strs  *interner // the store's
}

// interner shares the boxed values of short strings among records, so that a value many objects hold (a tag, a
// status, a name) is kept once. It is bounded: past maxInterned strings, new ones are no longer added. A nil
// interner shares nothing. Not safe for concurrent use (the Store's mutex guards it).
type interner struct {
	m map[string]any
}

const (
	maxInterned    = 1 << 16
	maxInternedLen = 64
)

func (in *interner) value(s string) any {
	if in == nil || len(s) > maxInternedLen {
		return s
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	if in.m == nil {
		in.m = map[string]any{}
	}
	if len(in.m) >= maxInterned {
		return s
	}
	var v any = s
	in.m[s] = v
	return v
}

func (w *writeSet) reset() { w.puts, w.drops = nil, nil }

// putObject writes an object and its class index entry.
func putObject(tx kvTx, w *writeSet, class, id string, data map[string]any) error {
	// Stored in the server's result form: the class is known from the key, so no className and __type.
	delete(data, "className")
	delete(data, "__type")
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("store: encoding %s: %w", ObjectKey(class, id), err)
	}
	r, err := newRecord(w.strs, class, id, data, raw)
	if err != nil {
		return err
	}
	if err := tx.put(flat(bObjects), ObjectKey(class, id), raw); err != nil {
		return err
	}
	if err := tx.put(bref{bClasses, class}, id, nil); err != nil {
		return err
	}
	w.puts = append(w.puts, r)
	return nil
}

// dropObject removes an object, its index entry, its pin memberships and its offline changes.
func dropObject(tx kvTx, w *writeSet, class, id string) error {
	key := ObjectKey(class, id)
	for _, p := range pinsOf(tx, key) {
		if err := tx.del(bref{bPins, p}, key); err != nil {
			return err
		}
	}
	for _, b := range []string{bObjects, bPinsOf, bDirty} {
		if err := tx.del(flat(b), key); err != nil {
			return err
		}
	}
	if err := tx.del(bref{bClasses, class}, id); err != nil {
		return err
	}
	w.drops = append(w.drops, [2]string{class, id})
	return nil
}

func pinsOf(tx kvTx, key string) []string {
	var out []string
	if raw := tx.get(flat(bPinsOf), key); raw != nil {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

func setPinsOf(tx kvTx, key string, pins []string) error {
	if len(pins) == 0 {
		return tx.del(flat(bPinsOf), key)
	}
	raw, _ := json.Marshal(pins)
	return tx.put(flat(bPinsOf), key, raw)
}

// objectData is the stored JSON form of an object.
func objectData(o *parse.Object) (map[string]any, error) {
	if m, ok := scalarData(o); ok {
		return m, nil
	}
	return objectDataJSON(o)
}

// objectDataJSON is objectData by way of the object's JSON (any object).
func objectDataJSON(o *parse.Object) (map[string]any, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "_localId")
	if o.ID() == "" && o.LocalID() != "" {
		m["_localId"] = o.LocalID()
	}
	return m, nil
}

// scalarData is objectData for an object whose fields all hold strings (valid UTF-8), booleans, nil, or numbers
// that JSON carries exactly as float64: the map that encoding the object to JSON and decoding it again gives,
// made without the round trip. ok is false for any other object.
func scalarData(o *parse.Object) (map[string]any, bool) {
	fields := o.Fields()
	m := make(map[string]any, len(fields)+4)
	for k, v := range fields {
		switch k {
		case "objectId", "createdAt", "updatedAt", "className", "__type", "_localId":
			return nil, false
		}
		var f float64
		switch x := v.(type) {
		case nil, bool:
			m[k] = x
			continue
		case string:
			if !utf8.ValidString(x) {
				return nil, false
			}
			m[k] = x
			continue
		case float64:
			f = x
		case int:
			f = float64(x)
		case int8:
			f = float64(x)
		case int16:
			f = float64(x)
		case int32:
			f = float64(x)
		case int64:
			f = float64(x)
		case uint:
			f = float64(x)
		case uint8:
			f = float64(x)
		case uint16:
			f = float64(x)
		case uint32:
			f = float64(x)
		case uint64:
			f = float64(x)
		default:
			return nil, false
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		m[k] = f
	}
	if o.ID() != "" {
		m["objectId"] = o.ID()
	} else if o.LocalID() != "" {
		m["_localId"] = o.LocalID()
	}
	if t := o.CreatedAt(); !t.IsZero() {
		m["createdAt"] = parse.FormatDate(t)
	}
	if t := o.UpdatedAt(); !t.IsZero() {
		m["updatedAt"] = parse.FormatDate(t)
	}
	return m, true
}

// splitObjectKey reverses ObjectKey using the class index (class names may hold "_").
func splitObjectKey(key string) (class, id string, ok bool) {
	rest, ok := strings.CutPrefix(key, ObjectPrefix)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, "_")
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}
