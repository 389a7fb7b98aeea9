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
// A Store is safe for concurrent use by several goroutines. Calls on a nil or closed Store return ErrNotEnabled,
// whose text is the original's "Parse.enableLocalDatastore() must be called first".
package store
