package auth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// siweText assembles message text from its parts exactly as given (no normalisation), the way a wallet signs it.
type siweParts struct {
	scheme, domain, address string
	statement               *string // nil: no statement line
	uri, chainID, nonce     string
	issuedAt                string
	expiration, notBefore   *string
	requestID               *string
	resources               []string
	resourcesLine           bool // "Resources:" present (with or without items)
}

func (p siweParts) text() string {
	var b strings.Builder
	if p.scheme != "" {
		b.WriteString(p.scheme + "://")
	}
	b.WriteString(p.domain + " wants you to sign in with your Ethereum account:\n" + p.address + "\n\n")
	if p.statement != nil {
		b.WriteString(*p.statement + "\n")
	}
	b.WriteString("\nURI: " + p.uri + "\nVersion: 1\nChain ID: " + p.chainID + "\nNonce: " + p.nonce +
		"\nIssued At: " + p.issuedAt)
	if p.expiration != nil {
		b.WriteString("\nExpiration Time: " + *p.expiration)
	}
	if p.notBefore != nil {
		b.WriteString("\nNot Before: " + *p.notBefore)
	}
	if p.requestID != nil {
		b.WriteString("\nRequest ID: " + *p.requestID)
	}
	if p.resourcesLine || len(p.resources) > 0 {
		b.WriteString("\nResources:")
		for _, r := range p.resources {
			b.WriteString("\n- " + r)
		}
	}
	return b.String()
}

func strp(s string) *string { return &s }

func baseParts() siweParts {
	return siweParts{domain: "example.com", address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
		statement: strp("I accept the ExampleOrg Terms of Service: https://example.com/tos"),
		uri:       "https://example.com/login", chainID: "1", nonce: "32891756", issuedAt: "2021-09-30T16:25:24Z"}
}

// roundTrip parses text, checks String gives it back byte for byte, that the message validates, and that the
// rendering parses again to the same text.
func roundTrip(t *testing.T, name, text string) *SIWEMessage {
	t.Helper()
	m, err := ParseSIWE(text)
	if err != nil {
		t.Errorf("%s: %v\n%s", name, err, text)
		return nil
	}
	if got := m.String(); got != text {
		t.Errorf("%s: String() differs:\n%q\nwant\n%q", name, got, text)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("%s: Validate: %v", name, err)
	}
	if m2, err := ParseSIWE(m.String()); err != nil || m2.String() != text {
		t.Errorf("%s: reparse: %v", name, err)
	}
	return m
}

// The three examples of the current ERC-4361 text (ethereum/ERCs, ERCS/erc-4361.md), byte for byte.
func TestSIWEERCExamples(t *testing.T) {
	body := "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n\n" +
		"I accept the ExampleOrg Terms of Service: https://example.com/tos\n\n" +
		"URI: https://example.com/login\nVersion: 1\nChain ID: 1\nNonce: 32891756\nIssued At: 2021-09-30T16:25:24Z\n" +
		"Resources:\n- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n- https://example.com/my-web2-claim.json"
	for _, c := range []struct{ head, scheme, domain string }{
		{"example.com", "", "example.com"},
		{"example.com:3388", "", "example.com:3388"},
		{"https://example.com", "https", "example.com"},
	} {
		m := roundTrip(t, c.head, c.head+" wants you to sign in with your Ethereum account:\n"+body)
		if m != nil && (m.Scheme != c.scheme || m.Domain != c.domain || len(m.Resources) != 2 ||
			!m.IssuedAt.Equal(time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC))) {
			t.Errorf("%s: %+v", c.head, m)
		}
	}
}

