package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mr-tron/base58"
)

// SIWSMessage is a Sign-In with Solana message as wallets make it: the text a wallet's "solana:signIn" feature
// (wallet-standard) builds from a SolanaSignInInput and signs, following Phantom's ABNF:
//
//	[ scheme "://" ] domain " wants you to sign in with your Solana account:" LF
//	address
//	[ LF LF statement ]                      ; 1*( reserved / unreserved / " " )
//	[ LF LF fields ]                         ; one or more of, in this order, one per line:
//	    "URI: " URI / "Version: " "1" / "Chain ID: " chain-id / "Nonce: " 8*( ALPHA / DIGIT ) /
//	    "Issued At: " date-time / "Expiration Time: " date-time / "Not Before: " date-time /
//	    "Request ID: " 1*pchar / "Resources:" *( LF "- " URI )
//
// The statement is any line of its characters, also one that looks like a field ("Nonce: ", "Version: 2 of our
// terms", "Resources: none"): the grammar decides by position, not by the line's start. After the address's blank
// line, a line followed by another blank line is the statement (the fields follow); a last line is the statement
// unless it reads as fields. A statement with no field after it that reads as fields ("Nonce: abcdefgh1") could be
// either by the grammar; it is read as the fields, as @solana/wallet-standard-util's parseSignInMessageText reads
// it, so Validate refuses such a statement in a message without fields.
//
// Build one and call String for the text to sign; ParseSIWS reads one back, and String of a parsed message gives
// the parsed text back byte for byte (time texts as written) for as long as its fields are not changed. Empty
// strings and zero times mean the field is absent; a nil Resources means no "Resources:" line, an empty non-nil
// one a "Resources:" line with no item. A SIWSMessage is a plain value: not safe for concurrent mutation.
type SIWSMessage struct {
	// Scheme is the optional URI scheme before the domain ("https"); empty means none.
	Scheme string
	// Domain is the RFC 3986 authority asking for the sign-in (host[:port], with a non-empty host); required.
	Domain string
	// Address is the signer's base58 public key (32 to 44 base58 characters); required.
	Address string
	// Statement is an optional human-readable line: ASCII letters, digits, spaces and RFC 3986 reserved or
	// unreserved punctuation. It may look like a field ("Version: 2 of our terms"); only in a message with no
	// field may it not read as fields ("Nonce: abcdefgh1"), since the text would read as those fields.
	Statement string
	// URI is the absolute URI of the resource that is the subject of the signing.
	URI string
	// Version is "1" (the only version) or empty (absent; VerifySIWS requires it).
	Version string
	// ChainID is one of SIWSChainIDs ("mainnet", "solana:devnet", ...) or empty (absent; VerifySIWS requires it).
	ChainID string
	// Nonce is at least 8 ASCII letters or digits (NewNonceValue makes one), or empty (absent; VerifySIWS
	// requires it).
	Nonce string
	// IssuedAt is when the message was made (VerifySIWS requires it).
	IssuedAt time.Time
	// ExpirationTime, when non-zero, is when the signed message stops being valid.
	ExpirationTime time.Time
	// NotBefore, when non-zero, is when the signed message starts being valid.
	NotBefore time.Time
	// RequestID is an optional system-specific identifier (RFC 3986 pchar characters, at least one).
	RequestID string
	// Resources are optional URIs the user wishes to have resolved as part of the authentication.
	Resources []string

	src siwsSource // the time texts ParseSIWS read, for String; zero for a message built in code
}

// siwsSource keeps the time texts ParseSIWS read (see siweSource): every other field renders as it is stored.
type siwsSource struct {
	issuedAt, expirationTime, notBefore siweTimeText
}

const siwsHeaderSuffix = " wants you to sign in with your Solana account:"

// SIWSChainIDs are the chain ids Phantom's ABNF allows. Verify treats "mainnet" and "solana:mainnet" (and so on)
// as the same chain.
var SIWSChainIDs = []string{"mainnet", "testnet", "devnet", "localnet", "solana:mainnet", "solana:testnet", "solana:devnet"}

// DefaultSIWSIssuedAtWindow is how far a message's Issued At may be from now, either way, when
// SIWSVerifyOptions.IssuedAtWindow is zero.
const DefaultSIWSIssuedAtWindow = 10 * time.Minute

