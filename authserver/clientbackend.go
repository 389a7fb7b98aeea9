package authserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/google/uuid"
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
	// DirectSignIn, with a master key, signs a returning wallet in without parse-server's login or the backend's
	// SignInFunction: the endpoint finds the user by its authData id, checks the signature itself (as the adapter
	// would) and creates the session and its record in one /batch (2 backend requests). parse-server's beforeLogin
	// trigger does not run for those sign-ins, and a new wallet costs one lookup more. false (default): a returning
	// wallet signs in with one call of SignInFunction, which runs beforeLogin as the login does, where the backend
	// has it; every other sign-in goes through parse-server's login.
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
// # One round trip for a returning wallet
//
// With a master key, a wallet whose user exists and needs no write signs in with one call of the backend's
// SignInFunction (this project's cloud/authsignin.js) once the endpoint has verified its signature: the function
// finds the user, runs the app's beforeLogin trigger as parse-server's login does (same user object, a request
// that is not master, the sign-in's own installation id), creates the session through parse-server's own session
// write (so _Session triggers run) and records it. It costs parse-server about half the CPU of the login and
// the record call it replaces, as it skips the adapter's second signature check, the ticket's insert and the second
// request. It leaves the sign-in to the login whenever the login would do more: a first sign-in (one call more
// than before), a user the SDK must write, an app with an afterSave trigger or LiveQuery on _User (a login with
// authData fires them), and a backend without the function (asked once).
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
// latency; a sign-in through the login makes one more call (RecordSessionFunction). A record lives as long as its session: sessions roll (sliding expiry up
// to a cap, bound to the wallet that signed in: sessions.go, and Config.SessionIdleTTL and SessionMaxAge through a
// Handler), records are deleted at sign-out, and expired ones are purged by the local stack's server. Without a
// master key nothing is recorded, sessions do not roll (the backend's own session length applies) and any session
// the backend confirms is accepted.
//
// # Without a master key
//
// Without a master key in BackendConfig.Client, none of the above holds: no ticket is sent, no session is recorded
// or checked, sessions do not roll, and any session the backend confirms is accepted, however it was made (the
// backend's public sign-in function, a phished message). That suits a backend whose adapters ask for no ticket
// (an original Moralis v1 server) and that gives the endpoint no master key, so it is not an error; but it is never
// silent: NewClientBackend logs it (standard log package) when it makes such a backend.
type ClientBackend struct {
	cfg     client.Config
	base    *client.Client
	opts    *auth.Options
	chain   auth.ContractCaller
	wallets *keyedMutex // one sign-in per wallet at a time (shared with the Handler's copy: withSessionLife)
	life    sessionLife // how its sessions roll (see sessions.go)
	direct  bool        // BackendConfig.DirectSignIn
	// noRecordFunc is set once the backend answered that it has no RecordSessionFunction (shared by copies).
	noRecordFunc *atomic.Bool
	// noSignInFunc is set once the backend answered that it has no SignInFunction (shared by copies).
	noSignInFunc *atomic.Bool
	noIdem       *client.Client // base without X-Parse-Request-Id (recordSessionByFunction)
}

// DefaultSessionClass is the backend class where ClientBackend records the sessions it made (see ClientBackend).
// Its objects have an empty ACL; give the class master-key-only class-level permissions and an index on "key" (the
// local stack does both).
const DefaultSessionClass = "MoralisAuthSession"

// DefaultSessionRecordTTL was how long ClientBackend kept the record of a session it made. Records now live as
// long as their session (DefaultSessionIdleTTL, extended while used, at most DefaultSessionMaxAge); it is kept for
// compatibility and no longer used.
const DefaultSessionRecordTTL = 366 * 24 * time.Hour

