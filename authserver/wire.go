package authserver

import (
	"encoding/json"

	"github.com/c13f5054/moralis-go/parse"
)

// The wire contract of the endpoint: the request and answer of every route, as Go types. The TypeScript types of
// the React hooks (react-hooks/src/core/wire.gen.ts) are generated from these (go generate ./authserver), and a
// test fails when that file is stale. One name per concept, in Go and in TypeScript: SignedRequest is what a
// wallet signed and the browser posts, PublicUser is the user the browser sees.

// MessageResponse is the answer of GET /message?address=&chain=: the text to sign, its nonce and when it expires.
type MessageResponse struct {
	// Message is the text to sign, exactly as it must be sent back.
	Message string `json:"message"`
	// Nonce is the one-time nonce inside Message.
	Nonce string `json:"nonce"`
	// ExpiresAt is when the message stops being accepted (the backend's time format).
	ExpiresAt string `json:"expiresAt"`
	// SignInInput is set for a Sign-In with Solana message (chain=solana&style=siws, an endpoint with a Domain):
	// the fields a wallet's solana:signIn feature takes to write exactly Message.
	SignInInput *SolanaSignInInput `json:"signInInput,omitempty"`
}

// SolanaSignInInput is the wallet-standard SolanaSignInInput of a SIWS message (every field a string; the
// endpoint fills them all).
type SolanaSignInInput struct {
	Domain         string `json:"domain"`
	Address        string `json:"address"`
	Statement      string `json:"statement"`
	URI            string `json:"uri"`
	Version        string `json:"version"`
	ChainID        string `json:"chainId"`
	Nonce          string `json:"nonce"`
	IssuedAt       string `json:"issuedAt"`
	ExpirationTime string `json:"expirationTime"`
}

// SignedRequest is the JSON body of POST /signin and /link: a message the wallet signed. Decode one with
// DecodeRequest. It is a plain value.
type SignedRequest struct {
	// Chain is "evm" or "solana".
	Chain string `json:"chain" ts:"ChainType"`
	// Address is the 0x address (any case) or the base58 Solana public key.
	Address string `json:"address"`
	// Message is the text from GET /message, exactly as signed.
	Message string `json:"message"`
	// Signature is 0x hex (EVM, 65 bytes) or base58 (Solana, 64 bytes).
	Signature string `json:"signature"`
}

// Request is the former name of SignedRequest.
//
// Deprecated: use SignedRequest.
type Request = SignedRequest

// UnlinkRequest is the JSON body of POST /unlink: the address to remove from the signed-in user.
type UnlinkRequest struct {
	// Chain is "evm" or "solana".
	Chain string `json:"chain" ts:"ChainType"`
	// Address is the address to unlink.
	Address string `json:"address"`
}

// SignInResponse is the answer of POST /signin. SessionToken is there only with Config.TokenInBody: by default
// the session lives only in the HttpOnly cookie.
type SignInResponse struct {
	// User is the signed-in user.
	User PublicUser `json:"user"`
	// SessionToken is the backend session token (Config.TokenInBody only).
	SessionToken string `json:"sessionToken,omitempty"`
	// Session says when the new session ends; absent when the Backend does not say (see SessionEnd).
	Session *SessionEnd `json:"session,omitempty"`
}

// UserResponse is the answer of POST /link, POST /unlink and GET /me.
type UserResponse struct {
	// User is the signed-in user, as it is now.
	User *PublicUser `json:"user"`
	// Session says when the session ends, as of this answer; absent when the Backend does not say (see
	// SessionEnd).
	Session *SessionEnd `json:"session,omitempty"`
}

// SessionEnd says when the signed-in session ends, by the endpoint's clock. The answers of POST /signin, GET /me,
// POST /link and POST /unlink carry it when the Backend knows it: ClientBackend with a master key, whose sessions
// roll (Config.SessionIdleTTL, SessionMaxAge); a Backend of your own gives it in Session at sign-in and with
// ReportSessionEnd afterwards. A page shows the session ended at MaxExpiresAt, and asks GET /me again at ExpiresAt
// (a request meanwhile, from any tab, may have moved it). It is a plain value.
type SessionEnd struct {
	// ExpiresAt is when the session ends unless it is used before then: a request the endpoint confirms once more
	// than half of Config.SessionIdleTTL has passed moves it to that request's time + SessionIdleTTL, never past
	// MaxExpiresAt. RFC 3339 in UTC with milliseconds.
	ExpiresAt string `json:"expiresAt"`
	// MaxExpiresAt is when the session ends however it is used (Config.SessionMaxAge after its sign-in), in the
	// same form; absent when unknown.
	MaxExpiresAt string `json:"maxExpiresAt,omitempty"`
	// Now is the endpoint's clock when it answered, in the same form: measure the times above from it, not from the
	// browser's clock, which may be off.
	Now string `json:"now"`
}

// SignOutResponse is the answer of POST /signout: an empty object.
type SignOutResponse struct{}

// ErrorResponse is every answer other than 200: a Parse code (package parse's) and a text safe to show.
type ErrorResponse struct {
	// Code is the Parse error code.
	Code parse.Code `json:"code"`
	// Error is the text of the refusal.
	Error string `json:"error"`
}

// QueryRequest is the JSON body of POST /data/query: a backend query run as the signed-in user.
type QueryRequest struct {
	// ClassName is the class to read.
	ClassName string `json:"className"`
	// Where is the constraint, as Parse's REST API writes it.
	Where map[string]any `json:"where,omitempty"`
	// Order is comma-separated keys, "-" for descending, e.g. "-createdAt".
	Order *string `json:"order,omitempty"`
	// Limit is how many results, 0 to MaxDataQueryLimit.
	Limit *json.Number `json:"limit,omitempty" ts:"number"`
	// Skip is how many results to skip.
	Skip *json.Number `json:"skip,omitempty" ts:"number"`
	// Keys restricts the fields of each result.
	Keys []string `json:"keys,omitempty"`
	// Include names pointer fields whose objects come inline (of allowed classes only).
	Include []string `json:"include,omitempty"`
	// Count asks for the number of matches.
	Count *bool `json:"count,omitempty"`
}

// QueryResponse is the answer of POST /data/query.
type QueryResponse struct {
	// Count is the number of matches, when the query asked for it.
	Count *int `json:"count,omitempty"`
	// Results are the objects found, as the backend sent them.
	Results []json.RawMessage `json:"results" ts:"T[]"`
}

// FunctionRequest is the JSON body of POST /data/function: a listed cloud function run as the signed-in user.
type FunctionRequest struct {
	// Name is the function's name (listed in DataProxyConfig.AllowedFunctions).
	Name string `json:"name"`
	// Params are the function's parameters.
	Params map[string]any `json:"params,omitempty"`
}

// FunctionResponse is the answer of POST /data/function.
type FunctionResponse struct {
	// Result is what the function returned.
	Result json.RawMessage `json:"result" ts:"T"`
}

// ChainDataQuery is the query of GET /data/chain/{kind} (ChainDataKinds). Address defaults to the signed-in
// user's address.
type ChainDataQuery struct {
	// Chain is a chain id (decimal or 0x hex) or the API's chain name; default DataProxyConfig.DefaultChain.
	Chain string `json:"chain,omitempty" ts:"number | string"`
	// Address is the address to read; default the user's own.
	Address string `json:"address,omitempty"`
	// Cursor pages nfts and transactions.
	Cursor string `json:"cursor,omitempty"`
	// Limit is the page size of nfts and transactions, 1 to 100.
	Limit string `json:"limit,omitempty" ts:"number"`
}
