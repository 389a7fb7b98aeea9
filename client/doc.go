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
// is in doubt. File uploads are not deduplicated by the server and are sent again only when they provably never
// arrived. With Atomic, SaveAll and DestroyAll send one /batch as one transaction, all or nothing. On a server
// without idempotency, writes that are not harmless to repeat are reported in doubt instead of being retried.
//
// # Writes in doubt: one settle flow
//
// Every save path settles a write the same way: Save, SaveAll (and the nested objects it saves), SaveAll with
// Atomic, Destroy and DestroyAll, and the write queue of package store. When a write may have been applied and
// could not be sent again (its answer was lost, or a retry was refused as a "Duplicate request", which only says
// the server saw an earlier attempt), its error matches parse.ErrWriteInDoubt and names the object; SaveAll's
// *BatchError tells per item which saved, which failed and which are in doubt (InDoubtItems). The SDK never
// guesses:
//
//   - an update in doubt no longer holds its sent changes, so a later save cannot apply them a second time; Fetch
//     the object to see what the server stored;
//   - a create in doubt whose id the server chose (the default) may be stored under an id only the lost answer
//     held, so the object is held: every save path, Fetch, and the save of an object pointing to it refuse it with
//     ErrCreateHeld and send nothing (it can never be stored twice silently), until the app settles it with
//     ObjectsService.Settle: with the id of the stored row, found by a query on a field it set (the object takes
//     the row), or with "" once it knows nothing was stored;
//   - a create in doubt with a client-chosen id (Config.ClientObjectIDs, Object.ProposedID) needs no Settle: the
//     next save sends it again under the same id and settles it (the server refuses a second object with that id,
//     and the SDK reads the stored one), and Fetch reads it by that id.
//
// Edits made meanwhile are never lost: a create in doubt keeps its sent changes as that attempt (they show as the
// object's values, and DirtyKeys no longer lists them) and the changes made since stay pending. Once it is
// settled, the next save, on any path, sends the first attempt again if nothing was stored (so whichever attempt
// the server applied, it holds the same row), then the changes made since as an update. A save reported done
// means the server holds what the object shows, in one row.
//
// An atomic batch whose answer does not say what happened (parse-server answers a rollback with a bare 500, as it
// would a failure after the commit) is proven applied or rolled back where the SDK can (see Atomic): rolled back,
// every item's error is a *RolledBackError (errors.Is(err, ErrRolledBack), not in doubt: the changes stay pending,
// nothing is held) naming the item the server refused where that can be learned; otherwise each item is in doubt
// as above, with an *AtomicDoubtError saying why.
//
// The app's side, the same after every path (ExampleObjectsService_Settle runs it):
//
//	err := c.Objects.SaveAll(ctx, objs) // or Save, or SaveAll(ctx, objs, client.Atomic())
//	if errors.Is(err, parse.ErrWriteInDoubt) || errors.Is(err, client.ErrCreateHeld) {
//		for _, o := range objs {
//			if o.ID() != "" {
//				continue // an update in doubt: c.Objects.Fetch(ctx, o) shows what the server stored
//			}
//			id := "" // nothing stored: the next save creates it
//			row, ferr := query.New[*parse.Object]("GameScore").EqualTo("player", o.String("player")).First(ctx, c)
//			switch {
//			case ferr == nil:
//				id = row.ID() // stored: the object takes the row
//			case !errors.Is(ferr, parse.ErrObjectNotFound):
//				return ferr
//			}
//			if err := c.Objects.Settle(ctx, o, id); err != nil {
//				return err
//			}
//		}
//		err = c.Objects.SaveAll(ctx, objs) // the first attempt if needed, then the edits made since
//	}
package client
