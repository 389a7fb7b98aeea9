// Package stacktest holds the helpers that the integration tests of auth and authserver share against the local
// stack (`make up`): clients made from its environment, the signed-in user, and a test context.
package stacktest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
)

// Client returns a client of the local stack with its JavaScript key, its configuration and the stack's
// environment. The master key is configured (an endpoint's ClientBackend issues sign-in tickets with it) but only
// sent by WithMasterKey views.
func Client(t *testing.T) (*client.Client, client.Config, devstack.Env) {
	t.Helper()
	env := devstack.MustLoad(t)
	cfg := client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		MasterKey: env.MasterKey, InstallationID: uuid.NewString()}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg, env
}

// Master returns a master-key view of a client of env's stack.
func Master(t *testing.T, env devstack.Env) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, MasterKey: env.MasterKey,
		InstallationID: uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithMasterKey()
}

// Me returns the user of session tok (users/me), failing the test when the backend refuses it.
func Me(t *testing.T, ctx context.Context, c *client.Client, tok string) *client.User {
	t.Helper()
	u, err := c.WithSessionToken(tok).Users.Me(ctx)
	if err != nil {
		t.Fatalf("users/me: %v", err)
	}
	return u
}

// SameSet reports whether got and want hold the same strings, in any order.
func SameSet(got []string, want ...string) bool {
	a := slices.Clone(got)
	b := slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Ctx is the test's context with a time limit of a minute, cancelled when the test ends.
func Ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
