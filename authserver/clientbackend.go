package authserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/parse"
)

// BackendConfig configures NewClientBackend. Client.ServerURL and Client.AppID are required; every other field
// has a default when left zero. NewClientBackend copies it.
type BackendConfig struct {
	// Client is the backend's REST configuration (ServerURL and AppID required; JavaScriptKey as the backend
	// asks). Its MasterKey, when set, keys the one-time sign-in tickets that this project's backend adapters require
	// (see ClientBackend) and records the sessions the endpoint makes. Without it no ticket is sent, for backends
	// whose adapters do not ask for one. Storage is not used: each sign-in runs on a client of its own.
	Client client.Config
	// Flow tunes the sign-in, link and unlink flows (address classes, NoAddressObjects); the zero value is all
	// defaults, as a nil *auth.Options.
	Flow auth.Options
	// Chain, when set, lets smart-contract accounts (ERC-1271, ERC-6492) sign in on this project's backend
	// adapters: an EVM signature that does not recover to its address is verified again on this chain, and only
	// then is the backend given a ticket marked for a contract account (as auth.TicketOptions.Chain). Give it the same
	// chain as Config.Chain. nil (default): EOA signatures only.
	Chain auth.ContractCaller
	// Logger is where the backend logs what it learned of the backend's server (the one line of CheckBackend, a
	// function turned off) and each fallback of a sign-in to the login, with its reason. nil (default): the
	// Handler's Config.Logger when a Handler uses this backend and has one, else slog.Default().
	Logger *slog.Logger
	// RecheckInterval is how long what the endpoint learned the backend lacks (a function absent or off) holds
	// before it asks again (see CheckBackend); default DefaultRecheckInterval; negative is an error.
	RecheckInterval time.Duration
	// LiveQueryURL, when set (ws:// or wss://), is checked by CheckBackend: whether the backend's LiveQuery server
	// answers a connect. Default "": not checked.
	LiveQueryURL string
	// DirectSignIn did nothing useful the one sign-in flow does not do better, and is ignored.
	//
	// Deprecated: it signed a returning wallet in without parse-server's login or SignInFunction, so the app's
	// beforeLogin trigger did not run, and wrote session records a second way. A returning wallet now signs in
	// with one request (SignInFunction), its trigger run; NewClientBackend logs that the field is ignored.
	DirectSignIn bool
}

