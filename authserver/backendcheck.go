package authserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
)

// What the backend offers. ClientBackend asks the backend once, before its first sign-in or session check (or
// when the application calls CheckBackend at start-up), what it offers, and logs ONE line of what is missing and
// what that costs; then it works at the guarantee the backend allows:
//
//   - moralis-go's server package (ServerInfoFunction answers: its name, version and the features that are on;
//     with the master key also parse-server's version, the database and why a feature is off). A backend without
//     it (a stock parse-server, an original Moralis v1 server) answers 141 "Invalid function"; the endpoint then
//     asks SignInFunction and RecordSessionFunction themselves, with empty parameters, whether they exist (as it
//     does for "signIn" or "recordSession" when the package neither lists it on nor reports it off).
//   - SignInFunction ("signIn"): without it a returning wallet signs in by parse-server's login (2 requests
//     instead of 1 where the sessions are recorded, and about twice parse-server's CPU).
//   - RecordSessionFunction ("recordSession"): the one writer of session records. Without it no session is
//     recorded: any session the backend confirms is accepted (no one-door guarantee, as without a master key),
//     sessions do not roll (the backend's own session length applies) and AdoptSession does nothing.
//   - getServerTime: the SDK's direct sign-in (auth.SignInEthereum) needs it on a backend without
//     moralisAuthRequestMessage; the endpoint does not.
//   - idempotency: whether the backend answers a request sent twice with one X-Parse-Request-Id "Duplicate
//     request" (its idempotencyOptions): without it the SDK cannot send a write in doubt again.
//   - LiveQuery, when BackendConfig.LiveQueryURL is set: whether it answers a connect.
//
// What the backend lacks is asked again after BackendConfig.RecheckInterval (DefaultRecheckInterval), on the first
// request that comes then, so a server package installed (or repaired) later is found without a restart; a
// change is logged in one line too. What the functions answer teaches the same: parse-server's exact 141 "Invalid
// function" turns a function off, as does the sign-in function's {"useLogin": "off: ..."} (the package turned it off)
// and three failures of it in a row; each holds until the next check.

// ServerInfoFunction is the cloud function of moralis-go's server package that tells what the package offers
// (any key; see BackendReport).
const ServerInfoFunction = "moralisGoServerInfo"

// DefaultRecheckInterval is how long what ClientBackend learned the backend lacks holds before it asks again
// (BackendConfig.RecheckInterval).
const DefaultRecheckInterval = 5 * time.Minute

// Feature names of moralis-go's server package (ServerInfoFunction's features) that the endpoint uses.
const (
	featureSignIn        = "signIn"
	featureRecordSession = "recordSession"
	featureTickets       = "tickets"
)

// signInFailureLimit is how many failures in a row turn SignInFunction off until the next check.
const signInFailureLimit = 3

// checkRetryAfter spaces the checks of a backend that could not be asked (down, unreachable).
const checkRetryAfter = 10 * time.Second

// BackendReport is what ClientBackend.CheckBackend learned of the backend. It is a plain value.
type BackendReport struct {
	// Package and Version name moralis-go's server package as the backend reports it (ServerInfoFunction), e.g.
	// "moralis-go-server" and "1.0.0"; both empty on a backend without it (a stock parse-server, an original
	// Moralis v1 server).
	Package, Version string
	// ParseServer is the backend's parse-server version and Database its database ("postgres", "mongo",
	// "unknown"), as the package reports them to the master key ("" otherwise).
	ParseServer, Database string
	// Features lists the package's features that are on ("tickets", "signIn", "recordSession", "serverTime",
	// "web3", "idempotencyPurge", "sessionIndexes", "txMark"); Off, with the master key, those that are off and
	// why.
	Features []string
	Off      map[string]string
	// SignInFunction tells whether the endpoint signs a returning wallet in with SignInFunction (one request);
	// RecordFunction whether it records its sessions with RecordSessionFunction (the one door, sessions that roll).
	// Both need the master key.
	SignInFunction, RecordFunction bool
	// ServerTime tells whether the backend's getServerTime answers.
	ServerTime bool
	// Idempotency tells whether the backend deduplicates a request sent twice with one X-Parse-Request-Id.
	Idempotency bool
	// LiveQueryChecked tells whether BackendConfig.LiveQueryURL was set, and LiveQuery whether it answered a
	// connect.
	LiveQueryChecked, LiveQuery bool
	// Missing lists what the backend lacks, each with what it costs, in the words of the log line; empty when it
	// offers everything the endpoint uses.
	Missing []string
	// At is when the backend was asked.
	At time.Time
}

