package auth

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/mr-tron/base58"
)

// Default class names of the linked-address helper objects (one object per linked address, its objectId being
// the address): Options.EthAddressClass and Options.SolAddressClass.
const (
	DefaultEthAddressClass = "_EthAddress"
	DefaultSolAddressClass = "_SolAddress"
)

// Errors of the sign-in flows, with the spec's texts.
var (
	// ErrCouldNotGetUser is returned when the backend's answer to a sign-in carries no user. It is the same
	// value as client.ErrCouldNotGetUser, so errors.Is matches either.
	ErrCouldNotGetUser = client.ErrCouldNotGetUser
	// ErrDataNotSigned is returned when a signer gives an empty signature or a signed message lacks one.
	ErrDataNotSigned = errors.New("Data not signed")
	// ErrAddressNotFound is returned when no address was given or the signer has none.
	ErrAddressNotFound = errors.New("Address not found")
)

// ErrBackendMissing matches (errors.Is) every *BackendMissingError: the backend lacks a piece of moralis-go's
// server package that a sign-in flow needs.
var ErrBackendMissing = errors.New("auth: the backend lacks a piece of moralis-go's server package")

// BackendMissingError is returned by the sign-in and link flows when the backend lacks a piece they need: the
// getServerTime cloud function (to build the message on a backend without RequestMessageFunction: a stock
// parse-server answers 141 "Invalid function") or the wallet's auth adapter (moralisEth, moralisSol: parse-server
// answers 252 "This authentication method is unsupported."). Its text names the piece and how to get it. It
// matches ErrBackendMissing, and errors.As finds the backend's *parse.Error in Err. It is a plain value.
type BackendMissingError struct {
	// Piece names what is missing: "getServerTime cloud function", "moralisEth auth adapter", "moralisSol auth
	// adapter".
	Piece string
	// Err is the backend's answer.
	Err error
}

// Error names the missing piece and where to get it.
func (e *BackendMissingError) Error() string {
	return "auth: the backend has no " + e.Piece + ": mount moralis-go's server package (server/README.md)"
}

// Unwrap returns ErrBackendMissing and the backend's answer.
func (e *BackendMissingError) Unwrap() []error { return []error{ErrBackendMissing, e.Err} }

// missingPiece returns err as a *BackendMissingError when it is the backend's answer for a missing piece (an
// unknown cloud function fn, or, with provider set, an auth provider it does not support), else err.
func missingPiece(err error, fn, provider string) error {
	var pe *parse.Error
	switch {
	case !errors.As(err, &pe):
		return err
	case fn != "" && pe.Code == parse.CodeScriptFailed && pe.Message == `Invalid function: "`+fn+`"`:
		return &BackendMissingError{Piece: fn + " cloud function", Err: err}
	case provider != "" && pe.Code == parse.CodeUnsupportedService:
		return &BackendMissingError{Piece: provider + " auth adapter", Err: err}
	}
	return err
}

// Options tune the sign-in, link and unlink flows, per call. A nil *Options, like the zero value, means all
// defaults. The flows read it and never change it; one *Options may serve concurrent calls.
type Options struct {
	// Message is the text of the signing message; default DefaultSigningMessage. The backend appends
	// "\n\nId: " + appId + ":" + a one-time secret (RequestMessage); an original Moralis server, the server time.
	Message string
	// EthAddressClass is the class of Ethereum address objects; default DefaultEthAddressClass.
	EthAddressClass string
	// SolAddressClass is the class of Solana address objects; default DefaultSolAddressClass.
	SolAddressClass string
	// NoAddressObjects skips creating and destroying the address objects; default false: they are made where
	// the server has them (a Moralis server did). A stock parse-server cannot: it accepts class names that start
	// with "_" only for its own classes, and chosen objectIds only with allowCustomObjectId. Link and Unlink go on
	// without the object when the server refuses it for those reasons (codes 103 and 105, and 107 "schema class
	// name does not revalidate"); any other error of the object still fails them.
	NoAddressObjects bool
}

func (o *Options) message() string {
	if o == nil || o.Message == "" {
		return DefaultSigningMessage
	}
	return o.Message
}

func (o *Options) addressClass(ch Chain) string {
	if ch == ChainSolana {
		if o == nil || o.SolAddressClass == "" {
			return DefaultSolAddressClass
		}
		return o.SolAddressClass
	}
	if o == nil || o.EthAddressClass == "" {
		return DefaultEthAddressClass
	}
	return o.EthAddressClass
}

