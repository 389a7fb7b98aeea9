//go:build integration

package client_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newClient(t *testing.T, mod ...func(*client.Config)) *client.Client {
	t.Helper()
	env := devstack.MustLoad(t)
	cfg := client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := client.New(cfg)
	require.NoError(t, err)
	return c
}

func uniqueClass(prefix string) string { return fmt.Sprintf("%s%d", prefix, rand.Uint32()) }

func TestObjectLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	cls := uniqueClass("GameScore")
	o := parse.NewObject(cls)
	when := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	gp, err := parse.NewGeoPoint(40.5, -73.25)
	require.NoError(t, err)
	o.Set("score", 10)
	o.Set("playerName", "Ann")
	o.Set("at", when)
	o.Set("where", gp)
	o.Set("blob", parse.Bytes("hello"))
	o.Set("nested", map[string]any{"a": []any{1, "x"}, "when": when})
	o.Set("shape", parse.Polygon{Coordinates: []parse.GeoPoint{{Latitude: 0, Longitude: 0}, {Latitude: 0, Longitude: 1}, {Latitude: 1, Longitude: 1}}})
	require.NoError(t, c.Objects.Save(ctx, o))
	require.NotEmpty(t, o.ID())
	require.False(t, o.CreatedAt().IsZero())
	assert.Empty(t, o.DirtyKeys())

	got, err := c.Objects.Get(ctx, cls, o.ID())
	require.NoError(t, err)
	assert.Equal(t, float64(10), got.Get("score"))
	assert.Equal(t, "Ann", got.String("playerName"))
	assert.True(t, when.Equal(got.Time("at")), "date round-trips: %v", got.Get("at"))
	assert.Equal(t, gp, got.Get("where"))
	assert.Equal(t, parse.Bytes("hello"), got.Get("blob"))
	nested := got.Get("nested").(map[string]any)
	assert.Equal(t, []any{float64(1), "x"}, nested["a"])
	assert.True(t, when.Equal(nested["when"].(time.Time)))
	// parse-server on PostgreSQL closes the ring: the first point comes back again at the end.
	shape := got.Get("shape").(parse.Polygon).Coordinates
	require.Len(t, shape, 4)
	assert.Equal(t, shape[0], shape[3])

	// Field operations: only changed fields are sent; the server's computed values come back.
	got.Increment("score", 5)
	got.AddUnique("tags", "a", "b")
	got.Add("log", "x")
	require.NoError(t, c.Objects.Save(ctx, got))
	assert.Equal(t, float64(15), got.Get("score"))
	got.AddUnique("tags", "b", "c")
	got.Remove("log", "x")
	got.Unset("playerName")
	require.NoError(t, c.Objects.Save(ctx, got))

	again, err := c.Objects.Get(ctx, cls, o.ID())
	require.NoError(t, err)
	assert.Equal(t, float64(15), again.Get("score"))
	assert.ElementsMatch(t, []any{"a", "b", "c"}, again.Get("tags"), "PostgreSQL does not keep AddUnique order")
	assert.Equal(t, []any{}, again.Get("log"))
	assert.False(t, again.Has("playerName"))

	// Concurrent increments from two copies are both applied (the op is sent, not the value).
	a, _ := c.Objects.Get(ctx, cls, o.ID())
	b, _ := c.Objects.Get(ctx, cls, o.ID())
	a.Increment("score", 1)
	b.Increment("score", 1)
	require.NoError(t, c.Objects.Save(ctx, a))
	require.NoError(t, c.Objects.Save(ctx, b))
	require.NoError(t, c.Objects.Fetch(ctx, o))
	assert.Equal(t, float64(17), o.Get("score"))

	require.NoError(t, c.Objects.Destroy(ctx, o))
	_, err = c.Objects.Get(ctx, cls, o.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	var pe *parse.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 404, pe.Status)
}

func TestPointersRelationsAndACL(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	owner := parse.NewObject(uniqueClass("Owner"))
	owner.Set("name", "own1")
	require.NoError(t, c.Objects.Save(ctx, owner))
	item := parse.NewObject(uniqueClass("Item"))
	item.Set("owner", owner)
	item.AddRelation("fans", owner.Pointer())
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Admins", true)
	item.SetACL(acl)
	require.NoError(t, c.Objects.Save(ctx, item))
	got, err := c.Objects.Get(ctx, item.ClassName(), item.ID())
	require.NoError(t, err)
	assert.Equal(t, owner.Pointer(), got.Get("owner"))
	assert.Equal(t, parse.Relation{ClassName: owner.ClassName()}, got.Get("fans"))
	require.NotNil(t, got.ACL())
	assert.True(t, got.ACL().PublicReadAccess())
	assert.False(t, got.ACL().PublicWriteAccess())
	assert.True(t, got.ACL().RoleWriteAccess("Admins"))
	// A reference to an unsaved object saves that object first (see TestDeepSaveAgainstTheServer).
	other := parse.NewObject(item.ClassName())
	newOwner := parse.NewObject(owner.ClassName())
	other.Set("owner", newOwner)
	require.NoError(t, c.Objects.Save(ctx, other))
	require.NotEmpty(t, newOwner.ID())
	got, err = c.Objects.Get(ctx, other.ClassName(), other.ID())
	require.NoError(t, err)
	assert.Equal(t, newOwner.Pointer(), got.Get("owner"))
}

