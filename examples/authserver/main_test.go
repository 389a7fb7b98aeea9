package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestFlags(t *testing.T) {
	var logb bytes.Buffer
	noEnv := func(string) string { return "" }
	if err := run(t.Context(), []string{"-h"}, noEnv, &logb, nil); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, f := range []string{"-addr", "-static", "-domain", "-origins", "-insecure-cookie", "-rate-burst", "-max-conns", "-write-timeout"} {
		if !strings.Contains(logb.String(), f) {
			t.Errorf("help lacks %s", f)
		}
	}
	if err := run(t.Context(), []string{"-addr", "0.0.0.0:8080"}, noEnv, &logb, nil); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("non-loopback address: %v", err)
	}
	if err := run(t.Context(), []string{"-addr", "nonsense"}, noEnv, &logb, nil); err == nil {
		t.Fatal("bad address accepted")
	}
}
