//go:build integration

package client_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// The kept user follows saves and fetches of that user, across a restart (a new client and CurrentUser on the
// same file), as moralis-v1 updates the stored current user on save, fetch and fetchWithInclude.
func TestCurrentUserFollowsSavesAndFetches(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/state.json"
	open := func() (*client.Client, *client.CurrentUser) {
		t.Helper()
		fs, err := client.NewFileStorage(path)
		require.NoError(t, err)
		c := newClient(t, func(cfg *client.Config) { cfg.Storage = fs })
		cu, err := client.NewCurrentUser(c, fs)
		require.NoError(t, err)
		return c, cu
	}
	c, cu := open()
	name := fmt.Sprintf("profile%d", rand.Uint32())
	u := client.NewUser()
	u.SetUsername(name)
	u.SetPassword("pw-profile")
	require.NoError(t, cu.SignUp(ctx, u))
	tok := u.SessionToken()

	// A profile saved through CurrentUser reads the same after a restart, with its session and no password.
	u.Set("bio", "first")
	u.SetPassword("pw-profile-2")
	require.NoError(t, cu.Save(ctx, u))
	assert.NotEqual(t, tok, u.SessionToken(), "a new password gives a new session (the server revokes the others)")
	tok = u.SessionToken()
	_, cu = open()
	kept, err := cu.Get()
	require.NoError(t, err)
	assert.Equal(t, "first", kept.String("bio"))
	assert.Equal(t, tok, kept.SessionToken())
	assert.Nil(t, kept.Get("password"), "a password is never kept")

	// A change made elsewhere (another device, the master key) is seen after Fetch, and kept.
	other := client.UserFromObject(parse.NewObjectWithID(client.UserClass, u.ID()))
	other.Set("bio", "from elsewhere")
	pet := parse.NewObject("ProfilePet")
	pet.Set("name", "Rex")
	require.NoError(t, c.Objects.Save(ctx, pet))
	other.Set("profilePet", pet.Pointer())
	require.NoError(t, c.WithMasterKey().Objects.Save(ctx, other))
	kept, err = cu.Get()
	require.NoError(t, err)
	assert.Equal(t, "first", kept.String("bio"), "not fetched yet")
	fetched, err := cu.Fetch(ctx)
	require.NoError(t, err)
	assert.Equal(t, "from elsewhere", fetched.String("bio"))
	assert.Equal(t, tok, fetched.SessionToken(), "a fetch keeps the session token")
	_, cu = open()
	kept, err = cu.Get()
	require.NoError(t, err)
	assert.Equal(t, "from elsewhere", kept.String("bio"), "the fetched profile survives a restart")

	withPet, err := cu.FetchWithInclude(ctx, "profilePet")
	require.NoError(t, err)
	p, ok := withPet.Get("profilePet").(*parse.Object)
	require.True(t, ok, "pet included: %T", withPet.Get("profilePet"))
	assert.Equal(t, "Rex", p.String("name"))
	_, cu = open()
	kept, err = cu.Get()
	require.NoError(t, err)
	p, ok = kept.Get("profilePet").(*parse.Object)
	require.True(t, ok, "the included pet is kept: %T", kept.Get("profilePet"))
	assert.Equal(t, "Rex", p.String("name"))

	// Saving another user through CurrentUser changes nothing kept.
	stranger := client.NewUser()
	stranger.SetUsername(name + "x")
	stranger.SetPassword("pw")
	require.NoError(t, c.Users.SignUp(ctx, stranger))
	stranger.Set("bio", "stranger")
	require.NoError(t, cu.Save(ctx, stranger))
	kept, err = cu.Get()
	require.NoError(t, err)
	assert.Equal(t, u.ID(), kept.ID())
	assert.Equal(t, "from elsewhere", kept.String("bio"))
}

// LogOut forgets the user first and then revokes its session: without a network the user is signed out here
// and the error (typed, holding the session to revoke) says the server was not told; revoking later works.
func TestCurrentUserLogOutOffline(t *testing.T) {
	ctx := t.Context()
	c := newClient(t)
	u := client.NewUser()
	u.SetUsername(fmt.Sprintf("offline%d", rand.Uint32()))
	u.SetPassword("pw")
	require.NoError(t, c.Users.SignUp(ctx, u))

	// The same app, its server unreachable: a client on a closed port, keeping the same user.
	dead, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: c.AppID(), MaxAttempts: 1})
	require.NoError(t, err)
	cu, err := client.NewCurrentUser(dead, nil)
	require.NoError(t, err)
	require.NoError(t, cu.Set(u))
	err = cu.LogOut(ctx)
	var le *client.LogOutError
	require.ErrorAs(t, err, &le, "the revoke's failure is returned, typed")
	assert.ErrorIs(t, err, parse.ErrConnectionFailed)
	assert.Equal(t, u.SessionToken(), le.SessionToken)
	assert.NotContains(t, err.Error(), u.SessionToken(), "the text never shows the session")
	kept, err := cu.Get()
	require.NoError(t, err)
	assert.Nil(t, kept, "signed out locally all the same")

	// The session is still valid on the server until revoked with the error's token.
	me, err := c.WithSessionToken(le.SessionToken).Users.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, u.ID(), me.ID())
	require.NoError(t, c.WithSessionToken(le.SessionToken).Users.LogOut(ctx))
	_, err = c.WithSessionToken(le.SessionToken).Users.Me(ctx)
	assert.ErrorIs(t, err, parse.ErrInvalidSessionToken)
}
