//go:build siwsdiff

package auth

// The differential test against @solana/wallet-standard-util (make test-siws: npm ci in testdata/siwsdiff, then
// go test -tags siwsdiff -run TestSIWSDifferential ./auth/). It generates sign-ins and texts here, writes them to
// a corpus in a temporary directory, runs testdata/siwsdiff/check.mjs (the reference's verifySignIn,
// parseSignInMessageText and createSignInMessageText) in Node over it, and compares verdicts case by case. Where
// ours is stricter, the case names why; every other case must get the same verdict from both.

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/ed25519vec"
	"github.com/mr-tron/base58"
)

// diffInput is a SolanaSignInInput: the fields a server hands the wallet (absent ones omitted).
type diffInput struct {
	Domain         string   `json:"domain,omitempty"`
	Address        string   `json:"address,omitempty"`
	Statement      string   `json:"statement,omitempty"`
	URI            string   `json:"uri,omitempty"`
	Version        string   `json:"version,omitempty"`
	ChainID        string   `json:"chainId,omitempty"`
	Nonce          string   `json:"nonce,omitempty"`
	IssuedAt       string   `json:"issuedAt,omitempty"`
	ExpirationTime string   `json:"expirationTime,omitempty"`
	NotBefore      string   `json:"notBefore,omitempty"`
	RequestID      string   `json:"requestId,omitempty"`
	Resources      []string `json:"resources"` // null when absent, [] for a "Resources:" line with no item
}

type diffSignIn struct {
	Name           string    `json:"name"`
	Input          diffInput `json:"input"`
	Text           string    `json:"text"`
	PublicKey      string    `json:"publicKey"` // hex
	AccountAddress string    `json:"accountAddress"`
	Signature      string    `json:"signature"` // hex
	Ours           bool      `json:"ours"`
	OursError      string    `json:"oursError,omitempty"`
	Ref            *bool     `json:"ref,omitempty"`
	Why            string    `json:"why,omitempty"` // set where ours is stricter on purpose
}

const diffDomain = "app.example.com"

var diffNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// inputOf is the input that makes exactly m (times written as m writes them).
func inputOf(m *SIWSMessage) diffInput {
	in := diffInput{Domain: m.Domain, Address: m.Address, Statement: m.Statement, URI: m.URI, Version: m.Version,
		ChainID: m.ChainID, Nonce: m.Nonce, RequestID: m.RequestID, Resources: m.Resources}
	if m.Scheme != "" {
		in.Domain = m.Scheme + "://" + m.Domain
	}
	p, _ := ParseSIWS(m.String())
	if p != nil {
		if !p.IssuedAt.IsZero() {
			in.IssuedAt = p.src.issuedAt.text
		}
		if !p.ExpirationTime.IsZero() {
			in.ExpirationTime = p.src.expirationTime.text
		}
		if !p.NotBefore.IsZero() {
			in.NotBefore = p.src.notBefore.text
		}
	}
	return in
}

// oursVerdict is the endpoint's rule over a case: VerifySIWS with the server's expectations (its domain, the
// input's chain and URI, mainnet and the app's domain when the input names none), and a nonce issued once for
// the input, bound to the input's fields (the signed text must carry exactly those, as authserver binds them).
func oursVerdict(c *diffSignIn, used map[string]bool) error {
	pub, _ := hex.DecodeString(c.PublicKey)
	sig, _ := hex.DecodeString(c.Signature)
	chain := c.Input.ChainID
	if chain == "" {
		chain = "mainnet"
	}
	_, err := VerifySIWS(context.Background(), c.Text, base58.Encode(sig), base58.Encode(pub), SIWSVerifyOptions{
		Domain: diffDomain, ChainID: chain, URI: c.Input.URI, Address: c.Input.Address,
		Now: func() time.Time { return diffNow },
		ConsumeNonce: func(_ context.Context, m *SIWSMessage) error {
			issued, err := ParseSIWS(renderInput(c.Input, m.Address))
			if err != nil || c.Input.Nonce == "" || m.Nonce != c.Input.Nonce || used[m.Nonce] {
				return errors.New("nonce unknown or used")
			}
			if issued.Canonical() != m.Canonical() {
				return errors.New("message does not match the one issued")
			}
			used[m.Nonce] = true
			return nil
		}})
	return err
}

