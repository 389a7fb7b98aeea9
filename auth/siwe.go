package auth

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// SIWEMessage is a Sign-In with Ethereum message (EIP-4361). Build one and call String to get the text a wallet
// signs; ParseSIWE reads one back, and String of a parsed message gives the parsed text back byte for byte (time
// texts as written, e.g. without milliseconds) for as long as its fields are not changed. Zero times and empty
// strings mean the optional field is absent. A SIWEMessage is a plain value: not safe for concurrent mutation.
type SIWEMessage struct {
	// Scheme is the optional URI scheme before the domain ("https"); empty means none.
	Scheme string
	// Domain is the RFC 3986 authority asking for the sign-in: [userinfo "@"] host [":" port], the host a
	// reg-name, an IPv4 address or a bracketed IPv6 / IPvFuture literal; required.
	Domain string
	// Address is the signer's address; String writes it in EIP-55 form, ParseSIWE requires that form.
	Address string
	// Statement is an optional human-readable line: ASCII letters, digits, spaces and RFC 3986 reserved or
	// unreserved punctuation (no line breaks).
	Statement string
	// URI is the absolute URI of the resource that is the subject of the signing; required.
	URI string
	// Version is "1" (the only version); empty means "1" in String.
	Version string
	// ChainID is the EIP-155 chain id; required (greater than 0).
	ChainID uint64
	// Nonce is at least 8 ASCII letters or digits (NewNonceValue makes one; the endpoint's come from its
	// authserver.NonceStore); required.
	Nonce string
	// IssuedAt is when the message was made; required.
	IssuedAt time.Time
	// ExpirationTime, when non-zero, is when the signed message stops being valid.
	ExpirationTime time.Time
	// NotBefore, when non-zero, is when the signed message starts being valid.
	NotBefore time.Time
	// RequestID is an optional system-specific identifier (RFC 3986 pchar characters).
	RequestID string
	// Resources are optional URIs the user wishes to have resolved as part of the authentication.
	Resources []string

	src siweSource // what ParseSIWE read, for String; zero for a message built in code
}

const siweHeaderSuffix = " wants you to sign in with your Ethereum account:"

// siweTimeLayout is RFC 3339 with milliseconds, as JavaScript's toISOString writes it; String uses it for times
// that were not parsed.
const siweTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// SIWE errors. Parse errors wrap ErrSIWEMalformed; Verify errors are one of the others, wrapped with detail.
var (
	ErrSIWEMalformed   = errors.New("auth: malformed SIWE message")
	ErrSIWEDomain      = errors.New("auth: SIWE message is for another domain")
	ErrSIWEURI         = errors.New("auth: SIWE message is for another URI")
	ErrSIWEChain       = errors.New("auth: SIWE message is for another chain")
	ErrSIWEExpired     = errors.New("auth: SIWE message has expired")
	ErrSIWENotYetValid = errors.New("auth: SIWE message is not valid yet")
	ErrSIWEAddress     = errors.New("auth: SIWE message is for another address")
)

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSIWEMalformed, fmt.Sprintf(format, a...))
}

// Validate checks the fields String needs: everything required present and well-formed.
func (m *SIWEMessage) Validate() error {
	if m.Scheme != "" && !validScheme(m.Scheme) {
		return malformed("bad scheme")
	}
	if !validDomain(m.Domain) {
		return malformed("bad domain")
	}
	if _, err := NormalizeEthAddress(m.Address); err != nil {
		return malformed("bad address")
	}
	if !validSIWEStatement(m.Statement) {
		return malformed("bad statement")
	}
	if !validURI(m.URI) {
		return malformed("bad URI")
	}
	if m.Version != "" && m.Version != "1" {
		return malformed("unsupported version")
	}
	if m.ChainID == 0 {
		return malformed("missing chain id")
	}
	if !validSIWENonce(m.Nonce) {
		return malformed("nonce must be at least 8 letters or digits")
	}
	if m.IssuedAt.IsZero() {
		return malformed("missing issued-at")
	}
	if !validSIWERequestID(m.RequestID) {
		return malformed("bad request id")
	}
	for _, r := range m.Resources {
		if !validURI(r) {
			return malformed("bad resource")
		}
	}
	return nil
}

