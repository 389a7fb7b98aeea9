package authserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// The sign-in flow of ClientBackend: one path, with one optimisation.
//
//  1. With the master key and SignInFunction on, a returning wallet's signature is verified here and the function
//     signs it in with one request. Its answer decides: {user, session} signed in; {refused: {code, error}} is
//     the app's definite refusal (its beforeLogin trigger, the provider's login policy), answered as the login
//     would, with no login tried; {useLogin: reason} sends the wallet to the login (a first sign-in, a user to
//     write; "off: ..." turns the function off until the next check). ANY other outcome (an error it throws, an
//     answer it should not give, 141 "Invalid function", calls in doubt after inDoubtAttempts) is not a refusal:
//     it is logged with its reason and the wallet signs in by the login, so a broken function never fails a
//     sign-in the login would serve.
//  2. Otherwise parse-server's login (auth.SignIn with an endpoint ticket), from the installation id the function
//     used, so a session a lost function call made is deleted by the login's own session write.
//  3. The session is recorded by RecordSessionFunction, the one writer of records (the function of step 1 writes
//     its own). A backend without it records nothing: see "What the backend offers" (backendcheck.go).

// inDoubtAttempts bounds the attempts of a sign-in's function call, login and record call whose answers were lost
// (in doubt).
const inDoubtAttempts = 3

// SignInFunction is the backend's cloud function (master key only, moralis-go's server package) that signs a
// returning wallet in with one round trip: it finds the user, runs the app's beforeLogin trigger, creates the
// session and its record, as parse-server's login followed by RecordSessionFunction would (see ClientBackend).
// It answers {useLogin} when the login would do more (a first sign-in, a user to write, an afterSave trigger or
// LiveQuery on _User) and {refused} for the app's definite refusal.
const SignInFunction = "moralisGoSignIn"

// RecordSessionFunction is the backend's cloud function (master key only, moralis-go's server package) that
// records a session the endpoint made, in one round trip: it finds the token's _Session, sets its end and creates
// its record (the fields of formats.gen.go). It is the one writer of records; a backend without it gets none.
const RecordSessionFunction = "moralisGoRecordSession"

// scriptFailedText is what the browser is told of a backend answer with code 141 (parse.CodeScriptFailed):
// parse-server gives that code to any error cloud code throws, a TypeError's text included, so its text is never
// shown. An app that wants its refusal shown throws a Parse.Error with another code (119, for example).
const scriptFailedText = "Cloud code failed"

// SignIn implements Backend: the one sign-in flow (above). Sign-ins of one wallet through one ClientBackend run one
// at a time (others wait, or give up when their context ends), so concurrent sign-ins of a wallet do not race to
// create or update its user on the backend; across several endpoint instances auth.SignIn retries the logins that
// lost such a race, each with a new ticket.
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
	b.ensureChecked(ctx)
	bind := sessionBinding{chain: m.Chain, address: m.Address, chainID: b.life.chainIDs[m.Chain]}
	inst := uuid.NewString()
	if fs, done, ferr := b.signInByFunction(ctx, m, bind, inst); done {
		return fs, mapClientError(ferr)
	}
	return b.signInByLogin(ctx, m, bind, inst)
}