// NewClientBackend checks cfg and makes a ClientBackend. An invalid client configuration is an error.
func NewClientBackend(cfg BackendConfig) (*ClientBackend, error) {
	base, err := client.New(cfg.Client)
	if err != nil {
		return nil, err
	}
	if !base.HasMasterKey() {
		// Not an error (backends without tickets, e.g. an original Moralis v1 server, need no master key), but
		// never silent: see "Without a master key" on ClientBackend.
		log.Printf("authserver: NewClientBackend without a master key: no sign-in tickets, no session records: any " +
			"session the backend confirms is accepted, sessions do not roll, and the endpoint is not the one door in " +
			"(see ClientBackend, \"Without a master key\")")
	}
	ni := cfg.Client
	ni.DisableIdempotency = true
	noIdem, err := client.New(ni)
	if err != nil {
		return nil, err
	}
	flow := cfg.Flow
	return &ClientBackend{noIdem: noIdem, cfg: cfg.Client, base: base, opts: &flow, chain: cfg.Chain, wallets: &keyedMutex{},
		life: defaultLife(), direct: cfg.DirectSignIn, noRecordFunc: &atomic.Bool{}, noSignInFunc: &atomic.Bool{}}, nil
}

// directSignIn reports whether a returning wallet signs in without parse-server's login (BackendConfig.DirectSignIn).
func (b *ClientBackend) directSignIn() bool { return b.direct && b.base.HasMasterKey() }

// Client returns the backend's base client (no session). It is safe for concurrent use.
func (b *ClientBackend) Client() *client.Client { return b.base }

// SignIn implements Backend with auth.SignIn on a client with a fresh installation id. Sign-ins of one wallet
// through one ClientBackend run one at a time (others wait, or give up when their context ends), so concurrent
// sign-ins of a wallet do not race to create or update its user on the backend; across several endpoint instances
// auth.SignIn retries the logins that lost such a race, each with a new ticket.
func (b *ClientBackend) SignIn(ctx context.Context, m auth.SignedMessage) (s *Session, err error) {
	defer func() {
		if s != nil { // every way in makes the session with its end by the rolling rule (or none: no master key)
			s.MaxExpiresAt = b.life.capOf(s.ExpiresAt)
		}
	}()
	unlock, err := b.wallets.lock(ctx, string(m.Chain)+":"+strings.ToLower(m.Address))
	if err != nil {
		return nil, err // the context ended: the handler answers 504
	}
	defer unlock()
	bind := sessionBinding{chain: m.Chain, address: m.Address, chainID: b.life.chainIDs[m.Chain]}
	if b.directSignIn() {
		// A returning wallet whose user needs no write: no ticket, no login, two round trips (sessions.go).
		s, ok, err := b.signInKnown(ctx, m, bind)
		if err != nil || ok {
			return s, mapClientError(err)
		}
	} else if b.base.HasMasterKey() && !b.noSignInFunc.Load() {
		// A returning wallet whose user needs no write: the login in one round trip, its triggers run (signInByFunction).
		s, ok, err := b.signInByFunction(ctx, m, bind)
		if err != nil || ok {
			return s, mapClientError(err)
		}
	}
	cfg := b.cfg
	cfg.InstallationID = uuid.NewString()
	cfg.Storage = nil
	// No X-Parse-Request-Id (parse-server writes an _Idempotency row for each): the login spends its one-time
	// ticket, so sending it again could not sign in anyway, and the new wallet's user write sets the same values.
	cfg.DisableIdempotency = true
	c, err := client.New(cfg)
	if err != nil {
		return nil, mapClientError(err)
	}
	var u *client.User
	for attempt := 1; ; attempt++ {
		u, err = auth.SignIn(ctx, c, func(ctx context.Context) (auth.SignedMessage, error) {
			return b.withTicket(ctx, m)
		}, b.opts)
		// A login (or user write) in doubt, its answer lost (a proxy's 502, a cut connection), is tried again with a
		// new ticket: the first one signs in at most once, and the same installation id makes parse-server delete
		// a session the lost answer held.
		if err == nil || !errors.Is(err, parse.ErrWriteInDoubt) || attempt == inDoubtAttempts || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return nil, mapClientError(err)
	}
	until, err := b.recordSession(ctx, u.SessionToken(), bind)
	if err != nil {
		// A session this endpoint would refuse is of no use: end it (on a context of its own, as ctx may be over).
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if lerr := b.base.WithSessionToken(u.SessionToken()).Users.LogOut(lctx); lerr != nil {
			err = errors.Join(err, lerr)
		}
		return nil, mapClientError(err)
	}
	return &Session{User: PublicUserOf(u), SessionToken: u.SessionToken(), ExpiresAt: until}, nil
}