// MaxSIWSMessageLen bounds the text ParseSIWS accepts.
const MaxSIWSMessageLen = 16 << 10

// SIWS errors. Parse errors, and messages without a field that verification needs, wrap ErrSIWSMalformed; the
// others say which check failed (wrapped with detail). ErrSIWSOptions is the caller's mistake, not the message's.
var (
	ErrSIWSMalformed   = errors.New("auth: malformed SIWS message")
	ErrSIWSDomain      = errors.New("auth: SIWS message is for another domain")
	ErrSIWSURI         = errors.New("auth: SIWS message is for another URI")
	ErrSIWSChain       = errors.New("auth: SIWS message is for another chain")
	ErrSIWSAddress     = errors.New("auth: SIWS message is for another address")
	ErrSIWSExpired     = errors.New("auth: SIWS message has expired")
	ErrSIWSNotYetValid = errors.New("auth: SIWS message is not valid yet")
	ErrSIWSOptions     = errors.New("auth: SIWS verification options incomplete")
)

func siwsMalformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSIWSMalformed, fmt.Sprintf(format, a...))
}

// siwsFieldPrefixes start the field lines, in their order.
var siwsFieldPrefixes = []string{"URI: ", "Version: ", "Chain ID: ", "Nonce: ", "Issued At: ", "Expiration Time: ",
	"Not Before: ", "Request ID: ", "Resources:"}

