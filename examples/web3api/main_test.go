package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

func TestPagesThroughTransfers(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithItems("getTokenTransfers", 1234))
	t.Setenv("MORALIS_WEB3API_URL", srv.URL)
	t.Setenv("MORALIS_API_KEY", srv.APIKey)
	var out, errb bytes.Buffer
	code := run([]string{"-address", "0x057ec652a4f150f7ff94f089a38008f49a0df88e", "-limit", "200"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if lines := strings.Count(out.String(), "\n"); lines != 1234 {
		t.Fatalf("%d lines", lines)
	}
	if !strings.Contains(errb.String(), "1234 transfers, 7 pages") {
		t.Fatalf("progress %q", errb.String())
	}
	if srv.Count("getTokenTransfers") != 7 {
		t.Fatalf("%d requests", srv.Count("getTokenTransfers"))
	}
}

func TestHelpAndMissingFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "MORALIS_API_KEY") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	t.Setenv("MORALIS_API_KEY", "")
	errb.Reset()
	if code := run(nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "required") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-address", "0x1", "-key", "k", "-limit", "0"}, &out, &errb); code != 2 || errb.String() != "web3api: -limit must be at least 1, got 0\n" {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-address", "0x1", "-key", "k", "-url", "ftp://x"}, &out, &errb); code != 2 ||
		errb.String() != "web3api: Config.BaseURL must be an absolute http:// or https:// URL, got \"ftp://x\"\n" {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
}