// ClientBackend is the Backend of the Handler over the backend REST API (package client). It is safe for
// concurrent use. The JavaScript key and master key stay inside it; what it returns to the Handler holds
// neither keys nor signatures.
//
// Each sign-in runs on a client with a fresh installation id: parse-server deletes a user's earlier sessions
// that share the installation id of a new login, so one server-wide id would sign a user out of every other
// browser.
//
// With a master key in the configuration, every sign-in and link carries a one-time ticket for that message, which
// the endpoint makes itself without a round trip: an HMAC keyed by the master key over the chain, address, exact
// text, contract-account flag and expiry (a minute), with a random id (endpointTicket). This project's backend
// adapters accept no authData without a ticket; they check this one's HMAC and expiry and consume it by inserting a
// row keyed by its id, so it signs in once on every instance, the endpoint stays the one door in and a captured
// login signs in nowhere. A sign-in
// that loses a race with a concurrent first sign-in of the same wallet is retried with a new ticket (auth.SignIn).
// Without a master key no ticket is sent (for backends whose adapters do not ask for one).
//
// # One sign-in flow
//
// A sign-in takes one path, with one optimisation (signinflow.go). With a master key, a returning wallet whose user
// needs no write signs in with one call of SignInFunction (moralis-go's server package) once the endpoint has
// verified its signature: the function finds the user, runs the app's beforeLogin trigger as parse-server's login
// does (same user object, a request that is not master, the sign-in's own installation id), creates the session
// through parse-server's own session write (so _Session triggers run) and records it. It costs parse-server about
// half the CPU of the login and the record call it replaces. Its answer decides:
//
//   - a session: signed in, one request;
//   - {refused}: the app's definite refusal (its beforeLogin trigger, the provider's login policy), answered as the
//     login would answer it; no login is tried;
//   - {useLogin}: the login does it (a first sign-in: one call more than the login alone; a user the SDK must
//     write; an app with an afterSave trigger or LiveQuery on _User, which a login with authData fires);
//   - anything else (an error it throws, such as a TypeError of a changed private module; its calls in doubt after
//     three attempts; 141 "Invalid function"): NOT a refusal. It is logged with its reason and the wallet signs in
//     by parse-server's login, from the same installation id (so a session a lost call made is deleted). The
//     function is turned off until the next check of the backend after three failures in a row, when the package
//     answers "off: ..." and when it is absent.
//
// Then, for a sign-in by the login, RecordSessionFunction records the session: it is the one writer of records.
// What the backend offers is learned before the first sign-in or session check (or by CheckBackend at start-up),
// logged in one line, and learned again after RecheckInterval while something is missing (backendcheck.go).
//
// No internal text reaches the browser: the backend's refusals keep their code and text except code 141, which
// parse-server gives any error cloud code throws (a TypeError's text included), answered with scriptFailedText
// ("Cloud code failed"); an app that wants its beforeLogin refusal shown throws a Parse.Error with another code.
//
// # Sessions of this endpoint only
//
// A backend session made anywhere else (an SDK client signing in against the backend directly, with a ticket of
// the backend's public function moralisAuthRequestMessage, perhaps for a text a phisher made look like this
// endpoint's sign-in message) must not work here. So, with a master key configured, every session this backend
// makes is recorded in class DefaultSessionClass (one object per session, empty ACL, holding an HMAC of the
// session token keyed by the master key, so nobody without the master key can record one), and Me, Link and Unlink
// accept a session token only when the backend confirms it (users/me) and its record exists: any other session is
// refused as "Invalid session token" (code 209, 401). The record is checked alongside users/me, so it adds no
// latency; a sign-in through the login makes one more call (RecordSessionFunction). A record lives as long as its
// session: sessions roll (sliding expiry up to a cap, bound to the wallet that signed in: sessions.go, and
// Config.SessionIdleTTL and SessionMaxAge through a Handler), records are deleted at sign-out, and expired ones are
// purged by the server package. The record's fields are those of formats.gen.go, shared with the package.
//
// Without a master key, or on a backend without RecordSessionFunction (a stock parse-server, an original Moralis
// v1 server: the line of the backend check says so), nothing is recorded, sessions do not roll (the backend's own
// session length applies) and any session the backend confirms is accepted. When the function appears later (the
// package installed), the sessions made meanwhile have no record and are refused once: their users sign in again.
//
// # Without a master key
//
// Without a master key in BackendConfig.Client, none of the above holds: no ticket is sent, no session is recorded
// or checked, sessions do not roll, and any session the backend confirms is accepted, however it was made (the
// backend's public sign-in function, a phished message). That suits a backend whose adapters ask for no ticket
// (an original Moralis v1 server) and that gives the endpoint no master key, so it is not an error; but it is never
// silent: NewClientBackend logs it (BackendConfig.Logger) when it makes such a backend.
type ClientBackend struct {
	cfg     client.Config
	base    *client.Client
	opts    *auth.Options
	chain   auth.ContractCaller
	wallets *keyedMutex    // one sign-in per wallet at a time (shared with the Handler's copy: withHandler)
	life    sessionLife    // how its sessions roll (see sessions.go)
	noIdem  *client.Client // base without X-Parse-Request-Id (the sign-in and record functions)
	// caps is what was learned of the backend (backendcheck.go), shared by copies.
	caps         *backendCaps
	recheck      time.Duration
	liveQueryURL string
	logger       *slog.Logger
	loggerSet    bool // BackendConfig.Logger was given: a Handler's does not replace it
}

// DefaultSessionClass is the backend class where ClientBackend records the sessions it made (see ClientBackend).
// Its objects have an empty ACL; give the class master-key-only class-level permissions and an index on "key" (the
// local stack does both).
const DefaultSessionClass = recordClass

// DefaultSessionRecordTTL was how long ClientBackend kept the record of a session it made. Records now live as
// long as their session (DefaultSessionIdleTTL, extended while used, at most DefaultSessionMaxAge).
//
// Deprecated: nothing reads it; set Config.SessionIdleTTL and Config.SessionMaxAge.
const DefaultSessionRecordTTL = 366 * 24 * time.Hour