// isSIWSFieldLine reports whether l starts like a field line (it may still be a statement: see SIWSMessage).
func isSIWSFieldLine(l string) bool {
	for _, p := range siwsFieldPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// readsAsSIWSFields reports whether lines, alone, are a well-formed fields part: what a last line after the
// address's blank line is read as, in preference to a statement.
func readsAsSIWSFields(lines []string) bool {
	p := &siweParser{lines: lines, bad: siwsMalformed}
	return p.siwsFields(&SIWSMessage{}) == nil
}

// hasSIWSFields reports whether m has any field after the statement (String writes a fields part).
func (m *SIWSMessage) hasSIWSFields() bool {
	return m.URI != "" || m.Version != "" || m.ChainID != "" || m.Nonce != "" || !m.IssuedAt.IsZero() ||
		!m.ExpirationTime.IsZero() || !m.NotBefore.IsZero() || m.RequestID != "" || m.Resources != nil
}

// validSIWSAddress: 32*44 base58 characters (Phantom's ABNF; VerifySIWS also ties it to the signing key).
func validSIWSAddress(a string) bool {
	if len(a) < 32 || len(a) > 44 {
		return false
	}
	for i := 0; i < len(a); i++ {
		if strings.IndexByte("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", a[i]) < 0 {
			return false
		}
	}
	return true
}

func validSIWSChainID(c string) bool {
	for _, k := range SIWSChainIDs {
		if c == k {
			return true
		}
	}
	return false
}

// sameSIWSChain compares chain ids with and without the "solana:" prefix.
func sameSIWSChain(a, b string) bool {
	return strings.TrimPrefix(a, "solana:") == strings.TrimPrefix(b, "solana:")
}

// Validate checks that every field present is well-formed, and Domain and Address are present: what String needs
// to write text that ParseSIWS reads back to the same fields.
func (m *SIWSMessage) Validate() error {
	if m.Scheme != "" && !validScheme(m.Scheme) {
		return siwsMalformed("bad scheme")
	}
	if !validDomain(m.Domain) {
		return siwsMalformed("bad domain")
	}
	if !validSIWSAddress(m.Address) {
		return siwsMalformed("bad address: want 32 to 44 base58 characters")
	}
	if m.Statement != "" && !validSIWEStatement(m.Statement) {
		return siwsMalformed("bad statement")
	}
	if m.Statement != "" && !m.hasSIWSFields() && readsAsSIWSFields([]string{m.Statement}) {
		return siwsMalformed("a statement with no field after it may not read as a field")
	}
	if m.URI != "" && !validURI(m.URI) {
		return siwsMalformed("bad URI")
	}
	if m.Version != "" && m.Version != "1" {
		return siwsMalformed("unsupported version")
	}
	if m.ChainID != "" && !validSIWSChainID(m.ChainID) {
		return siwsMalformed("unknown chain id")
	}
	if m.Nonce != "" && !validSIWENonce(m.Nonce) {
		return siwsMalformed("nonce must be at least 8 letters or digits")
	}
	if m.RequestID != "" && !validSIWERequestID(m.RequestID) {
		return siwsMalformed("bad request id")
	}
	for _, r := range m.Resources {
		if !validURI(r) {
			return siwsMalformed("bad resource")
		}
	}
	return nil
}

// String renders the message (lines separated by "\n", no trailing newline), as @solana/wallet-standard-util's
// createSignInMessageText does for the same fields. It does not validate; call Validate first for input you do
// not control.
func (m *SIWSMessage) String() string {
	var b strings.Builder
	if m.Scheme != "" {
		b.WriteString(m.Scheme + "://")
	}
	b.WriteString(m.Domain + siwsHeaderSuffix + "\n" + m.Address)
	if m.Statement != "" {
		b.WriteString("\n\n" + m.Statement)
	}
	var f []string
	add := func(name, v string) {
		if v != "" {
			f = append(f, name+v)
		}
	}
	add("URI: ", m.URI)
	add("Version: ", m.Version)
	add("Chain ID: ", m.ChainID)
	add("Nonce: ", m.Nonce)
	if !m.IssuedAt.IsZero() {
		add("Issued At: ", m.src.issuedAt.render(m.IssuedAt))
	}
	if !m.ExpirationTime.IsZero() {
		add("Expiration Time: ", m.src.expirationTime.render(m.ExpirationTime))
	}
	if !m.NotBefore.IsZero() {
		add("Not Before: ", m.src.notBefore.render(m.NotBefore))
	}
	add("Request ID: ", m.RequestID)
	if m.Resources != nil {
		f = append(f, "Resources:")
		for _, r := range m.Resources {
			f = append(f, "- "+r)
		}
	}
	if len(f) > 0 {
		b.WriteString("\n\n" + strings.Join(f, "\n"))
	}
	return b.String()
}

// Canonical returns the message rendered afresh from its fields (times in the default layout with
// milliseconds), forgetting how a parsed message wrote them: two messages with the same fields have the same
// Canonical text.
func (m *SIWSMessage) Canonical() string {
	c := *m
	c.src = siwsSource{}
	return c.String()
}

// ParseSIWS parses Sign-In with Solana text to the letter of Phantom's ABNF (see SIWSMessage): "\n" line ends,
// no trailing newline, fields in their order, each at most once; an RFC 3986 authority with a non-empty host; an
// address of 32 to 44 base58 characters; a statement of ABNF characters (not empty; placed by position, so a line
// that looks like a field may be the statement: see SIWSMessage); RFC 3986 URIs; version 1; a chain id of
// SIWSChainIDs; a nonce of at least 8 letters or digits; RFC 3339 times (0001-01-01T00:00:00Z refused: the zero
// time means "absent"); a request id of pchar; a Resources list, possibly empty. String of the result gives text
// back byte for byte. Any deviation gives an error wrapping ErrSIWSMalformed; it never panics and is safe for
// concurrent use.
func ParseSIWS(text string) (*SIWSMessage, error) {
	if len(text) > MaxSIWSMessageLen {
		return nil, siwsMalformed("too long")
	}
	if strings.Contains(text, "\r") {
		return nil, siwsMalformed("carriage return")
	}
	p := &siweParser{lines: strings.Split(text, "\n"), bad: siwsMalformed}
	m := &SIWSMessage{}

	var err error
	if m.Scheme, m.Domain, err = p.header(siwsHeaderSuffix); err != nil {
		return nil, err
	}
	addr, ok := p.next()
	if !ok || !validSIWSAddress(addr) {
		return nil, siwsMalformed("bad address: want 32 to 44 base58 characters")
	}
	m.Address = addr

	// [ LF LF statement ] [ LF LF fields ], decided by position (see SIWSMessage): after a blank line, a line
	// followed by a blank line is the statement; a last line is the statement unless it reads as fields.
	if err := p.blank(); err != nil {
		return nil, err
	}
	l, ok := p.peek()
	if !ok {
		return m, nil
	}
	rest := p.lines[p.i:]
	if (len(rest) > 1 && rest[1] == "") || (len(rest) == 1 && !readsAsSIWSFields(rest)) {
		if l == "" || !validSIWEStatement(l) {
			if len(rest) == 1 && isSIWSFieldLine(l) {
				return nil, p.siwsFields(&SIWSMessage{}) // the error of the field it starts like
			}
			return nil, siwsMalformed("bad statement")
		}
		p.next()
		m.Statement = l
		if err := p.blank(); err != nil {
			return nil, err
		}
		if _, ok := p.peek(); !ok {
			return m, nil
		}
	}
	if err := p.siwsFields(m); err != nil {
		return nil, err
	}
	return m, nil
}

// siwsFields reads the fields part of a SIWS message into m, up to the end of the text: the fields in their order,
// each at most once, at least one.
func (p *siweParser) siwsFields(m *SIWSMessage) error {
	if _, ok := p.peek(); !ok {
		return p.bad("no field")
	}
	var err error
	if m.URI, err = p.field("URI", false); err != nil {
		return err
	}
	if m.URI != "" && !validURI(m.URI) {
		return siwsMalformed("bad URI")
	}
	if m.Version, err = p.field("Version", false); err != nil {
		return err
	}
	if m.Version != "" && m.Version != "1" {
		return siwsMalformed("unsupported version")
	}
	if m.ChainID, err = p.field("Chain ID", false); err != nil {
		return err
	}
	if m.ChainID != "" && !validSIWSChainID(m.ChainID) {
		return siwsMalformed("unknown chain id")
	}
	if m.Nonce, err = p.field("Nonce", false); err != nil {
		return err
	}
	if m.Nonce != "" && !validSIWENonce(m.Nonce) {
		return siwsMalformed("nonce must be at least 8 letters or digits")
	}
	if m.IssuedAt, m.src.issuedAt, err = p.timeField("Issued At", false); err != nil {
		return err
	}
	if m.ExpirationTime, m.src.expirationTime, err = p.timeField("Expiration Time", false); err != nil {
		return err
	}
	if m.NotBefore, m.src.notBefore, err = p.timeField("Not Before", false); err != nil {
		return err
	}
	if m.RequestID, err = p.field("Request ID", false); err != nil {
		return err
	}
	if m.RequestID != "" && !validSIWERequestID(m.RequestID) {
		return siwsMalformed("bad request id")
	}
	m.Resources, err = p.resources()
	return err
}

// blank consumes the blank line before a statement or the fields; at the end of the text it does nothing.
func (p *siweParser) blank() error {
	l, ok := p.peek()
	if !ok {
		return nil
	}
	if l != "" {
		return p.bad("blank line expected at line %d", p.i+1)
	}
	p.next()
	if _, ok := p.peek(); !ok {
		return p.bad("blank line with nothing after it")
	}
	return nil
}

// SIWSVerifyOptions are what a server expects of a SIWS message. Domain and ChainID are required: there is no
// "any domain" or "any chain". It is a plain value; Verify and VerifySIWS only read it.
type SIWSVerifyOptions struct {
	// Domain the message must name (compared case-insensitively); required.
	Domain string
	// ChainID the message must name; required. "mainnet" and "solana:mainnet" (and so on) are the same chain.
	ChainID string
	// URI the message must name exactly; empty skips the check.
	URI string
	// Address the message must name exactly (base58); empty skips the check. VerifySIWS always ties the address
	// to the signing key.
	Address string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IssuedAtWindow is how far Issued At may be from now, either way; zero means DefaultSIWSIssuedAtWindow;
	// negative is an ErrSIWSOptions error.
	IssuedAtWindow time.Duration
	// ConsumeNonce is called by VerifySIWS last, once every other check passed: it must accept the message's
	// Nonce at most once (e.g. authserver's NonceStore.Consume), and return an error otherwise. Required by
	// VerifySIWS (a nil ConsumeNonce is an ErrSIWSOptions error); Verify does not call it.
	ConsumeNonce func(ctx context.Context, m *SIWSMessage) error
}

// Verify checks the message's fields (not its signature, not its nonce's freshness: see VerifySIWS) against o:
// version 1, domain, chain id, URI and address when asked, a nonce and an Issued At present, Issued At within
// o.IssuedAtWindow of now, Expiration Time (when present) after now and after Issued At, Not Before (when
// present) not after now and before Expiration Time.
func (m *SIWSMessage) Verify(o SIWSVerifyOptions) error {
	if o.Domain == "" || o.ChainID == "" || o.IssuedAtWindow < 0 {
		return fmt.Errorf("%w: Domain and ChainID are required, IssuedAtWindow may not be negative", ErrSIWSOptions)
	}
	now := time.Now()
	if o.Now != nil {
		now = o.Now()
	}
	window := o.IssuedAtWindow
	if window == 0 {
		window = DefaultSIWSIssuedAtWindow
	}
	if err := m.Validate(); err != nil {
		return err
	}
	switch {
	case m.Version == "":
		return siwsMalformed("missing version")
	case m.ChainID == "":
		return siwsMalformed("missing chain id")
	case m.Nonce == "":
		return siwsMalformed("missing nonce")
	case m.IssuedAt.IsZero():
		return siwsMalformed("missing issued-at")
	}
	if !strings.EqualFold(m.Domain, o.Domain) {
		return ErrSIWSDomain
	}
	if !sameSIWSChain(m.ChainID, o.ChainID) {
		return ErrSIWSChain
	}
	if o.URI != "" && m.URI != o.URI {
		return ErrSIWSURI
	}
	if o.Address != "" && m.Address != o.Address {
		return ErrSIWSAddress
	}
	if m.IssuedAt.After(now.Add(window)) {
		return fmt.Errorf("%w: issued more than %v in the future", ErrSIWSNotYetValid, window)
	}
	if m.IssuedAt.Before(now.Add(-window)) {
		return fmt.Errorf("%w: issued more than %v ago", ErrSIWSExpired, window)
	}
	if !m.ExpirationTime.IsZero() {
		if !m.ExpirationTime.After(now) {
			return ErrSIWSExpired
		}
		if !m.ExpirationTime.After(m.IssuedAt) {
			return fmt.Errorf("%w: expires before it was issued", ErrSIWSExpired)
		}
	}
	if !m.NotBefore.IsZero() {
		if m.NotBefore.After(now) {
			return ErrSIWSNotYetValid
		}
		if !m.ExpirationTime.IsZero() && !m.NotBefore.Before(m.ExpirationTime) {
			return fmt.Errorf("%w: not valid before it expires", ErrSIWSExpired)
		}
	}
	return nil
}

// VerifySIWS is the whole server-side check of a Sign-In with Solana: signedMessage is the text the wallet signed
// (SolanaSignInOutput.signedMessage), signature its base58 ed25519 signature and publicKey the base58 key that
// signed (SolanaSignInOutput.account). In order: the text parses (ParseSIWS); its fields pass Verify(o); the
// address it names is publicKey exactly; the signature is publicKey's over the exact bytes (VerifySolSignature:
// small-order and non-canonical keys and R, and S >= L, are refused); last, o.ConsumeNonce accepts its nonce. It
// returns the parsed message, or the first failure: an error wrapping one of the ErrSIWS* errors,
// ErrMalformedAddress, ErrMalformedSignature, ErrSignatureMismatch, or ConsumeNonce's error. It is safe for
// concurrent use when ConsumeNonce and Now are.
func VerifySIWS(ctx context.Context, signedMessage, signature, publicKey string, o SIWSVerifyOptions) (*SIWSMessage, error) {
	if o.ConsumeNonce == nil {
		return nil, fmt.Errorf("%w: ConsumeNonce is required", ErrSIWSOptions)
	}
	m, err := ParseSIWS(signedMessage)
	if err != nil {
		return nil, err
	}
	if err := m.Verify(o); err != nil {
		return nil, err
	}
	pub, err := DecodeSolPublicKey(publicKey)
	if err != nil {
		return nil, err
	}
	if m.Address != base58.Encode(pub) {
		return nil, fmt.Errorf("%w: the message names %s, the key that signed is %s", ErrSIWSAddress, m.Address, base58.Encode(pub))
	}
	if err := VerifySolSignature(m.Address, []byte(signedMessage), signature); err != nil {
		return nil, err
	}
	if err := o.ConsumeNonce(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}
