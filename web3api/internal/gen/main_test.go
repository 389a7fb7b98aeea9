package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedFilesAreCurrent fails when a generated file differs from what the generator writes: after a change
// of the generator or of the reference, run `go generate ./web3api/`.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	o, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{
		"../../endpoints_gen.go":            o.code,
		"../../endpoints_gen_test.go":       o.test,
		"../../../server/cloud/web3.gen.js": o.js,
	} {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what web3api/internal/gen writes: run `go generate ./web3api/`", name)
		}
	}
}
