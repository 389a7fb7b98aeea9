//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQueryCLI(t *testing.T) {
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	require.NoError(t, err)
	class := fmt.Sprintf("CLIScore%d", rand.Uint32())
	var objs []*parse.Object
	for i := 0; i < 30; i++ {
		o := parse.NewObject(class)
		o.Set("score", i)
		objs = append(objs, o)
	}
	require.NoError(t, c.Objects.SaveAll(context.Background(), objs))
	base := []string{"-server", env.ServerURL, "-app-id", env.AppID, "-js-key", env.JavaScriptKey, "-class", class}

	var out, errOut bytes.Buffer
	code := run(append(base, "-q", `{"where":{"score":{"$gte":25}},"order":"-score","limit":2}`), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"score":29`)

	out.Reset()
	require.Equal(t, 0, run(append(base, "-q", `{"where":{"score":{"$lt":10}}}`, "-count"), &out, &errOut))
	assert.Equal(t, "10", strings.TrimSpace(out.String()))

	out.Reset()
	require.Equal(t, 0, run(append(base, "-all", "-batch", "7"), &out, &errOut))
	assert.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), 30)
	out.Reset()
	require.Equal(t, 0, run(append(base, "-all"), &out, &errOut))
	assert.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), 30)

	// Bad input: the spec's text, exit 2, nothing run.
	errOut.Reset()
	assert.Equal(t, 2, run(append(base, "-q", `{"skip":-1}`), &out, &errOut))
	assert.Contains(t, errOut.String(), "You can only skip by a positive number")
	errOut.Reset()
	assert.Equal(t, 1, run(append(base, "-all", "-q", `{"limit":3}`), &out, &errOut))
	assert.Contains(t, errOut.String(), "Cannot iterate on a query with sort, skip, or limit.")
	assert.Equal(t, 0, run([]string{"-h"}, &out, &errOut))
	assert.Equal(t, 2, run([]string{"-server", env.ServerURL, "-app-id", env.AppID}, &out, &errOut))
}
