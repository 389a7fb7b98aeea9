//go:build integration

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/cli"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole walkthrough runs against the local stack, and everything it prints is free of secrets: no key, no
// session token, no signature.
func TestQuickstartRunsAndPrintsNoSecrets(t *testing.T) {
	env := devstack.MustLoad(t)
	cfg := &cli.Backend{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey}
	var out, progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	chain := loadChain(t)
	err := run(ctx, cfg, chain, 400, &out, &progress)
	require.NoError(t, err, "output:\n%s", out.String())
	all := out.String() + progress.String()
	assert.Contains(t, all, "all 13 steps passed")
	secrets := map[string]string{"master key": env.MasterKey, "JavaScript key": env.JavaScriptKey,
		"dev chain key": strings.TrimPrefix(chain.DevKey, "0x"), "chain-data API key": chain.APIKey}
	for name, s := range secrets {
		require.NotEmpty(t, s)
		assert.NotContains(t, all, s, "the %s leaked into the output", name)
	}
	assert.False(t, sessionTokenRE.MatchString(all), "a session token leaked into the output: %s", sessionTokenRE.FindString(all))
	// A personal_sign signature is 65 bytes of hex: nothing that long and hex-only may appear.
	for _, f := range strings.Fields(all) {
		f = strings.TrimPrefix(f, "0x")
		if len(f) >= 130 && strings.Trim(f, "0123456789abcdefABCDEF") == "" {
			t.Errorf("a signature-like hex string leaked: %s", f)
		}
	}
}

// Parse session tokens are "r:" and 32 hex digits.
var sessionTokenRE = regexp.MustCompile(`r:[0-9a-f]{32}`)

// loadChain reads the local chain's settings written by internal/devstack/chain.sh (`make chain`, run by make test
// and make demo). Missing settings fail the test: the chain steps are part of the walkthrough.
func loadChain(t *testing.T) chainConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", ".devstack", "chain", "env"))
	require.NoError(t, err, "the local chain is not running: run `make chain`")
	env := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	c := chainConfig{RPCURL: env["MORALIS_RPC_URL"], DevKey: env["MORALIS_DEV_KEY"], ERC20: env["MORALIS_ERC20"],
		Web3APIURL: env["MORALIS_WEB3API_URL"], APIKey: env["MORALIS_API_KEY"]}
	require.True(t, c.ok(), "incomplete chain settings in .devstack/chain/env")
	return c
}