// String renders the message as EIP-4361 text (lines separated by "\n", no trailing newline). It does not
// validate; call Validate first for input you do not control.
func (m *SIWEMessage) String() string {
	var b strings.Builder
	if m.Scheme != "" {
		b.WriteString(m.Scheme + "://")
	}
	b.WriteString(m.Domain + siweHeaderSuffix + "\n")
	addr, err := ChecksumEthAddress(m.Address)
	if err != nil {
		addr = m.Address
	}
	b.WriteString(addr + "\n\n")
	if m.Statement != "" || m.src.emptyStatement {
		b.WriteString(m.Statement + "\n")
	}
	b.WriteString("\nURI: " + m.URI)
	v := m.Version
	if v == "" {
		v = "1"
	}
	b.WriteString("\nVersion: " + v)
	cid := strconv.FormatUint(m.ChainID, 10)
	if n, err := strconv.ParseUint(m.src.chainID, 10, 64); err == nil && n == m.ChainID {
		cid = m.src.chainID
	}
	b.WriteString("\nChain ID: " + cid)
	b.WriteString("\nNonce: " + m.Nonce)
	b.WriteString("\nIssued At: " + m.src.issuedAt.render(m.IssuedAt))
	if !m.ExpirationTime.IsZero() {
		b.WriteString("\nExpiration Time: " + m.src.expirationTime.render(m.ExpirationTime))
	}
	if !m.NotBefore.IsZero() {
		b.WriteString("\nNot Before: " + m.src.notBefore.render(m.NotBefore))
	}
	if m.RequestID != "" || m.src.emptyRequestID {
		b.WriteString("\nRequest ID: " + m.RequestID)
	}
	if len(m.Resources) > 0 || m.src.emptyResources {
		b.WriteString("\nResources:")
		for _, r := range m.Resources {
			b.WriteString("\n- " + r)
		}
	}
	return b.String()
}

// MaxSIWEMessageLen bounds the text ParseSIWE accepts.
const MaxSIWEMessageLen = 16 << 10