func TestSaveAllAndDestroyAllInChunks(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, func(cfg *client.Config) { cfg.BatchSize = 20; cfg.BatchConcurrency = 3 })
	cls := uniqueClass("BatchThing")
	var objs []*parse.Object
	for i := 0; i < 95; i++ {
		o := parse.NewObject(cls)
		o.Set("n", i)
		objs = append(objs, o)
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs))
	for i, o := range objs {
		require.NotEmpty(t, o.ID(), "item %d", i)
	}
	got, err := c.Objects.Get(ctx, cls, objs[57].ID())
	require.NoError(t, err)
	assert.Equal(t, float64(57), got.Get("n"), "results are in input order")

	// One bad item: its error is reported at its index and the others are saved.
	for _, o := range objs[:30] {
		o.Increment("n", 1000)
	}
	ghost := parse.NewObjectWithID(cls, "doesnotexist")
	ghost.Set("n", -1)
	mixed := append(append([]*parse.Object{}, objs[:30]...), ghost)
	err = c.Objects.SaveAll(ctx, mixed)
	var be *client.BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, be.Failed)
	assert.ErrorIs(t, be.Errors[30], parse.ErrObjectNotFound)
	for i := 0; i < 30; i++ {
		assert.NoError(t, be.Errors[i])
		assert.Equal(t, float64(1000+i), objs[i].Get("n"))
	}

	require.NoError(t, c.Objects.DestroyAll(ctx, objs))
	_, err = c.Objects.Get(ctx, cls, objs[3].ID())
	assert.ErrorIs(t, err, parse.ErrObjectNotFound)
}

func TestCloudFunctionsAndJobs(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	before := time.Now().Add(-time.Minute)
	st, err := c.Cloud.ServerTime(ctx)
	require.NoError(t, err)
	assert.True(t, st.After(before) && st.Before(time.Now().Add(time.Minute)), "server time %v", st)

	when := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	var echo map[string]any
	require.NoError(t, c.Cloud.Call(ctx, "echo", map[string]any{"a": 1, "b": when}, &echo))
	params := echo["params"].(map[string]any)
	assert.Equal(t, float64(1), params["a"])
	assert.True(t, when.Equal(params["b"].(time.Time)), "dates round-trip through a function: %#v", params["b"])
	assert.Equal(t, false, echo["master"])

	err = c.Cloud.Call(ctx, "fail", nil, nil)
	require.ErrorIs(t, err, parse.ErrScriptFailed)
	assert.Contains(t, err.Error(), "intentional failure")
	err = c.Cloud.Call(ctx, "nope", nil, nil)
	require.ErrorIs(t, err, parse.ErrScriptFailed)

	specs, err := c.Cloud.PluginSpecs(ctx)
	require.NoError(t, err)
	assert.Equal(t, []client.PluginSpec{{Name: "devstack", Functions: []string{"echo", "refuse"}}}, specs)

	id, err := c.Cloud.StartJob(ctx, "simpleJob", map[string]any{"x": 1})
	require.NoError(t, err)
	assert.NotEmpty(t, id)
	// The job's status row exists and ends in "succeeded".
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := c.WithMasterKey().Objects.Get(ctx, "_JobStatus", id)
		require.NoError(t, err)
		if st.String("status") == "succeeded" {
			break
		}
		require.True(t, time.Now().Before(deadline), "job status %q", st.String("status"))
		time.Sleep(100 * time.Millisecond)
	}

	noMaster := newClient(t, func(cfg *client.Config) { cfg.MasterKey = "" })
	_, err = noMaster.Cloud.StartJob(ctx, "simpleJob", nil)
	require.ErrorIs(t, err, client.ErrMasterKeyRequired)
}

