package auth

import (
	"strings"
	"testing"
)

// FuzzParseSIWE: the parser never panics, and whatever it accepts renders back to exactly the same text
// (String(Parse(s)) == s), validates, and parses again to the same rendering, with every required field present.
func FuzzParseSIWE(f *testing.F) {
	f.Add(eip4361Example)
	f.Add(strings.Replace(eip4361Example, "Resources:\n- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n- https://example.com/my-web2-claim.json", "Expiration Time: 2021-09-30T16:30:24.5+02:00\nNot Before: 2021-09-30T16:25:24Z\nRequest ID: x", 1))
	f.Add(strings.Replace(eip4361Example, "service.invalid wants", "https://user:pass@[::1]:8080 wants", 1))
	f.Add(strings.Replace(strings.Replace(eip4361Example, "I accept the ServiceOrg Terms of Service: https://service.invalid/tos", "", 1), "Chain ID: 1", "Chain ID: 0137", 1))
	f.Add(strings.Replace(eip4361Example, "2021-09-30T16:25:24Z\nResources:\n- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n- https://example.com/my-web2-claim.json", "2016-12-31t23:59:60.123456789012z\nRequest ID: \nResources:", 1))
	for _, st := range []string{"Nonce: ", "Version: 2 of our terms", "Resources: none"} { // statements that look like fields
		f.Add(strings.Replace(eip4361Example, "I accept the ServiceOrg Terms of Service: https://service.invalid/tos", st, 1))
	}
	f.Add("")
	f.Add("\n\n\n")
	f.Fuzz(func(t *testing.T, text string) { checkRoundTrip(t, text, parseSIWEAny) })
}

// FuzzParseSIWS: the parser never panics, and whatever it accepts renders back to exactly the same text
// (String(Parse(s)) == s), validates, and parses again to the same rendering.
func FuzzParseSIWS(f *testing.F) {
	_, addr := siwsKey(1)
	f.Add(siwsFull(addr).String())
	f.Add((&SIWSMessage{Domain: "a.b", Address: addr}).String())
	f.Add((&SIWSMessage{Scheme: "https", Domain: "u@[::1]:1", Address: addr, Statement: "x", Resources: []string{}}).String())
	f.Add("a wants you to sign in with your Solana account:\n" + addr + "\n\nIssued At: 2016-12-31t23:59:60.123456789012z")
	// Statements that look like fields: before the fields, and alone (a statement, or the field it reads as).
	for _, st := range []string{"Nonce: ", "Version: 2 of our terms", "Resources: none", "Nonce: abcdefgh1"} {
		m := siwsFull(addr)
		m.Statement = st
		f.Add(m.String())
		f.Add("a wants you to sign in with your Solana account:\n" + addr + "\n\n" + st)
	}
	f.Add("")
	f.Add("\n\n\n")
	f.Fuzz(func(t *testing.T, text string) { checkRoundTrip(t, text, parseSIWSAny) })
}

// signInText is what SIWEMessage and SIWSMessage have in common.
type signInText interface {
	String() string
	Validate() error
}

func parseSIWEAny(s string) (signInText, error) {
	m, err := ParseSIWE(s)
	if m == nil {
		return nil, err // a nil *SIWEMessage in the interface would not be nil
	}
	return m, err
}

func parseSIWSAny(s string) (signInText, error) {
	m, err := ParseSIWS(s)
	if m == nil {
		return nil, err // a nil *SIWSMessage in the interface would not be nil
	}
	return m, err
}

// checkRoundTrip: parse never returns a message with an error, and whatever it accepts validates, renders back to
// exactly the same text and parses again to the same rendering.
func checkRoundTrip(t *testing.T, text string, parse func(string) (signInText, error)) {
	t.Helper()
	m, err := parse(text)
	if err != nil {
		if m != nil {
			t.Fatal("message and error")
		}
		return
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("parsed message does not validate: %v\n%q", err, text)
	}
	out := m.String()
	if out != text {
		t.Fatalf("String(Parse(s)) != s:\n%q\n%q", out, text)
	}
	m2, err := parse(out)
	if err != nil || m2.String() != out {
		t.Fatalf("rendering does not parse to itself: %v\n%q", err, out)
	}
}
