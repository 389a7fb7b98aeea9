// Package client is the backend REST client of moralis-go: objects and their field operations, batches, users
// and the current user, cloud functions and jobs, roles, sessions, schemas with class-level permissions, and files.
//
// Every call is sent the way the original Moralis v1 JavaScript client sends it: a POST to {ServerURL}/{path}
// whose JSON body carries the real method in _method plus the application id, the JavaScript key (or the master
// key), the client version, the installation id and the session token. Requests are retried on 5xx answers or no
// answer with the original's random back-off; with Config.Idempotency every write carries a request id that stays
// the same across its retries.
//
// A *Client is immutable after New and safe for concurrent use. WithSessionToken and WithMasterKey return cheap
// views that share its connections. Objects (*Object, *User) are plain values, not safe for concurrent mutation.
package client