// AdoptSession records tok, a backend session made elsewhere (a password sign-in, the SDK's direct wallet
// sign-in), as one of this endpoint's, so that Me, Link, Unlink and the Handler's session checks accept it (see
// "Sessions of this endpoint only"). Adopt only a session whose owner the caller has authenticated itself. Without
// a master key it does nothing: every session the backend confirms is accepted then.
func (b *ClientBackend) AdoptSession(ctx context.Context, tok string) error {
	if tok == "" {
		return errors.New("authserver: AdoptSession needs a session token")
	}
	_, err := b.recordSession(ctx, tok, sessionBinding{})
	return err
}

// errForeignSession is a session the backend knows but this endpoint did not make.
var errForeignSession = errors.New("authserver: the session was not made by this endpoint")

// sessionKey is the HMAC-SHA256 of tok keyed by the master key, in hex: what the record of tok holds.
func (b *ClientBackend) sessionKey(tok string) string {
	mac := hmac.New(sha256.New, []byte(b.cfg.MasterKey))
	mac.Write([]byte("moralis-go authserver session\x00"))
	mac.Write([]byte(tok))
	return hex.EncodeToString(mac.Sum(nil))
}

// recordSession records tok as a session of this endpoint bound to bind, ending SessionIdleTTL from now (or at
// the cap, if sooner), and sets the backend's _Session to end then too; it returns that end. Without a master key
// it does nothing (and returns the zero time: the backend's own session length applies).
func (b *ClientBackend) recordSession(ctx context.Context, tok string, bind sessionBinding) (time.Time, error) {
	if !b.base.HasMasterKey() {
		return time.Time{}, nil
	}
	now := b.life.now()
	until := minTime(now.Add(b.life.idle), now.Add(b.life.max))
	rec := b.newRecord(tok, now, until, bind)
	// One round trip where the backend has this project's cloud function (the devstack's cloud/authsession.js):
	// it finds the _Session, writes the record and sets the end.
	ok, err := b.recordSessionByFunction(ctx, tok, rec, until)
	if err != nil {
		return time.Time{}, fmt.Errorf("authserver: recording the session: %w", err)
	}
	if ok {
		return until, nil
	}
	sid, err := b.backendSessionID(ctx, tok)
	if err != nil {
		return time.Time{}, err
	}
	rec["session"] = sid
	err = b.batch(ctx,
		map[string]any{"method": http.MethodPost, "path": "classes/" + DefaultSessionClass, "body": rec},
		map[string]any{"method": http.MethodPut, "path": "classes/_Session/" + sid,
			"body": map[string]any{"expiresAt": parseDate(until)}})
	if err != nil {
		return time.Time{}, fmt.Errorf("authserver: recording the session: %w", err)
	}
	return until, nil
}

// inDoubtAttempts bounds the attempts of a sign-in's login and record call whose answers were lost (in doubt).
const inDoubtAttempts = 3

// RecordSessionFunction is the backend's cloud function (master key only) that records a session in one round
// trip: it finds the token's _Session, creates its record and sets its end (the devstack's cloud/authsession.js).
// ClientBackend calls it with the master key when it made a session, and takes two round trips (a query and a
// /batch) on a backend that answers 141 "Invalid function".
const RecordSessionFunction = "moralisGoRecordSession"

