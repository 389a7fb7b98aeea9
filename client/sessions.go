package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// SessionClass is the backend's session class (REST route "sessions").
const SessionClass = "_Session"

// ErrSessionTokenRequired is returned before any request by the session calls when the view has no session token
// (make one with WithSessionToken, or use AsCurrentUser).
var ErrSessionTokenRequired = errors.New("moralis: this call needs a session token (Client.WithSessionToken)")

// Session is one signed-in session of a user (class _Session). The server makes one at each sign-up and login
// and deletes it at logout; a new login from the same installation id ends that installation's older session.
// Not safe for concurrent mutation.
type Session struct {
	*parse.Object
}

// SessionFromObject views an object of class _Session as a Session.
func SessionFromObject(o *parse.Object) *Session { return &Session{Object: o} }

// SessionToken is the session's token (the server shows it to the session's own user).
func (s *Session) SessionToken() string { return s.String("sessionToken") }

// User is a pointer to the session's user.
func (s *Session) User() parse.Pointer {
	switch v := s.Get("user").(type) {
	case parse.Pointer:
		return v
	case *parse.Object:
		return v.Pointer()
	}
	return parse.Pointer{}
}

// InstallationID is the installation (device) the session was made from.
func (s *Session) InstallationID() string { return s.String("installationId") }

// ExpiresAt is when the session expires (zero when the server sent none).
func (s *Session) ExpiresAt() time.Time { return s.Time("expiresAt") }

// CreatedWith says how the session was made, e.g. {"action":"login","authProvider":"password"}.
func (s *Session) CreatedWith() map[string]any {
	m, _ := s.Get("createdWith").(map[string]any)
	return m
}

// Restricted reports whether the session is restricted (legacy sessions).
func (s *Session) Restricted() bool { return s.Bool("restricted") }

func (c *Client) needSession(op string) error {
	if c.sessionToken == "" && !c.useMaster {
		return fmt.Errorf("%w (%s)", ErrSessionTokenRequired, op)
	}
	return nil
}

// Current returns the session of the view's session token (GET sessions/me). A stale or revoked token
// gives ErrInvalidSessionToken (209); no token gives ErrSessionTokenRequired before any request.
func (s *SessionsService) Current(ctx context.Context) (*Session, error) {
	c := s.client
	if c.sessionToken == "" {
		return nil, fmt.Errorf("%w (sessions/me)", ErrSessionTokenRequired)
	}
	var resp map[string]any
	if err := c.do(ctx, c.call(http.MethodGet, "sessions/me", nil), &resp); err != nil {
		return nil, err
	}
	o := parse.NewObject(SessionClass)
	if err := objstate.Of(o).MergeServer(resp); err != nil {
		return nil, fmt.Errorf("moralis: sessions/me: %w", err)
	}
	if o.ID() == "" {
		return nil, errors.New("moralis: sessions/me answered no session")
	}
	return SessionFromObject(o), nil
}

// List lists the sessions of the view's user (a find on sessions with its session token: the server shows a
// user only their own sessions), newest first, at most 1000. With WithMasterKey it lists every user's sessions.
func (s *SessionsService) List(ctx context.Context) ([]*Session, error) {
	c := s.client
	if err := c.needSession("sessions"); err != nil {
		return nil, err
	}
	objs, err := c.findClass(ctx, SessionClass, nil, map[string]any{"limit": 1000, "order": "-createdAt"})
	if err != nil {
		return nil, err
	}
	out := make([]*Session, len(objs))
	for i, o := range objs {
		out[i] = SessionFromObject(o)
	}
	return out, nil
}

// Revoke deletes a session by id (DELETE sessions/{id}): its token stops working at once. A user may
// revoke their own sessions; the master key any. Revoking the view's own session signs it out.
func (s *SessionsService) Revoke(ctx context.Context, sessionID string) error {
	c := s.client
	if sessionID == "" {
		return errors.New("moralis: RevokeSession needs a session id")
	}
	if err := c.needSession("sessions/" + sessionID); err != nil {
		return err
	}
	return c.do(ctx, c.call(http.MethodDelete, "sessions/"+sessionID, nil), nil)
}
