package auth

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// SIWEMessage is a Sign-In with Ethereum message (EIP-4361). Build one and call String to get the text a wallet
// signs; ParseSIWE reads one back. Zero times and empty strings mean the optional field is absent.
type SIWEMessage struct {
	// Scheme is the optional URI scheme before the domain ("https"); empty means none.
	Scheme string
	// Domain is the RFC 3986 authority asking for the sign-in (host[:port]); required.
	Domain string
	// Address is the signer's address; String writes it in EIP-55 form, ParseSIWE requires that form.
	Address string
	// Statement is an optional human-readable line (no line breaks).
	Statement string
	// URI is the absolute URI of the resource that is the subject of the signing; required.
	URI string
	// Version is "1" (the only version); empty means "1" in String.
	Version string
	// ChainID is the EIP-155 chain id; required (greater than 0).
	ChainID uint64
	// Nonce is at least 8 alphanumeric characters, normally issued by a NonceStore; required.
	Nonce string
	// IssuedAt is when the message was made; required.
	IssuedAt time.Time
	// ExpirationTime, when non-zero, is when the signed message stops being valid.
	ExpirationTime time.Time
	// NotBefore, when non-zero, is when the signed message starts being valid.
	NotBefore time.Time
	// RequestID is an optional system-specific identifier.
	RequestID string
	// Resources are optional URIs the user wishes to have resolved as part of the authentication.
	Resources []string
}

const siweHeaderSuffix = " wants you to sign in with your Ethereum account:"

