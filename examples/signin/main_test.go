package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func noEnv(string) string { return "" }

func TestHelpAndBadArgs(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, noEnv, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, f := range []string{"-keyfile", "-password-env", "-key", "-sol-key", "-dev", "-server", "-app-id", "-js-key", "-chain"} {
		if !strings.Contains(errb.String(), f) {
			t.Errorf("help lacks %s", f)
		}
	}
	if err := run(t.Context(), []string{"-nope"}, noEnv, &out, &errb); err == nil {
		t.Fatal("unknown flag accepted")
	}
	if err := run(t.Context(), []string{"extra"}, noEnv, &out, &errb); err == nil || !strings.Contains(err.Error(), "unexpected argument") {
		t.Fatalf("extra argument: %v", err)
	}
}
