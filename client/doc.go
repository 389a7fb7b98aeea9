// Package client is the backend REST client of moralis-go: objects and their field operations, batches, users
// and the current user, cloud functions and jobs, roles, sessions, schemas with class-level permissions, and files.
//
// Make one Client for the program and hand it (or a per-user view of it) to what needs the backend:
//
//	c, err := client.New(client.Config{ServerURL: "https://example.com/parse", AppID: appID, JavaScriptKey: jsKey})
//	score := parse.NewObject("GameScore")
//	score.Set("player", "Ann")
//	err = c.Objects.Save(ctx, score)                              // a create: score.ID() is the server's id now
//	n, err := query.New[*parse.Object]("GameScore").Count(ctx, c) // queries are package query's, run by c
//	u, err := c.Users.LogIn(ctx, "alice", "secret")
//	alice := c.WithSessionToken(u.SessionToken())                 // a view that acts as alice
//	err = alice.Objects.Save(ctx, score)
//
// Errors from the backend are *parse.Error values (errors.Is(err, parse.ErrObjectNotFound)); a write whose outcome
// is unknown matches parse.ErrWriteInDoubt (see "Exactly-once writes" below). Wallet sign-in is package auth.
//
// Every call is sent the way the original Moralis v1 JavaScript client sends it: a POST to {ServerURL}/{path}
// whose JSON body carries the real method in _method plus the application id, the JavaScript key (or the master
// key), the client version, the installation id and the session token.
//
// # Exactly-once writes
//
// At the default config no write is lost, doubled or silently changed. A request whose attempt fails is sent
// again with the original's random back-off (up to 250 ms, 500 ms, 1 s, 2 s; Config.MaxAttempts, default 5)
// only when that is provably safe:
//
//   - reads and deletes: always, after no answer, a cut answer or a 5xx;
//   - any request that never reached the server (the connection could not be made, or the request was not
//     completely written): always;
//   - a create with an object id the client chose (Config.ClientObjectIDs, off by default): always; a second
//     attempt of a create that was applied is refused as a duplicate id, and the SDK then loads the object
//     that exists. A server without allowCustomObjectId is detected at the first create and served ids are used;
//   - any other write (a create at the default config, an update, a cloud function, a job, a user sign-up):
//     it carries an X-Parse-Request-Id, the same on every attempt, and is sent again only once the server has
//     been seen to refuse a repeated id on that route and method (probed per route and method, at most every
//     ten minutes, with a request the server refuses before doing anything). parse-server does this when its
//     idempotencyOptions list the route, e.g.
//     idempotencyOptions: {paths: ["classes/.*", "users.*", "installations.*", "functions/.*", "jobs/.*"], ttl: 300}.
//     Even an update that only sets values is not resent otherwise: sent twice, it could undo another writer's
//     change made in between.
//
// At the default config a create carries no objectId (the server chooses it), so cloud code sees it as a create:
// in a beforeSave trigger request.object.isNew() is true (see the README, "Cloud code triggers"). parse-server
// does not deduplicate /batch (the route has no idempotency check, and its sub-requests carry no request id):
// SaveAll sends creates and updates through /batch in chunks of 20, and sends a call again after an ambiguous
// failure only when its items are creates with client-chosen ids (Config.ClientObjectIDs); a call of creates
// without ids, or of updates, is sent again only when it provably never reached the server, else each of its items
// is in doubt. A create in doubt keeps the changes it sent
// as that attempt (later changes stay pending and go out as an update once it is settled). With a client-chosen
// id (Object.ProposedID) saving the object again resends the same create and settles it; without one the server
// may have stored it under an id it never told, so Save, SaveAll and Fetch refuse the object (ErrCreateHeld)
// until the app settles it with ObjectsService.Settle: it can never be stored twice silently. File uploads are
// not deduplicated by the server and are sent again only when they provably never arrived. With Atomic, SaveAll
// and DestroyAll send one /batch as one transaction, all or nothing.
//
// When a write may have been applied and could not be sent again (or a retry was refused as a "Duplicate
// request", which only says the server saw an earlier attempt), its error matches ErrWriteInDoubt and names the
// object: the SDK never guesses. Save then leaves an updated object without the sent changes, so that a later
// Save cannot apply them a second time; Fetch it to see what the server stored. SaveAll reports each object in
// BatchError (which saved, which failed, which are in doubt). On a server without idempotency, writes that are
// not harmless to repeat are reported in doubt instead of being retried.
//
// # Observability
//
// Config.TracerProvider, MeterProvider and Logger (nil: off, at no cost) report every call: a client span per
// call named by its method and route template ("PUT classes/GameScore/{objectId}"), a child span per attempt
// with the retry reason, the back-off wait, a 429's Retry-After and whether the write was left in doubt; the
// metrics moralis.client.calls, .attempts, .retries, .in_doubt, .rate_limited and .call.duration; an Info log per
// retry and a Warn log per write in doubt. No URL, key, session token, body or error text is ever recorded.
//
// # Nested objects, call context, fetching many
//
// Save and SaveAll also save the objects with unsaved changes that the given ones point to (in fields, arrays
// and nested maps, at any depth), children before parents, through the same exactly-once paths; an object is
// sent only after the objects it points to are saved, and its error is a *NestedError when some were not.
// Cycles of objects without ids (ErrSaveCycle) and files never uploaded (ErrUnsavedFile) are refused before any
// request. WithCallContext sets the _context that cloud code reads as request.context. FetchAll and
// FetchAllIfNeeded load many objects of one class in one query; FetchWithInclude loads pointed-to objects too.
//
// # Field operations
//
// Two changes of one field before a save are merged as the Parse JS SDK merges them (Unset then Increment becomes
// a Set; relation adds and removes become one "Batch"); where Parse cannot merge them the second is refused at the
// call with the SDK's text ("Cannot merge Add Op with the previous Op", ...; errors.Is(err, ErrCannotMerge)) and
// nothing changes. After a successful save, an object's values equal what the server stored: values the server
// computed (the result of Increment, Add, AddUnique, Remove) are taken from its answer.
//
// A *Client is immutable after New and safe for concurrent use. WithSessionToken and WithMasterKey return cheap
// views that share its connections. Objects (*Object, *User) are plain values, not safe for concurrent mutation.
package client
