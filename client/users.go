package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"

	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// UserClass is the backend's user class.
const UserClass = "_User"

// Validation errors of the user calls (the original client's texts).
var (
	ErrEmptyUsername   = errors.New("Cannot sign up user with an empty username.")
	ErrEmptyPassword   = errors.New("Cannot sign up user with an empty password.")
	ErrNoSessionToken  = errors.New("Cannot upgrade a user with no session token")
	ErrCouldNotGetUser = errors.New("Could not get user")
)

// User is a backend user: an Object of class _User with typed accessors for the wallet fields. The embedded
// Object gives Get, Set, AddUnique, SetACL and the rest. Not safe for concurrent mutation.
type User struct {
	*parse.Object
}

// NewUser returns an empty, unsaved user.
func NewUser() *User { return &User{Object: parse.NewObject(UserClass)} }

// UserFromObject views an object of class _User as a User.
func UserFromObject(o *parse.Object) *User { return &User{Object: o} }

// Username is the user's username.
func (u *User) Username() string { return u.String("username") }

// SetUsername sets the username. On an anonymous user it also unlinks the anonymous identity (authData.anonymous
// becomes null, sent with the next save), as the original does: with a password, SignUp then turns the anonymous
// user into a regular one, keeping its id and data.
func (u *User) SetUsername(s string) {
	if ad := u.AuthData(); ad != nil {
		if _, ok := ad[AnonymousProvider]; ok {
			cp := maps.Clone(ad)
			cp[AnonymousProvider] = nil
			u.Set("authData", cp)
		}
	}
	u.Set("username", s)
}

// SetPassword sets the password (sent by the next save, never kept after it).
func (u *User) SetPassword(s string) { u.Set("password", s) }

// Email is the user's email.
func (u *User) Email() string { return u.String("email") }

// SetEmail sets the email.
func (u *User) SetEmail(s string) { u.Set("email", s) }

// SessionToken is the user's session token ("" when not signed in).
func (u *User) SessionToken() string { return u.String("sessionToken") }

// EthAddress is the user's current Ethereum address (lower-cased).
func (u *User) EthAddress() string { return u.String("ethAddress") }

// Accounts are the user's linked Ethereum addresses.
func (u *User) Accounts() []string { return u.Strings("accounts") }

// SolAccounts are the user's linked Solana addresses, without duplicates.
func (u *User) SolAccounts() []string { return dedupe(u.Strings("solAccounts")) }

// SolAddress is the user's current Solana address: solAddress, else the first of SolAccounts.
func (u *User) SolAddress() string {
	if s := u.String("solAddress"); s != "" {
		return s
	}
	if acc := u.SolAccounts(); len(acc) > 0 {
		return acc[0]
	}
	return ""
}

// AuthData is the user's linked auth providers' data (as far as the server shows it).
func (u *User) AuthData() map[string]any { m, _ := u.Get("authData").(map[string]any); return m }

// AnonymousProvider is the auth provider name of anonymous users (authData.anonymous).
const AnonymousProvider = "anonymous"

// IsAnonymous reports whether the user is linked to the anonymous provider (the original's
// AnonymousUtils.isLinked): authData.anonymous is present and not null.
func (u *User) IsAnonymous() bool { return u.AuthData()[AnonymousProvider] != nil }

func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (c *Client) userFromAnswer(resp map[string]any, into *User) (*User, error) {
	if resp == nil {
		return nil, ErrCouldNotGetUser
	}
	if into == nil {
		into = NewUser()
	}
	if err := objstate.Of(into.Object).MergeServer(resp); err != nil {
		return nil, err
	}
	if into.ID() == "" {
		return nil, ErrCouldNotGetUser
	}
	return into, nil
}

// SignUp creates the user (username and password must be set) and signs it in: the answer's session token is
// kept on the user (keep the user with CurrentUser.Set, or sign up through CurrentUser.SignUp, to stay signed in).
// A user that already exists (an anonymous user with a username and password set on it) is saved instead, acting
// as itself: that is the upgrade of an anonymous user to a regular one, as in Parse (see SetUsername).
func (s *UsersService) SignUp(ctx context.Context, u *User) error {
	c := s.client
	if u == nil {
		return errors.New("moralis: SignUp needs a user")
	}
	if u.Username() == "" {
		return ErrEmptyUsername
	}
	if s, _ := u.Get("password").(string); s == "" {
		return ErrEmptyPassword
	}
	if err := c.Objects.Save(ctx, u); err != nil {
		return err
	}
	objstate.Of(u.Object).Forget("password")
	return nil
}

