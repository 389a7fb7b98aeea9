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
	f.Add("")
	f.Add("\n\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseSIWE(text)
		if err != nil {
			if m != nil {
				t.Fatal("message and error")
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("parsed message does not validate: %v", err)
		}
		out := m.String()
		if out != text {
			t.Fatalf("String(Parse(s)) != s:\n%q\n%q", out, text)
		}
		m2, err := ParseSIWE(out)
		if err != nil {
			t.Fatalf("rendering does not parse: %v\n%q", err, out)
		}
		if m2.String() != out {
			t.Fatalf("not a fixed point:\n%q\n%q", out, m2.String())
		}
	})
}
