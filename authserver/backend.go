package authserver

import (
	"context"
	"fmt"
	"time"

	"github.com/c13f5054/moralis-go/auth"
)

// PublicUser is the part of a user the Handler shows to the browser: never authData (it holds signatures),
// never keys. It is a plain value.
type PublicUser struct {
	// ObjectID is the user's id.
	ObjectID string `json:"objectId"`
	// Username is the (generated, for wallet users) username.
	Username string `json:"username,omitempty"`
	// EthAddress is the current Ethereum address, lower-cased.
	EthAddress string `json:"ethAddress,omitempty"`
	// Accounts are the linked Ethereum addresses (never null in JSON).
	Accounts []string `json:"accounts"`
	// SolAddress is the current Solana address.
	SolAddress string `json:"solAddress,omitempty"`
	// SolAccounts are the linked Solana addresses, de-duplicated (never null in JSON).
	SolAccounts []string `json:"solAccounts"`
	// CreatedAt is when the user was created, an RFC 3339 time.
	CreatedAt string `json:"createdAt,omitempty"`
	// UpdatedAt is when the user was last saved, an RFC 3339 time.
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// Session is what a Backend answers to a sign-in: the signed-in user and the backend session token. It is a plain
// value.
type Session struct {
	// User is the signed-in user, as the browser may see it.
	User PublicUser
	// SessionToken is the backend's session token ("r:..."); the Handler puts it in the session cookie.
	SessionToken string
	// ExpiresAt is when the session ends unless it is extended (sessions that roll: ClientBackend with a master
	// key); the session cookie expires then, and the answer says so (SessionEnd). Zero: unknown (a browser-session
	// cookie, or CookieMaxAge, and no SessionEnd in the answer).
	ExpiresAt time.Time
	// MaxExpiresAt is when the session ends however it is extended (Config.SessionMaxAge after the sign-in); zero:
	// unknown.
	MaxExpiresAt time.Time
}

// Backend is what the Handler calls once a request has passed every local check (signature, nonce, message,
// origin, rate): it performs the sign-in, link, unlink, me and sign-out on the backend. ClientBackend implements
// it over the backend's REST API; tests use fakes to count calls. A Backend reports refusals as *BackendError,
// whose code and message the Handler shows; any other error becomes a sanitized 502 (or 504 when the request's
// context ended). Implementations must be safe for concurrent use and must return when ctx is done.
type Backend interface {
	// SignIn logs in (or signs up) the owner of a verified signed message.
	SignIn(ctx context.Context, m auth.SignedMessage) (*Session, error)
	// Link adds a verified address to the user of sessionToken.
	Link(ctx context.Context, sessionToken string, m auth.SignedMessage) (*PublicUser, error)
	// Unlink removes address (of chain) from the user of sessionToken.
	Unlink(ctx context.Context, sessionToken string, chain auth.Chain, address string) (*PublicUser, error)
	// Me returns the user of sessionToken.
	Me(ctx context.Context, sessionToken string) (*PublicUser, error)
	// SignOut ends the session.
	SignOut(ctx context.Context, sessionToken string) error
}

// BackendError is an error a Backend returns to tell the Handler what to answer: a Parse code (package parse's)
// and a message (shown to the caller, so it must hold no secret). The HTTP status is the code's, from the
// endpoint's one table (see the package doc, "Errors"); Status counts only for a failure (code 1,
// parse.CodeInternalServerError: a 5xx) and for a refusal without a code. It is a plain value.
type BackendError struct {
	// Status is the HTTP status of a failure (code 1: 5xx, anything else becomes 502) or of a refusal without a
	// code (4xx); with any other code the code's status is answered.
	Status int
	// Code is the Parse code of the answer (a parse.Code value).
	Code int
	// Message is the text of the answer.
	Message string
	// Err is the underlying error (given to Config.OnError for logging, never shown).
	Err error
}

// Error describes the error (code and message only).
func (e *BackendError) Error() string {
	return fmt.Sprintf("authserver: backend: %d %s", e.Code, e.Message)
}

// Unwrap returns the underlying error.
func (e *BackendError) Unwrap() error { return e.Err }
