package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/google/uuid"
)

// ClientBackend is the Backend of the Handler over the backend REST API (package client). It is safe for
// concurrent use. The JavaScript key and master key stay inside it; what it returns to the Handler holds
// neither keys nor signatures.
//
// Each sign-in runs on a client with a fresh installation id: parse-server deletes a user's earlier sessions
// that share the installation id of a new login, so one server-wide id would sign a user out of every other
// browser.
//
// With a master key in the configuration (used for nothing else), every sign-in and link carries a one-time
// ticket the backend issues for that message (IssueTicket): this project's backend adapters accept no authData
// without one, so the endpoint stays the one door in and a captured message signs in nowhere. A sign-in that
// loses a race with a concurrent first sign-in of the same wallet is retried with a new ticket. Without a master
// key no ticket is sent (for backends whose adapters do not ask for one).
type ClientBackend struct {
	cfg     client.Config
	base    *client.Client
	opts    *Options
	wallets keyedMutex // one sign-in per wallet at a time
}

// NewClientBackend makes a ClientBackend from a client configuration (ServerURL and AppID required) and the
// flow options (nil for defaults). cfg is copied.
func NewClientBackend(cfg client.Config, opts *Options) (*ClientBackend, error) {
	base, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	var o *Options
	if opts != nil {
		cp := *opts
		o = &cp
	}
	return &ClientBackend{cfg: cfg, base: base, opts: o}, nil
}

// Client returns the backend's base client (no session).
func (b *ClientBackend) Client() *client.Client { return b.base }

// SignIn implements Backend: LogIn on a client with a fresh installation id. Sign-ins of one wallet through one
// ClientBackend run one at a time (others wait, or give up when their context ends), so concurrent sign-ins of a
// wallet do not race to create or update its user on the backend; across several endpoint instances LogIn
// retries the logins that lost such a race.
func (b *ClientBackend) SignIn(ctx context.Context, m SignedMessage) (*Session, error) {
	unlock, err := b.wallets.lock(ctx, string(m.Chain)+":"+strings.ToLower(m.Address))
	if err != nil {
		return nil, err // the context ended: the handler answers 504
	}
	defer unlock()
	cfg := b.cfg
	cfg.InstallationID = uuid.NewString()
	cfg.Storage = nil
	c, err := client.New(cfg)
	if err != nil {
		return nil, mapClientError(err)
	}
	for attempt := 1; ; attempt++ {
		if m, err = b.withTicket(ctx, m); err != nil {
			return nil, mapClientError(err)
		}
		u, err := LogIn(ctx, c, m, b.opts)
		if err == nil {
			return &Session{User: PublicUserOf(u), SessionToken: u.SessionToken()}, nil
		}
		if m.Ticket == "" || attempt == loginRaceAttempts || !lostLoginRace(err) {
			return nil, mapClientError(err)
		}
	}
}

// withTicket returns m with a new one-time ticket for it when the backend client has the master key. An EVM
// signature that does not recover to its address gets a contract-account ticket only after it was verified on
// Options.Chain here (never on the caller's word).
func (b *ClientBackend) withTicket(ctx context.Context, m SignedMessage) (SignedMessage, error) {
	if !b.base.HasMasterKey() {
		return m, nil
	}
	contract := false
	if m.Chain != ChainSolana && b.opts != nil && b.opts.Chain != nil {
		if VerifyEthSignature(m.Address, []byte(m.Message), m.Signature) != nil {
			if err := VerifyEthSignatureContext(ctx, b.opts.Chain, m.Address, []byte(m.Message), m.Signature); err != nil {
				return m, err
			}
			contract = true
		}
	}
	t, err := issueTicket(ctx, b.base, m, DefaultTicketTTL, contract)
	if err != nil {
		return m, err
	}
	m.Ticket = t
	return m, nil
}

func (b *ClientBackend) me(ctx context.Context, tok string) (*client.Client, *client.User, error) {
	view := b.base.WithSessionToken(tok)
	u, err := view.Users.Me(ctx)
	if err != nil {
		return nil, nil, mapClientError(err)
	}
	return view, u, nil
}

// Link implements Backend.
func (b *ClientBackend) Link(ctx context.Context, tok string, m SignedMessage) (*PublicUser, error) {
	view, u, err := b.me(ctx, tok)
	if err != nil {
		return nil, err
	}
	if m, err = b.withTicket(ctx, m); err != nil {
		return nil, mapClientError(err)
	}
	if err := Link(ctx, view, u, m, b.opts); err != nil {
		return nil, mapClientError(err)
	}
	p := PublicUserOf(u)
	return &p, nil
}

// Unlink implements Backend.
func (b *ClientBackend) Unlink(ctx context.Context, tok string, chain Chain, address string) (*PublicUser, error) {
	view, u, err := b.me(ctx, tok)
	if err != nil {
		return nil, err
	}
	if err := Unlink(ctx, view, u, chain, address, b.opts); err != nil {
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

// SignOut implements Backend (POST logout with the session token).
func (b *ClientBackend) SignOut(ctx context.Context, tok string) error {
	return mapClientError(b.base.WithSessionToken(tok).Users.LogOut(ctx))
}

// PublicUserOf copies the fields of u that may be shown to a browser.
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

// mapClientError turns client errors into BackendErrors with a status and a message that is safe to show.
func mapClientError(err error) error {
	if err == nil {
		return nil
	}
	var ce *parse.Error
	switch {
	case errors.Is(err, ErrCouldNotGetUser):
		return &BackendError{Status: http.StatusBadGateway, Code: CodeObjectNotFound, Message: ErrCouldNotGetUser.Error(), Err: err}
	case errors.Is(err, ErrAddressNotLinked):
		return &BackendError{Status: http.StatusNotFound, Code: CodeObjectNotFound, Message: "Address not found", Err: err}
	case errors.Is(err, ErrAddressTaken):
		return &BackendError{Status: http.StatusConflict, Code: 137, Message: "Address is already linked to another user", Err: err}
	case errors.As(err, &ce):
		switch {
		case ce.Code == CodeInvalidSessionToken:
			return &BackendError{Status: http.StatusUnauthorized, Code: ce.Code, Message: "Invalid session token", Err: err}
		case ce.Code == CodeObjectNotFound:
			return &BackendError{Status: http.StatusUnauthorized, Code: ce.Code, Message: ce.Message, Err: err}
		case ce.Code == 208 || ce.Code == 137: // account already linked / duplicate value
			return &BackendError{Status: http.StatusConflict, Code: ce.Code, Message: ce.Message, Err: err}
		case ce.Status >= 400 && ce.Status < 500 && ce.Code != 0:
			return &BackendError{Status: http.StatusBadGateway, Code: ce.Code, Message: ce.Message, Err: err}
		}
	}
	return &BackendError{Status: http.StatusBadGateway, Code: CodeInternal, Message: "Backend error", Err: err}
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
