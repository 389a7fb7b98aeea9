//go:build integration

package authserver

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/google/uuid"
)

// The helpers of the integration tests against the local stack (as in auth's).

func stackClient(t *testing.T) (*client.Client, client.Config, devstack.Env) {
	t.Helper()
	env := devstack.MustLoad(t)
	// The master key is configured (an endpoint's ClientBackend issues sign-in tickets with it) but only sent by
	// WithMasterKey views.
	cfg := client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		MasterKey: env.MasterKey, InstallationID: uuid.NewString()}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg, env
}

func masterClient(t *testing.T, env devstack.Env) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, MasterKey: env.MasterKey,
		InstallationID: uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithMasterKey()
}

func sameSet(got []string, want ...string) bool {
	a := slices.Clone(got)
	b := slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func mustMe(t *testing.T, ctx context.Context, c *client.Client, tok string) *client.User {
	t.Helper()
	u, err := c.WithSessionToken(tok).Users.Me(ctx)
	if err != nil {
		t.Fatalf("users/me: %v", err)
	}
	return u
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