// ParseSIWE parses EIP-4361 text to the letter of its ABNF: lines in its order, "\n" line ends, no trailing
// newline; the domain any RFC 3986 authority (userinfo, IPv4, [IPv6] or [vF.uture] literals, any port digits)
// with a non-empty host; an EIP-55 address; a statement of ABNF characters, possibly present and empty; RFC 3986
// URIs; version 1; a decimal chain id (leading zeros allowed) between 1 and 2^64-1; a nonce of at least 8
// letters or digits; RFC 3339 times (any fraction, "T"/"Z" in either case, leap second 60; the instant
// 0001-01-01T00:00:00Z is refused, as the zero time.Time means "absent"); a request id of pchar, possibly empty;
// a Resources list, possibly empty. String of the result gives text back byte for byte. Any deviation gives an
// error wrapping ErrSIWEMalformed; it never panics and is safe for concurrent use.
func ParseSIWE(text string) (*SIWEMessage, error) {
	if len(text) > MaxSIWEMessageLen {
		return nil, malformed("too long")
	}
	if strings.Contains(text, "\r") {
		return nil, malformed("carriage return")
	}
	lines := strings.Split(text, "\n")
	p := &siweParser{lines: lines, bad: malformed}
	m := &SIWEMessage{}

	var err error
	if m.Scheme, m.Domain, err = p.header(siweHeaderSuffix); err != nil {
		return nil, err
	}

	addr, ok := p.next()
	if !ok {
		return nil, malformed("missing address")
	}
	if _, err := NormalizeEthAddress(addr); err != nil || !common.IsHexAddress(addr) || common.HexToAddress(addr).Hex() != addr {
		return nil, malformed("address must be EIP-55 checksummed")
	}
	m.Address = addr

	if l, ok := p.next(); !ok || l != "" {
		return nil, malformed("blank line expected after address")
	}
	l, ok := p.next()
	if !ok {
		return nil, malformed("truncated")
	}
	if l2, ok := p.peek(); l != "" || (ok && l2 == "") { // [ statement LF ] LF: a statement, maybe empty
		if !validSIWEStatement(l) {
			return nil, malformed("bad statement")
		}
		m.Statement, m.src.emptyStatement = l, l == ""
		if l2, ok := p.next(); !ok || l2 != "" {
			return nil, malformed("blank line expected after statement")
		}
	}

	if m.URI, err = p.field("URI", true); err != nil {
		return nil, err
	}
	if !validURI(m.URI) {
		return nil, malformed("bad URI")
	}
	if m.Version, err = p.field("Version", true); err != nil {
		return nil, err
	}
	if m.Version != "1" {
		return nil, malformed("unsupported version")
	}
	cid, err := p.field("Chain ID", true)
	if err != nil {
		return nil, err
	}
	if cid == "" || !allDigits(cid) {
		return nil, malformed("bad chain id")
	}
	if m.ChainID, err = strconv.ParseUint(cid, 10, 64); err != nil || m.ChainID == 0 {
		return nil, malformed("chain id must be between 1 and 2^64-1")
	}
	if cid[0] == '0' {
		m.src.chainID = cid
	}
	if m.Nonce, err = p.field("Nonce", true); err != nil {
		return nil, err
	}
	if !validSIWENonce(m.Nonce) {
		return nil, malformed("nonce must be at least 8 letters or digits")
	}
	if m.IssuedAt, m.src.issuedAt, err = p.timeField("Issued At", true); err != nil {
		return nil, err
	}
	if m.ExpirationTime, m.src.expirationTime, err = p.timeField("Expiration Time", false); err != nil {
		return nil, err
	}
	if m.NotBefore, m.src.notBefore, err = p.timeField("Not Before", false); err != nil {
		return nil, err
	}
	if l, ok := p.peek(); ok && strings.HasPrefix(l, "Request ID: ") { // request-id = *pchar: may be empty
		p.next()
		m.RequestID = l[len("Request ID: "):]
		m.src.emptyRequestID = m.RequestID == ""
		if !validSIWERequestID(m.RequestID) {
			return nil, malformed("bad request id")
		}
	}
	if m.Resources, err = p.resources(); err != nil {
		return nil, err
	}
	m.src.emptyResources = m.Resources != nil && len(m.Resources) == 0 // resources = *( LF resource )
	if len(m.Resources) == 0 {
		m.Resources = nil
	}
	return m, nil
}

// header reads the first line: [ scheme "://" ] domain suffix.
func (p *siweParser) header(suffix string) (scheme, domain string, err error) {
	head, ok := p.next()
	if !ok || !strings.HasSuffix(head, suffix) {
		return "", "", p.bad("first line must end with %q", suffix)
	}
	domain = strings.TrimSuffix(head, suffix)
	if i := strings.Index(domain, "://"); i >= 0 {
		scheme, domain = domain[:i], domain[i+3:]
		if !validScheme(scheme) {
			return "", "", p.bad("bad scheme")
		}
	}
	if !validDomain(domain) {
		return "", "", p.bad("bad domain")
	}
	return scheme, domain, nil
}

// resources reads the optional last part, "Resources:" *( LF "- " URI ), and checks that nothing follows: nil
// when absent, empty and non-nil when the list has no item.
func (p *siweParser) resources() ([]string, error) {
	var rs []string
	if l, ok := p.peek(); ok && l == "Resources:" {
		p.next()
		rs = []string{}
		for {
			r, ok := p.peek()
			if !ok {
				break
			}
			if !strings.HasPrefix(r, "- ") || !validURI(r[2:]) {
				return nil, p.bad("bad resource line")
			}
			rs = append(rs, r[2:])
			p.next()
		}
	}
	if _, ok := p.peek(); ok {
		return nil, p.bad("unexpected line %d", p.i+1)
	}
	return rs, nil
}

// siweParser walks the lines of a SIWE or SIWS message; bad makes its errors (malformed or siwsMalformed).
type siweParser struct {
	lines []string
	i     int
	bad   func(format string, a ...any) error
}