func TestUsersAndCurrentUser(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fs, err := client.NewFileStorage(dir + "/state.json")
	require.NoError(t, err)
	c := newClient(t, func(cfg *client.Config) { cfg.Storage = fs })
	name := fmt.Sprintf("alice%d", rand.Uint32())
	u := client.NewUser()
	u.SetUsername(name)
	u.SetPassword("pw123456")
	u.SetEmail(name + "@example.com")
	require.NoError(t, c.Users.SignUp(ctx, u))
	require.NotEmpty(t, u.SessionToken())
	assert.Nil(t, u.Get("password"), "the password is not kept")
	cu, err := client.NewCurrentUser(c, fs)
	require.NoError(t, err)
	require.NoError(t, cu.Set(u))

	// A second client on the same storage file is signed in as the same user, with the same installation id.
	c2 := newClient(t, func(cfg *client.Config) { cfg.Storage = fs })
	assert.Equal(t, c.InstallationID(), c2.InstallationID())
	cu2, err := client.NewCurrentUser(c2, fs)
	require.NoError(t, err)
	cur, err := cu2.Get()
	require.NoError(t, err)
	require.NotNil(t, cur)
	assert.Equal(t, u.ID(), cur.ID())
	view, err := cu2.Client()
	require.NoError(t, err)
	me, err := view.Users.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, name, me.Username())

	// Updating the user with its own session.
	me.Set("ethAddress", "0xabc")
	require.NoError(t, view.Objects.Save(ctx, me))

	// A view's LogOut revokes the session and changes no shared state: the kept user is still there.
	require.NoError(t, view.Users.LogOut(ctx))
	cur, err = cu2.Get()
	require.NoError(t, err)
	require.NotNil(t, cur, "a view's LogOut does not touch the kept user")
	require.NoError(t, cu2.LogOut(ctx), "a session the server no longer knows counts as logged out")
	cur, err = cu2.Get()
	require.NoError(t, err)
	assert.Nil(t, cur)
	_, err = view.Users.Me(ctx)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken, "the server session was revoked")

	_, err = c.Users.LogIn(ctx, name, "wrong")
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	lu, err := c.Users.LogIn(ctx, name, "pw123456")
	require.NoError(t, err)
	assert.Equal(t, "0xabc", lu.EthAddress())

	nu, err := c.Users.LogInOrSignUp(ctx, name+"x", "pw")
	require.NoError(t, err)
	assert.NotEmpty(t, nu.ID())
	assert.NotEqual(t, u.ID(), nu.ID())
}

func TestSignupValidationSendsNothing(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "a", MaxAttempts: 1})
	require.NoError(t, err)
	u := client.NewUser()
	assert.EqualError(t, c.Users.SignUp(ctx, u), "Cannot sign up user with an empty username.")
	u.SetUsername("bob")
	assert.EqualError(t, c.Users.SignUp(ctx, u), "Cannot sign up user with an empty password.")
	_, err = c.Sessions.Upgrade(ctx)
	assert.EqualError(t, err, "Cannot upgrade a user with no session token")
	// And a real request to a closed port gives the connection error, proving the ones above sent nothing.
	_, err = c.Users.LogIn(ctx, "bob", "pw")
	assert.True(t, errors.Is(err, parse.ErrConnectionFailed), "%v", err)
}

// Regressions found in review: linking, users/me and fetching a user keep the user's other fields and token;
// saving a role through Save runs the role's checks; DefaultACL reaches new objects.
func TestUserStateSurvivesLinkMeAndFetch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, func(cfg *client.Config) {
		acl := parse.NewACL()
		acl.SetPublicReadAccess(true)
		cfg.DefaultACL = acl
	})
	u := client.NewUser()
	name := fmt.Sprintf("keep%d", rand.Uint32())
	u.SetUsername(name)
	u.SetPassword("pw")
	require.NoError(t, c.Users.SignUp(ctx, u))
	tok := u.SessionToken()

	require.NoError(t, c.Objects.Fetch(ctx, u))
	assert.Equal(t, tok, u.SessionToken(), "Fetch keeps the session token")
	assert.Equal(t, name, u.Username())

	err := c.Users.Link(ctx, u, "unknownProv", map[string]any{"id": "x"})
	require.ErrorIs(t, err, parse.ErrUnsupportedService)
	assert.Equal(t, name, u.Username(), "a failed link leaves the user as it was")
	assert.Equal(t, tok, u.SessionToken())

	o := parse.NewObject(uniqueClass("WithDefaultACL"))
	require.NoError(t, c.Objects.Save(ctx, o))
	require.NotNil(t, o.ACL())
	assert.True(t, o.ACL().PublicReadAccess())
	assert.False(t, o.ACL().PublicWriteAccess())

	r, err := client.NewRole(fmt.Sprintf("NoACL%d", rand.Uint32()), nil)
	require.NoError(t, err)
	err = c.WithMasterKey().Objects.Save(ctx, r)
	require.ErrorIs(t, err, client.ErrRoleACLRequired, "Save of a role runs the role's checks before sending")
}
