package auth

import (
	"context"
	"fmt"
)

// Chain names a wallet family in the handler's requests: ChainEVM (Ethereum and other EVM chains) or
// ChainSolana.
type Chain string

const (
	// ChainEVM is an Ethereum-type wallet (secp256k1, personal_sign, auth provider moralisEth).
	ChainEVM Chain = "evm"
	// ChainSolana is a Solana wallet (ed25519, base58, auth provider moralisSol).
	ChainSolana Chain = "solana"
)

// Auth provider names registered on the backend.
const (
	ProviderEth = "moralisEth"
	ProviderSol = "moralisSol"
)

// Provider returns the backend auth provider for the chain.
func (c Chain) Provider() string {
	if c == ChainSolana {
		return ProviderSol
	}
	return ProviderEth
}

// SignedMessage is a message, the address claimed to have signed it and the signature (0x hex for EVM, base58
// for Solana). Values that reach a Backend from the Handler have been verified.
type SignedMessage struct {
	Chain     Chain
	Address   string
	Message   string
	Signature string
	// Ticket is the one-time sign-in ticket the backend issued for this message (see IssueTicket and
	// RequestMessage); this project's backend adapters accept no authData without one. Empty: none is sent.
	Ticket string
}

// AuthData returns the authData a backend auth adapter expects: {id, signature, data}, plus ticket when
// m.Ticket is set. EVM addresses are lower-cased.
func (m SignedMessage) AuthData() map[string]any {
	id := m.Address
	if m.Chain != ChainSolana {
		if a, err := NormalizeEthAddress(id); err == nil {
			id = a
		}
	}
	data := map[string]any{"id": id, "signature": m.Signature, "data": m.Message}
	if m.Ticket != "" {
		data["ticket"] = m.Ticket
	}
	return data
}

// PublicUser is the part of a user the handler shows to the browser: never authData (it holds signatures),
// never keys.
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
	// CreatedAt and UpdatedAt are RFC 3339 times.
	CreatedAt string `json:"createdAt,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// Session is a signed-in user and the backend session token ("r:...").
type Session struct {
	User         PublicUser
	SessionToken string
}

// Backend is what the Handler calls once a request has passed every local check. ClientBackend implements it
// over a *client.Client; tests use fakes to count calls. Implementations must be safe for concurrent use.
type Backend interface {
	// SignIn logs in (or signs up) the owner of a verified signed message.
	SignIn(ctx context.Context, m SignedMessage) (*Session, error)
	// Link adds a verified address to the user of sessionToken.
	Link(ctx context.Context, sessionToken string, m SignedMessage) (*PublicUser, error)
	// Unlink removes address (of chain) from the user of sessionToken.
	Unlink(ctx context.Context, sessionToken string, chain Chain, address string) (*PublicUser, error)
	// Me returns the user of sessionToken.
	Me(ctx context.Context, sessionToken string) (*PublicUser, error)
	// SignOut ends the session.
	SignOut(ctx context.Context, sessionToken string) error
}

// BackendError is an error a Backend returns to tell the Handler what to answer: an HTTP status and a
// Parse-style code and message (shown to the caller, so it must hold no secret).
type BackendError struct {
	// Status is the HTTP status the Handler answers (4xx or 5xx; anything else becomes 502).
	Status int
	// Code is the Parse-style code of the answer.
	Code int
	// Message is the text of the answer.
	Message string
	// Err is the underlying error (logged through HandlerOptions.OnError, never shown).
	Err error
}

// Error describes the error (code and message only).
func (e *BackendError) Error() string {
	return fmt.Sprintf("auth: backend: %d %s", e.Code, e.Message)
}

// Unwrap returns the underlying error.
func (e *BackendError) Unwrap() error { return e.Err }

// Parse-style error codes the handler answers with.
const (
	CodeInternal            = 1
	CodeObjectNotFound      = 101
	CodeInvalidJSON         = 107
	CodeOperationForbidden  = 119
	CodeValidationError     = 142
	CodeRequestLimit        = 155
	CodeInvalidSessionToken = 209
)