// fnState is what the endpoint knows of one of the backend's functions.
type fnState struct {
	off    bool
	reason string // why off
}

// backendCaps is what a ClientBackend learned of its backend, shared by its copies (a Handler's). Safe for
// concurrent use.
type backendCaps struct {
	mu       sync.Mutex
	learned  bool      // the backend answered a check
	at       time.Time // when it was last asked (answered or not)
	report   BackendReport
	signIn   fnState
	record   fnState
	failures int           // SignInFunction's failures in a row
	flight   chan struct{} // closed when the check in flight ends; nil when none runs
	logged   string        // the last line logged
}

// due reports whether a check must run before the endpoint relies on what it knows: never asked, or asked long
// enough ago while something is off (or the last check got no answer).
func (c *backendCaps) due(now time.Time, recheck time.Duration) bool {
	switch {
	case !c.learned:
		return c.at.IsZero() || now.Sub(c.at) >= checkRetryAfter
	case c.signIn.off || c.record.off:
		return now.Sub(c.at) >= recheck
	}
	return false
}

// ensureChecked runs a check of the backend when one is due (see due); a check in flight is waited for, at most
// until ctx ends. A check that gets no answer is logged and leaves the endpoint as it was (the functions are
// tried).
func (b *ClientBackend) ensureChecked(ctx context.Context) {
	c := b.caps
	c.mu.Lock()
	if !c.due(b.life.now(), b.recheck) && c.flight == nil {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	_, _ = b.check(ctx, false)
}

// CheckBackend asks the backend what it offers (see BackendReport), logs ONE line of what is missing and what it
// costs (Info when nothing is; Warn otherwise; only when it differs from the last line logged), and returns the
// report. ClientBackend runs the same check by itself before its first sign-in or session check, so calling
// CheckBackend at start-up only brings the line forward (and fails start-up, if the caller wishes, on the error:
// the backend could not be asked). A check in flight is joined. It is safe for concurrent use.
func (b *ClientBackend) CheckBackend(ctx context.Context) (BackendReport, error) {
	return b.check(ctx, true)
}

// check runs one check (or joins the one in flight; with force, a new one when none runs) and returns the report.
func (b *ClientBackend) check(ctx context.Context, force bool) (BackendReport, error) {
	c := b.caps
	c.mu.Lock()
	if f := c.flight; f != nil {
		// Join it: it is as new as one of ours would be.
		c.mu.Unlock()
		select {
		case <-f:
		case <-ctx.Done():
			return BackendReport{}, ctx.Err()
		}
		c.mu.Lock()
		r, learned := c.report, c.learned
		c.mu.Unlock()
		if !learned {
			return r, errors.New("authserver: the backend could not be asked what it offers")
		}
		return r, nil
	}
	if !force && !c.due(b.life.now(), b.recheck) {
		r := c.report
		c.mu.Unlock()
		return r, nil
	}
	f := make(chan struct{})
	c.flight = f
	c.at = b.life.now()
	c.mu.Unlock()

	r, err := b.askBackend(ctx)
	line := ""
	c.mu.Lock()
	if err == nil {
		c.learned, c.report, c.failures = true, r, 0
		if b.base.HasMasterKey() { // without it the functions are never used: nothing to ask again
			c.signIn = fnState{off: !r.SignInFunction, reason: offReason(r, featureSignIn, SignInFunction)}
			c.record = fnState{off: !r.RecordFunction, reason: offReason(r, featureRecordSession, RecordSessionFunction)}
		}
		if line = reportLine(r); line == c.logged {
			line = "" // said already
		} else {
			c.logged = line
		}
	}
	c.flight = nil
	close(f)
	c.mu.Unlock()
	switch {
	case err != nil:
		b.logger.Warn("authserver: the backend could not be asked what it offers; signing in as before and asking "+
			"again on the next request after "+checkRetryAfter.String(), "err", err)
		return r, fmt.Errorf("authserver: asking the backend what it offers: %w", err)
	case line != "" && len(r.Missing) == 0:
		b.logger.Info(line)
	case line != "":
		b.logger.Warn(line)
	}
	return r, nil
}

// offReason is why the function of feature is off in r ("" when on).
func offReason(r BackendReport, feature, fn string) string {
	on := r.SignInFunction
	if feature == featureRecordSession {
		on = r.RecordFunction
	}
	switch {
	case on:
		return ""
	case r.Off[feature] != "":
		return r.Off[feature]
	case r.Package != "" && !slices.Contains(r.Features, feature):
		return "the server package has " + feature + " off"
	}
	return fn + " is not on the backend"
}

// askBackend asks the backend everything a BackendReport holds, the questions at once. The error is the backend's
// failure to answer the first one (the server package's info): the report is then not usable.
func (b *ClientBackend) askBackend(ctx context.Context) (BackendReport, error) {
	r := BackendReport{At: b.life.now()}
	master := b.base.HasMasterKey()
	var wg sync.WaitGroup
	var infoErr, infoRefused error
	var resp struct {
		Result struct {
			Name        string            `json:"name"`
			Version     string            `json:"version"`
			Features    []string          `json:"features"`
			ParseServer string            `json:"parseServer"`
			Database    string            `json:"database"`
			Off         map[string]string `json:"off"`
		} `json:"result"`
	}
	info := &resp.Result
	stock := false
	wg.Go(func() {
		c := b.noIdem
		if master {
			c = c.WithMasterKey()
		}
		infoErr = c.Request(ctx, http.MethodPost, "functions/"+ServerInfoFunction, map[string]any{}, &resp)
		switch {
		case invalidFunction(infoErr, ServerInfoFunction):
			stock, infoErr = true, nil
		case isParseAnswer(infoErr):
			// Another refusal (a cloud hook of the app, a proxy's rule): no usable info; ask the functions.
			stock, infoRefused, infoErr = true, infoErr, nil
		}
	})
	wg.Go(func() { r.ServerTime, r.Idempotency = b.serverTimeAndIdempotency(ctx) })
	if b.liveQueryURL != "" {
		r.LiveQueryChecked = true
		wg.Go(func() { r.LiveQuery = b.liveQueryAnswers(ctx) })
	}
	wg.Wait()
	if infoErr != nil {
		return r, infoErr
	}
	if !stock {
		r.Package, r.Version, r.Features, r.Off = info.Name, info.Version, info.Features, info.Off
		r.ParseServer, r.Database = info.ParseServer, info.Database
		if r.Package == "" {
			r.Package = "moralis-go-server"
		}
	}
	if master {
		// A feature the package lists is on, one it reports off is off; of any other (no package, or one that
		// does not report that feature yet) the function itself is asked.
		var sErr, rErr error
		for _, fn := range []struct {
			feature, name string
			on            *bool
			err           *error
		}{{featureSignIn, SignInFunction, &r.SignInFunction, &sErr}, {featureRecordSession, RecordSessionFunction, &r.RecordFunction, &rErr}} {
			switch {
			case slices.Contains(r.Features, fn.feature):
				*fn.on = true
			case r.Off[fn.feature] == "":
				wg.Go(func() { *fn.on, *fn.err = b.functionExists(ctx, fn.name) })
			}
		}
		wg.Wait()
		if err := errors.Join(sErr, rErr); err != nil {
			return r, err
		}
	}
	r.Missing = missing(r, master)
	if infoRefused != nil {
		r.Missing = append(r.Missing, ServerInfoFunction+" refused the question: "+infoRefused.Error())
	}
	return r, nil
}

// functionExists reports whether the backend has the master-key function fn: it is called with empty parameters,
// which a function of the server package refuses without doing anything; only parse-server's exact "Invalid
// function" answer means it is absent. A failure that is not an answer (in doubt, a 5xx) is an error.
func (b *ClientBackend) functionExists(ctx context.Context, fn string) (bool, error) {
	err := b.noIdem.WithMasterKey().Request(ctx, http.MethodPost, "functions/"+fn, map[string]any{}, nil)
	var pe *parse.Error
	switch {
	case err == nil:
		return true, nil
	case invalidFunction(err, fn):
		return false, nil
	case errors.As(err, &pe) && pe.Status >= 400 && pe.Status < 500:
		return true, nil // its refusal of the empty parameters
	}
	return false, fmt.Errorf("authserver: asking whether the backend has %s: %w", fn, err)
}

// serverTimeAndIdempotency asks getServerTime twice with one X-Parse-Request-Id (with the JavaScript key, as the
// SDK does): the first answer tells whether it answers, the second whether the backend deduplicates requests
// ("Duplicate request", code 159: its idempotencyOptions cover functions; it stores the id whatever the function
// answers). getServerTime changes nothing, so sending it twice is harmless.
func (b *ClientBackend) serverTimeAndIdempotency(ctx context.Context) (serverTime, idempotency bool) {
	rctx := client.WithRequestID(ctx, uuid.NewString())
	var out struct {
		DateTime string `json:"dateTime"`
	}
	err := b.base.Cloud.Call(rctx, "getServerTime", nil, &out)
	serverTime = err == nil && out.DateTime != ""
	if err != nil && !isParseAnswer(err) {
		return serverTime, false // no answer: nothing to learn from a second request
	}
	err = b.base.Cloud.Call(rctx, "getServerTime", nil, nil)
	var pe *parse.Error
	return serverTime, errors.As(err, &pe) && pe.Code == parse.CodeDuplicateRequest
}

// isParseAnswer reports whether err is an answer of parse-server (a refusal with a code), not a failure to reach it.
func isParseAnswer(err error) bool {
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Code != 0 && pe.Status >= 400 && pe.Status < 500
}

// liveQueryAnswers reports whether the LiveQuery server at BackendConfig.LiveQueryURL answers a connect.
func (b *ClientBackend) liveQueryAnswers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	lc, err := live.Dial(ctx, live.Config{URL: b.liveQueryURL, AppID: b.cfg.AppID, JavaScriptKey: b.cfg.JavaScriptKey,
		InstallationID: uuid.NewString()})
	if err != nil {
		return false
	}
	_ = lc.Close()
	return true
}

