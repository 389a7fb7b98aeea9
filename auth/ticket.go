package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/randid"
	"github.com/c13f5054/moralis-go/parse"
)

// One-time sign-in tickets. A valid signature alone would let whoever captured a signed message (stored authData,
// a log) sign in again forever, so this project's backend adapters (moralisEth and moralisSol of the
// moralis-go-server package, server/lib/auth.js) also require authData.ticket: a one-time value that the
// deployment issued for exactly that chain, address and message text, unexpired. The adapter consumes it with one
// database DELETE, so it signs in at most once, on every backend instance. Tickets come from two places:
//
//   - the sign-in endpoint (package authserver): after it has verified a signature and consumed its own nonce,
//     its ClientBackend issues a ticket for that message with the master key (IssueTicket) and hands it to the
//     backend;
//   - the backend itself, for SDK clients that sign in directly (SignInEthereum, SignInSolana, Link*): the cloud
//     function RequestMessageFunction returns the message to sign together with its ticket (RequestMessage).

// DefaultTicketClass is the backend class of the tickets (readable and writable by the master key only).
const DefaultTicketClass = "MoralisAuthTicket"

// DefaultTicketTTL is how long a ticket made by IssueTicket stays valid: the endpoint uses it at once.
const DefaultTicketTTL = time.Minute

// RequestMessageFunction is the backend cloud function that issues a message to sign and its ticket.
const RequestMessageFunction = "moralisAuthRequestMessage"

// TicketOptions tune IssueTicket, per call. A nil *TicketOptions, like the zero value, means all defaults.
// IssueTicket reads it and never changes it.
type TicketOptions struct {
	// TTL is how long the ticket stays valid; default (zero or negative) DefaultTicketTTL.
	TTL time.Duration
	// Chain, when set, lets smart-contract accounts (ERC-1271, ERC-6492) sign in with the ticket: an EVM message
	// whose signature does not recover to its address is verified on this chain (VerifyEthSignatureContext), and
	// only then is the ticket marked for a contract account, which this project's backend adapters accept without
	// ecrecover; a signature that fails the check gets no ticket. nil (default): an ordinary ticket, and the
	// backend checks the signature itself.
	Chain ContractCaller
}

// IssueTicket stores a one-time ticket for m's chain, address and exact message (m.Signature may be empty, unless
// opts.Chain is set) and returns its value for SignedMessage.Ticket; opts nil means the defaults. c must have the
// master key (the ticket class accepts nothing else). It is safe for concurrent use.
func IssueTicket(ctx context.Context, c *client.Client, m SignedMessage, opts *TicketOptions) (string, error) {
	if c == nil || !c.HasMasterKey() {
		return "", errors.New("auth: IssueTicket needs a client with the master key")
	}
	var to TicketOptions
	if opts != nil {
		to = *opts
	}
	// A contract account's ticket only after its signature was verified on the chain (never on the caller's word).
	contract := false
	if m.Chain != ChainSolana && to.Chain != nil && VerifyEthSignature(m.Address, []byte(m.Message), m.Signature) != nil {
		if err := VerifyEthSignatureContext(ctx, to.Chain, m.Address, []byte(m.Message), m.Signature); err != nil {
			return "", err
		}
		contract = true
	}
	ttl := to.TTL
	if m.Signature == "" {
		m.Signature = "-" // the ticket is for the message; its signature is checked by the backend
	}
	m, err := normalize(m)
	if err != nil {
		return "", err
	}
	if ttl <= 0 {
		ttl = DefaultTicketTTL
	}
	secret, err := NewNonceValue()
	if err != nil {
		return "", err
	}
	o := parse.NewObject(DefaultTicketClass)
	o.Set("secret", secret)
	o.Set("expiresAt", time.Now().Add(ttl).UTC())
	o.Set("chain", string(m.Chain))
	o.Set("address", m.Address)
	o.Set("message", m.Message)
	if contract {
		o.Set("contract", true)
	}
	o.SetACL(parse.NewACL())
	if err := c.WithMasterKey().Objects.Save(ctx, o); err != nil {
		return "", fmt.Errorf("auth: issuing a sign-in ticket: %w", err)
	}
	if len(o.ID()) != 10 {
		return "", fmt.Errorf("auth: issuing a sign-in ticket: unexpected object id %q", o.ID())
	}
	return o.ID() + secret, nil
}

// RequestMessage asks the backend for the message address must sign to sign in or link (cloud function
// RequestMessageFunction, with the JavaScript key): text (opts.Message or DefaultSigningMessage) + "\n\nId: " +
// appId + ":" + a one-time secret, and the ticket that goes with it. The result has Chain, Address (canonical),
// Message and Ticket set; sign Message and fill in Signature.
//
// A backend without that function (an original Moralis v1 server) gets the original client's message instead
// (SigningMessage: the server time in place of the secret) and no ticket.
func RequestMessage(ctx context.Context, c *client.Client, chain Chain, address string, opts *Options) (SignedMessage, error) {
	m, err := normalize(SignedMessage{Chain: chain, Address: address, Message: "-", Signature: "-"})
	if err != nil {
		return SignedMessage{}, err
	}
	m.Signature = ""
	var out struct {
		Message string `json:"message"`
		Ticket  string `json:"ticket"`
	}
	err = c.Cloud.Call(ctx, RequestMessageFunction, map[string]any{"chain": string(m.Chain), "address": m.Address,
		"text": opts.message()}, &out)
	var ce *parse.Error
	if errors.As(err, &ce) && ce.Code == parse.ErrScriptFailed.Code && strings.HasPrefix(ce.Message, "Invalid function") {
		m.Message, err = SigningMessage(ctx, c, opts)
		return m, err
	}
	if err != nil {
		return SignedMessage{}, fmt.Errorf("auth: %s: %w", RequestMessageFunction, err)
	}
	if out.Message == "" || out.Ticket == "" {
		return SignedMessage{}, fmt.Errorf("auth: %s answered no message", RequestMessageFunction)
	}
	m.Message, m.Ticket = out.Message, out.Ticket
	return m, nil
}

// NewNonceValue returns 22 random alphanumeric characters (about 131 bits, from crypto/rand): a valid SIWE nonce
// (SIWEMessage.Nonce) and the secret part of tickets. authserver's nonce stores make their nonces with it. It is
// safe for concurrent use.
func NewNonceValue() (string, error) { return randid.Alnum(rand.Read, 22) }
