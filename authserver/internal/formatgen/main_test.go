package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesAreCurrent fails when a file the generator writes is not what it writes now: after a change of
// formats.go, run `go generate ./authserver/`.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	for _, g := range []struct {
		path string
		gen  func() ([]byte, error)
	}{{goFile, generateGo}, {goTestFile, generateGoTest}, {jsFile, generateJS}} {
		want, err := g.gen()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root(), filepath.FromSlash(g.path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what authserver/internal/formatgen writes: run `go generate ./authserver/`", g.path)
		}
	}
}

// The known-answer vectors hold for the definition's own bytes (label, fields, separator): a change of any of them
// that would make records or tickets already written stop verifying fails here, before any file is written.
func TestVectorsMatchTheDefinition(t *testing.T) {
	if len(vectors) != 2 {
		t.Fatalf("%d vectors; want one per builder", len(vectors))
	}
	for _, v := range vectors {
		var input string
		switch v.name {
		case "sessionKey":
			input = sessionKeyLabel + v.input["token"]
		case "ticket":
			parts := make([]string, len(ticketMACFields))
			for i, f := range ticketMACFields {
				x, ok := v.input[f]
				if !ok {
					t.Fatalf("ticket vector has no %s", f)
				}
				parts[i] = x
			}
			input = ticketMACLabel + strings.Join(parts, ticketMACSeparator)
		default:
			t.Fatalf("vector %q for no builder", v.name)
		}
		mac := hmac.New(sha256.New, []byte(v.masterKey))
		mac.Write([]byte(input))
		if got := hex.EncodeToString(mac.Sum(nil)); got != v.mac {
			t.Errorf("%s: MAC %s; the vector says %s", v.name, got, v.mac)
		}
	}
}

// The JS output escapes what a JS string literal cannot hold as it is, so the label's NUL and the message's line
// breaks reach the builder byte for byte.
func TestJSStringEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"a\x00b":    `'a\u0000b'`,
		"it's":      `'it\'s'`,
		"a\\b":      `'a\\b'`,
		"l1\nl2":    `'l1\nl2'`,
		"\u2028":    `'\u2028'`,
		"ünïcödé ✓": `'ünïcödé ✓'`,
	} {
		if got := jsString(in); got != want {
			t.Errorf("jsString(%q) = %s; want %s", in, got, want)
		}
	}
}

// A definition the builders cannot write faithfully is refused.
func TestCheckRefusesABadDefinition(t *testing.T) {
	saved := recordFields
	defer func() { recordFields = saved }()
	recordFields = append(append([]field(nil), saved...), field{name: "key", typ: "String"})
	if check() == nil {
		t.Fatal("a repeated field was accepted")
	}
	recordFields = append(append([]field(nil), saved...), field{name: "x", typ: "Number"})
	if check() == nil {
		t.Fatal("a type the functions do not check was accepted")
	}
}
