package auth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/google/uuid"
)

// ClientBackend is the Backend of the Handler over the backend REST API (package client). It is safe for
// concurrent use. The JavaScript key and master key stay inside it; what it returns to the Handler holds
// neither keys nor signatures.
//
// Each sign-in runs on a client with a fresh installation id: parse-server deletes a user's earlier sessions
// that share the installation id of a new login, so one server-wide id would sign a user out of every other
// browser.
type ClientBackend struct {
	cfg  client.Config
	base *client.Client
	opts *Options
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

// SignIn implements Backend: LogIn on a client with a fresh installation id.
func (b *ClientBackend) SignIn(ctx context.Context, m SignedMessage) (*Session, error) {
	cfg := b.cfg
	cfg.InstallationID = uuid.NewString()
	cfg.Storage = nil
	c, err := client.New(cfg)
	if err != nil {
		return nil, mapClientError(err)
	}
	u, err := LogIn(ctx, c, m, b.opts)
	if err != nil {
		return nil, mapClientError(err)
	}
	return &Session{User: PublicUserOf(u), SessionToken: u.SessionToken()}, nil
}

func (b *ClientBackend) me(ctx context.Context, tok string) (*client.Client, *client.User, error) {
	view := b.base.WithSessionToken(tok)
	u, err := view.Me(ctx)
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
	return mapClientError(b.base.WithSessionToken(tok).LogOut(ctx))
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
	var ce *client.Error
	switch {
	case errors.Is(err, ErrCouldNotGetUser):
		return &BackendError{Status: http.StatusBadGateway, Code: CodeObjectNotFound, Message: ErrCouldNotGetUser.Error(), Err: err}
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