// invalidFunction reports whether err is parse-server's answer for a cloud function it does not have, exactly
// (a trigger's error that only mentions it does not count).
func invalidFunction(err error, fn string) bool {
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Code == parse.CodeScriptFailed && pe.Message == `Invalid function: "`+fn+`"`
}

// missing lists what r lacks and what each costs, for the log line and BackendReport.Missing.
func missing(r BackendReport, master bool) []string {
	var out []string
	if r.Package == "" {
		out = append(out, "no moralis-go server package ("+ServerInfoFunction+" is not on the backend: a stock "+
			"parse-server, an original Moralis v1 server or an older package; mount the package, server/README.md)")
	}
	for _, f := range []string{featureTickets, featureSignIn, featureRecordSession} {
		if why := r.Off[f]; why != "" {
			out = append(out, "feature "+f+" off: "+why)
		}
	}
	switch {
	case !master:
		out = append(out, "no master key: no sign-in tickets, no session records (any session the backend "+
			"confirms is accepted, sessions do not roll: the endpoint is not the one door in), no one-request sign-in")
	case !r.RecordFunction:
		out = append(out, "no "+RecordSessionFunction+": sessions are not recorded (any session the backend "+
			"confirms is accepted: no one-door guarantee; sessions do not roll: the backend's session length applies)")
	}
	if master && !r.SignInFunction {
		cost := "a returning wallet signs in by parse-server's login (2 backend requests instead of 1, about twice " +
			"parse-server's CPU), a new one costs 3"
		if !r.RecordFunction {
			cost = "a returning wallet signs in by parse-server's login (1 backend request, about twice parse-server's " +
				"CPU), a new one costs 2"
		}
		out = append(out, "no "+SignInFunction+": "+cost)
	}
	if r.Package != "" && !slices.Contains(r.Features, featureTickets) && r.Off[featureTickets] == "" {
		out = append(out, "the adapters require no tickets: a signature signs in past the endpoint")
	}
	if !r.ServerTime {
		out = append(out, "no getServerTime: the SDK's direct sign-in (auth.SignInEthereum, SignInSolana) fails "+
			"without moralisAuthRequestMessage")
	}
	if !r.Idempotency {
		out = append(out, "no idempotency (idempotencyOptions): a write whose answer was lost is not sent again "+
			"(the SDK reports it in doubt)")
	}
	if r.LiveQueryChecked && !r.LiveQuery {
		out = append(out, "LiveQuery does not answer at BackendConfig.LiveQueryURL: live streams fail")
	}
	return out
}

