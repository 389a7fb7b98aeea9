//go:build integration

package client_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// Anonymous users as the original's AnonymousUtils makes them: sign-in with authData.anonymous and a random
// UUID, linking, and the upgrade to a regular user by signUp (same id, same data, anonymity gone).
func TestAnonymousUsers(t *testing.T) {
	ctx := t.Context()
	c := newClient(t)
	cu, err := client.NewCurrentUser(c, nil)
	require.NoError(t, err)

	anon, err := cu.LogInAnonymously(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, anon.ID())
	require.NotEmpty(t, anon.SessionToken())
	assert.True(t, anon.IsAnonymous())
	id, _ := anon.AuthData()[client.AnonymousProvider].(map[string]any)["id"].(string)
	_, perr := uuid.Parse(id)
	assert.NoError(t, perr, "the anonymous id is a UUID: %q", id)
	kept, err := cu.Get()
	require.NoError(t, err)
	assert.Equal(t, anon.ID(), kept.ID(), "LogInAnonymously keeps the user")
	assert.True(t, kept.IsAnonymous())

	// Another anonymous sign-in is another user.
	other, err := c.Users.LogInAnonymously(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, anon.ID(), other.ID())

	// The anonymous user keeps data like any user.
	anon.Set("nickname", "guest")
	require.NoError(t, cu.Save(ctx, anon))

	// Upgrade: a username and a password, then SignUp (through CurrentUser, so the kept user follows).
	name := fmt.Sprintf("upgraded%d", rand.Uint32())
	anon.SetUsername(name)
	anon.SetPassword("pw-upgrade")
	require.NoError(t, cu.SignUp(ctx, anon))
	assert.False(t, anon.IsAnonymous(), "SetUsername unlinked the anonymous identity")
	assert.Nil(t, anon.Get("password"))

	lu, err := c.Users.LogIn(ctx, name, "pw-upgrade")
	require.NoError(t, err, "the upgraded user signs in with its password")
	assert.Equal(t, anon.ID(), lu.ID(), "the same user, not a new one")
	assert.Equal(t, "guest", lu.String("nickname"), "its data stayed")
	me, err := c.WithSessionToken(lu.SessionToken()).Users.Me(ctx)
	require.NoError(t, err)
	assert.False(t, me.IsAnonymous(), "the server no longer holds authData.anonymous: %v", me.AuthData())
	kept, err = cu.Get()
	require.NoError(t, err)
	assert.Equal(t, name, kept.Username())
	assert.False(t, kept.IsAnonymous())
	assert.Nil(t, kept.Get("password"), "a password is never kept")

	// Linking an anonymous identity to a regular user, then unlinking it.
	asLu := c.WithSessionToken(lu.SessionToken())
	require.NoError(t, c.Users.LinkAnonymous(ctx, lu))
	assert.True(t, lu.IsAnonymous())
	require.NoError(t, asLu.Objects.Fetch(ctx, lu))
	assert.True(t, lu.IsAnonymous(), "the server holds the link: %v", lu.AuthData())
	require.NoError(t, c.Users.Unlink(ctx, lu, client.AnonymousProvider))
	require.NoError(t, asLu.Objects.Fetch(ctx, lu))
	assert.False(t, lu.IsAnonymous())

	// Logging out an anonymous user deletes it, as the original does (it could never sign in again).
	cu2, err := client.NewCurrentUser(c, nil)
	require.NoError(t, err)
	require.NoError(t, cu2.Set(other))
	require.NoError(t, cu2.LogOut(ctx))
	_, err = c.WithMasterKey().Objects.Get(ctx, client.UserClass, other.ID())
	assert.ErrorIs(t, err, parse.ErrObjectNotFound, "the anonymous user is gone")
	_, err = c.WithSessionToken(other.SessionToken()).Users.Me(ctx)
	assert.ErrorIs(t, err, parse.ErrInvalidSessionToken)
}
