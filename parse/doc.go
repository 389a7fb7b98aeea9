// Package parse is the value layer of moralis-go: what a backend object is and how it travels as Parse JSON.
//
//   - Object: a class name, an id, server timestamps, fields, and the unsaved changes of each field (Set, Unset,
//     Increment, Add, AddUnique, Remove, AddRelation, RemoveRelation), merged as the Parse JS SDK merges them and
//     refused with its texts where Parse cannot merge them (ErrCannotMerge).
//   - ACL and CLP (class-level permissions), checked with the original client's texts; Pointer, Relation (whose
//     Query asks for the objects in it), File, GeoPoint (range-checked), Polygon, Bytes; dates in Parse's fixed
//     layout.
//   - Encode and Decode between Go values and Parse's JSON ({"__type": ...}, {"__op": ...}).
//   - Error, the backend's error with its numeric Code (the Code* constants; errors.Is matches by code), and
//     ErrWriteInDoubt for writes whose outcome is unknown.
//
// Packages client, query and store share these types (client re-exports most of them under the same names).
// Values are plain data: an Object is not safe for concurrent mutation; Pointer, Relation and the others are
// immutable once made, except ACL and CLP, whose setters change them in place.
package parse
