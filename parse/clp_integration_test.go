//go:build integration

package parse_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
)

// stackClients returns a master view and a plain JavaScript-key client of the local stack.
func stackClients(t *testing.T) (master, public *client.Client) {
	t.Helper()
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	return c.WithMasterKey(), c
}

func tempClass(t *testing.T, admin *client.Client, prefix string) string {
	t.Helper()
	class := fmt.Sprintf("%s%d", prefix, rand.Uint32())
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		_ = admin.Schemas.Purge(ctx, class)
		_ = admin.Schemas.Delete(ctx, class)
	})
	return class
}

// An operation the caller did not set is not sent, and the server applies its own rule to it. On parse-server 9.10
// that rule is: a class created without permissions gets the public default for all seven; a CLP that is sent is
// stored as it is, and an operation left out of it reads back as {} (master key only), on create and on update.
// Starting from the CLP the server sent keeps every other operation as it was.
func TestCLPUnsetOperationsOnTheServer(t *testing.T) {
	ctx := t.Context()
	admin, anon := stackClients(t)

	// No CLP at all: the server's default, public for everything.
	open := tempClass(t, admin, "ClpDefault")
	require.NoError(t, admin.Schemas.Create(ctx, client.NewSchema(open).AddString("t")))
	read, err := admin.Schemas.Get(ctx, open)
	require.NoError(t, err)
	for _, op := range parse.CLPOperations() {
		assert.True(t, read.CLP.Rule(op).Public, "default %s", op)
	}

	// Only find and create set: the body holds only them; the server fills the others with {}.
	partial := tempClass(t, admin, "ClpPartial")
	clp := &parse.CLP{}
	require.NoError(t, clp.SetPublicAccess(true, parse.CLPFind, parse.CLPCreate))
	s := client.NewSchema(partial).AddString("t").SetCLP(clp)
	body, err := s.Body(true)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"find": map[string]any{"*": true}, "create": map[string]any{"*": true}},
		body["classLevelPermissions"], "unset operations are not sent")
	require.NoError(t, admin.Schemas.Create(ctx, s))
	read, err = admin.Schemas.Get(ctx, partial)
	require.NoError(t, err)
	for _, op := range parse.CLPOperations() {
		assert.True(t, read.CLP.IsSet(op), "the server answers every operation (%s)", op)
		assert.Equal(t, op == parse.CLPFind || op == parse.CLPCreate, read.CLP.Rule(op).Public, op)
	}
	o := parse.NewObject(partial)
	o.Set("t", "x")
	require.NoError(t, anon.Objects.Save(ctx, o), "create was set public")
	_, err = anon.Objects.Get(ctx, partial, o.ID())
	assert.ErrorIs(t, err, parse.ErrOperationForbidden, "get was left out: the server reads it as master key only")

	// Changing one operation of the CLP as read keeps the others (all of them are sent back as they came).
	next := read.CLP.Clone()
	require.NoError(t, next.SetPublicAccess(true, parse.CLPGet))
	require.NoError(t, admin.Schemas.Update(ctx, read.SetCLP(next)))
	again, err := admin.Schemas.Get(ctx, partial)
	require.NoError(t, err)
	assert.True(t, again.CLP.Get.Public && again.CLP.Find.Public && again.CLP.Create.Public)
	assert.True(t, again.CLP.Update.Empty() && again.CLP.Delete.Empty() && again.CLP.Count.Empty() && again.CLP.AddField.Empty())
	got, err := anon.Objects.Get(ctx, partial, o.ID())
	require.NoError(t, err)
	assert.Equal(t, "x", got.String("t"))
}
