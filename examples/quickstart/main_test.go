package main

import (
	"bytes"
	"context"
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
	err := run(ctx, cfg, 400, &out, &progress)
	require.NoError(t, err, "output:\n%s", out.String())
	all := out.String() + progress.String()
	assert.Contains(t, all, "steps passed")
	secrets := map[string]string{"master key": env.MasterKey, "JavaScript key": env.JavaScriptKey}
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

func TestQuickstartNeedsConfiguration(t *testing.T) {
	err := (&cli.Backend{}).Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MORALIS_SERVER_URL")
}