// siweTimeLayout is RFC 3339 with milliseconds, as JavaScript's toISOString writes it.
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
	if m.Statement != "" && !validStatement(m.Statement) {
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
	if !validNonce(m.Nonce) {
		return malformed("nonce must be at least 8 letters or digits")
	}
	if m.IssuedAt.IsZero() {
		return malformed("missing issued-at")
	}
	if m.RequestID != "" && !validRequestID(m.RequestID) {
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
	if m.Statement != "" {
		b.WriteString(m.Statement + "\n")
	}
	b.WriteString("\nURI: " + m.URI)
	v := m.Version
	if v == "" {
		v = "1"
	}
	b.WriteString("\nVersion: " + v)
	b.WriteString("\nChain ID: " + strconv.FormatUint(m.ChainID, 10))
	b.WriteString("\nNonce: " + m.Nonce)
	b.WriteString("\nIssued At: " + m.IssuedAt.Format(siweTimeLayout))
	if !m.ExpirationTime.IsZero() {
		b.WriteString("\nExpiration Time: " + m.ExpirationTime.Format(siweTimeLayout))
	}
	if !m.NotBefore.IsZero() {
		b.WriteString("\nNot Before: " + m.NotBefore.Format(siweTimeLayout))
	}
	if m.RequestID != "" {
		b.WriteString("\nRequest ID: " + m.RequestID)
	}
	if len(m.Resources) > 0 {
		b.WriteString("\nResources:")
		for _, r := range m.Resources {
			b.WriteString("\n- " + r)
		}
	}
	return b.String()
}

// MaxSIWEMessageLen bounds the text ParseSIWE accepts.
const MaxSIWEMessageLen = 16 << 10

// ParseSIWE parses EIP-4361 text strictly: lines in the order the ABNF gives, "\n" line ends, no trailing
// newline, an EIP-55 address, version 1, a decimal chain id, an alphanumeric nonce of at least 8 characters,
// RFC 3339 times. Any deviation gives an error wrapping ErrSIWEMalformed; it never panics.
func ParseSIWE(text string) (*SIWEMessage, error) {
	if len(text) > MaxSIWEMessageLen {
		return nil, malformed("too long")
	}
	if strings.Contains(text, "\r") {
		return nil, malformed("carriage return")
	}
	lines := strings.Split(text, "\n")
	p := &siweParser{lines: lines}
	m := &SIWEMessage{}

	head, ok := p.next()
	if !ok || !strings.HasSuffix(head, siweHeaderSuffix) {
		return nil, malformed("first line must end with %q", siweHeaderSuffix)
	}
	authority := strings.TrimSuffix(head, siweHeaderSuffix)
	if i := strings.Index(authority, "://"); i >= 0 {
		m.Scheme, authority = authority[:i], authority[i+3:]
		if !validScheme(m.Scheme) {
			return nil, malformed("bad scheme")
		}
	}
	if !validDomain(authority) {
		return nil, malformed("bad domain")
	}
	m.Domain = authority

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
	if l != "" {
		if !validStatement(l) {
			return nil, malformed("bad statement")
		}
		m.Statement = l
		if l2, ok := p.next(); !ok || l2 != "" {
			return nil, malformed("blank line expected after statement")
		}
	}

	var err error
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
	if cid == "" || len(cid) > 20 || (len(cid) > 1 && cid[0] == '0') || !allDigits(cid) {
		return nil, malformed("bad chain id")
	}
	if m.ChainID, err = strconv.ParseUint(cid, 10, 64); err != nil || m.ChainID == 0 {
		return nil, malformed("bad chain id")
	}
	if m.Nonce, err = p.field("Nonce", true); err != nil {
		return nil, err
	}
	if !validNonce(m.Nonce) {
		return nil, malformed("nonce must be at least 8 letters or digits")
	}
	if m.IssuedAt, err = p.timeField("Issued At", true); err != nil {
		return nil, err
	}
	if m.ExpirationTime, err = p.timeField("Expiration Time", false); err != nil {
		return nil, err
	}
	if m.NotBefore, err = p.timeField("Not Before", false); err != nil {
		return nil, err
	}
	if m.RequestID, err = p.field("Request ID", false); err != nil {
		return nil, err
	}
	if m.RequestID != "" && !validRequestID(m.RequestID) {
		return nil, malformed("bad request id")
	}
	if l, ok := p.peek(); ok && l == "Resources:" {
		p.next()
		for {
			r, ok := p.peek()
			if !ok {
				break
			}
			if !strings.HasPrefix(r, "- ") || !validURI(r[2:]) {
				return nil, malformed("bad resource line")
			}
			m.Resources = append(m.Resources, r[2:])
			p.next()
		}
		if len(m.Resources) == 0 {
			return nil, malformed("empty resources list")
		}
	}
	if _, ok := p.peek(); ok {
		return nil, malformed("unexpected line %d", p.i+1)
	}
	return m, nil
}

type siweParser struct {
	lines []string
	i     int
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
			return "", malformed("missing %q", name)
		}
		return "", nil
	}
	p.next()
	v := l[len(prefix):]
	if v == "" {
		return "", malformed("empty %q", name)
	}
	return v, nil
}

func (p *siweParser) timeField(name string, required bool) (time.Time, error) {
	v, err := p.field(name, required)
	if err != nil || v == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil || strings.ContainsAny(v, " ") {
		return time.Time{}, malformed("bad %q time", name)
	}
	return t, nil
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

// validDomain accepts an RFC 3986 authority without userinfo: host (reg-name, IPv4 or [IPv6]) and an optional
// port.
func validDomain(d string) bool {
	if d == "" || len(d) > 255 || strings.ContainsAny(d, "/?#@ \t\\") {
		return false
	}
	u, err := url.Parse("https://" + d)
	if err != nil || u.Host != d || u.Hostname() == "" || u.User != nil || u.Path != "" {
		return false
	}
	if port := u.Port(); port != "" && (!allDigits(port) || len(port) > 5) {
		return false
	}
	if strings.HasSuffix(d, ":") {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < 0x21 || d[i] > 0x7e {
			return false
		}
	}
	return true
}

func validStatement(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return s != ""
}

func validURI(s string) bool {
	if s == "" || len(s) > 2048 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && validScheme(u.Scheme)
}

func validNonce(n string) bool {
	if len(n) < 8 || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !isAlpha(c) && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func validRequestID(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// SIWEVerifyOptions are what a server expects of a SIWE message. Empty fields are not checked.
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