// signInByFunction is step 1 of the flow: done reports that its answer is the sign-in's (a session, the app's
// refusal, or the request's context ended); otherwise the login follows. The signature is verified first, as the
// function trusts its master-key caller (ecrecover, or ERC-1271/6492 on Chain; ed25519): one that does not verify
// goes to the login, whose adapter refuses it as it always has.
func (b *ClientBackend) signInByFunction(ctx context.Context, m auth.SignedMessage, bind sessionBinding, inst string) (*Session, bool, error) {
	if !b.signInUsable() {
		return nil, false, nil
	}
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
	params := map[string]any{"provider": m.Chain.Provider(), "id": m.Address, "installationId": inst,
		"until": parseDate(until)["iso"]}
	var tok string
	var resp struct {
		Result struct {
			UseLogin string `json:"useLogin"`
			Refused  *struct {
				Code    int    `json:"code"`
				Message string `json:"error"`
			} `json:"refused"`
			User    map[string]any `json:"user"`
			Session string         `json:"session"`
		} `json:"result"`
	}
	// Without an X-Parse-Request-Id (an _Idempotency row less). A call in doubt is made again with a new token and
	// the same installation id: parse-server's session write deletes the user's earlier sessions of that
	// installation id, so a session the lost answer held does not outlive it (as for a repeated login).
	attempt := 1
	for ; ; attempt++ {
		var raw [16]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return nil, true, err
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
	r := resp.Result
	switch {
	case ctx.Err() != nil:
		return nil, true, ctx.Err() // the request is over: no login either
	case invalidFunction(err, SignInFunction):
		b.turnOff(&b.caps.signIn, SignInFunction, "the backend answers 141 Invalid function",
			"returning wallets sign in by parse-server's login")
		return nil, false, nil
	case errors.Is(err, parse.ErrWriteInDoubt):
		b.signInFailed(fmt.Sprintf("%d calls in doubt (their answers lost): %v", attempt, err))
		return nil, false, nil
	case err != nil:
		b.signInFailed(err.Error())
		return nil, false, nil
	case r.Refused != nil && r.Refused.Code >= 100:
		b.signInWorked()
		code := parse.Code(r.Refused.Code)
		return nil, true, &BackendError{Status: statusOf(code), Code: int(code), Message: refusalText(code, r.Refused.Message),
			Err: fmt.Errorf("authserver: %s refused the sign-in: %d %s", SignInFunction, r.Refused.Code, r.Refused.Message)}
	case r.Refused != nil:
		b.signInFailed(fmt.Sprintf("a refusal with code %d, which no login answers", r.Refused.Code))
		return nil, false, nil
	case r.UseLogin != "":
		b.signInWorked()
		if strings.HasPrefix(r.UseLogin, "off: ") {
			b.turnOff(&b.caps.signIn, SignInFunction, "the server package answers "+r.UseLogin,
				"returning wallets sign in by parse-server's login")
		} else {
			b.logger.Debug("authserver: "+SignInFunction+" leaves the sign-in to the login", "reason", r.UseLogin)
		}
		return nil, false, nil
	case r.Session == "" || r.User == nil:
		b.signInFailed("an answer with neither a session, useLogin nor refused")
		return nil, false, nil
	}
	o, err := parse.ObjectFromServer(client.UserClass, r.User)
	if err != nil {
		// The session exists but its user cannot be shown: it is of no use. The login's session write (same
		// installation id) deletes it.
		b.signInFailed("its user cannot be read: " + err.Error())
		return nil, false, nil
	}
	b.signInWorked()
	return &Session{User: PublicUserOf(client.UserFromObject(o)), SessionToken: tok, ExpiresAt: until}, true, nil
}

// signInByLogin is steps 2 and 3 of the flow: parse-server's login through the wallet adapter (on a client with
// installation id inst, with a new endpoint ticket for each attempt), then the session's record.
func (b *ClientBackend) signInByLogin(ctx context.Context, m auth.SignedMessage, bind sessionBinding, inst string) (*Session, error) {
	cfg := b.cfg
	cfg.InstallationID = inst
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

// recordSession records tok as a session of this endpoint bound to bind with RecordSessionFunction, ending
// SessionIdleTTL from now (or at the cap, if sooner), and sets the backend's _Session to end then too; it returns
// that end. When the endpoint does not record (no master key, no RecordSessionFunction on the backend) it does
// nothing and returns the zero time: the backend's own session length applies. A backend that answers 141
// "Invalid function" turns recording off until the next check (logged); any other failure is the sign-in's.
func (b *ClientBackend) recordSession(ctx context.Context, tok string, bind sessionBinding) (time.Time, error) {
	if !b.recording() {
		return time.Time{}, nil
	}
	now := b.life.now()
	until := minTime(now.Add(b.life.idle), now.Add(b.life.max))
	params := map[string]any{"sessionToken": tok, "until": parseDate(until)["iso"],
		"record": recordParams(b.newRecord(tok, now, until, bind))}
	var resp struct {
		Result struct {
			Session string `json:"session"`
		} `json:"result"`
	}
	// Without an X-Parse-Request-Id (an _Idempotency row less): a call in doubt is made again, which at worst
	// leaves a second record of the same session (both end with it, and a sign-out deletes both).
	var err error
	for attempt := 1; ; attempt++ {
		err = b.noIdem.WithMasterKey().Request(ctx, http.MethodPost, "functions/"+RecordSessionFunction, params, &resp)
		if err == nil || !errors.Is(err, parse.ErrWriteInDoubt) || attempt == inDoubtAttempts || ctx.Err() != nil {
			break
		}
	}
	switch {
	case invalidFunction(err, RecordSessionFunction):
		b.turnOff(&b.caps.record, RecordSessionFunction, "the backend answers 141 Invalid function",
			"sessions are not recorded: any session the backend confirms is accepted (no one-door guarantee) and "+
				"sessions do not roll")
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("authserver: recording the session: %w", err)
	case resp.Result.Session == "":
		return time.Time{}, errors.New("authserver: " + RecordSessionFunction + " answered no session")
	}
	return until, nil
}

// recordParams is a new record (newRecord) as the backend's functions take it (the record parameter): the
// required fields, and the binding's when not empty; ISO dates; no ACL, no end (sent apart, as until).
func recordParams(rec map[string]any) map[string]any {
	body := map[string]any{}
	for _, k := range recordRequiredParams {
		v := rec[k]
		if d, ok := v.(map[string]any); ok && d["__type"] == "Date" {
			v = d["iso"] // the function takes ISO dates
		}
		body[k] = v
	}
	for _, k := range recordOptionalParams {
		if v, _ := rec[k].(string); v != "" {
			body[k] = v
		}
	}
	return body
}

// refusalText is the text shown for a refusal with code by the backend: msg, except for code 141 (scriptFailedText).
func refusalText(code parse.Code, msg string) string {
	if code == parse.CodeScriptFailed {
		return scriptFailedText
	}
	return msg
}
