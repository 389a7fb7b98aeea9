package authserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// Sessions that roll. A session that ClientBackend made (with a master key: see "Sessions of this endpoint only")
// lives while it is used, up to a cap, and only for the wallet that signed it in:
//
//   - Sliding expiry: it ends Config.SessionIdleTTL after it was made or last extended. A request that the backend
//     confirms (/me, /link, /unlink, GuardLive, the data proxy) once more than half of that time has passed moves
//     the end to now + SessionIdleTTL, so an active session is extended about once per half-lifetime, not written
//     on every request.
//   - Absolute cap: never past Config.SessionMaxAge after the sign-in, however active; then a new signature is
//     needed.
//   - Binding: it is bound to the chain, address and chain id it was signed for. It ends when that address is no
//     longer one of the user's (unlinked), when the endpoint is configured for another chain id (Config.ChainID,
//     SolanaChainID), and when the same browser signs in again (POST /signin with a session ends that session:
//     another account, or the same one, replaces it).
//
// The end is kept in the session's record (class DefaultSessionClass, master key only, the endpoint's clock) and
// mirrored in the backend's own _Session.expiresAt, so parse-server refuses the token at the same time when it is
// used directly. The session cookie expires with the session (Expires and Max-Age; CookieMaxAge, when set, is an
// upper bound) and is set again whenever the session is extended. An ended session answers 401
// {"code":209,"error":"Invalid session token"}, its cookie is cleared and it is logged out on the backend.
// GuardLive and the data proxy may keep accepting an ended session for up to SessionCacheTTL (their cache).

// DefaultSessionIdleTTL is how long a session lives without being used (Config.SessionIdleTTL).
const DefaultSessionIdleTTL = 7 * 24 * time.Hour

// DefaultSessionMaxAge is the longest a session lives after its sign-in, however active (Config.SessionMaxAge).
const DefaultSessionMaxAge = 30 * 24 * time.Hour

// sessionLife is the rule of rolling sessions that a Handler gives its ClientBackend: the lifetimes, the clock,
// and the chain ids a session must have been signed for (per chain; "" checks none).
type sessionLife struct {
	idle, max time.Duration
	now       func() time.Time
	chainIDs  map[auth.Chain]string
}

// defaultLife is the rule of a ClientBackend used without a Handler (AdoptSession, tests).
func defaultLife() sessionLife {
	return sessionLife{idle: DefaultSessionIdleTTL, max: DefaultSessionMaxAge, now: time.Now}
}

// lifeOf is the rule of the Handler's configuration o (defaults applied).
func lifeOf(o Config) sessionLife {
	return sessionLife{idle: o.SessionIdleTTL, max: o.SessionMaxAge, now: o.Now, chainIDs: map[auth.Chain]string{
		auth.ChainEVM: strconv.FormatUint(o.ChainID, 10), auth.ChainSolana: o.SolanaChainID}}
}

// checkSessionLife checks and defaults the lifetimes of o (the one configuration rule: zero is the default,
// negative an error).
func checkSessionLife(o *Config) error {
	switch {
	case o.SessionIdleTTL < 0:
		return errors.New("authserver: Config.SessionIdleTTL must not be negative")
	case o.SessionMaxAge < 0:
		return errors.New("authserver: Config.SessionMaxAge must not be negative")
	}
	if o.SessionIdleTTL == 0 {
		o.SessionIdleTTL = DefaultSessionIdleTTL
	}
	if o.SessionMaxAge == 0 {
		o.SessionMaxAge = DefaultSessionMaxAge
	}
	if o.SessionIdleTTL > o.SessionMaxAge {
		return errors.New("authserver: Config.SessionIdleTTL must not exceed SessionMaxAge")
	}
	return nil
}

// handlerBound is a Backend that takes rules of the Handler that uses it: NewHandler calls withHandler and uses
// the Backend it returns (ClientBackend: a copy sharing its client, locks and what it learned of the backend, that
// rolls its sessions by the Handler's rule and logs to the Handler's Config.Logger unless BackendConfig.Logger
// was given).
type handlerBound interface {
	withHandler(l sessionLife, logger *slog.Logger) Backend
}