// reportLine is the one line logged of r.
func reportLine(r BackendReport) string {
	var b strings.Builder
	b.WriteString("authserver: backend check: ")
	if r.Package != "" {
		b.WriteString(r.Package)
		if r.Version != "" {
			b.WriteString(" " + r.Version)
		}
	} else {
		b.WriteString("no server package")
	}
	if r.ParseServer != "" {
		b.WriteString(" on parse-server " + r.ParseServer)
	}
	if r.Database != "" {
		b.WriteString(" (" + r.Database + ")")
	}
	if len(r.Missing) == 0 {
		b.WriteString(": everything the endpoint uses is there (returning wallet 1 request, sessions recorded, " +
			"getServerTime, idempotency")
		if r.LiveQueryChecked {
			b.WriteString(", LiveQuery")
		}
		b.WriteString(")")
		return b.String()
	}
	b.WriteString("; missing: ")
	b.WriteString(strings.Join(r.Missing, "; "))
	return b.String()
}

// signInUsable reports whether SignInFunction is to be called (master key, not known off).
func (b *ClientBackend) signInUsable() bool { return b.functionOn(&b.caps.signIn) }

// recording reports whether this endpoint records its sessions and accepts only recorded ones: with the master
// key, unless the backend is known to lack RecordSessionFunction.
func (b *ClientBackend) recording() bool { return b.functionOn(&b.caps.record) }