// LogIn signs a user in with username and password (POST login) and returns it with its session token. It keeps
// nothing: act as the user with Client.WithSessionToken(u.SessionToken()), or keep it with CurrentUser.
func (s *UsersService) LogIn(ctx context.Context, username, password string) (*User, error) {
	c := s.client
	var resp map[string]any
	rc := c.call(http.MethodPost, "login", map[string]any{"username": username, "password": password})
	rc.Replay = httpx.ReplayAlways // a log-in changes no data; a repeated one only opens another session
	if err := c.do(ctx, rc, &resp); err != nil {
		return nil, err
	}
	return c.userFromAnswer(resp, nil)
}

// LogInOrSignUp logs in; when the server answers code 101 (no such user or wrong password) it signs up instead.
func (s *UsersService) LogInOrSignUp(ctx context.Context, username, password string) (*User, error) {
	c := s.client
	u, err := c.Users.LogIn(ctx, username, password)
	if err == nil || !errors.Is(err, parse.ErrObjectNotFound) {
		return u, err
	}
	nu := NewUser()
	nu.SetUsername(username)
	nu.SetPassword(password)
	if err := c.Users.SignUp(ctx, nu); err != nil {
		return nil, err
	}
	return nu, nil
}

// LogInWith signs in through an auth provider (POST users {"authData":{provider: authData}}): the server
// signs a new identity up (201) and logs a known one in (200). The user's AuthData holds the provider's data as
// sent. It keeps nothing (see CurrentUser).
func (s *UsersService) LogInWith(ctx context.Context, provider string, authData map[string]any) (*User, error) {
	c := s.client
	if provider == "" {
		return nil, errors.New("moralis: Users.LogInWith needs a provider name")
	}
	body := map[string]any{"authData": map[string]any{provider: authData}}
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodPost, "users", body), &resp); err != nil {
		return nil, err
	}
	// The answer leaves authData out; the user holds what was sent, as the original's does.
	if resp != nil {
		ad, _ := resp["authData"].(map[string]any)
		if ad == nil {
			ad = map[string]any{}
		}
		if _, ok := ad[provider]; !ok {
			ad[provider] = authData
		}
		resp["authData"] = ad
	}
	u, err := c.userFromAnswer(resp, nil)
	if err != nil {
		return nil, err
	}
	if u.SessionToken() == "" {
		return nil, ErrCouldNotGetUser
	}
	return u, nil
}

// LogInAnonymously signs in as a new anonymous user (POST users with authData.anonymous.id a random UUID), as the
// original's AnonymousUtils.logIn does; the server must allow anonymous users (parse-server's default). It keeps
// nothing (see CurrentUser.LogInAnonymously). The user has no username or password: upgrade it to a regular user
// with SetUsername, SetPassword and SignUp, or link another provider to it.
func (s *UsersService) LogInAnonymously(ctx context.Context) (*User, error) {
	return s.LogInWith(ctx, AnonymousProvider, anonymousAuthData())
}

// LinkAnonymous links a new anonymous identity to the signed-in user u (the original's AnonymousUtils.link).
func (s *UsersService) LinkAnonymous(ctx context.Context, u *User) error {
	return s.Link(ctx, u, AnonymousProvider, anonymousAuthData())
}

// anonymousAuthData is the original's anonymous auth data: a random version-4 UUID as the id.
func anonymousAuthData() map[string]any { return map[string]any{"id": uuid.NewString()} }

// Link links an auth provider to the signed-in user u (PUT users/{id} with u's session token).
func (s *UsersService) Link(ctx context.Context, u *User, provider string, authData map[string]any) error {
	c := s.client
	return c.setAuthData(ctx, u, provider, authData)
}

// Unlink removes an auth provider from the signed-in user u.
func (s *UsersService) Unlink(ctx context.Context, u *User, provider string) error {
	c := s.client
	return c.setAuthData(ctx, u, provider, nil)
}

