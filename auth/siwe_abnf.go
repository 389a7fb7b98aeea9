package auth

import (
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// The grammars EIP-4361 builds on, checked to the letter: RFC 3986 (authority, URI, pchar) and RFC 3339
// (date-time). Every function here is pure, never panics and is safe for concurrent use.

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

// isUnreserved: ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986 section 2.3).
func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

// isSubDelim: "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "=" (RFC 3986 section 2.2).
func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// isGenDelim: ":" / "/" / "?" / "#" / "[" / "]" / "@" (RFC 3986 section 2.2).
func isGenDelim(c byte) bool { return strings.IndexByte(":/?#[]@", c) >= 0 }

// isPchar is pchar without pct-encoded: unreserved / sub-delims / ":" / "@".
func isPchar(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' }

// pctString reports whether s is made of bytes ok accepts and pct-encoded triplets ("%" HEXDIG HEXDIG).
func pctString(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return false
			}
			i += 2
			continue
		}
		if !ok(c) {
			return false
		}
	}
	return true
}

// validAuthority checks RFC 3986's authority = [ userinfo "@" ] host [ ":" port ], where host is an IP-literal
// ("[" IPv6address or IPvFuture "]") or a reg-name (which also covers IPv4address) and port is *DIGIT. A URI's
// authority may have an empty host ("file:///x"); a SIWE domain (requireHost) may not, since it names who asks.
func validAuthority(a string, requireHost bool) bool {
	hostport := a
	if i := strings.IndexByte(a, '@'); i >= 0 {
		if !pctString(a[:i], func(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' }) {
			return false
		}
		hostport = a[i+1:]
	}
	var host, port string
	if strings.HasPrefix(hostport, "[") {
		j := strings.IndexByte(hostport, ']')
		if j < 0 || !validIPLiteral(hostport[1:j]) {
			return false
		}
		host = hostport[:j+1]
		if rest := hostport[j+1:]; rest != "" {
			if rest[0] != ':' {
				return false
			}
			port = rest[1:]
		}
	} else {
		host = hostport
		if j := strings.IndexByte(hostport, ':'); j >= 0 {
			host, port = hostport[:j], hostport[j+1:]
		}
		if !pctString(host, func(c byte) bool { return isUnreserved(c) || isSubDelim(c) }) {
			return false
		}
	}
	return allDigits(port) && (host != "" || !requireHost)
}

// validIPLiteral checks what stands between "[" and "]": IPv6address, or IPvFuture = "v" 1*HEXDIG "."
// 1*( unreserved / sub-delims / ":" ). Zone identifiers (RFC 6874) are not RFC 3986 and are refused.
func validIPLiteral(s string) bool {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHexDigit(s[i]) {
				return false
			}
		}
		for i := dot + 1; i < len(s); i++ {
			if c := s[i]; !isUnreserved(c) && !isSubDelim(c) && c != ':' {
				return false
			}
		}
		return true
	}
	if strings.IndexByte(s, '%') >= 0 {
		return false
	}
	ip, err := netip.ParseAddr(s)
	return err == nil && ip.Is6()
}

// validURI checks RFC 3986's URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ], with
// hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty.
func validURI(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 || !validScheme(s[:i]) {
		return false
	}
	rest := s[i+1:]
	queryOrFragment := func(c byte) bool { return isPchar(c) || c == '/' || c == '?' }
	if j := strings.IndexByte(rest, '#'); j >= 0 {
		if !pctString(rest[j+1:], queryOrFragment) {
			return false
		}
		rest = rest[:j]
	}
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		if !pctString(rest[j+1:], queryOrFragment) {
			return false
		}
		rest = rest[:j]
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		path = ""
		if j := strings.IndexByte(auth, '/'); j >= 0 {
			auth, path = auth[:j], auth[j:]
		}
		if !validAuthority(auth, false) {
			return false
		}
	}
	// path-abempty, path-absolute, path-rootless and path-empty are all segments of pchar joined by "/" here (a
	// path starting with "//" was taken as an authority above).
	return pctString(path, func(c byte) bool { return isPchar(c) || c == '/' })
}

// validSIWEStatement: statement = *( reserved / unreserved / " " ), reserved = gen-delims / sub-delims.
func validSIWEStatement(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isUnreserved(c) && !isSubDelim(c) && !isGenDelim(c) && c != ' ' {
			return false
		}
	}
	return true
}

// validSIWERequestID: request-id = *pchar (pct-encoded included).
func validSIWERequestID(s string) bool { return pctString(s, isPchar) }

// validSIWENonce: nonce = 8*( ALPHA / DIGIT ).
func validSIWENonce(n string) bool {
	if len(n) < 8 {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isAlpha(n[i]) && !isDigit(n[i]) {
			return false
		}
	}
	return true
}

// parseRFC3339 reads an RFC 3339 date-time to the letter of its ABNF: full-date "T" full-time, "T" and "Z" in
// either case, a fraction of any length, an offset "Z" or ±hh:mm with hh 00-23, second 60 (a leap second, read as
// the first second of the next minute). Days are checked against their month and year.
func parseRFC3339(s string) (time.Time, bool) {
	// 0123456789012345678
	// YYYY-MM-DDTHH:MM:SS
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for k := i; k < i+n; k++ {
			if !isDigit(s[k]) {
				return 0, false
			}
			v = v*10 + int(s[k]-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false
	}
	rest := s[19:]
	nanos := 0
	if rest[0] == '.' {
		k := 1
		for k < len(rest) && isDigit(rest[k]) {
			if k <= 9 {
				nanos = nanos*10 + int(rest[k]-'0')
			}
			k++
		}
		if k == 1 {
			return time.Time{}, false
		}
		for d := k - 1; d < 9; d++ {
			nanos *= 10
		}
		rest = rest[k:]
	}
	var loc *time.Location
	switch {
	case rest == "Z" || rest == "z":
		loc = time.UTC
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, e1 := strconv.Atoi(rest[1:3])
		om, e2 := strconv.Atoi(rest[4:6])
		if e1 != nil || e2 != nil || !isDigit(rest[1]) || !isDigit(rest[2]) || !isDigit(rest[4]) || !isDigit(rest[5]) ||
			oh > 23 || om > 59 {
			return time.Time{}, false
		}
		off := (oh*60 + om) * 60
		if rest[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
		if off == 0 {
			loc = time.UTC
		}
	default:
		return time.Time{}, false
	}
	if day > daysIn(month, year) {
		return time.Time{}, false
	}
	leap := sec == 60
	if leap {
		sec = 59
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, loc)
	if leap {
		t = t.Add(time.Second)
	}
	return t, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// siweSource keeps what ParseSIWE read where the struct's fields alone could not give it back, so that String of
// a parsed message is the signed text byte for byte. Each part is used only while the field still holds what
// was parsed; a field changed afterwards is rendered afresh.
type siweSource struct {
	issuedAt, expirationTime, notBefore siweTimeText
	chainID                             string // the Chain ID digits, when they had leading zeros
	emptyStatement                      bool   // a statement line that is present but empty
	emptyRequestID                      bool   // "Request ID: " with an empty value
	emptyResources                      bool   // "Resources:" with no item
}

// siweTimeText is a time as parsed and the text it was read from.
type siweTimeText struct {
	t    time.Time
	text string
}

// render gives the parsed text if t is still the parsed instant in the same offset, else t in the default layout.
func (s siweTimeText) render(t time.Time) string {
	if s.text != "" && s.t.Equal(t) {
		_, o1 := s.t.Zone()
		_, o2 := t.Zone()
		if o1 == o2 {
			return s.text
		}
	}
	return t.Format(siweTimeLayout)
}