// renderInput writes the text an input makes (the wallet fills in the address when the input has none).
func renderInput(in diffInput, addr string) string {
	if in.Address != "" {
		addr = in.Address
	}
	s := in.Domain + siwsHeaderSuffix + "\n" + addr
	if in.Statement != "" {
		s += "\n\n" + in.Statement
	}
	var f []string
	for _, kv := range [][2]string{{"URI: ", in.URI}, {"Version: ", in.Version}, {"Chain ID: ", in.ChainID},
		{"Nonce: ", in.Nonce}, {"Issued At: ", in.IssuedAt}, {"Expiration Time: ", in.ExpirationTime},
		{"Not Before: ", in.NotBefore}, {"Request ID: ", in.RequestID}} {
		if kv[1] != "" {
			f = append(f, kv[0]+kv[1])
		}
	}
	if in.Resources != nil {
		f = append(f, "Resources:")
		for _, r := range in.Resources {
			f = append(f, "- "+r)
		}
	}
	if len(f) > 0 {
		s += "\n\n" + strings.Join(f, "\n")
	}
	return s
}

func diffCase(name string, k ed25519.PrivateKey, m *SIWSMessage, edit func(c *diffSignIn)) *diffSignIn {
	text := m.String()
	pub := k.Public().(ed25519.PublicKey)
	c := &diffSignIn{Name: name, Input: inputOf(m), Text: text, PublicKey: hex.EncodeToString(pub),
		AccountAddress: base58.Encode(pub), Signature: hex.EncodeToString(ed25519.Sign(k, []byte(text)))}
	if edit != nil {
		edit(c)
	}
	return c
}

// genSIWSSignIn is a valid sign-in of key k at diffNow with random optional parts.
func genSIWSSignIn(r *rand.Rand, i int, k ed25519.PrivateKey) *SIWSMessage {
	m := &SIWSMessage{Domain: diffDomain, Address: base58.Encode(k.Public().(ed25519.PublicKey)), Version: "1",
		ChainID: pick(r, SIWSChainIDs...), Nonce: fmt.Sprintf("n%07d", i) + genFrom(r, alnum, 0, 20),
		IssuedAt: diffNow.Add(time.Duration(r.IntN(1200)-600) * time.Second)}
	if r.IntN(4) == 0 {
		m.Scheme = "https"
	}
	if r.IntN(2) == 0 {
		m.Statement = "x" + genFrom(r, unreserved+subDelims+":/?#[]@ ", 0, 60)
	}
	if r.IntN(3) > 0 {
		m.URI = genURI(r)
	}
	if r.IntN(2) == 0 {
		m.ExpirationTime = diffNow.Add(time.Duration(1+r.IntN(3600)) * time.Second)
		if m.ExpirationTime.Before(m.IssuedAt.Add(time.Second)) {
			m.ExpirationTime = m.IssuedAt.Add(time.Hour)
		}
	}
	if r.IntN(3) == 0 {
		m.NotBefore = diffNow.Add(-time.Duration(r.IntN(600)) * time.Second)
	}
	if r.IntN(3) == 0 {
		m.RequestID = genPct(r, unreserved+subDelims+":@", 1, 16)
	}
	if r.IntN(3) == 0 {
		m.Resources = []string{}
		for n := r.IntN(3); n > 0; n-- {
			m.Resources = append(m.Resources, genURI(r))
		}
	}
	return m
}

func TestSIWSDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2026))
	kB, _ := siwsKey(11)
	kC, _ := siwsKey(12)
	var cases []*diffSignIn
	// Valid sign-ins: both accept.
	for i := 0; i < 300; i++ {
		k, _ := siwsKey(byte(20 + i%200))
		cases = append(cases, diffCase(fmt.Sprintf("valid %d", i), k, genSIWSSignIn(r, i, k), nil))
	}
	valid := func(i int, k ed25519.PrivateKey) *SIWSMessage {
		m := siwsFull(base58.Encode(k.Public().(ed25519.PublicKey)))
		m.IssuedAt, m.NotBefore, m.ExpirationTime = diffNow.Add(-time.Minute), time.Time{}, diffNow.Add(4*time.Minute)
		m.Domain, m.Nonce = diffDomain, fmt.Sprintf("neg%05d", i)
		return m
	}
	sign := func(c *diffSignIn, k ed25519.PrivateKey) {
		c.Signature = hex.EncodeToString(ed25519.Sign(k, []byte(c.Text)))
		c.PublicKey = hex.EncodeToString(k.Public().(ed25519.PublicKey))
		c.AccountAddress = base58.Encode(k.Public().(ed25519.PublicKey))
	}
	retext := func(c *diffSignIn, k ed25519.PrivateKey, f func(string) string) { c.Text = f(c.Text); sign(c, k) }
	// Statements that look like fields, before the fields: the statement for both.
	for i, st := range []string{"Nonce: ", "Version: 2 of our terms", "Resources: none", "URI: https://evil.example", "Nonce: abcdefgh1"} {
		k, _ := siwsKey(byte(230 + i))
		m := valid(100+i, k)
		m.Statement = st
		cases = append(cases, diffCase(fmt.Sprintf("valid statement like a field %q", st), k, m, nil))
	}
	// Both refuse.
	cases = append(cases,
		diffCase("tampered text", kB, valid(1, kB), func(c *diffSignIn) { c.Text = strings.Replace(c.Text, "Sign in", "Sign-in", 1) }),
		diffCase("signature of another key", kB, valid(2, kB), func(c *diffSignIn) {
			c.Signature = hex.EncodeToString(ed25519.Sign(kC, []byte(c.Text)))
		}),
		diffCase("S + L (malleable twin)", kB, valid(3, kB), func(c *diffSignIn) {
			sig, _ := hex.DecodeString(c.Signature)
			s := new(big.Int).SetBytes(ed25519vec.Reverse(sig[32:]))
			s.Add(s, ed25519vec.L)
			copy(sig[32:], ed25519vec.LE32(s))
			c.Signature = hex.EncodeToString(sig)
		}),
		diffCase("domain other than the input's", kB, valid(4, kB), func(c *diffSignIn) {
			retext(c, kB, func(s string) string { return strings.Replace(s, diffDomain+" wants", "evil.example wants", 1) })
		}),
		diffCase("nonce other than the input's", kB, valid(5, kB), func(c *diffSignIn) {
			retext(c, kB, func(s string) string { return strings.Replace(s, "Nonce: neg00005", "Nonce: neg99999", 1) })
		}),
		diffCase("resource added", kB, valid(6, kB), func(c *diffSignIn) {
			retext(c, kB, func(s string) string { return s + "\n- https://evil.example/" })
		}),
		diffCase("chain other than the input's", kB, valid(7, kB), func(c *diffSignIn) {
			retext(c, kB, func(s string) string { return strings.Replace(s, "Chain ID: mainnet", "Chain ID: devnet", 1) })
		}),
		diffCase("trailing newline", kB, valid(8, kB), func(c *diffSignIn) { retext(c, kB, func(s string) string { return s + "\n" }) }),
	)
	// Ours is stricter.
	stricter := []*diffSignIn{
		diffCase("names B, signed by C", kB, valid(20, kB), func(c *diffSignIn) {
			c.Input.Address = "" // the wallet fills in the address
			sign(c, kC)
			c.Why = "the reference never ties the address the message names to the key that signed it"
		}),
		diffCase("any domain when the input names none", kB, valid(21, kB), func(c *diffSignIn) {
			c.Input.Domain = ""
			retext(c, kB, func(s string) string { return strings.Replace(s, diffDomain+" wants", "evil.example wants", 1) })
			c.Why = "the reference accepts any domain when the input names none; ours always has an expected domain"
		}),
		diffCase("expired", kB, valid(22, kB), func(c *diffSignIn) {
			m := valid(22, kB)
			m.IssuedAt, m.ExpirationTime = diffNow.Add(-2*time.Minute), diffNow.Add(-time.Minute)
			c.Input, c.Text = inputOf(m), m.String()
			sign(c, kB)
			c.Why = "the reference checks no times: expiration in the past"
		}),
		diffCase("issued an hour ago", kB, valid(23, kB), func(c *diffSignIn) {
			m := valid(23, kB)
			m.IssuedAt, m.ExpirationTime = diffNow.Add(-time.Hour), time.Time{}
			c.Input, c.Text = inputOf(m), m.String()
			sign(c, kB)
			c.Why = "the reference checks no times: issued-at outside +-10 min"
		}),
		diffCase("not before in the future", kB, valid(24, kB), func(c *diffSignIn) {
			m := valid(24, kB)
			m.NotBefore = diffNow.Add(time.Minute)
			c.Input, c.Text = inputOf(m), m.String()
			sign(c, kB)
			c.Why = "the reference checks no times: not-before in the future"
		}),
		diffCase("expires before issued", kB, valid(25, kB), func(c *diffSignIn) {
			m := valid(25, kB)
			m.IssuedAt, m.ExpirationTime = diffNow.Add(5*time.Minute), diffNow.Add(time.Minute)
			c.Input, c.Text = inputOf(m), m.String()
			sign(c, kB)
			c.Why = "the reference checks no times: expiration before issued-at"
		}),
		diffCase("no nonce", kB, valid(26, kB), func(c *diffSignIn) {
			m := valid(26, kB)
			m.Nonce = ""
			c.Input, c.Text = inputOf(m), m.String()
			sign(c, kB)
			c.Why = "the reference needs no nonce, so nothing stops a replay; ours requires one and consumes it"
		}),
		diffCase("nonce of 3 characters", kB, valid(27, kB), func(c *diffSignIn) {
			m := valid(27, kB)
			c.Input.Nonce = "abc"
			c.Text = strings.Replace(m.String(), "Nonce: neg00027", "Nonce: abc", 1)
			sign(c, kB)
			c.Why = "the reference does not check the ABNF (nonce of 8 or more letters or digits)"
		}),
		diffCase("version 2", kB, valid(28, kB), func(c *diffSignIn) {
			c.Input.Version = "2"
			retext(c, kB, func(s string) string { return strings.Replace(s, "Version: 1", "Version: 2", 1) })
			c.Why = "the reference does not check the ABNF (version 1)"
		}),
	}
	replayed := *cases[0]
	replayed.Name = "replay of valid 0"
	replayed.Why = "the reference keeps no state: the same signed sign-in verifies again; ours consumes the nonce"
	stricter = append(stricter, &replayed)
	forgedText, forgedSig := forgeSIWS(t)
	fm, _ := ParseSIWS(forgedText)
	fsig, _ := base58.Decode(forgedSig)
	forgedPub := ed25519vec.Hex(t, ed25519vec.SmallOrderPointsHex[1])
	stricter = append(stricter, &diffSignIn{Name: "small-order key 111...1, forged signature", Input: inputOf(fm), Text: forgedText,
		PublicKey: hex.EncodeToString(forgedPub), AccountAddress: base58.Encode(forgedPub), Signature: hex.EncodeToString(fsig),
		Why: "the reference's ed25519 (ZIP-215) accepts a small-order key with a signature made without any private key"})
	cases = append(cases, stricter...)

	// Our verdicts, in order (the replay comes after the valid case it repeats).
	used := map[string]bool{}
	for _, c := range cases {
		err := oursVerdict(c, used)
		c.Ours = err == nil
		if err != nil {
			c.OursError = err.Error()
		}
	}

	// Texts for the parse differential: generated valid ones and a few that ours refuses.
	texts := []string{}
	for i := 0; i < 500; i++ {
		texts = append(texts, genSIWSText(r))
	}
	for _, c := range cases {
		texts = append(texts, c.Text)
	}
	// A statement alone that looks like a field. Where it cannot be that field by the ABNF (version "1", a nonce of
	// 8 letters or digits, a URI...), it is the statement, and the reference agrees when its own field pattern
	// (any non-empty value) fails too; where that pattern matches, the reference reads a field the ABNF does not
	// allow (ours reads the ABNF's statement: why). A statement alone that reads as fields ("Nonce: abcdefgh1")
	// is read as those fields by both.
	_, addrA := siwsKey(3)
	alone := diffDomain + siwsHeaderSuffix + "\n" + addrA + "\n\n"
	abnfOnly := map[int]string{}
	for _, st := range []string{"Nonce: ", "Resources: none", "URI: ", "Nonce: abcdefgh1", "Resources:", "Version: 1"} {
		texts = append(texts, alone+st)
	}
	for _, st := range []string{"Version: 2 of our terms", "Nonce: abc", "URI: not a uri", "Chain ID: mainnet-beta"} {
		abnfOnly[len(texts)] = st
		texts = append(texts, alone+st)
	}

	dir := t.TempDir()
	corpus := filepath.Join(dir, "siws-corpus.json")
	b, _ := json.MarshalIndent(map[string]any{"signIns": cases, "texts": texts}, "", " ")
	if err := os.WriteFile(corpus, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "check.mjs", corpus)
	cmd.Dir = filepath.Join("testdata", "siwsdiff")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node check.mjs: %v (run npm ci in auth/testdata/siwsdiff first: make test-siws does)", err)
	}
	var ref struct {
		SignIns []struct {
			Name string `json:"name"`
			Ref  bool   `json:"ref"`
		} `json:"signIns"`
		Parses []struct {
			Parsed  map[string]any `json:"parsed"`
			Created *string        `json:"created"`
		} `json:"parses"`
	}
	if err := json.Unmarshal(out, &ref); err != nil || len(ref.SignIns) != len(cases) || len(ref.Parses) != len(texts) {
		t.Fatalf("reference output: %v (%d sign-ins, %d parses)", err, len(ref.SignIns), len(ref.Parses))
	}

	agree, strict := 0, 0
	for i, c := range cases {
		v := ref.SignIns[i].Ref
		c.Ref = &v
		switch {
		case c.Why != "":
			if c.Ours || !v {
				t.Errorf("%s: ours %v (%s), reference %v; want ours false, reference true (%s)", c.Name, c.Ours, c.OursError, v, c.Why)
			}
			strict++
		case strings.HasPrefix(c.Name, "valid "):
			if !c.Ours || !v {
				t.Errorf("%s: ours %v (%s), reference %v; want both true\n%s", c.Name, c.Ours, c.OursError, v, c.Text)
			}
			agree++
		default:
			if c.Ours || v {
				t.Errorf("%s: ours %v, reference %v; want both false", c.Name, c.Ours, v)
			}
			agree++
		}
	}
	parsedSame, refLenient, byABNF := 0, 0, 0
	for i, text := range texts {
		m, err := ParseSIWS(text)
		p := ref.Parses[i]
		if st, ok := abnfOnly[i]; ok {
			if err != nil || m.Statement != st || m.hasSIWSFields() || p.Parsed == nil || p.Parsed["statement"] != nil {
				t.Errorf("text %d: ours %v %+v, reference %v: want ours the statement %q, the reference a field", i, err, m, p.Parsed, st)
			}
			byABNF++
			continue
		}
		if err != nil {
			if p.Parsed != nil {
				refLenient++
			}
			continue
		}
		if p.Parsed == nil || p.Created == nil {
			t.Errorf("text %d: ours parses, the reference does not\n%q", i, text)
			continue
		}
		in := inputOf(m)
		want := map[string]any{}
		j, _ := json.Marshal(in)
		_ = json.Unmarshal(j, &want)
		if want["resources"] == nil {
			delete(want, "resources")
		}
		got, _ := json.Marshal(p.Parsed)
		exp, _ := json.Marshal(want)
		if string(got) != string(exp) {
			t.Errorf("text %d: fields differ\nours %s\nref  %s\n%q", i, exp, got, text)
		}
		if *p.Created != text || m.String() != text {
			t.Errorf("text %d: createSignInMessageText(parse) %q, String %q, text %q", i, *p.Created, m.String(), text)
		}
		parsedSame++
	}
	t.Logf("sign-ins: %d agree, %d where ours is stricter (each with its reason); texts: %d parsed alike and rendered back byte for byte by both, %d refused by ours and parsed by the reference, %d statements alone that the reference reads as fields the ABNF does not allow",
		agree, strict, parsedSame, refLenient, byABNF)
	if report := os.Getenv("SIWS_DIFF_REPORT"); report != "" {
		b, _ := json.MarshalIndent(stricter, "", " ")
		_ = os.WriteFile(report, b, 0o600)
	}
}