func (c *Client) setAuthData(ctx context.Context, u *User, provider string, data map[string]any) error {
	if u == nil || u.ID() == "" {
		return errors.New("moralis: the user must be saved first")
	}
	if provider == "" {
		return errors.New("moralis: a provider name is required")
	}
	var pd any = data
	if data == nil {
		pd = nil
	}
	rc := c.call(http.MethodPut, objectPath(UserClass, u.ID()), map[string]any{"authData": map[string]any{provider: pd}})
	if tok := u.SessionToken(); tok != "" && !c.useMaster {
		rc.SessionToken = tok
	}
	var resp map[string]any
	if err := c.do(ctx, rc, &resp); err != nil {
		return err
	}
	if err := objstate.Of(u.Object).ApplySaved(resp, nil); err != nil {
		return err
	}
	ad := u.AuthData()
	if ad == nil {
		ad = map[string]any{}
	}
	if data == nil {
		delete(ad, provider)
	} else {
		ad[provider] = data
	}
	return objstate.Of(u.Object).ApplySaved(map[string]any{"authData": ad}, nil)
}

// Me returns the user of the view's session token (GET users/me). A bad token gives ErrInvalidSessionToken.
func (s *UsersService) Me(ctx context.Context) (*User, error) {
	c := s.client
	if c.sessionToken == "" {
		return nil, fmt.Errorf("moralis: users/me: %w", ErrSessionTokenRequired)
	}
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, "users/me", nil), &resp); err != nil {
		return nil, err
	}
	u, err := c.userFromAnswer(resp, nil)
	if err != nil {
		return nil, err
	}
	if u.SessionToken() == "" {
		if err := objstate.Of(u.Object).ApplySaved(map[string]any{"sessionToken": c.sessionToken}, nil); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// LogOut revokes the view's session on the server (POST logout). A session the server no longer knows counts as
// logged out. Without a session token it fails with ErrSessionTokenRequired before any request. It keeps no
// state: to forget a kept user as well, use CurrentUser.LogOut.
func (s *UsersService) LogOut(ctx context.Context) error {
	c := s.client
	if c.sessionToken == "" {
		return fmt.Errorf("moralis: logout: %w", ErrSessionTokenRequired)
	}
	rc := c.call(http.MethodPost, "logout", nil)
	rc.Replay = httpx.ReplayAlways // a repeated log-out of a revoked session is refused, harmlessly
	if err := c.do(ctx, rc, nil); err != nil && !errors.Is(err, parse.ErrInvalidSessionToken) {
		return err
	}
	return nil
}

// RequestPasswordReset asks the server to mail a password reset link to email.
func (s *UsersService) RequestPasswordReset(ctx context.Context, email string) error {
	c := s.client
	if email == "" {
		return errors.New("moralis: RequestPasswordReset needs an email")
	}
	return c.do(ctx, c.call(http.MethodPost, "requestPasswordReset", map[string]any{"email": email}), nil)
}

// RequestEmailVerification asks the server to mail a verification link to email.
func (s *UsersService) RequestEmailVerification(ctx context.Context, email string) error {
	c := s.client
	if email == "" {
		return errors.New("moralis: RequestEmailVerification needs an email")
	}
	return c.do(ctx, c.call(http.MethodPost, "verificationEmailRequest", map[string]any{"email": email}), nil)
}

// VerifyPassword checks a username and password without signing in, and returns the user (without a session).
func (s *UsersService) VerifyPassword(ctx context.Context, username, password string) (*User, error) {
	c := s.client
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, "verifyPassword", map[string]any{"username": username, "password": password}), &resp); err != nil {
		return nil, err
	}
	return c.userFromAnswer(resp, nil)
}

// Upgrade exchanges a legacy session token for a revocable one and returns the new token.
// Without a session token it gives "Cannot upgrade a user with no session token" before any request.
func (s *SessionsService) Upgrade(ctx context.Context) (string, error) {
	c := s.client
	if c.sessionToken == "" {
		return "", ErrNoSessionToken
	}
	var resp struct {
		SessionToken string `json:"sessionToken"`
	}
	if err := c.do(ctx, c.call(http.MethodPost, "upgradeToRevocableSession", nil), &resp); err != nil {
		return "", err
	}
	return resp.SessionToken, nil
}
