package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/c13f5054/moralis-go/parse"
)

// CurrentUser keeps the signed-in user of one app in a Storage, as the original keeps Parse.User.current(): a
// command-line program with a FileStorage stays signed in between runs. It is the only place the SDK keeps a
// user; a Client never does, so no view of a client can change who is signed in.
//
// A CurrentUser is safe for concurrent use as far as its Storage is (MemoryStorage and FileStorage are).
type CurrentUser struct {
	c       *Client
	storage Storage
	key     string
}

// NewCurrentUser returns the current-user keeper of c's app in storage (nil: a new MemoryStorage). The user is
// kept under CurrentUserKey(c.AppID()).
func NewCurrentUser(c *Client, storage Storage) (*CurrentUser, error) {
	if c == nil {
		return nil, errors.New("moralis: NewCurrentUser needs a client")
	}
	if storage == nil {
		storage = NewMemoryStorage()
	}
	return &CurrentUser{c: c, storage: storage, key: CurrentUserKey(c.AppID())}, nil
}

// Get returns the kept user, or nil (and no error) when nobody is signed in.
func (cu *CurrentUser) Get() (*User, error) {
	s, ok, err := cu.storage.Get(cu.key)
	if err != nil || !ok || s == "" {
		return nil, err
	}
	o := parse.NewObject(UserClass)
	if err := o.UnmarshalJSON([]byte(s)); err != nil {
		return nil, fmt.Errorf("moralis: the stored current user is unreadable: %w", err)
	}
	return UserFromObject(o), nil
}

// Set keeps u (with its session token) as the signed-in user. A nil user is an error; use Clear to forget.
func (cu *CurrentUser) Set(u *User) error {
	if u == nil || u.Object == nil {
		return errors.New("moralis: CurrentUser.Set needs a user")
	}
	b, err := json.Marshal(u.Object)
	if err != nil {
		return fmt.Errorf("moralis: keeping the current user: %w", err)
	}
	return cu.storage.Set(cu.key, string(b))
}

// Clear forgets the kept user without telling the server (the session stays valid; see LogOut).
func (cu *CurrentUser) Clear() error { return cu.storage.Remove(cu.key) }

// Client returns a view of the client acting as the kept user (WithSessionToken), or the client itself when
// nobody is signed in.
func (cu *CurrentUser) Client() (*Client, error) {
	u, err := cu.Get()
	if err != nil || u == nil || u.SessionToken() == "" {
		return cu.c, err
	}
	return cu.c.WithSessionToken(u.SessionToken()), nil
}

// LogIn signs in with a username and password (Users.LogIn) and keeps the user.
func (cu *CurrentUser) LogIn(ctx context.Context, username, password string) (*User, error) {
	u, err := cu.c.Users.LogIn(ctx, username, password)
	if err != nil {
		return nil, err
	}
	return u, cu.Set(u)
}

// Become checks a session token with the server (GET users/me) and keeps its user. A bad token gives
// ErrInvalidSessionToken and keeps nothing.
func (cu *CurrentUser) Become(ctx context.Context, sessionToken string) (*User, error) {
	if sessionToken == "" {
		return nil, fmt.Errorf("moralis: become: %w", ErrSessionTokenRequired)
	}
	u, err := cu.c.WithSessionToken(sessionToken).Users.Me(ctx)
	if err != nil {
		return nil, err
	}
	return u, cu.Set(u)
}

// LogOut revokes the kept user's session on the server and forgets the user. Nobody signed in is not an error.
// The user is forgotten only once the server has answered (or no longer knows the session), so a failed log-out
// can be tried again.
func (cu *CurrentUser) LogOut(ctx context.Context) error {
	u, err := cu.Get()
	if err != nil {
		return err
	}
	if u != nil && u.SessionToken() != "" {
		if err := cu.c.WithSessionToken(u.SessionToken()).Users.LogOut(ctx); err != nil {
			return err
		}
	}
	return cu.Clear()
}