func TestSIWEAuthorityForms(t *testing.T) {
	ok := []string{
		"user:pass@example.com:8443", "alice@example.com", "@example.com", ":@example.com", "%41lice:p%40ss@example.com",
		"a!$&'()*+,;=:b@example.com", "127.0.0.1", "127.0.0.1:80", "999.1.1.1", "[::1]", "[::1]:8080",
		"[2001:DB8::7]", "[::ffff:192.0.2.1]:443", "user@[fe80::1]:1", "[v1.fe80::a+en1]", "[V7.x:y]",
		"example.com:", "example.com:99999999", "localhost", "xn--bcher-kva.example", "ex%20ample.com",
		"a!$&'()*+,;=b.example", "-._~", "EXAMPLE.COM",
	}
	for _, d := range ok {
		for _, scheme := range []string{"", "https", "git+ssh"} {
			p := baseParts()
			p.scheme, p.domain = scheme, d
			m := roundTrip(t, scheme+"://"+d, p.text())
			if m == nil {
				continue
			}
			if m.Domain != d || m.Scheme != scheme {
				t.Errorf("%s: parsed as scheme %q domain %q", d, m.Scheme, m.Domain)
			}
			if err := m.Verify(SIWEVerifyOptions{Domain: d, Now: m.IssuedAt}); err != nil {
				t.Errorf("%s: Verify: %v", d, err)
			}
			if !validDomain(d) {
				t.Errorf("%s: validDomain refuses what ParseSIWE accepts", d)
			}
		}
	}
	bad := []string{
		"", "user@", "user@:80", ":80", "a@b@c", "[::1", "[::1]x", "[::1]:a", "[fe80::1%25eth0]", "[1.2.3.4]",
		"[v.x]", "[v1.]", "[vz.x]", "[:::1]", "[1:2:3:4:5:6:7:8:9]", "host:port", "exa mple.com", "ex%2.com",
		"ex%zz.com", "host/path", "host?q", "host#f", "h\u00e9llo.com", "[::1]:80:80", "example.com:8:8",
		"us er@example.com", "user[@example.com", "[]", "[v1.x]]",
	}
	for _, d := range bad {
		p := baseParts()
		p.domain = d
		if _, err := ParseSIWE(p.text()); !errors.Is(err, ErrSIWEMalformed) {
			t.Errorf("domain %q: %v", d, err)
		}
		m := &SIWEMessage{Domain: d, Address: katEthAddr, URI: "https://x.example", ChainID: 1, Nonce: "abcdefgh", IssuedAt: time.Now()}
		if err := m.Validate(); !errors.Is(err, ErrSIWEMalformed) {
			t.Errorf("Validate, domain %q: %v", d, err)
		}
	}
}

func TestSIWETimesVerbatim(t *testing.T) {
	ok := map[string]time.Time{
		"2021-09-30T16:25:24Z":                   time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC),
		"2021-09-30t16:25:24z":                   time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC),
		"2021-09-30T16:25:24.5+02:00":            time.Date(2021, 9, 30, 14, 25, 24, 5e8, time.UTC),
		"2021-09-30T16:25:24.000Z":               time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC),
		"2021-09-30T16:25:24.123456789012-07:30": time.Date(2021, 9, 30, 23, 55, 24, 123456789, time.UTC),
		"2016-12-31T23:59:60Z":                   time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC),
		"2024-02-29T00:00:00Z":                   time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		"2000-02-29T00:00:00Z":                   time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC),
		"2021-09-30T16:25:24-00:00":              time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC),
		"2021-09-30T16:25:24+00:00":              time.Date(2021, 9, 30, 16, 25, 24, 0, time.UTC),
		"0001-01-01T00:00:00+01:00":              time.Date(0, 12, 31, 23, 0, 0, 0, time.UTC),
		"9999-12-31T23:59:59.999999999Z":         time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	for text, want := range ok {
		p := baseParts()
		p.issuedAt, p.expiration, p.notBefore = text, strp(text), strp(text)
		m := roundTrip(t, text, p.text())
		if m != nil && (!m.IssuedAt.Equal(want) || !m.ExpirationTime.Equal(want) || !m.NotBefore.Equal(want)) {
			t.Errorf("%s: parsed %v, want %v", text, m.IssuedAt, want)
		}
	}
	bad := []string{
		"2021-09-30T16:25Z", "2021-09-30 16:25:24Z", "2021-09-30T16:25:24+0200", "2021-09-30T24:00:00Z",
		"2021-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2021-04-31T00:00:00Z", "2021-09-30T16:25:24.Z",
		"2021-09-30T16:25:24+24:00", "2021-09-30T16:25:24+02:60", "2021-13-01T00:00:00Z", "2021-00-01T00:00:00Z",
		"2021-09-00T00:00:00Z", "21-09-30T16:25:24Z", "2021-09-30T16:25:24", "2021-09-30T16:25:61Z",
		"+2021-09-30T16:25:24Z", "2021-09-30T16:60:00Z", "2021-09-30T16:25:24.1.2Z", "2021-09-30T16:25:24Zx",
		"2021-09-30T16:25:24+2:00", "2021-09-30T16:25:24+02:0a", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000z",
		"2021-9-30T16:25:24Z", "yesterday", "2021-09-30T16:25:24+-2:00",
	}
	for _, text := range bad {
		for _, field := range []string{"issued", "expiration", "notBefore"} {
			p := baseParts()
			switch field {
			case "issued":
				p.issuedAt = text
			case "expiration":
				p.expiration = strp(text)
			default:
				p.notBefore = strp(text)
			}
			if _, err := ParseSIWE(p.text()); !errors.Is(err, ErrSIWEMalformed) {
				t.Errorf("%s %q: %v", field, text, err)
			}
		}
	}
}