// functionOn reports whether a master-key function of the backend (st) is to be used: with the master key, unless
// it is known to be off.
func (b *ClientBackend) functionOn(st *fnState) bool {
	if !b.base.HasMasterKey() {
		return false
	}
	b.caps.mu.Lock()
	defer b.caps.mu.Unlock()
	return !st.off
}

// turnOff records that the function of st is off until the next check, for reason, and logs the change once.
func (b *ClientBackend) turnOff(which *fnState, fn, reason, cost string) {
	c := b.caps
	c.mu.Lock()
	was := which.off
	*which = fnState{off: true, reason: reason}
	c.at = b.life.now() // the next check comes RecheckInterval from now
	c.mu.Unlock()
	if !was {
		b.logger.Warn("authserver: "+fn+" turned off until the next check: "+cost, "reason", reason,
			"recheck", b.recheck.String())
	}
}

// signInFailed counts a failure of SignInFunction (its reason logged); the signInFailureLimit-th in a row turns
// the function off until the next check.
func (b *ClientBackend) signInFailed(reason string) {
	c := b.caps
	c.mu.Lock()
	c.failures++
	n := c.failures
	c.mu.Unlock()
	b.logger.Warn("authserver: "+SignInFunction+" failed; the wallet signs in by parse-server's login instead",
		"reason", reason, "inARow", n)
	if n >= signInFailureLimit {
		b.turnOff(&c.signIn, SignInFunction, fmt.Sprintf("%d failures in a row, the last: %s", n, reason),
			"returning wallets sign in by parse-server's login")
	}
}

// signInWorked clears SignInFunction's failures in a row.
func (b *ClientBackend) signInWorked() {
	b.caps.mu.Lock()
	b.caps.failures = 0
	b.caps.mu.Unlock()
}

// loggerOr is l, or slog.Default() when l is nil.
func loggerOr(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