func (o *Options) addressObjects() bool { return o == nil || !o.NoAddressObjects }

// SigningMessage asks the backend for its time (getServerTime) and builds the message to sign:
// text + "\n\nId: " + appId + ":" + serverTime. A backend without getServerTime gives a *BackendMissingError.
func SigningMessage(ctx context.Context, c *client.Client, opts *Options) (string, error) {
	t, err := c.Cloud.ServerTime(ctx)
	if err != nil {
		if me := missingPiece(err, "getServerTime", ""); me != err {
			return "", me
		}
		return "", fmt.Errorf("auth: getServerTime: %w", err)
	}
	return BuildMoralisMessage(opts.message(), c.AppID(), FormatServerTime(t)), nil
}

// normalize checks a signed message and returns it with the address in canonical form (EVM lower-cased).
func normalize(m SignedMessage) (SignedMessage, error) {
	if strings.TrimSpace(m.Address) == "" {
		return m, ErrAddressNotFound
	}
	switch m.Chain {
	case ChainEVM, "":
		m.Chain = ChainEVM
		a, err := NormalizeEthAddress(m.Address)
		if err != nil {
			return m, err
		}
		m.Address = a
	case ChainSolana:
		m.Address = strings.TrimSpace(m.Address)
		if _, err := DecodeSolPublicKey(m.Address); err != nil {
			return m, err
		}
	default:
		return m, fmt.Errorf("auth: unknown chain %q", m.Chain)
	}
	if m.Message == "" || m.Signature == "" {
		return m, ErrDataNotSigned
	}
	return m, nil
}

// LogIn signs in the owner of a signed message through the backend (POST users with authData of the chain's
// provider: moralisEth or moralisSol). Following the original client, a login answered with code 101 is
// retried as a sign-up; on parse-server, POST users already signs a new identity up, so this branch only
// matters for backends that answer 101 for unknown users. Afterwards the user is saved with its address
// (EVM: ethAddress and accounts; Solana: solAddress and solAccounts, each added once) and an ACL that grants
// read and write to the user alone. The returned user carries its session token. A backend without the chain's
// auth adapter gives a *BackendMissingError.
func LogIn(ctx context.Context, c *client.Client, m SignedMessage, opts *Options) (*client.User, error) {
	m, err := normalize(m)
	if err != nil {
		return nil, err
	}
	provider := m.Chain.Provider()
	u, err := logInWithAuthData(ctx, c, provider, m.AuthData())
	if err != nil {
		return nil, missingPiece(err, "", provider)
	}
	if u == nil || u.ID() == "" || u.SessionToken() == "" {
		return nil, ErrCouldNotGetUser
	}
	// Record the address on the user, and restrict its ACL to the user, only where that changes something: a
	// returning wallet's sign-in then costs the backend no write.
	addrKey, listKey := "ethAddress", "accounts"
	if m.Chain == ChainSolana {
		addrKey, listKey = "solAddress", "solAccounts"
	}
	if !slices.Contains(u.Strings(listKey), m.Address) {
		if err := u.AddUnique(listKey, m.Address); err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
	}
	if u.String(addrKey) != m.Address {
		u.Set(addrKey, m.Address)
	}
	if !userOnlyACL(u.ACL(), u.ID()) {
		u.SetACL(parse.NewUserACL(u.ID()))
	}
	if err := c.WithSessionToken(u.SessionToken()).Objects.Save(ctx, u); err != nil {
		return nil, fmt.Errorf("auth: saving the signed-in user: %w", err)
	}
	return u, nil
}

// userOnlyACL reports whether a grants read and write to the user id and nothing to anyone else.
func userOnlyACL(a *parse.ACL, id string) bool {
	return a != nil && len(a.Keys()) == 1 && a.ReadAccess(id) && a.WriteAccess(id)
}

// loginRaceAttempts bounds the retries of a wallet login that lost a race with a concurrent login of the same
// wallet on the backend.
const loginRaceAttempts = 6

