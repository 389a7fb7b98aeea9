package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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

// Set keeps u (with its session token) as the signed-in user. A nil user is an error; use Clear to forget. A
// password set on u is never kept.
func (cu *CurrentUser) Set(u *User) error {
	if u == nil || u.Object == nil {
		return errors.New("moralis: CurrentUser.Set needs a user")
	}
	return cu.keep(u, "")
}

// keep stores u, without its password; when u carries no session token, token (the kept user's) is stored with it.
func (cu *CurrentUser) keep(u *User, token string) error {
	b, err := json.Marshal(u.Object)
	if err != nil {
		return fmt.Errorf("moralis: keeping the current user: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("moralis: keeping the current user: %w", err)
	}
	delete(m, "password")
	// Included objects (FetchWithInclude) are kept whole, not as the pointers a save would send.
	for k, v := range u.Fields() {
		if full, ok := wholeObjects(v); ok {
			m[k] = full
		}
	}
	if _, ok := m["sessionToken"].(string); !ok && token != "" {
		m["sessionToken"] = token
	}
	if b, err = json.Marshal(m); err != nil {
		return fmt.Errorf("moralis: keeping the current user: %w", err)
	}
	return cu.storage.Set(cu.key, string(b))
}

// wholeObjects gives the full JSON of a loaded object (one with data), or of a list holding some, and false for
// anything else (kept in its usual wire form).
func wholeObjects(v any) (any, bool) {
	switch x := v.(type) {
	case *parse.Object:
		if x == nil || x.ID() == "" || len(x.Fields()) == 0 {
			return nil, false
		}
		b, err := json.Marshal(x)
		return json.RawMessage(b), err == nil
	case []any:
		out := make([]any, len(x))
		some := false
		for i, e := range x {
			full, ok := wholeObjects(e)
			if !ok {
				enc, err := parse.Encode(e)
				if err != nil {
					return nil, false
				}
				full = enc
			}
			out[i], some = full, some || ok
		}
		return out, some
	}
	return nil, false
}

// keepIfCurrent stores u when it is the kept user (the same objectId), keeping the kept session token when u
// has none; any other user changes nothing, unless always is set (then u is kept in any case).
func (cu *CurrentUser) keepIfCurrent(u *User, always bool) error {
	kept, err := cu.Get()
	if err != nil && !always {
		return err
	}
	if kept != nil && u.ID() != "" && kept.ID() == u.ID() {
		return cu.keep(u, kept.SessionToken())
	}
	if always {
		return cu.keep(u, "")
	}
	return nil
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

// SignUp signs u up (Users.SignUp) and keeps it, as the original's signUp makes the new user the current one.
// For the kept anonymous user (see LogInAnonymously) it is the upgrade to a regular user: set a username and a
// password on it first.
func (cu *CurrentUser) SignUp(ctx context.Context, u *User) error {
	if err := cu.c.Users.SignUp(ctx, u); err != nil {
		return err
	}
	return cu.keepIfCurrent(u, true)
}

// LogInAnonymously signs in as a new anonymous user (Users.LogInAnonymously) and keeps it, as the original's
// AnonymousUtils.logIn does.
func (cu *CurrentUser) LogInAnonymously(ctx context.Context) (*User, error) {
	u, err := cu.c.Users.LogInAnonymously(ctx)
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

// Save saves u acting as u (Objects.Save sends a user's own session token) and, when u is the kept user (the same
// objectId), keeps its saved state, as the original updates the stored current user on save: a profile saved
// here reads the same from Get after a restart. Save the kept user through this method (or call Set after
// Objects.Save): a save through Objects alone leaves the stored copy as it was. Nothing is kept when the save
// fails.
func (cu *CurrentUser) Save(ctx context.Context, u *User) error {
	if u == nil || u.Object == nil {
		return errors.New("moralis: CurrentUser.Save needs a user")
	}
	if err := cu.c.Objects.Save(ctx, u); err != nil {
		return err
	}
	return cu.keepIfCurrent(u, false)
}

// Fetch reloads the kept user from the server (acting as it) and keeps the answer, as the original's fetch of the
// current user does; it returns the user (nil, and no error, when nobody is signed in).
func (cu *CurrentUser) Fetch(ctx context.Context) (*User, error) { return cu.FetchWithInclude(ctx) }

// FetchWithInclude is Fetch that also loads the objects the given pointer fields point to (see
// ObjectsService.FetchWithInclude); the kept copy holds them whole (top-level fields and lists of them).
func (cu *CurrentUser) FetchWithInclude(ctx context.Context, keys ...string) (*User, error) {
	u, err := cu.Get()
	if err != nil || u == nil {
		return nil, err
	}
	v := cu.c.WithSessionToken(u.SessionToken())
	if len(keys) == 0 {
		err = v.Objects.Fetch(ctx, u)
	} else {
		err = v.Objects.FetchWithInclude(ctx, u, keys...)
	}
	if err != nil {
		return nil, err
	}
	return u, cu.keepIfCurrent(u, false)
}

// LogOutError is CurrentUser.LogOut's error when the user was forgotten locally but the server was not told:
// the session (SessionToken) may still be valid there. Revoke it later with
// client.WithSessionToken(e.SessionToken).Users.LogOut, or leave it to expire. Err is the server call's error.
type LogOutError struct {
	// SessionToken is the session that was not revoked. Error() never shows it.
	SessionToken string
	// Err is why (a network error, a refused call...).
	Err error
}

// Error says that the local log-out happened and why the server's did not.
func (e *LogOutError) Error() string {
	return "moralis: logged out locally, but the session was not revoked on the server: " + e.Err.Error()
}

// Unwrap returns Err.
func (e *LogOutError) Unwrap() error { return e.Err }

// LogOut forgets the kept user, then revokes its session on the server, in the original's order: the local user
// is forgotten first, so a log-out without a network still signs out on this device. Nobody signed in is not an
// error. As in the original, only a revocable session ("r:" tokens) is revoked (POST logout), and an anonymous
// user is deleted first (it could never sign in again). When the server is not told, the error is a
// *LogOutError holding the session still to revoke.
func (cu *CurrentUser) LogOut(ctx context.Context) error {
	u, getErr := cu.Get()
	if err := cu.Clear(); err != nil {
		return err
	}
	if getErr != nil {
		return fmt.Errorf("moralis: logged out locally; the kept user could not be read, so its session was not revoked: %w", getErr)
	}
	tok := ""
	if u != nil {
		tok = u.SessionToken()
	}
	if !strings.Contains(tok, "r:") {
		return nil
	}
	v := cu.c.WithSessionToken(tok)
	if u.IsAnonymous() {
		if err := v.Objects.Destroy(ctx, u); err != nil && !errors.Is(err, parse.ErrObjectNotFound) {
			return &LogOutError{SessionToken: tok, Err: err}
		}
	}
	if err := v.Users.LogOut(ctx); err != nil {
		return &LogOutError{SessionToken: tok, Err: err}
	}
	return nil
}
