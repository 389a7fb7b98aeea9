package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/authserver"
)

// TestGeneratedFileIsCurrent fails when react-hooks/src/core/wire.gen.ts is not what the generator writes: after
// a change of authserver's wire types, its chain-data routes or parse's codes, run `go generate ./authserver/`.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root(), "react-hooks", "src", "core", "wire.gen.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("react-hooks/src/core/wire.gen.ts is not what authserver/internal/wiregen writes: run `go generate ./authserver/`")
	}
}

// The generated file holds every wire type, every chain-data route and parse's codes.
func TestGeneratedFileHoldsTheContract(t *testing.T) {
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, wt := range wireTypes {
		if !strings.Contains(s, "export interface "+wt.name) && !strings.Contains(s, "export type "+wt.name) {
			t.Errorf("no %s", wt.name)
		}
	}
	for _, k := range authserver.ChainDataKinds {
		if !strings.Contains(s, `"`+k+`"`) {
			t.Errorf("no chain-data route %q", k)
		}
	}
	for _, c := range []string{"InternalServerError: 1,", "ObjectNotFound: 101,", "InvalidSessionToken: 209,", "DuplicateValue: 137,"} {
		if !strings.Contains(s, c) {
			t.Errorf("no code %q", c)
		}
	}
	if !strings.Contains(s, "  sessionToken?: string;") || !strings.Contains(s, "  chain: ChainType;") {
		t.Error("a field's optionality or ts type was lost")
	}
}