func (b *ClientBackend) withHandler(l sessionLife, logger *slog.Logger) Backend {
	v := *b
	v.life = l
	if !b.loggerSet && logger != nil {
		v.logger = logger
	}
	return &v
}

// sessionRecord is the record of a session this endpoint made (see ClientBackend), as read back.
type sessionRecord struct {
	id        string
	expiresAt time.Time // the sliding end
	startedAt time.Time // the sign-in (or adoption); zero in records of older versions
	sessionID string    // the backend's _Session objectId, mirrored on extension; "" when not recorded (found then)
	chain     auth.Chain
	address   string
	chainID   string
}

// sessionBinding is what a session is bound to: the wallet that signed it in (empty for an adopted session).
type sessionBinding struct {
	chain   auth.Chain
	address string
	chainID string
}

// end is when the record's session ends at the latest under l: its sliding end, and the cap from its start.
func (r sessionRecord) end(l sessionLife) time.Time {
	if r.startedAt.IsZero() {
		return r.expiresAt
	}
	return minTime(r.expiresAt, r.startedAt.Add(l.max))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// bindingHolds reports whether the record's binding still holds for user u under l: its address is still one of
// u's, and its chain id the one the endpoint signs in on. A record without a binding (adopted) always holds.
func (r sessionRecord) bindingHolds(l sessionLife, u *client.User) bool {
	if r.chain == "" {
		return true
	}
	if want := l.chainIDs[r.chain]; want != "" && r.chainID != want {
		return false
	}
	switch r.chain {
	case auth.ChainEVM:
		return r.address == u.EthAddress() || slices.Contains(u.Accounts(), r.address)
	case auth.ChainSolana:
		return r.address == u.SolAddress() || slices.Contains(u.SolAccounts(), r.address)
	}
	return false
}

// batch sends requests (method, path relative to the server URL, body) through the backend's /batch with the
// master key in one round trip, and returns the first sub-request's error.
func (b *ClientBackend) batch(ctx context.Context, reqs ...map[string]any) error {
	u, err := url.Parse(b.cfg.ServerURL)
	if err != nil {
		return err
	}
	mount := strings.TrimSuffix(u.Path, "/")
	for _, r := range reqs {
		r["path"] = mount + "/" + r["path"].(string)
	}
	var answers []struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"error"`
		} `json:"error"`
	}
	if err := b.base.WithMasterKey().Request(ctx, http.MethodPost, "batch", map[string]any{"requests": reqs}, &answers); err != nil {
		return err
	}
	if len(answers) != len(reqs) {
		return fmt.Errorf("authserver: batch answered %d results for %d requests", len(answers), len(reqs))
	}
	for i, a := range answers {
		if a.Error != nil {
			return &parse.Error{Code: parse.Code(a.Error.Code), Message: a.Error.Message,
				Op: fmt.Sprint(reqs[i]["method"], " ", reqs[i]["path"])}
		}
	}
	return nil
}

// parseDate is a Parse Date value for a JSON body.
func parseDate(t time.Time) map[string]any {
	return map[string]any{"__type": "Date", "iso": t.UTC().Format("2006-01-02T15:04:05.000Z")}
}

// backendSessionID returns the objectId of tok's _Session (master key).
func (b *ClientBackend) backendSessionID(ctx context.Context, tok string) (string, error) {
	var resp struct {
		Results []struct {
			ObjectID string `json:"objectId"`
		} `json:"results"`
	}
	err := b.base.WithMasterKey().Request(ctx, http.MethodGet, "classes/_Session",
		map[string]any{"where": map[string]any{"sessionToken": tok}, "limit": 1, "keys": "objectId"}, &resp)
	if err != nil {
		return "", fmt.Errorf("authserver: finding the backend session: %w", err)
	}
	if len(resp.Results) == 0 {
		return "", errors.New("authserver: the backend has no session for the token")
	}
	return resp.Results[0].ObjectID, nil
}

// extend moves the end of rec's session to until, in its record and in the backend's _Session, in one round trip.
func (b *ClientBackend) extend(ctx context.Context, tok string, rec sessionRecord, until time.Time) error {
	if rec.sessionID == "" {
		sid, err := b.backendSessionID(ctx, tok)
		if err != nil {
			return err
		}
		rec.sessionID = sid
	}
	reqs := []map[string]any{{"method": http.MethodPut, "path": "classes/" + DefaultSessionClass + "/" + rec.id,
		"body": map[string]any{"expiresAt": parseDate(until)}}}
	reqs = append(reqs, map[string]any{"method": http.MethodPut, "path": "classes/_Session/" + rec.sessionID,
		"body": map[string]any{"expiresAt": parseDate(until)}})
	if err := b.batch(ctx, reqs...); err != nil {
		return fmt.Errorf("authserver: extending the session: %w", err)
	}
	return nil
}

// endSession ends tok's session on the backend (logout) and deletes its records, on a context of its own (the
// request's may be over); a session the backend no longer knows counts as ended.
func (b *ClientBackend) endSession(ctx context.Context, tok string, recs []sessionRecord) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := b.base.WithSessionToken(tok).Users.LogOut(ctx)
	if len(recs) > 0 {
		objs := make([]*parse.Object, len(recs))
		for i, r := range recs {
			objs[i] = parse.NewObjectWithID(DefaultSessionClass, r.id)
		}
		err = errors.Join(err, b.base.WithMasterKey().Objects.DestroyAll(ctx, objs))
	}
	return err
}

// slideKey is the context key of the pipeline's slideSink.
type slideKey struct{}

// slideSink is where a Backend reports, during one request, that it extended the request's session (until: the
// new end; the pipeline then sets the cookie again with it), and when the session ends as of this request (end,
// max: see ReportSessionEnd).
type slideSink struct{ until, end, max time.Time }

// withSlideSink returns ctx with a new sink for reportSlide.
func withSlideSink(ctx context.Context) (context.Context, *slideSink) {
	s := &slideSink{}
	return context.WithValue(ctx, slideKey{}, s), s
}

// reportSlide tells the request's pipeline (if any) that its session now ends at until.
func reportSlide(ctx context.Context, until time.Time) {
	if s, ok := ctx.Value(slideKey{}).(*slideSink); ok {
		s.until = until
	}
}

// ReportSessionEnd is for a Backend of your own: called from Me, Link or Unlink with the ctx the Handler gave it,
// it tells the Handler when the request's session ends (end: unless used before; max: however used, zero when
// unknown), and the answer carries it (SessionEnd). ClientBackend calls it. Outside a Handler's request it does
// nothing; a zero end reports nothing.
func ReportSessionEnd(ctx context.Context, end, max time.Time) {
	if s, ok := ctx.Value(slideKey{}).(*slideSink); ok && !end.IsZero() {
		s.end, s.max = end, max
	}
}

// capOf is the cap of a session that this rule made with the end until (until = start + idle, idle <= max).
func (l sessionLife) capOf(until time.Time) time.Time {
	if until.IsZero() {
		return time.Time{}
	}
	return until.Add(l.max - l.idle)
}

// newRecord is the body of a new record of tok (see ClientBackend): its key, start, end and binding, empty ACL.
func (b *ClientBackend) newRecord(tok string, now, until time.Time, bind sessionBinding) map[string]any {
	rec := map[string]any{recordKey: b.sessionKey(tok), recordExpiresAt: parseDate(until), recordStartedAt: parseDate(now),
		"ACL": map[string]any{}}
	if bind.chain != "" {
		rec[recordChain], rec[recordAddress], rec[recordChainID] = string(bind.chain), bind.address, bind.chainID
	}
	return rec
}