func (p *siweParser) next() (string, bool) {
	if p.i >= len(p.lines) {
		return "", false
	}
	p.i++
	return p.lines[p.i-1], true
}

func (p *siweParser) peek() (string, bool) {
	if p.i >= len(p.lines) {
		return "", false
	}
	return p.lines[p.i], true
}

// field reads "Name: value". When the next line is not that field: an error if required, else "" and no advance.
func (p *siweParser) field(name string, required bool) (string, error) {
	l, ok := p.peek()
	prefix := name + ": "
	if !ok || !strings.HasPrefix(l, prefix) {
		if required {
			return "", p.bad("missing %q", name)
		}
		return "", nil
	}
	p.next()
	v := l[len(prefix):]
	if v == "" {
		return "", p.bad("empty %q", name)
	}
	return v, nil
}

func (p *siweParser) timeField(name string, required bool) (time.Time, siweTimeText, error) {
	v, err := p.field(name, required)
	if err != nil || v == "" {
		return time.Time{}, siweTimeText{}, err
	}
	t, ok := parseRFC3339(v)
	if !ok {
		return time.Time{}, siweTimeText{}, p.bad("bad %q time: want RFC 3339", name)
	}
	if t.IsZero() {
		return time.Time{}, siweTimeText{}, p.bad("%q time 0001-01-01T00:00:00Z stands for none", name)
	}
	return t, siweTimeText{t: t, text: v}, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func validScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// validDomain accepts a SIWE domain: an RFC 3986 authority with a non-empty host.
func validDomain(d string) bool { return validAuthority(d, true) }

// SIWEVerifyOptions are what a server expects of a SIWE message, per call to Verify. Empty (zero) fields are not
// checked. It is a plain value; Verify only reads it.
type SIWEVerifyOptions struct {
	// Domain the message must name (compared case-insensitively).
	Domain string
	// URI the message must name exactly; empty skips the check.
	URI string
	// ChainID the message must name; 0 skips the check.
	ChainID uint64
	// Address the message must name (compared lower-cased); empty skips the check.
	Address string
	// Now is the time to check against; zero means time.Now().
	Now time.Time
	// ClockSkew tolerated on Issued At and Not Before (a message from slightly in the future); 0 means none.
	ClockSkew time.Duration
	// MaxAge, when positive, refuses a message issued more than MaxAge before Now.
	MaxAge time.Duration
}

// Verify checks the message's fields (not its signature: see VerifyEthSignature) against o: domain, URI,
// chain id, address, and that it is issued, not yet expired and not before its Not Before time.
func (m *SIWEMessage) Verify(o SIWEVerifyOptions) error {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	if o.Domain != "" && !strings.EqualFold(m.Domain, o.Domain) {
		return ErrSIWEDomain
	}
	if o.URI != "" && m.URI != o.URI {
		return ErrSIWEURI
	}
	if o.ChainID != 0 && m.ChainID != o.ChainID {
		return ErrSIWEChain
	}
	if o.Address != "" {
		want, err1 := NormalizeEthAddress(o.Address)
		got, err2 := NormalizeEthAddress(m.Address)
		if err1 != nil || err2 != nil || want != got {
			return ErrSIWEAddress
		}
	}
	if m.IssuedAt.IsZero() {
		return malformed("missing issued-at")
	}
	if m.IssuedAt.After(now.Add(o.ClockSkew)) {
		return fmt.Errorf("%w: issued in the future", ErrSIWENotYetValid)
	}
	if !m.NotBefore.IsZero() && m.NotBefore.After(now.Add(o.ClockSkew)) {
		return ErrSIWENotYetValid
	}
	if !m.ExpirationTime.IsZero() && !now.Before(m.ExpirationTime) {
		return ErrSIWEExpired
	}
	if o.MaxAge > 0 && now.Sub(m.IssuedAt) > o.MaxAge {
		return fmt.Errorf("%w: issued too long ago", ErrSIWEExpired)
	}
	return nil
}