// NewClientBackend checks cfg and makes a ClientBackend. An invalid client configuration, or a negative
// RecheckInterval, is an error. It does no I/O: the backend is first asked what it offers by CheckBackend, or
// before the first sign-in or session check.
func NewClientBackend(cfg BackendConfig) (*ClientBackend, error) {
	if cfg.RecheckInterval < 0 {
		return nil, errors.New("authserver: BackendConfig.RecheckInterval must not be negative")
	}
	if cfg.LiveQueryURL != "" && !strings.HasPrefix(cfg.LiveQueryURL, "ws://") && !strings.HasPrefix(cfg.LiveQueryURL, "wss://") {
		return nil, errors.New("authserver: BackendConfig.LiveQueryURL must start with ws:// or wss://")
	}
	base, err := client.New(cfg.Client)
	if err != nil {
		return nil, err
	}
	logger := loggerOr(cfg.Logger)
	if !base.HasMasterKey() {
		// Not an error (backends without tickets, e.g. an original Moralis v1 server, need no master key), but
		// never silent: see "Without a master key" on ClientBackend.
		logger.Warn("authserver: NewClientBackend without a master key: no sign-in tickets, no session records: any " +
			"session the backend confirms is accepted, sessions do not roll, and the endpoint is not the one door in " +
			"(see ClientBackend, \"Without a master key\")")
	}
	if cfg.DirectSignIn {
		logger.Warn("authserver: BackendConfig.DirectSignIn is deprecated and ignored: a returning wallet signs in " +
			"with one request of " + SignInFunction + ", its beforeLogin trigger run")
	}
	ni := cfg.Client
	ni.DisableIdempotency = true
	noIdem, err := client.New(ni)
	if err != nil {
		return nil, err
	}
	recheck := cfg.RecheckInterval
	if recheck == 0 {
		recheck = DefaultRecheckInterval
	}
	flow := cfg.Flow
	return &ClientBackend{noIdem: noIdem, cfg: cfg.Client, base: base, opts: &flow, chain: cfg.Chain, wallets: &keyedMutex{},
		life: defaultLife(), caps: &backendCaps{}, recheck: recheck, liveQueryURL: cfg.LiveQueryURL, logger: logger,
		loggerSet: cfg.Logger != nil}, nil
}

// Client returns the backend's base client (no session). It is safe for concurrent use.
func (b *ClientBackend) Client() *client.Client { return b.base }

// AdoptSession records tok, a backend session made elsewhere (a password sign-in, the SDK's direct wallet
// sign-in), as one of this endpoint's, so that Me, Link, Unlink and the Handler's session checks accept it (see
// "Sessions of this endpoint only"). Adopt only a session whose owner the caller has authenticated itself. Without
// a master key, or on a backend without RecordSessionFunction, it does nothing: every session the backend confirms
// is accepted then.
func (b *ClientBackend) AdoptSession(ctx context.Context, tok string) error {
	if tok == "" {
		return errors.New("authserver: AdoptSession needs a session token")
	}
	b.ensureChecked(ctx)
	_, err := b.recordSession(ctx, tok, sessionBinding{})
	return err
}

// errForeignSession is a session the backend knows but this endpoint did not make.
var errForeignSession = errors.New("authserver: the session was not made by this endpoint")

// sessionKey is the HMAC-SHA256 of tok keyed by the master key, in hex: what the record of tok holds.
func (b *ClientBackend) sessionKey(tok string) string {
	mac := hmac.New(sha256.New, []byte(b.cfg.MasterKey))
	mac.Write(sessionKeyInput(tok))
	return hex.EncodeToString(mac.Sum(nil))
}

