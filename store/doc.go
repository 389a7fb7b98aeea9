// Package store is the optional local store of pinned objects (the original client's local datastore).
//
// Objects are pinned into named pin lists (Pin, PinWithName; the default list is "_default") and removed with
// Unpin, UnpinWithName, UnpinAll and UnpinAllWithName; an object left in no list is deleted. Keys follow the
// original: an object is stored under Parse_LDS_{className}_{objectId}, a pin list under Parse_LDS_PIN_{name}
// (the default one under "_default").
//
// *Store implements query.Runner: a query built with package query runs against the pinned objects exactly as it
// would against the server (RunQuery over all stored objects of the class, FromPin over one pin list), with the
// PostgreSQL adapter's semantics for missing values, $in/$nin, regular expressions and ordering. An operator the
// store cannot evaluate gives an error wrapping ErrUnsupportedQuery; it is never silently ignored.
//
// Sync refreshes the stored objects from the server (querying objectId $in the stored ids, limit = the number of
// ids) and drops those the server no longer returns. SaveLocal keeps objects changed offline under a local id
// ("local" + random hex); Flush saves them through a client and replaces local ids with the server's.
//
// # Storage
//
// Open keeps the store in one file managed by go.etcd.io/bbolt: pure Go (no cgo), a single file, ACID
// transactions with copy-on-write pages (a crash never leaves a half-written store), a file lock against a second
// process, and a stable, well-kept project (the etcd maintainers). An existing file is opened read-only and checked
// before it is used: a damaged file, a file of another kind or a bbolt file of another program or application is
// refused (ErrForeignFile) and left untouched. NewMemory keeps the same structure in memory for tests.
//
// Inside the file: the objects bucket (key -> the object's JSON in the server's form), one key set per class (so a
// query reads only its class), one key set per pin list, each object's pin lists, and the offline changes. Each
// class is decoded once, on first use (or kept from the writes when Pin makes it), and kept decoded in memory, so
// a query costs one pass over the class's objects (or over an equality index's candidates) without any JSON
// decoding. An object whose fields are all strings, numbers, booleans or null is kept compact (its values in a
// short list, repeated short strings shared, no JSON copy); other objects keep their JSON and normalised values.
// RunQuery hands its results over as fresh objects (query.Response.Objects), so nothing is encoded to JSON and
// decoded again on the way to the caller.
//
// A Store is safe for concurrent use by several goroutines. Calls on a nil or closed Store return ErrNotEnabled,
// whose text is the original's "Parse.enableLocalDatastore() must be called first".
package store