func TestSIWEOptionalFieldsAndEdges(t *testing.T) {
	type mod func(p *siweParts)
	ok := map[string]mod{
		"minimal":                 func(p *siweParts) { p.statement = nil },
		"empty statement":         func(p *siweParts) { p.statement = strp("") },
		"statement punctuation":   func(p *siweParts) { p.statement = strp("a-z A-Z 0-9 :/?#[]@!$&'()*+,;= -._~") },
		"expiration":              func(p *siweParts) { p.expiration = strp("2021-10-01T00:00:00Z") },
		"not before":              func(p *siweParts) { p.notBefore = strp("2021-09-30T16:00:00.000Z") },
		"request id":              func(p *siweParts) { p.requestID = strp("req-1:a@b!$&'()*+,;=%41~") },
		"empty request id":        func(p *siweParts) { p.requestID = strp("") },
		"one resource":            func(p *siweParts) { p.resources = []string{"https://example.com/a"} },
		"empty resources list":    func(p *siweParts) { p.resourcesLine = true },
		"all optional":            func(p *siweParts) { all(p) },
		"all optional, empty":     func(p *siweParts) { all(p); p.statement, p.requestID, p.resources = strp(""), strp(""), nil },
		"chain id 137":            func(p *siweParts) { p.chainID = "137" },
		"chain id max":            func(p *siweParts) { p.chainID = "18446744073709551615" },
		"chain id leading zeros":  func(p *siweParts) { p.chainID = "0001" },
		"long nonce":              func(p *siweParts) { p.nonce = strings.Repeat("aZ9", 100) },
		"urn uri":                 func(p *siweParts) { p.uri = "urn:ietf:rfc:3986" },
		"did uri":                 func(p *siweParts) { p.uri = "did:pkh:eip155:1:0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2" },
		"uri query fragment":      func(p *siweParts) { p.uri = "https://example.com/login?x=1&y=%20#frag/?" },
		"uri ipv6":                func(p *siweParts) { p.uri = "http://[::1]:8080/" },
		"uri userinfo":            func(p *siweParts) { p.uri = "https://user:pass@example.com:8443/x" },
		"uri empty host":          func(p *siweParts) { p.uri = "file:///etc/hosts" },
		"uri mailto":              func(p *siweParts) { p.uri = "mailto:a@b.example" },
		"uri scheme only":         func(p *siweParts) { p.uri = "x:" },
		"resources, varied URIs":  func(p *siweParts) { p.resources = []string{"ipfs://bafy/", "urn:x:y", "https://[::1]/a?b#c"} },
		"statement with URI only": func(p *siweParts) { p.statement = strp("https://example.com/tos") },
	}
	for name, f := range ok {
		p := baseParts()
		f(&p)
		roundTrip(t, name, p.text())
	}
	bad := map[string]mod{
		"multi-line statement":   func(p *siweParts) { p.statement = strp("line one\nline two") },
		"statement non-ASCII":    func(p *siweParts) { p.statement = strp("Caf\u00e9") },
		"statement quote":        func(p *siweParts) { p.statement = strp(`say "hi"`) },
		"statement percent":      func(p *siweParts) { p.statement = strp("100%") },
		"statement tab":          func(p *siweParts) { p.statement = strp("a\tb") },
		"statement CR":           func(p *siweParts) { p.statement = strp("a\rb") },
		"request id slash":       func(p *siweParts) { p.requestID = strp("a/b") },
		"request id bad pct":     func(p *siweParts) { p.requestID = strp("%4") },
		"request id space":       func(p *siweParts) { p.requestID = strp("a b") },
		"chain id 0":             func(p *siweParts) { p.chainID = "0" },
		"chain id 2^64":          func(p *siweParts) { p.chainID = "18446744073709551616" },
		"chain id negative":      func(p *siweParts) { p.chainID = "-1" },
		"chain id hex":           func(p *siweParts) { p.chainID = "0x1" },
		"chain id empty":         func(p *siweParts) { p.chainID = "" },
		"nonce 7":                func(p *siweParts) { p.nonce = "abcdefg" },
		"nonce dash":             func(p *siweParts) { p.nonce = "abcd-efgh" },
		"uri space":              func(p *siweParts) { p.uri = "https://exa mple.com" },
		"uri angle":              func(p *siweParts) { p.uri = "https://example.com/<x>" },
		"uri relative":           func(p *siweParts) { p.uri = "//example.com" },
		"uri bad pct":            func(p *siweParts) { p.uri = "https://example.com/%zz" },
		"uri bad ipv6":           func(p *siweParts) { p.uri = "https://[::1/" },
		"uri bad port":           func(p *siweParts) { p.uri = "https://example.com:8x/" },
		"uri no scheme":          func(p *siweParts) { p.uri = "example.com" },
		"uri braces":             func(p *siweParts) { p.uri = "https://example.com/{x}" },
		"resource relative":      func(p *siweParts) { p.resources = []string{"/a"} },
		"resource no space":      func(p *siweParts) { p.resources = []string{"", "x"}; p.resourcesLine = true },
		"address lower":          func(p *siweParts) { p.address = strings.ToLower(p.address) },
		"address short":          func(p *siweParts) { p.address = p.address[:41] },
		"version 2":              func(p *siweParts) { p.uri += "\nVersion: 2" },
		"fields out of order":    func(p *siweParts) { p.notBefore, p.requestID = strp("2021-09-30T16:25:24Z"), strp("x") },
		"statement, no LF after": func(p *siweParts) { p.statement = strp("Hi") },
	}
	for name, f := range bad {
		p := baseParts()
		f(&p)
		text := p.text()
		switch name {
		case "fields out of order":
			text = strings.Replace(text, "\nNot Before: 2021-09-30T16:25:24Z\nRequest ID: x", "\nRequest ID: x\nNot Before: 2021-09-30T16:25:24Z", 1)
		case "statement, no LF after":
			text = strings.Replace(text, "Hi\n\nURI", "Hi\nURI", 1)
		}
		if _, err := ParseSIWE(text); !errors.Is(err, ErrSIWEMalformed) {
			t.Errorf("%s: %v\n%s", name, err, text)
		}
	}
	// Built in code: an empty statement or request id is absent, and Validate refuses what ParseSIWE would.
	m := &SIWEMessage{Domain: "user:pw@[::1]:8080", Address: katEthAddr, URI: "https://x.example", ChainID: 1,
		Nonce: "abcdefgh", IssuedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := "user:pw@[::1]:8080 wants you to sign in with your Ethereum account:\n0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n\n\nURI: https://x.example\nVersion: 1\nChain ID: 1\nNonce: abcdefgh\nIssued At: 2026-01-02T03:04:05.000Z"; m.String() != want {
		t.Fatalf("built:\n%q", m.String())
	}
	for name, f := range map[string]func(m *SIWEMessage){
		"statement":  func(m *SIWEMessage) { m.Statement = "Caf\u00e9" },
		"request id": func(m *SIWEMessage) { m.RequestID = "a/b" },
		"nonce":      func(m *SIWEMessage) { m.Nonce = "abc" },
		"resource":   func(m *SIWEMessage) { m.Resources = []string{"https://x/{y}"} },
	} {
		c := *m
		f(&c)
		if err := c.Validate(); !errors.Is(err, ErrSIWEMalformed) {
			t.Errorf("Validate %s: %v", name, err)
		}
	}
}

func all(p *siweParts) {
	p.expiration, p.notBefore, p.requestID = strp("2021-10-01T00:00:00.5Z"), strp("2021-09-30t16:00:00z"), strp("r-1")
	p.resources = []string{"ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/", "https://example.com/c.json"}
}

// TestSIWEChangedFieldsRenderAfresh: the parsed texts are kept only while the fields still hold the parsed values.
func TestSIWEChangedFieldsRenderAfresh(t *testing.T) {
	p := baseParts()
	p.statement, p.chainID, p.requestID, p.resourcesLine = strp(""), "007", strp(""), true
	p.issuedAt = "2021-09-30T18:25:24+02:00"
	m, err := ParseSIWE(p.text())
	if err != nil {
		t.Fatal(err)
	}
	m.Statement, m.ChainID, m.RequestID, m.Resources = "Hi", 8, "r", []string{"https://a.example"}
	m.IssuedAt = m.IssuedAt.UTC() // same instant, other offset: rendered afresh
	got := m.String()
	for _, want := range []string{"\n\nHi\n\nURI:", "Chain ID: 8\n", "Issued At: 2021-09-30T16:25:24.000Z",
		"Request ID: r\n", "Resources:\n- https://a.example"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestSIWEParseStringProperty: for generated valid messages (every optional part present or not, every
// authority and time form), ParseSIWE accepts, String(Parse(s)) == s, and the message validates.
func TestSIWEParseStringProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(4361, 1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		checkRoundTrip(t, genSIWEParts(r).text(), parseSIWEAny)
	}
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func genFrom(r *rand.Rand, alphabet string, min, max int) string {
	n := min + r.IntN(max-min+1)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	unreserved = alnum + "-._~"
	subDelims  = "!$&'()*+,;="
)

func genPct(r *rand.Rand, alphabet string, min, max int) string {
	s := genFrom(r, alphabet, min, max)
	if r.IntN(4) == 0 {
		s += "%" + genFrom(r, "0123456789abcdefABCDEF", 2, 2)
	}
	return s
}

func genHost(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf("%d.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
	case 1:
		return pick(r, "[::1]", "[2001:db8::7]", "[::ffff:192.0.2.1]", "[FE80::A:b:C]", "[1:2:3:4:5:6:7:8]", "[::]")
	case 2:
		return "[v" + genFrom(r, "0123456789abcdef", 1, 3) + "." + genFrom(r, unreserved+subDelims+":", 1, 8) + "]"
	default:
		return genPct(r, unreserved+subDelims, 1, 20)
	}
}

func genAuthority(r *rand.Rand, requireHost bool) string {
	a := ""
	if r.IntN(3) == 0 {
		a = genPct(r, unreserved+subDelims+":", 0, 10) + "@"
	}
	h := genHost(r)
	if !requireHost && r.IntN(6) == 0 {
		h = ""
	}
	a += h
	if r.IntN(3) == 0 {
		a += ":" + genFrom(r, "0123456789", 0, 6)
	}
	return a
}

func genURI(r *rand.Rand) string {
	scheme := pick(r, "https", "http", "ipfs", "urn", "did", "a+b-c.d", "x")
	pcharSet := unreserved + subDelims + ":@"
	u := scheme + ":"
	if r.IntN(3) > 0 {
		u += "//" + genAuthority(r, false)
		for k := r.IntN(3); k > 0; k-- {
			u += "/" + genPct(r, pcharSet, 0, 8)
		}
	} else {
		u += genPct(r, pcharSet, 1, 12) + "/" + genPct(r, pcharSet+"/", 0, 8)
	}
	if r.IntN(3) == 0 {
		u += "?" + genPct(r, pcharSet+"/?", 0, 10)
	}
	if r.IntN(4) == 0 {
		u += "#" + genPct(r, pcharSet+"/?", 0, 10)
	}
	return u
}

func genTime(r *rand.Rand) string {
	t := time.Date(1970+r.IntN(100), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), 0, time.UTC)
	s := t.Format("2006-01-02T15:04:05")
	if r.IntN(2) == 0 {
		s = strings.Replace(s, "T", "t", 1)
	}
	if r.IntN(2) == 0 {
		s += "." + genFrom(r, "0123456789", 1, 12)
	}
	switch r.IntN(4) {
	case 0:
		s += "Z"
	case 1:
		s += "z"
	default:
		s += fmt.Sprintf("%c%02d:%02d", pick(r, '+', '-'), r.IntN(24), r.IntN(60))
	}
	return s
}

func genSIWEParts(r *rand.Rand) siweParts {
	addr := make([]byte, 20)
	for i := range addr {
		addr[i] = byte(r.IntN(256))
	}
	p := siweParts{
		domain: genAuthority(r, true), address: common.BytesToAddress(addr).Hex(), uri: genURI(r),
		chainID: strconv.FormatUint(1+r.Uint64N(1<<40), 10), nonce: genFrom(r, alnum, 8, 40), issuedAt: genTime(r),
	}
	if r.IntN(2) == 0 {
		p.scheme = pick(r, "https", "http", "a+b-c.d")
	}
	if r.IntN(8) == 0 {
		p.chainID = strings.Repeat("0", 1+r.IntN(3)) + p.chainID
	}
	switch r.IntN(4) {
	case 0:
	case 1:
		p.statement = strp("")
	default:
		p.statement = strp(genFrom(r, unreserved+subDelims+":/?#[]@ ", 1, 60))
	}
	if r.IntN(2) == 0 {
		p.expiration = strp(genTime(r))
	}
	if r.IntN(2) == 0 {
		p.notBefore = strp(genTime(r))
	}
	if r.IntN(2) == 0 {
		p.requestID = strp(genPct(r, unreserved+subDelims+":@", 0, 16))
	}
	if r.IntN(2) == 0 {
		p.resourcesLine = true
		for k := r.IntN(4); k > 0; k-- {
			p.resources = append(p.resources, genURI(r))
		}
	}
	return p
}