// sessionRecords returns tok's live records (none: errForeignSession), live by the endpoint's clock and rule.
func (b *ClientBackend) sessionRecords(ctx context.Context, tok string) ([]sessionRecord, error) {
	all, err := b.allSessionRecords(ctx, tok)
	if err != nil {
		return nil, err
	}
	now := b.life.now()
	var live []sessionRecord
	for _, r := range all {
		if now.Before(r.end(b.life)) {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return all, errForeignSession
	}
	return live, nil
}

// allSessionRecords returns every record of tok, ended or not (none: errForeignSession).
func (b *ClientBackend) allSessionRecords(ctx context.Context, tok string) ([]sessionRecord, error) {
	var resp struct {
		Results []recordRow `json:"results"`
	}
	where := map[string]any{recordKey: b.sessionKey(tok)}
	err := b.base.WithMasterKey().Request(ctx, "GET", "classes/"+recordClass,
		map[string]any{"where": where, "limit": 10, "keys": recordReadKeys()}, &resp)
	if errors.Is(err, parse.ErrInvalidClassName) {
		return nil, errForeignSession // no session was ever recorded
	}
	if err != nil {
		return nil, fmt.Errorf("authserver: checking the session: %w", err)
	}
	var recs []sessionRecord
	for _, r := range resp.Results {
		exp, err := time.Parse(time.RFC3339Nano, r.ExpiresAt.ISO)
		if err != nil {
			continue // not a record this endpoint wrote: it proves nothing
		}
		rec := sessionRecord{id: r.ObjectID, expiresAt: exp, sessionID: r.Session, chain: auth.Chain(r.Chain),
			address: r.Address, chainID: r.ChainID}
		if t, err := time.Parse(time.RFC3339Nano, r.StartedAt.ISO); err == nil {
			rec.startedAt = t
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil, errForeignSession
	}
	return recs, nil
}

// recordRow is a session record as read back (the fields of recordFieldNames but its key).
type recordRow struct {
	ObjectID  string `json:"objectId"`
	ExpiresAt struct {
		ISO string `json:"iso"`
	} `json:"expiresAt"`
	StartedAt struct {
		ISO string `json:"iso"`
	} `json:"startedAt"`
	Session string `json:"session"`
	Chain   string `json:"chain"`
	Address string `json:"address"`
	ChainID string `json:"chainId"`
}

// recordReadKeys is the keys parameter of a record's query: every field but the key.
func recordReadKeys() string {
	var keys []string
	for _, f := range recordFieldNames {
		if f != recordKey {
			keys = append(keys, f)
		}
	}
	return strings.Join(keys, ",")
}

// withTicket returns m with a new one-time ticket for it when the backend client has the master key: an endpoint
// ticket (endpointTicket), which the backend's adapters check themselves, so issuing it costs no round trip. An EVM
// signature that does not recover to its address gets a contract-account ticket only after it was verified on
// Chain (never on the caller's word).
func (b *ClientBackend) withTicket(ctx context.Context, m auth.SignedMessage) (auth.SignedMessage, error) {
	if !b.base.HasMasterKey() {
		return m, nil
	}
	if m.Chain == "" {
		m.Chain = auth.ChainEVM
	}
	contract := false
	if m.Chain == auth.ChainEVM {
		a, err := auth.NormalizeEthAddress(m.Address)
		if err != nil {
			return m, err
		}
		m.Address = a
		if b.chain != nil && auth.VerifyEthSignature(m.Address, []byte(m.Message), m.Signature) != nil {
			if err := auth.VerifyEthSignatureContext(ctx, b.chain, m.Address, []byte(m.Message), m.Signature); err != nil {
				return m, err
			}
			contract = true
		}
	}
	t, err := b.endpointTicket(m, contract, time.Now().Add(auth.DefaultTicketTTL))
	if err != nil {
		return m, err
	}
	m.Ticket = t
	return m, nil
}

// endpointTicket returns a one-time ticket for m (chain, canonical address, exact message; a contract account's
// when contract) that expires at exp, in the format of formats.gen.go (shared with the server package's adapters,
// which check it): ticketVersion, a random id of ticketIDLength letters and digits, exp in Unix ms and the
// HMAC-SHA256 keyed by the master key over ticketMACInput, joined by dots. No one without the master key can make
// one; the backend's adapter consumes it by inserting a row keyed by its id, so it signs in at most once, on every
// instance.
func (b *ClientBackend) endpointTicket(m auth.SignedMessage, contract bool, exp time.Time) (string, error) {
	id, err := randid.Alnum(rand.Read, ticketIDLength)
	if err != nil {
		return "", err
	}
	ms := strconv.FormatInt(exp.UnixMilli(), 10)
	mac := hmac.New(sha256.New, []byte(b.cfg.MasterKey))
	mac.Write(ticketMACInput(id, ms, string(m.Chain), m.Address, m.Message, contract))
	return ticketVersion + "." + id + "." + ms + "." + hex.EncodeToString(mac.Sum(nil)), nil
}

// me returns the user of tok, a session the backend confirms and (when the endpoint records its sessions: a master
// key and RecordSessionFunction) this endpoint made, whose end has not come and whose binding holds (sessions.go);
// the record is looked up while users/me runs. A session
// more than half way to its end is extended (its record and the backend's _Session, one round trip; the new end is
// reported to the request's pipeline for the cookie); one that ended is logged out and its records deleted.
func (b *ClientBackend) me(ctx context.Context, tok string) (*client.Client, *client.User, error) {
	var recs []sessionRecord
	var recErr error
	done := make(chan struct{})
	b.ensureChecked(ctx)
	recording := b.recording()
	if recording {
		go func() {
			defer close(done)
			recs, recErr = b.sessionRecords(ctx, tok)
		}()
	} else {
		close(done)
	}
	view := b.base.WithSessionToken(tok)
	u, err := view.Users.Me(ctx)
	<-done
	if err != nil {
		return nil, nil, mapClientError(err)
	}
	if !recording {
		return view, u, nil
	}
	if errors.Is(recErr, errForeignSession) {
		// Not made here, or ended (its end passed): an ended one is ended on the backend too.
		return nil, nil, b.refuseSession(ctx, tok, recs, recErr)
	}
	if recErr != nil {
		return nil, nil, mapClientError(recErr)
	}
	rec := recs[0]
	if !rec.bindingHolds(b.life, u) {
		return nil, nil, b.refuseSession(ctx, tok, recs, errSessionUnbound)
	}
	now := b.life.now()
	end := rec.end(b.life)
	if now.After(rec.expiresAt.Add(-b.life.idle / 2)) {
		if until := minTime(now.Add(b.life.idle), rec.startedAt.Add(b.life.max)); !rec.startedAt.IsZero() && until.After(end) {
			if err := b.extend(ctx, tok, rec, until); err != nil {
				return nil, nil, mapClientError(err)
			}
			reportSlide(ctx, until)
			end = until
		}
	}
	var capAt time.Time
	if !rec.startedAt.IsZero() {
		capAt = rec.startedAt.Add(b.life.max)
	}
	ReportSessionEnd(ctx, end, capAt)
	return view, u, nil
}

// errSessionUnbound is a session whose wallet binding no longer holds (its address unlinked, another chain id).
var errSessionUnbound = errors.New("authserver: the session's address or chain is no longer the one it was signed for")

// refuseSession is the 209 answer to a session this endpoint does not accept (cause); a session it made (recs)
// is ended on the backend first.
func (b *ClientBackend) refuseSession(ctx context.Context, tok string, recs []sessionRecord, cause error) error {
	if len(recs) > 0 {
		if err := b.endSession(ctx, tok, recs); err != nil {
			cause = errors.Join(cause, err)
		}
	}
	return &BackendError{Status: http.StatusUnauthorized, Code: int(parse.CodeInvalidSessionToken),
		Message: "Invalid session token", Err: cause}
}

// Link implements Backend.
func (b *ClientBackend) Link(ctx context.Context, tok string, m auth.SignedMessage) (*PublicUser, error) {
	view, u, err := b.me(ctx, tok)
	if err != nil {
		return nil, err
	}
	if m, err = b.withTicket(ctx, m); err != nil {
		return nil, mapClientError(err)
	}
	if err := auth.Link(ctx, view, u, m, b.opts); err != nil {
		return nil, mapClientError(err)
	}
	p := PublicUserOf(u)
	return &p, nil
}

// Unlink implements Backend.
func (b *ClientBackend) Unlink(ctx context.Context, tok string, chain auth.Chain, address string) (*PublicUser, error) {
	view, u, err := b.me(ctx, tok)
	if err != nil {
		return nil, err
	}
	if err := auth.Unlink(ctx, view, u, chain, address, b.opts); err != nil {
		return nil, mapClientError(err)
	}
	p := PublicUserOf(u)
	return &p, nil
}

// Me implements Backend.
func (b *ClientBackend) Me(ctx context.Context, tok string) (*PublicUser, error) {
	_, u, err := b.me(ctx, tok)
	if err != nil {
		return nil, err
	}
	p := PublicUserOf(u)
	return &p, nil
}

// SignOut implements Backend (POST logout with the session token), and deletes the session's records.
func (b *ClientBackend) SignOut(ctx context.Context, tok string) error {
	if err := b.base.WithSessionToken(tok).Users.LogOut(ctx); err != nil {
		return mapClientError(err)
	}
	if !b.recording() {
		return nil
	}
	recs, err := b.allSessionRecords(ctx, tok)
	if errors.Is(err, errForeignSession) {
		return nil
	}
	if err != nil {
		return mapClientError(err)
	}
	objs := make([]*parse.Object, len(recs))
	for i, r := range recs {
		objs[i] = parse.NewObjectWithID(DefaultSessionClass, r.id)
	}
	return mapClientError(b.base.WithMasterKey().Objects.DestroyAll(ctx, objs))
}

// PublicUserOf copies the fields of u that may be shown to a browser (never authData, never keys); Accounts and
// SolAccounts are never nil.
func PublicUserOf(u *client.User) PublicUser {
	p := PublicUser{ObjectID: u.ID(), Username: u.Username(), EthAddress: u.EthAddress(), Accounts: u.Accounts(),
		SolAddress: u.SolAddress(), SolAccounts: u.SolAccounts()}
	if p.Accounts == nil {
		p.Accounts = []string{}
	}
	if p.SolAccounts == nil {
		p.SolAccounts = []string{}
	}
	if t := u.CreatedAt(); !t.IsZero() {
		p.CreatedAt = t.UTC().Format(time.RFC3339Nano)
	}
	if t := u.UpdatedAt(); !t.IsZero() {
		p.UpdatedAt = t.UTC().Format(time.RFC3339Nano)
	}
	return p
}

// mapClientError is ClientBackend's table: it turns client errors into BackendErrors with a message that is safe
// to show (the status is the code's: statusOf). A backend refusal keeps its code and text, except code 141, whose
// text may be an internal error's (scriptFailedText is shown); a backend without a piece the sign-in needs (no
// wallet adapter: auth.ErrBackendMissing) is the server's failure, a 502.
func mapClientError(err error) error {
	if err == nil {
		return nil
	}
	refused := func(code parse.Code, msg string) error {
		return &BackendError{Status: statusOf(code), Code: int(code), Message: msg, Err: err}
	}
	var ce *parse.Error
	var be *BackendError
	switch {
	case errors.As(err, &be):
		return be // already the answer (the sign-in function's refusal)
	case errors.Is(err, auth.ErrCouldNotGetUser):
		return &BackendError{Status: http.StatusBadGateway, Code: int(parse.CodeInternalServerError), Message: auth.ErrCouldNotGetUser.Error(), Err: err}
	case errors.Is(err, auth.ErrAddressNotLinked):
		return refused(parse.CodeObjectNotFound, "Address not found")
	case errors.Is(err, auth.ErrAddressTaken):
		return refused(parse.CodeDuplicateValue, "Address is already linked to another user")
	case errors.Is(err, auth.ErrBackendMissing):
		return &BackendError{Status: http.StatusBadGateway, Code: int(parse.CodeInternalServerError), Message: "Backend error", Err: err}
	case errors.As(err, &ce) && ce.Code == parse.CodeInvalidSessionToken:
		return refused(ce.Code, "Invalid session token")
	case errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 && ce.Code != 0:
		// The backend's refusal (account already linked, duplicate value, object not found...): its code and text.
		return refused(ce.Code, refusalText(ce.Code, ce.Message))
	}
	return &BackendError{Status: http.StatusBadGateway, Code: int(parse.CodeInternalServerError), Message: "Backend error", Err: err}
}

// keyedMutex is a lock per key (a wallet). The zero value is ready; entries are dropped when nobody holds or waits
// for them, so memory follows the sign-ins in flight. Safe for concurrent use.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

type keyedEntry struct {
	sem  chan struct{}
	refs int
}

// lock takes key's lock, waiting at most until ctx ends; unlock must be called once.
func (k *keyedMutex) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyedEntry{}
	}
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{sem: make(chan struct{}, 1)}
		k.m[key] = e
	}
	e.refs++
	k.mu.Unlock()
	release := func() {
		k.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
	select {
	case e.sem <- struct{}{}:
		return func() { <-e.sem; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
