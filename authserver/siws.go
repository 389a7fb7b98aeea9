package authserver

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/parse"
)

// Sign-In with Solana at the endpoint, beside SIWE. With Config.Domain set, GET /message?chain=solana&style=siws
// hands out a SIWS message (auth.SIWSMessage: the domain, the address, Statement, URI, version 1,
// Config.SolanaChainID, a one-time nonce, issued-at now, expiring with the nonce) and its fields as "signInInput",
// the SolanaSignInInput a wallet's solana:signIn feature takes. POST /signin and /link accept a SIWS message
// (chain "solana") and check it with auth.VerifySIWS; the nonce is consumed only when the signed text carries
// exactly the fields that were issued (compared on the canonical rendering, so a wallet that writes the times in
// another RFC 3339 form still signs in, and any other difference is refused). Without a Domain, there is no SIWS:
// style=siws gets the Moralis-style message and a SIWS text is refused.

// DefaultSolanaChainID is the SIWS chain id when Config.SolanaChainID is empty.
const DefaultSolanaChainID = "mainnet"

// style=siws in GET /message asks for a SIWS message.
const styleSIWS = "siws"

// checkSIWSConfig sets the SIWS defaults and, when SIWS is on (a Domain), checks that the domain, statement, URI
// and chain id fit in a SIWS message.
func checkSIWSConfig(o *Config) error {
	if o.SolanaChainID == "" {
		o.SolanaChainID = DefaultSolanaChainID
	}
	if o.Domain == "" {
		return nil
	}
	m := auth.SIWSMessage{Domain: o.Domain, Address: "11111111111111111111111111111111", Statement: o.Statement,
		URI: siwsURI(*o), ChainID: o.SolanaChainID}
	if err := m.Validate(); err != nil {
		return errors.New("authserver: Config.Domain, Statement, URI and SolanaChainID must fit in a Sign-In with Solana message: " + err.Error())
	}
	return nil
}

func siwsURI(o Config) string {
	if o.URI != "" {
		return o.URI
	}
	return "https://" + o.Domain
}

// isSIWSText reports whether msg's first line is a SIWS header.
func isSIWSText(msg string) bool {
	first, _, _ := strings.Cut(msg, "\n")
	return strings.HasSuffix(first, " wants you to sign in with your Solana account:")
}

// siwsMessage builds the SIWS message for nonce n and the input a wallet's solana:signIn takes to write it.
func (h *Handler) siwsMessage(address string, n Nonce) (string, *SolanaSignInInput) {
	m := &auth.SIWSMessage{Domain: h.o.Domain, Address: address, Statement: h.o.Statement, URI: siwsURI(h.o),
		Version: "1", ChainID: h.o.SolanaChainID, Nonce: n.Value, IssuedAt: h.o.Now().UTC(), ExpirationTime: n.ExpiresAt.UTC()}
	text := m.String()
	input := &SolanaSignInInput{Domain: m.Domain, Address: m.Address, Statement: m.Statement, URI: m.URI,
		Version: m.Version, ChainID: m.ChainID, Nonce: m.Nonce,
		IssuedAt: auth.FormatServerTime(m.IssuedAt), ExpirationTime: auth.FormatServerTime(m.ExpirationTime)}
	return text, input
}

// verifySIWS runs every local check of a SIWS sign-in (auth.VerifySIWS: fields, address = signing key, signature)
// and last consumes its nonce, bound to the address and the canonical text it was issued with.
func (h *Handler) verifySIWS(ctx context.Context, m auth.SignedMessage) error {
	if h.o.Domain == "" {
		return refuse(parse.CodeValidationError, "Invalid sign-in message")
	}
	var nonceErr error
	_, err := auth.VerifySIWS(ctx, m.Message, m.Signature, m.Address, auth.SIWSVerifyOptions{
		Domain: h.o.Domain, ChainID: h.o.SolanaChainID, URI: siwsURI(h.o), Address: m.Address, Now: h.o.Now,
		ConsumeNonce: func(ctx context.Context, sm *auth.SIWSMessage) error {
			nonceErr = h.o.Nonces.Consume(ctx, sm.Nonce, NonceBinding{Chain: m.Chain, Address: m.Address, Message: sm.Canonical()})
			return nonceErr
		}})
	switch {
	case err == nil:
		return nil
	case nonceErr != nil:
		return nonceRefusal(nonceErr)
	}
	return messageRefusal(err)
}

// nonceRefusal is the answer to a nonce the store did not consume.
func nonceRefusal(err error) error {
	switch {
	case errors.Is(err, ErrNonceInvalid):
		return refuse(parse.CodeObjectNotFound, "Nonce unknown, used or expired")
	case errors.Is(err, ErrNonceMismatch):
		return refuse(parse.CodeObjectNotFound, "Message does not match the one issued")
	}
	return failure(http.StatusServiceUnavailable, "Nonce store unavailable")
}