// logInWithAuthData logs in with authData (signing up on a 101 answer). Concurrent first logins of one wallet
// race on the backend: parse-server finds no user for each, creates one for each, and all but one fail on the
// unique authData index with 208 "this auth is already used"; concurrent logins of a known wallet race on its
// authData update (optimistic lock) and the losers get 141 "Invalid auth data". Both mean "someone else just
// wrote this user": the login is retried, and then finds the user (a few attempts, with a short random wait).
func logInWithAuthData(ctx context.Context, c *client.Client, provider string, data map[string]any) (*client.User, error) {
	for attempt := 1; ; attempt++ {
		u, err := c.Users.LogInWith(ctx, provider, data)
		if errors.Is(err, parse.ErrObjectNotFound) {
			u, err = signUpWithAuthData(ctx, c, provider, data)
		}
		// A ticket signs in once: after a lost race it is used up, and the caller retries with a new one.
		if _, ticket := data["ticket"]; err == nil || ticket || attempt == loginRaceAttempts || !lostLoginRace(err) {
			return u, err
		}
		wait := time.Duration(5+rand.IntN(20*attempt)) * time.Millisecond
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// lostLoginRace reports the backend's answers to a login that raced another login of the same wallet.
func lostLoginRace(err error) bool {
	var ce *parse.Error
	if !errors.As(err, &ce) {
		return false
	}
	return ce.Code == 208 || (ce.Code == 141 && ce.Message == "Invalid auth data")
}

// signUpWithAuthData creates a user whose only credential is authData (POST users), as ParseUser.signUp does.
func signUpWithAuthData(ctx context.Context, c *client.Client, provider string, data map[string]any) (*client.User, error) {
	u := client.NewUser()
	u.Set("authData", map[string]any{provider: data})
	if err := c.Objects.Save(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// SignInEthereum is the whole Ethereum sign-in: message and ticket from the backend (RequestMessage; the text is
// opts.Message or the default), personal_sign signature by s (a *signer.Key, or any wallet), then LogIn (see
// SignIn). The address is lower-cased before use. On a backend that lacks a piece of moralis-go's server package it
// needs (getServerTime where the backend has no RequestMessageFunction, the moralisEth adapter) the error is a
// *BackendMissingError naming it (errors.Is(err, ErrBackendMissing)). It is safe for concurrent use if s is.
func SignInEthereum(ctx context.Context, c *client.Client, s signer.Ethereum, opts *Options) (*client.User, error) {
	return SignIn(ctx, c, func(ctx context.Context) (SignedMessage, error) { return signEth(ctx, c, s, opts) }, opts)
}

// SignInSolana is the whole Solana sign-in: message and ticket from the backend (RequestMessage), ed25519
// signature by s (a *signer.Ed25519Key, or any wallet; base58), then LogIn (see SignIn). A missing piece of the
// backend is a *BackendMissingError, as for SignInEthereum. It is safe for concurrent use if s is.
func SignInSolana(ctx context.Context, c *client.Client, s signer.Solana, opts *Options) (*client.User, error) {
	return SignIn(ctx, c, func(ctx context.Context) (SignedMessage, error) { return signSol(ctx, c, s, opts) }, opts)
}

// SignIn is the sign-in loop under SignInEthereum and SignInSolana, for a message signed some other way (a
// wallet in another process; authserver.ClientBackend, which verified it): sign returns a signed message, with
// its one-time ticket, and LogIn signs its owner in. A ticket signs in once, so when that login loses a race with
// a concurrent login of the same wallet (the backend answers 208, or 141 "Invalid auth data") after spending the
// ticket, sign is called again for a fresh message and ticket: at most 6 attempts in all. A message without a
// ticket is logged in once (LogIn itself retries such races). An error of sign is returned as it is. SignIn is
// safe for concurrent use if sign is.
func SignIn(ctx context.Context, c *client.Client, sign func(ctx context.Context) (SignedMessage, error), opts *Options) (*client.User, error) {
	for attempt := 1; ; attempt++ {
		m, err := sign(ctx)
		if err != nil {
			return nil, err
		}
		u, err := LogIn(ctx, c, m, opts)
		if err == nil || m.Ticket == "" || attempt == loginRaceAttempts || !lostLoginRace(err) {
			return u, err
		}
	}
}

func signEth(ctx context.Context, c *client.Client, s signer.Ethereum, opts *Options) (SignedMessage, error) {
	if s == nil || s.Address() == (common.Address{}) {
		return SignedMessage{}, ErrAddressNotFound
	}
	addr := strings.ToLower(s.Address().Hex())
	m, err := RequestMessage(ctx, c, ChainEVM, addr, opts)
	if err != nil {
		return SignedMessage{}, err
	}
	sig, err := s.SignMessage(ctx, []byte(m.Message))
	if err != nil {
		return SignedMessage{}, fmt.Errorf("auth: signing: %w", err)
	}
	if len(sig) == 0 {
		return SignedMessage{}, ErrDataNotSigned
	}
	m.Signature = "0x" + hex.EncodeToString(sig)
	return m, nil
}

func signSol(ctx context.Context, c *client.Client, s signer.Solana, opts *Options) (SignedMessage, error) {
	if s == nil || s.PublicKey() == "" {
		return SignedMessage{}, ErrAddressNotFound
	}
	m, err := RequestMessage(ctx, c, ChainSolana, s.PublicKey(), opts)
	if err != nil {
		return SignedMessage{}, err
	}
	sig, err := s.SignMessage(ctx, []byte(m.Message))
	if err != nil {
		return SignedMessage{}, fmt.Errorf("auth: signing: %w", err)
	}
	if len(sig) == 0 {
		return SignedMessage{}, ErrDataNotSigned
	}
	m.Signature = base58.Encode(sig)
	return m, nil
}

// Link adds the address of a signed message to the signed-in user u (which must carry its session token):
// it links the chain's auth provider with the message (the backend checks the signature), creates the address
// object (class opts.EthAddressClass or SolAddressClass, objectId = the address, ACL the user alone), then adds
// the address to accounts / solAccounts once and makes it the current ethAddress / solAddress, and saves.
func Link(ctx context.Context, c *client.Client, u *client.User, m SignedMessage, opts *Options) error {
	m, err := normalize(m)
	if err != nil {
		return err
	}
	if u == nil || u.ID() == "" || u.SessionToken() == "" {
		return ErrCouldNotGetUser
	}
	view := c.WithSessionToken(u.SessionToken())
	if err := view.Users.Link(ctx, u, m.Chain.Provider(), m.AuthData()); err != nil {
		if me := missingPiece(err, "", m.Chain.Provider()); me != err {
			return me
		}
		return fmt.Errorf("auth: link %s: %w", m.Chain.Provider(), err)
	}
	if opts.addressObjects() {
		if err := ensureAddressObject(ctx, view, u, opts.addressClass(m.Chain), m.Address); err != nil {
			return err
		}
	}
	if m.Chain == ChainSolana {
		u.AddUnique("solAccounts", m.Address)
		u.Set("solAddress", m.Address)
	} else {
		u.AddUnique("accounts", m.Address)
		u.Set("ethAddress", m.Address)
	}
	if err := view.Objects.Save(ctx, u); err != nil {
		return fmt.Errorf("auth: saving the linked address: %w", err)
	}
	return nil
}

// ErrAddressTaken is returned by Link when the address object exists and belongs to another user.
var ErrAddressTaken = errors.New("auth: address is already linked to another user")

func ensureAddressObject(ctx context.Context, view *client.Client, u *client.User, class, addr string) error {
	acl := parse.NewUserACL(u.ID())
	err := view.Request(ctx, http.MethodPost, "classes/"+class, map[string]any{"objectId": addr, "ACL": acl}, nil)
	if err == nil || addressObjectsUnsupported(err) {
		return nil
	}
	var ce *parse.Error
	if errors.As(err, &ce) && ce.Code == 137 { // duplicate value: the object exists; ours if we can read it
		if _, gerr := view.Objects.Get(ctx, class, addr); gerr == nil {
			return nil
		}
		return ErrAddressTaken
	}
	return fmt.Errorf("auth: creating %s %s: %w", class, addr, err)
}

// addressObjectsUnsupported reports whether err is a server's refusal of address objects as such: a class name it
// does not know (103 INVALID_CLASS_NAME; parse-server 5 to 9 answer a create of an unknown "_" class with 107
// "schema class name does not revalidate") or a chosen objectId (105 INVALID_KEY_NAME, without allowCustomObjectId).
func addressObjectsUnsupported(err error) bool {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case parse.CodeInvalidClassName, parse.CodeInvalidKeyName:
		return true
	case parse.CodeInvalidJSON:
		return pe.Message == "schema class name does not revalidate"
	}
	return false
}

// LinkEthereum signs a fresh message with s and links its address to u (see Link).
func LinkEthereum(ctx context.Context, c *client.Client, u *client.User, s signer.Ethereum, opts *Options) error {
	m, err := signEth(ctx, c, s, opts)
	if err != nil {
		return err
	}
	return Link(ctx, c, u, m, opts)
}

// LinkSolana signs a fresh message with s and links its public key to u (see Link).
func LinkSolana(ctx context.Context, c *client.Client, u *client.User, s signer.Solana, opts *Options) error {
	m, err := signSol(ctx, c, s, opts)
	if err != nil {
		return err
	}
	return Link(ctx, c, u, m, opts)
}

// Unlink removes address (of chain) from the signed-in user u: it destroys the address object (a missing one is
// fine), removes the address from accounts / solAccounts, sets ethAddress / solAddress to the first remaining
// address (or unsets it), saves, and unlinks the chain's auth provider. An address u does not have is refused
// with ErrAddressNotLinked before anything changes. The provider holds one address, the
// last linked; it is unlinked only when it holds this address (or none is shown), so removing an older
// address does not lock the user out of the newer one.
func Unlink(ctx context.Context, c *client.Client, u *client.User, chain Chain, address string, opts *Options) error {
	if chain == "" {
		chain = ChainEVM
	}
	m, err := normalize(SignedMessage{Chain: chain, Address: address, Message: "-", Signature: "-"})
	if err != nil {
		return err
	}
	if u == nil || u.ID() == "" || u.SessionToken() == "" {
		return ErrCouldNotGetUser
	}
	addr := m.Address
	if !hasAddress(u, chain, addr) {
		return ErrAddressNotLinked
	}
	view := c.WithSessionToken(u.SessionToken())
	if opts.addressObjects() {
		obj := parse.NewObjectWithID(opts.addressClass(chain), addr)
		if err := view.Objects.Destroy(ctx, obj); err != nil && !errors.Is(err, parse.ErrObjectNotFound) && !addressObjectsUnsupported(err) {
			return fmt.Errorf("auth: destroying %s %s: %w", obj.ClassName(), addr, err)
		}
	}
	listKey, currentKey, list := "accounts", "ethAddress", u.Accounts()
	if chain == ChainSolana {
		listKey, currentKey, list = "solAccounts", "solAddress", u.SolAccounts()
	}
	var remaining []string
	for _, a := range list {
		if !sameAddress(chain, a, addr) {
			remaining = append(remaining, a)
		}
	}
	u.Remove(listKey, addr)
	if len(remaining) > 0 {
		u.Set(currentKey, remaining[0])
	} else {
		u.Unset(currentKey)
	}
	if err := view.Objects.Save(ctx, u); err != nil {
		return fmt.Errorf("auth: saving the unlinked address: %w", err)
	}
	provider := chain.Provider()
	if pd, ok := u.AuthData()[provider].(map[string]any); ok {
		if id, _ := pd["id"].(string); id != "" && !sameAddress(chain, id, addr) {
			return nil
		}
	}
	if err := view.Users.Unlink(ctx, u, provider); err != nil {
		return fmt.Errorf("auth: unlink %s: %w", provider, err)
	}
	return nil
}

// ErrAddressNotLinked is returned by Unlink for an address the user does not have (not in accounts /
// solAccounts, not the current address, not the auth provider's): nothing is changed.
var ErrAddressNotLinked = errors.New("auth: address is not linked to this user")

// hasAddress reports whether addr (of chain) is one of u's addresses.
func hasAddress(u *client.User, chain Chain, addr string) bool {
	list, current := u.Accounts(), u.EthAddress()
	if chain == ChainSolana {
		list, current = u.SolAccounts(), u.SolAddress()
	}
	if current != "" && sameAddress(chain, current, addr) {
		return true
	}
	for _, a := range list {
		if sameAddress(chain, a, addr) {
			return true
		}
	}
	if pd, ok := u.AuthData()[chain.Provider()].(map[string]any); ok {
		if id, _ := pd["id"].(string); id != "" && sameAddress(chain, id, addr) {
			return true
		}
	}
	return false
}

func sameAddress(chain Chain, a, b string) bool {
	if chain == ChainSolana {
		return a == b
	}
	return strings.EqualFold(a, b)
}

// UnlinkEthereum is Unlink for an Ethereum address.
func UnlinkEthereum(ctx context.Context, c *client.Client, u *client.User, address string, opts *Options) error {
	return Unlink(ctx, c, u, ChainEVM, address, opts)
}

// UnlinkSolana is Unlink for a Solana address.
func UnlinkSolana(ctx context.Context, c *client.Client, u *client.User, address string, opts *Options) error {
	return Unlink(ctx, c, u, ChainSolana, address, opts)
}
