// Package store is the optional local store of pinned objects (the original client's local datastore).
//
// Objects are pinned into named pin lists (Pin, PinWithName; the default list is "_default") and removed with
// Unpin, UnpinWithName, UnpinAll and UnpinAllWithName; an object left in no list is deleted. Keys follow the
// original: an object is stored under Parse_LDS_{className}_{objectId}, a pin list under Parse_LDS_PIN_{name}
// (the default one under "_default").
//
// *Store implements parse.QueryRunner: a query built with package query runs against the pinned objects exactly as
// it would against the server (RunQuery over all stored objects of the class, FromPin over one pin list), with the
// PostgreSQL adapter's semantics for missing values, $in/$nin, regular expressions, geo constraints and ordering. An
// operator the store cannot evaluate gives an error wrapping ErrUnsupportedQuery; it is never silently ignored.
//
// Sync refreshes the stored objects from the server (querying objectId $in the stored ids, limit = the number of
// ids) and drops those the server no longer returns. SaveLocal keeps objects changed offline under a local id
// ("local" + random hex); Flush saves them through a client and replaces local ids with the server's.
//
// # Geo queries
//
// Geo constraints run as the PostgreSQL adapter of parse-server 9.10 runs them, in its quirks too. A missing or null
// field never matches.
//
//   - $nearSphere (query.Near, and WithinRadians, WithinKilometers, WithinMiles with sorted true): the distance is
//     PostGIS's ST_DistanceSphere, the great-circle distance on a sphere of 6,371,008.771 m (the WGS84 mean radius),
//     and $maxDistance (radians) limits it to $maxDistance × 6371 km: the two radii differ, as on the server. Without
//     $maxDistance every object with a GeoPoint matches; $maxDistance null is 0. $maxDistanceInRadians,
//     $maxDistanceInKilometers and $maxDistanceInMiles are ignored, since the adapter never reads them (package
//     query sends $maxDistance). The point is not checked: a value without both coordinates matches nothing.
//   - Order: a $nearSphere at the top level of the where map orders the results nearest first and replaces the
//     query's order; one inside $or, $and or $nor only filters. Equal distances keep the store's order (by id),
//     where PostgreSQL's order is undefined.
//   - $within {$box: [southwest, northeast]} (query.WithinGeoBox): planar on (longitude, latitude), edges included.
//     Swapped corners give the same box, and a box never crosses the antimeridian (sw.longitude 170 and
//     ne.longitude -170 is the band from -170 to 170).
//   - $geoWithin {$polygon: [...]} (query.WithinPolygon): planar, edges included, inside by the non-zero winding
//     rule (the middle of a self-crossing star is inside). Points are GeoPoints or [longitude, latitude] pairs; a
//     Polygon value is accepted too, but its coordinates are read as [longitude, latitude] pairs, unlike a
//     Polygon's usual [latitude, longitude], because the server reads them so.
//   - $geoWithin {$centerSphere: [point, radians]} (WithinRadians, WithinKilometers, WithinMiles with sorted
//     false): ST_DistanceSphere as for $nearSphere, without ordering; the point is a GeoPoint or a [longitude,
//     latitude] pair.
//   - $geoIntersects {$point: GeoPoint} (query.PolygonContains) on a Polygon field: inside (non-zero winding) or on
//     the boundary.
//
// Input the server refuses is refused with its reason (a $polygon of two points, a negative $centerSphere radius, a
// point out of range, $maxDistance without $nearSphere, ...); input it converts (a number in a string, as JavaScript
// does; a $nearSphere point out of range, which PostGIS wraps around) gives an error wrapping ErrUnsupportedQuery,
// as does a geo constraint on a dotted key or a point constraint on a Polygon field. A geo constraint on a field
// holding another kind of value is an error, as PostgreSQL fails to cast it. Distances agree with PostGIS to about
// 1e-8 m (PostGIS rounds to that, and its sine and cosine are not Go's), and PostgreSQL's polygon test counts a
// point as on an edge within a tolerance of 1e-6 (on a cross product, so it grows with the edge's length), which the
// store mimics but does not reproduce step by step: only points that close to a distance limit or to an edge can be
// answered differently. Box edges are exact on both.
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
// RunQuery hands its results over as fresh objects (parse.QueryResponse.Objects), so nothing is encoded to JSON and
// decoded again on the way to the caller.
//
// # Offline writes
//
// NewQueue gives a store its write queue (the Parse JS SDK's saveEventually and destroyEventually):
// Queue.SaveEventually and Queue.DestroyEventually store a write in the file (bucket "eventually", one bbolt
// transaction per write: committed, it survives a crash) and return without sending anything; Queue.Replay sends
// the queued writes in order through a client, and Queue.Run does so whenever writes are queued, Kick is called,
// or the server answers GET /health again after a failure (polled with a doubling, jittered backoff).
//
//	q, err := store.NewQueue(st, store.QueueConfig{})
//	err = q.SaveEventually(ctx, score)     // durable now; score has its object id at once
//	err = q.DestroyEventually(ctx, old)
//	go q.Run(ctx, c)                       // replays when the server answers
//	states, cancel := q.Subscribe()        // Len, Paused and why, Head, LastError, Replayed
//
// Exactly once. Each write keeps, in the file, the ids it is sent with on every attempt and in every process: a
// create its object id, chosen by the client when it is queued (the server must allow custom object ids:
// allowCustomObjectId), and every create and update its X-Parse-Request-Id (client.WithRequestID). parse-server
// remembers a request id only for its idempotency ttl (300 s by default), far less than an offline period, so
// creates rest on the object id: the server refuses a second create with the same id ("duplicate value", 137)
// and the queue then reads the object by its id: found, the create had been applied and is settled. A
// "duplicate request" (159) is settled the same way for a create, and counts as the earlier attempt's outcome
// for an update (parse-server keeps a request id also when it refused the request, so an update whose answer was
// lost and which the server refused is taken as done). An update that sets values is harmless to repeat; one that
// holds an Increment or an Add is not, so its first attempt is recorded in the file, and if its outcome stays
// unknown for longer than QueueConfig.DedupWindow (the server's ttl) the queue pauses (PausedInDoubt) instead of
// risking a second application. A delete of an object that is already gone is settled.
//
// Cloud code sees a queued create as a create with an objectId in its body: in beforeSave and afterSave,
// request.object.isNew() is false for it (parse-server issue #5654), and request.original is undefined, which is
// the test for a create that holds in both cases.
//
// Conflicts: last writer wins, field by field. A queued update sends only the fields it changed (and its
// operations: an Increment adds to the value the server has then), so a field another client changed on the
// server since the update was queued keeps that client's value unless the update changed it too, in which case the
// queued value wins, being the later write. An update of an object deleted on the server is refused (not found)
// and pauses the queue.
//
// Never dropped. A write the server refuses pauses the queue with the reason and the write (QueueState.Paused,
// PauseErr, Head): an invalid session (209) as PausedSession (sign in again and Resume with the new session's
// client), any other refusal (a beforeSave that throws, an ACL, a unique field) as PausedRefused (Resume after
// fixing the cause, or Skip the write). Writes behind a paused head wait, so their order holds. A failure that a
// later attempt may cure (no answer, a 5xx, a rate limit) keeps the write at the head and is LastError. State
// returns the state; Subscribe streams it (latest value first); Pending lists the queued writes.
//
// Limits. Only classes of the application are queued (not _User, _Role, _Session, _Installation). A queued write
// has no session of its own: it replays with the client given to Replay or Run, so a queue belongs to one user
// (Skip the writes, or remove the file, when another user signs in). Objects pointing to an object without an id
// are refused; queue the object pointed to first (SaveEventually gives it its id). SaveEventually does not pin
// the object; the client's DefaultACL is not applied to queued creates. Writes are sent one at a time. Replay
// through a client with idempotency on (the default): with client.Config.DisableIdempotency no request id goes
// out, and an update whose answer was lost is sent again as a new update. Queueing costs one committed bbolt
// transaction per write (about 10 ms with fsync on the test machine, BenchmarkQueueSaveEventually).
//
// A Store is safe for concurrent use by several goroutines. Calls on a nil or closed Store return ErrNotEnabled,
// whose text is the original's "Parse.enableLocalDatastore() must be called first".
package store