// recordSessionByFunction records tok with RecordSessionFunction: ok is false, without an error, when the backend has
// no such function (remembered: later sign-ins do not ask again).
func (b *ClientBackend) recordSessionByFunction(ctx context.Context, tok string, rec map[string]any, until time.Time) (bool, error) {
	if b.noRecordFunc.Load() {
		return false, nil
	}
	body := recordParams(rec)
	var resp struct {
		Result struct {
			Session string `json:"session"`
		} `json:"result"`
	}
	// Without an X-Parse-Request-Id (an _Idempotency row less): a call in doubt is made again, which at worst
	// leaves a second record of the same session (both end with it, and a sign-out deletes both).
	var err error
	for attempt := 1; ; attempt++ {
		err = b.noIdem.WithMasterKey().Request(ctx, http.MethodPost, "functions/"+RecordSessionFunction,
			map[string]any{"sessionToken": tok, "until": parseDate(until)["iso"], "record": body}, &resp)
		if err == nil || !errors.Is(err, parse.ErrWriteInDoubt) || attempt == inDoubtAttempts || ctx.Err() != nil {
			break
		}
	}
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Code == parse.CodeScriptFailed && strings.Contains(pe.Message, "Invalid function") {
		b.noRecordFunc.Store(true)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if resp.Result.Session == "" {
		return false, errors.New("authserver: " + RecordSessionFunction + " answered no session")
	}
	return true, nil
}

// recordParams is a new record (newRecord) as the backend's functions take it: ISO dates, no ACL, no end (given
// apart).
func recordParams(rec map[string]any) map[string]any {
	body := map[string]any{}
	for k, v := range rec {
		if d, ok := v.(map[string]any); ok && d["__type"] == "Date" {
			v = d["iso"] // the function takes ISO dates
		}
		if k != "ACL" && k != "expiresAt" {
			body[k] = v
		}
	}
	return body
}

// SignInFunction is the backend's cloud function (master key only) that signs a returning wallet in with one round
// trip: it finds the user, runs the app's beforeLogin trigger, creates the session and its record, as parse-server's
// login followed by RecordSessionFunction would (the devstack's cloud/authsignin.js; see ClientBackend). It
// answers "use the login" when the login would do more (a first sign-in, a user to write, an afterSave trigger or
// LiveQuery on _User). A backend without it is sent the login.
const SignInFunction = "moralisGoSignIn"

// signInByFunction signs in a returning wallet with SignInFunction: ok is false, without an error, when the backend
// has no such function or answers that the login must do it, and when the signature does not verify here (the login
// then refuses it as it always has). The signature is checked here first because the function trusts its caller
// (it takes the master key): ecrecover, or ERC-1271/6492 on Chain; ed25519.
func (b *ClientBackend) signInByFunction(ctx context.Context, m auth.SignedMessage, bind sessionBinding) (*Session, bool, error) {
	if m.Chain == "" {
		m.Chain = auth.ChainEVM
	}
	var err error
	if m.Chain == auth.ChainSolana {
		err = auth.VerifySolSignature(m.Address, []byte(m.Message), m.Signature)
	} else {
		if m.Address, err = auth.NormalizeEthAddress(m.Address); err == nil {
			err = auth.VerifyEthSignatureContext(ctx, b.chain, m.Address, []byte(m.Message), m.Signature)
		}
	}
	if err != nil {
		return nil, false, nil
	}
	now := b.life.now()
	until := minTime(now.Add(b.life.idle), now.Add(b.life.max))
	params := map[string]any{"provider": m.Chain.Provider(), "id": m.Address, "installationId": uuid.NewString(),
		"until": parseDate(until)["iso"]}
	var tok string
	var resp struct {
		Result struct {
			UseLogin string         `json:"useLogin"`
			User     map[string]any `json:"user"`
			Session  string         `json:"session"`
		} `json:"result"`
	}
	// Without an X-Parse-Request-Id (an _Idempotency row less). A call in doubt is made again with a new token and
	// the same installation id: parse-server's session write deletes the user's earlier sessions of that
	// installation id, so a session the lost answer held does not outlive it (as for a repeated login).
	for attempt := 1; ; attempt++ {
		var raw [16]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return nil, false, err
		}
		tok = "r:" + hex.EncodeToString(raw[:]) // as parse-server makes them
		params["sessionToken"] = tok
		params["record"] = recordParams(b.newRecord(tok, now, until, bind))
		err = b.noIdem.WithMasterKey().Request(ctx, http.MethodPost, "functions/"+SignInFunction, params, &resp)
		if err == nil || !errors.Is(err, parse.ErrWriteInDoubt) || attempt == inDoubtAttempts || ctx.Err() != nil {
			break
		}
		params["again"] = true
	}
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Code == parse.CodeScriptFailed && pe.Message == `Invalid function: "`+SignInFunction+`"` {
		b.noSignInFunc.Store(true) // exactly parse-server's answer: a trigger's error that mentions it does not count
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if resp.Result.UseLogin != "" {
		return nil, false, nil
	}
	if resp.Result.Session == "" || resp.Result.User == nil {
		return nil, false, errors.New("authserver: " + SignInFunction + " answered no session")
	}
	o, err := parse.ObjectFromServer(client.UserClass, resp.Result.User)
	if err != nil {
		return nil, false, fmt.Errorf("authserver: reading the wallet's user: %w", err)
	}
	return &Session{User: PublicUserOf(client.UserFromObject(o)), SessionToken: tok, ExpiresAt: until}, true, nil
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
	type date struct {
		ISO string `json:"iso"`
	}
	var resp struct {
		Results []struct {
			ObjectID  string `json:"objectId"`
			ExpiresAt date   `json:"expiresAt"`
			StartedAt date   `json:"startedAt"`
			Session   string `json:"session"`
			Chain     string `json:"chain"`
			Address   string `json:"address"`
			ChainID   string `json:"chainId"`
		} `json:"results"`
	}
	where := map[string]any{"key": b.sessionKey(tok)}
	err := b.base.WithMasterKey().Request(ctx, "GET", "classes/"+DefaultSessionClass,
		map[string]any{"where": where, "limit": 10, "keys": "expiresAt,startedAt,session,chain,address,chainId"}, &resp)
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
// when contract) that expires at exp: "e1." + a random id of 10 alphanumerics + "." + exp in Unix ms + "." + the
// HMAC-SHA256 keyed by the master key over a fixed label and those fields (the devstack's tickets.js,
// endpointTicketMAC, checks the same). No one without the master key can make one; the backend's adapter consumes it
// by inserting a row keyed by its id, so it signs in at most once, on every instance.
func (b *ClientBackend) endpointTicket(m auth.SignedMessage, contract bool, exp time.Time) (string, error) {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var raw [10]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := make([]byte, len(raw))
	for i, c := range raw {
		id[i] = alnum[int(c)%len(alnum)] // 256 = 4*62 + 8: a slight bias, harmless for an id that only has to be unique
	}
	ms := strconv.FormatInt(exp.UnixMilli(), 10)
	flag := "0"
	if contract {
		flag = "1"
	}
	mac := hmac.New(sha256.New, []byte(b.cfg.MasterKey))
	mac.Write([]byte("moralis-go endpoint ticket v1\x00"))
	mac.Write([]byte(strings.Join([]string{string(id), ms, string(m.Chain), m.Address, flag, m.Message}, "\x00")))
	return "e1." + string(id) + "." + ms + "." + hex.EncodeToString(mac.Sum(nil)), nil
}

// me returns the user of tok, a session the backend confirms and (with a master key) this endpoint made, whose
// end has not come and whose binding holds (sessions.go); the record is looked up while users/me runs. A session
// more than half way to its end is extended (its record and the backend's _Session, one round trip; the new end is
// reported to the request's pipeline for the cookie); one that ended is logged out and its records deleted.
func (b *ClientBackend) me(ctx context.Context, tok string) (*client.Client, *client.User, error) {
	var recs []sessionRecord
	var recErr error
	done := make(chan struct{})
	if b.base.HasMasterKey() {
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
	if !b.base.HasMasterKey() {
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
	if !b.base.HasMasterKey() {
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

// mapClientError turns client errors into BackendErrors with a message that is safe to show (the status is the
// code's: statusOf).
func mapClientError(err error) error {
	if err == nil {
		return nil
	}
	refused := func(code parse.Code, msg string) error {
		return &BackendError{Status: statusOf(code), Code: int(code), Message: msg, Err: err}
	}
	var ce *parse.Error
	switch {
	case errors.Is(err, auth.ErrCouldNotGetUser):
		return &BackendError{Status: http.StatusBadGateway, Code: int(parse.CodeInternalServerError), Message: auth.ErrCouldNotGetUser.Error(), Err: err}
	case errors.Is(err, auth.ErrAddressNotLinked):
		return refused(parse.CodeObjectNotFound, "Address not found")
	case errors.Is(err, auth.ErrAddressTaken):
		return refused(parse.CodeDuplicateValue, "Address is already linked to another user")
	case errors.As(err, &ce) && ce.Code == parse.CodeInvalidSessionToken:
		return refused(ce.Code, "Invalid session token")
	case errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 && ce.Code != 0:
		// The backend's refusal (account already linked, duplicate value, object not found...): its code and text.
		return refused(ce.Code, ce.Message)
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
