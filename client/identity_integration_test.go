//go:build integration

package client_test

// Integration tests of users, sessions, roles, ACL, CLP, schemas and files against the local Parse Server
// (internal/devstack; `make up`). Every run uses fresh class, user and role names.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// identName returns a unique name with a prefix (letters and digits only).
func identName(prefix string) string {
	return fmt.Sprintf("%s%d%d", prefix, time.Now().UnixNano()%1e6, rand.Uint32()%1e6)
}

// identClient makes a client of the local stack for one simulated device (installation id); master adds the
// master key to its configuration (used only by calls that ask for it).
func identClient(t *testing.T, installationID string, master bool) *client.Client {
	t.Helper()
	env := devstack.MustLoad(t)
	cfg := client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, InstallationID: installationID}
	if master {
		cfg.MasterKey = env.MasterKey
	}
	c, err := client.New(cfg)
	require.NoError(t, err)
	return c
}

// identSignUp signs up a fresh user (with an e-mail) on c and returns it with its password.
func identSignUp(t *testing.T, c *client.Client, prefix string) (*client.User, string) {
	t.Helper()
	u := client.NewUser()
	name := identName(prefix)
	u.SetUsername(name)
	u.SetPassword("pw-" + name)
	u.SetEmail(strings.ToLower(name) + "@example.com")
	require.NoError(t, c.Users.SignUp(t.Context(), u))
	require.NotEmpty(t, u.SessionToken())
	return u, "pw-" + name
}

func TestIdentityUserCalls(t *testing.T) {
	ctx := t.Context()
	c := identClient(t, identName("dev"), false)
	u, pw := identSignUp(t, c, "ann")

	// Duplicate username: 202.
	dup := client.NewUser()
	dup.SetUsername(u.Username())
	dup.SetPassword("other")
	err := c.Users.SignUp(ctx, dup)
	require.ErrorIs(t, err, parse.ErrUsernameTaken)
	var perr *parse.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 202, int(perr.Code))
	assert.Equal(t, "Account already exists for this username.", perr.Message)

	// LogIn gives a new session; Me and Become see the same user.
	lu, err := c.Users.LogIn(ctx, u.Username(), pw)
	require.NoError(t, err)
	assert.Equal(t, u.ID(), lu.ID())
	require.True(t, strings.HasPrefix(lu.SessionToken(), "r:"), "revocable session token")
	me, err := c.WithSessionToken(lu.SessionToken()).Users.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, u.Username(), me.Username())
	assert.Equal(t, u.Email(), me.Email())
	cu, err := client.NewCurrentUser(c, nil)
	require.NoError(t, err)
	_, err = cu.Become(ctx, "r:not-a-session")
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken)
	cur, err := cu.Get()
	require.NoError(t, err)
	assert.Nil(t, cur, "a refused token keeps nothing")
	bu, err := cu.Become(ctx, lu.SessionToken())
	require.NoError(t, err)
	assert.Equal(t, u.ID(), bu.ID())
	cur, err = cu.Get()
	require.NoError(t, err)
	assert.Equal(t, u.ID(), cur.ID())

	// VerifyPassword checks without making a session.
	vu, err := c.Users.VerifyPassword(ctx, u.Username(), pw)
	require.NoError(t, err)
	assert.Equal(t, u.ID(), vu.ID())
	assert.Empty(t, vu.SessionToken())
	_, err = c.Users.VerifyPassword(ctx, u.Username(), "wrong")
	require.ErrorIs(t, err, parse.ErrObjectNotFound)

	// LogInOrSignUp logs an existing user in and signs a new one up.
	again, err := c.Users.LogInOrSignUp(ctx, u.Username(), pw)
	require.NoError(t, err)
	assert.Equal(t, u.ID(), again.ID())
	newName := identName("bob")
	fresh, err := c.Users.LogInOrSignUp(ctx, newName, "pw-bob")
	require.NoError(t, err)
	assert.NotEqual(t, u.ID(), fresh.ID())
	assert.Equal(t, newName, fresh.Username())
	assert.NotEmpty(t, fresh.SessionToken())

	// LogOut revokes the server session.
	tok := again.SessionToken()
	view := c.WithSessionToken(tok)
	_, err = view.Sessions.Current(ctx)
	require.NoError(t, err)
	require.NoError(t, view.Users.LogOut(ctx))
	_, err = view.Users.Me(ctx)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken)
	_, err = view.Sessions.Current(ctx)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken)
	cur, err = cu.Get()
	require.NoError(t, err)
	assert.Equal(t, u.ID(), cur.ID(), "a view's LogOut leaves the kept user alone")
	require.NoError(t, cu.LogOut(ctx))
	cur, err = cu.Get()
	require.NoError(t, err)
	assert.Nil(t, cur)
	_, err = c.WithSessionToken(bu.SessionToken()).Users.Me(ctx)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken, "CurrentUser.LogOut revoked the kept session")
}

func TestIdentitySessionsPerDevice(t *testing.T) {
	ctx := t.Context()
	instA, instB := identName("instA"), identName("instB")
	devA, devB := identClient(t, instA, false), identClient(t, instB, false)
	u, pw := identSignUp(t, devA, "sess")
	tokA1 := u.SessionToken()

	s, err := devA.WithSessionToken(tokA1).Sessions.Current(ctx)
	require.NoError(t, err)
	assert.Equal(t, instA, s.InstallationID())
	assert.Equal(t, u.ID(), s.User().ObjectID)
	assert.Equal(t, tokA1, s.SessionToken())
	assert.True(t, s.ExpiresAt().After(time.Now().Add(300*24*time.Hour)), "expires in about a year: %v", s.ExpiresAt())

	lb, err := devB.Users.LogIn(ctx, u.Username(), pw)
	require.NoError(t, err)
	tokB := lb.SessionToken()
	sessions, err := devB.WithSessionToken(tokB).Sessions.List(ctx)
	require.NoError(t, err)
	require.Len(t, sessions, 2, "one session per device")
	insts := []string{sessions[0].InstallationID(), sessions[1].InstallationID()}
	assert.ElementsMatch(t, []string{instA, instB}, insts)

	// A new login on device A ends device A's older session (the server does it); B's stays.
	la, err := devA.Users.LogIn(ctx, u.Username(), pw)
	require.NoError(t, err)
	tokA2 := la.SessionToken()
	require.NotEqual(t, tokA1, tokA2)
	_, err = devA.WithSessionToken(tokA1).Sessions.Current(ctx)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken, "the older session of device A was ended")
	_, err = devB.WithSessionToken(tokB).Sessions.Current(ctx)
	require.NoError(t, err, "device B's session is untouched")
	sessions, err = devA.WithSessionToken(tokA2).Sessions.List(ctx)
	require.NoError(t, err)
	require.Len(t, sessions, 2)

	// Another user never sees these sessions.
	other, _ := identSignUp(t, identClient(t, identName("instC"), false), "oth")
	theirs, err := devA.WithSessionToken(other.SessionToken()).Sessions.List(ctx)
	require.NoError(t, err)
	require.Len(t, theirs, 1)
	assert.Equal(t, other.ID(), theirs[0].User().ObjectID)

	// Device A revokes device B's session.
	var idB string
	for _, s := range sessions {
		if s.InstallationID() == instB {
			idB = s.ID()
		}
	}
	require.NotEmpty(t, idB)
	require.NoError(t, devA.WithSessionToken(tokA2).Sessions.Revoke(ctx, idB))
	_, err = devB.WithSessionToken(tokB).Users.Me(ctx)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken)
	sessions, err = devA.WithSessionToken(tokA2).Sessions.List(ctx)
	require.NoError(t, err)
	require.Len(t, sessions, 1)
	// The other user cannot revoke A's session.
	err = devA.WithSessionToken(other.SessionToken()).Sessions.Revoke(ctx, sessions[0].ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	_, err = devA.WithSessionToken(tokA2).Sessions.Current(ctx)
	require.NoError(t, err)
}

func TestIdentityUpgradeToRevocableSessionServerError(t *testing.T) {
	c := identClient(t, identName("inst"), false)
	u, _ := identSignUp(t, c, "upg")
	_, err := c.WithSessionToken(u.SessionToken()).Sessions.Upgrade(t.Context())
	require.Error(t, err)
	var perr *parse.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 1, int(perr.Code), "%v", err)
	assert.Equal(t, http.StatusInternalServerError, perr.Status)
	assert.ErrorIs(t, err, parse.ErrInternalServer)
}

// identWaitMail waits for a mail of kind to address in the stack's mail file and returns it.
func identWaitMail(t *testing.T, kind, to string, after int) map[string]any {
	t.Helper()
	env := devstack.MustLoad(t)
	require.NotEmpty(t, env.MailFile, "the stack records mails in MORALIS_MAIL_FILE")
	deadline := time.Now().Add(10 * time.Second)
	for {
		var found []map[string]any
		if b, err := os.ReadFile(env.MailFile); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var m map[string]any
				if json.Unmarshal(sc.Bytes(), &m) == nil && m["to"] == to && m["kind"] == kind {
					found = append(found, m)
				}
			}
		}
		if len(found) > after {
			return found[len(found)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s mail #%d to %s in %s", kind, after+1, to, env.MailFile)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestIdentityPasswordResetAndVerificationMails(t *testing.T) {
	ctx := t.Context()
	c := identClient(t, identName("inst"), false)
	u, _ := identSignUp(t, c, "mail")
	email := u.Email()
	first := identWaitMail(t, "verifyEmail", email, 0) // sent by the sign-up itself
	assert.Contains(t, first["link"], "verify_email?token=")

	require.NoError(t, c.Users.RequestEmailVerification(ctx, email))
	identWaitMail(t, "verifyEmail", email, 1)
	require.NoError(t, c.Users.RequestPasswordReset(ctx, email))
	reset := identWaitMail(t, "passwordReset", email, 0)
	assert.Contains(t, reset["link"], "request_password_reset?token=")
	assert.Contains(t, reset["text"], u.Username())
}

func TestIdentityACLHidesObjects(t *testing.T) {
	ctx := t.Context()
	base := identClient(t, identName("inst"), false)
	u1, _ := identSignUp(t, base, "own")
	u2, _ := identSignUp(t, identClient(t, identName("inst"), false), "oth")
	c1, c2 := base.WithSessionToken(u1.SessionToken()), base.WithSessionToken(u2.SessionToken())
	class := identName("Secret")

	private := parse.NewObject(class)
	private.Set("v", 1)
	private.SetACL(parse.NewUserACL(u1.ID()))
	require.NoError(t, c1.Objects.Save(ctx, private))
	_, err := c1.Objects.Get(ctx, class, private.ID())
	require.NoError(t, err)
	_, err = c2.Objects.Get(ctx, class, private.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound, "no ACL read access: the object is hidden")
	var perr *parse.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 101, int(perr.Code))
	_, err = base.Objects.Get(ctx, class, private.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound, "anonymous neither")

	// Public read, owner write: the other user reads but cannot write.
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetWriteAccess(u1.ID(), true)
	shared := parse.NewObject(class)
	shared.SetACL(acl)
	require.NoError(t, c1.Objects.Save(ctx, shared))
	got, err := c2.Objects.Get(ctx, class, shared.ID())
	require.NoError(t, err)
	assert.True(t, got.ACL().PublicReadAccess())
	assert.True(t, got.ACL().WriteAccess(u1.ID()))
	got.Set("v", 2)
	require.ErrorIs(t, c2.Objects.Save(ctx, got), parse.ErrObjectNotFound)
	shared.Set("v", 3)
	require.NoError(t, c1.Objects.Save(ctx, shared))

	// A default ACL given with ApplyDefaultACL reaches the server.
	d := parse.NewObject(class)
	assert.Equal(t, 1, client.ApplyDefaultACL(parse.NewUserACL(u2.ID()), d))
	require.NoError(t, c2.Objects.Save(ctx, d))
	_, err = c1.Objects.Get(ctx, class, d.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
}

func TestIdentityRoleAccess(t *testing.T) {
	ctx := t.Context()
	admin := identClient(t, identName("inst"), true).WithMasterKey()
	base := identClient(t, identName("inst"), false)
	member, _ := identSignUp(t, base, "mem")
	cm := base.WithSessionToken(member.SessionToken())
	class := identName("RoleDoc")

	roleACL := parse.NewACL()
	roleACL.SetPublicReadAccess(true)
	readers, err := client.NewRole(identName("Readers"), roleACL)
	require.NoError(t, err)
	require.NoError(t, admin.Roles.Save(ctx, readers))
	require.NotEmpty(t, readers.ID())
	editors, err := client.NewRole(identName("Editors"), roleACL)
	require.NoError(t, err)
	require.NoError(t, admin.Roles.Save(ctx, editors))

	// A role without ACL is refused before any request; a saved role cannot be renamed.
	noACL, err := client.NewRole(identName("NoACL"), nil)
	require.NoError(t, err)
	require.ErrorIs(t, admin.Roles.Save(ctx, noACL), client.ErrRoleACLRequired)
	require.ErrorIs(t, readers.SetName("Other"), client.ErrRoleNameSaved)

	docACL := parse.NewACL()
	docACL.SetRoleReadAccess(readers.Name(), true)
	doc := parse.NewObject(class)
	doc.Set("title", "for readers")
	doc.SetACL(docACL)
	require.NoError(t, admin.Objects.Save(ctx, doc))

	_, err = cm.Objects.Get(ctx, class, doc.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound, "not a member yet")

	// Joining the role grants access.
	require.NoError(t, readers.AddUsers(member))
	require.NoError(t, admin.Roles.Save(ctx, readers))
	got, err := cm.Objects.Get(ctx, class, doc.ID())
	require.NoError(t, err)
	assert.Equal(t, "for readers", got.String("title"))
	roles, err := cm.Roles.ForUser(ctx, member)
	require.NoError(t, err)
	require.Len(t, roles, 1)
	assert.Equal(t, readers.Name(), roles[0].Name())
	users, err := cm.Roles.Users(ctx, readers)
	require.NoError(t, err)
	require.Len(t, users, 1)
	assert.Equal(t, member.ID(), users[0].ID())
	byName, err := cm.Roles.ByName(ctx, readers.Name())
	require.NoError(t, err)
	assert.Equal(t, readers.ID(), byName.ID())

	// Leaving the role ends it.
	require.NoError(t, readers.RemoveUsers(member))
	require.NoError(t, admin.Roles.Save(ctx, readers))
	_, err = cm.Objects.Get(ctx, class, doc.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound, "access ends when the user leaves the role")

	// Nested: Editors is a child of Readers, so Editors' members get Readers' access. UserRoles lists the direct
	// role only (the server does not expand nested roles in that query).
	require.NoError(t, readers.AddChildRoles(editors))
	require.NoError(t, admin.Roles.Save(ctx, readers))
	require.NoError(t, editors.AddUsers(member))
	require.NoError(t, admin.Roles.Save(ctx, editors))
	_, err = cm.Objects.Get(ctx, class, doc.ID())
	require.NoError(t, err, "access through a child role")
	roles, err = cm.Roles.ForUser(ctx, member)
	require.NoError(t, err)
	require.Len(t, roles, 1)
	assert.Equal(t, editors.Name(), roles[0].Name())
	every, err := cm.Roles.AllForUser(ctx, member)
	require.NoError(t, err)
	require.Len(t, every, 2, "AllUserRoles follows the nesting")
	assert.ElementsMatch(t, []string{readers.ID(), editors.ID()}, []string{every[0].ID(), every[1].ID()})
	parents, err := cm.Roles.Parents(ctx, editors)
	require.NoError(t, err)
	require.Len(t, parents, 1)
	assert.Equal(t, readers.Name(), parents[0].Name())
	kids, err := cm.Roles.Children(ctx, readers)
	require.NoError(t, err)
	require.Len(t, kids, 1)
	assert.Equal(t, editors.ID(), kids[0].ID())
	require.NoError(t, readers.RemoveChildRoles(editors))
	require.NoError(t, admin.Roles.Save(ctx, readers))
	_, err = cm.Objects.Get(ctx, class, doc.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound, "access ends when the child role leaves")
}

func TestIdentityCLPDenials(t *testing.T) {
	ctx := t.Context()
	admin := identClient(t, identName("inst"), true)
	base := identClient(t, identName("inst"), false)
	u1, _ := identSignUp(t, base, "clpa")
	u2, _ := identSignUp(t, base, "clpb")
	c1, c2 := base.WithSessionToken(u1.SessionToken()), base.WithSessionToken(u2.SessionToken())
	class := identName("Locked")
	roleName := identName("LockAdmins")

	clp := &parse.CLP{}
	require.NoError(t, clp.SetRequiresAuthentication(true, parse.CLPFind))
	require.NoError(t, clp.SetRoleAccess(roleName, true, parse.CLPGet))
	require.NoError(t, clp.SetUserAccess(u1.ID(), true, parse.CLPCreate, parse.CLPGet))
	clp.SetProtectedFields("*", "secret")
	s := client.NewSchema(class).AddString("title").AddString("secret").SetCLP(clp)
	require.NoError(t, admin.Schemas.Create(ctx, s))
	t.Cleanup(func() {
		ctx := context.WithoutCancel(ctx)
		_ = admin.Schemas.Purge(ctx, class)
		_ = admin.Schemas.Delete(ctx, class)
	})
	// The permissions read back as written.
	read, err := admin.Schemas.Get(ctx, class)
	require.NoError(t, err)
	assert.True(t, read.CLP.Find.RequiresAuthentication)
	assert.Equal(t, []string{roleName}, read.CLP.Get.Roles)
	assert.Equal(t, []string{u1.ID()}, read.CLP.Create.Users)
	assert.True(t, read.CLP.Update.Empty() && read.CLP.Delete.Empty() && read.CLP.Count.Empty() && read.CLP.AddField.Empty())
	assert.Equal(t, []string{"secret"}, read.CLP.ProtectedFields["*"])

	wantCode := func(err error, code int, text string) {
		t.Helper()
		var perr *parse.Error
		require.ErrorAs(t, err, &perr)
		assert.Equal(t, code, int(perr.Code), "%v", err)
		assert.Contains(t, perr.Message, text)
	}
	o := parse.NewObject(class)
	o.Set("title", "t")
	wantCode(c2.Objects.Save(ctx, o), 119, "Permission denied for action create on class "+class)
	assert.ErrorIs(t, c2.Objects.Save(ctx, o), parse.ErrOperationForbidden)
	o.Set("secret", "s")
	require.NoError(t, c1.Objects.Save(ctx, o))

	_, err = c2.Objects.Get(ctx, class, o.ID())
	wantCode(err, 119, "Permission denied for action get on class "+class)
	got, err := c1.Objects.Get(ctx, class, o.ID())
	require.NoError(t, err)
	assert.Equal(t, "t", got.String("title"))
	assert.False(t, got.Has("secret"), "protected field hidden")

	got.Set("title", "changed")
	wantCode(c1.Objects.Save(ctx, got), 119, "Permission denied for action update on class "+class)
	wantCode(c1.Objects.Destroy(ctx, got), 119, "Permission denied for action delete on class "+class)
	anon := parse.NewObject(class)
	anon.Set("title", "x")
	anon.Set("newField", 1)
	wantCode(c1.Objects.Save(ctx, anon), 119, "Permission denied for action addField on class "+class)

	err = base.Request(ctx, http.MethodGet, "classes/"+class, nil, nil)
	wantCode(err, 101, "Permission denied, user needs to be authenticated.")
	var found struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, c2.Request(ctx, http.MethodGet, "classes/"+class, nil, &found))
	require.Len(t, found.Results, 1, "find requires authentication only")
	err = c2.Request(ctx, http.MethodGet, "classes/"+class, map[string]any{"count": 1, "limit": 0}, nil)
	wantCode(err, 119, "Permission denied for action count on class "+class)

	// Opening the class through an update of the CLP lets u2 create.
	open := read.CLP.Clone()
	require.NoError(t, open.SetPublicAccess(true, parse.CLPCreate))
	require.NoError(t, admin.Schemas.Update(ctx, read.SetCLP(open)))
	assert.True(t, read.CLP.Create.Public)
	o2 := parse.NewObject(class)
	o2.Set("title", "by u2")
	require.NoError(t, c2.Objects.Save(ctx, o2))
}

func TestIdentitySchemaLifecycle(t *testing.T) {
	ctx := t.Context()
	admin := identClient(t, identName("inst"), true)
	class := identName("Schemed")
	target := identName("Target")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	// Without a master key configured: refused before any request.
	_, err := identClient(t, identName("inst"), false).Schemas.Get(ctx, class)
	require.ErrorIs(t, err, client.ErrMasterKeyRequired)

	s := client.NewSchema(class).
		AddString("title", client.FieldOptions{Required: true}).
		AddNumber("score", client.FieldOptions{DefaultValue: 7}).
		AddBoolean("done", client.FieldOptions{DefaultValue: false}).
		AddDate("at", client.FieldOptions{DefaultValue: at}).
		AddFile("pic").
		AddGeoPoint("where").
		AddPolygon("area").
		AddArray("tags").
		AddObject("meta").
		AddPointer("owner", "_User").
		AddRelation("items", target).
		AddIndex("by_score_title", client.IndexKey{Field: "score", Value: -1}, client.IndexKey{Field: "title", Value: 1})
	require.NoError(t, admin.Schemas.Create(ctx, s))
	t.Cleanup(func() {
		ctx := context.WithoutCancel(ctx)
		_ = admin.Schemas.Purge(ctx, class)
		_ = admin.Schemas.Delete(ctx, class)
	})
	want := map[string]string{"title": "String", "score": "Number", "done": "Boolean", "at": "Date", "pic": "File",
		"where": "GeoPoint", "area": "Polygon", "tags": "Array", "meta": "Object", "owner": "Pointer", "items": "Relation",
		"objectId": "String", "createdAt": "Date", "updatedAt": "Date", "ACL": "ACL"}
	read, err := admin.Schemas.Get(ctx, class)
	require.NoError(t, err)
	for name, typ := range want {
		assert.Equal(t, typ, read.Fields[name].Type, "field %s", name)
	}
	assert.Len(t, read.Fields, len(want))
	assert.Equal(t, "_User", read.Fields["owner"].TargetClass)
	assert.Equal(t, target, read.Fields["items"].TargetClass)
	assert.True(t, read.Fields["title"].Required)
	assert.EqualValues(t, 7, read.Fields["score"].DefaultValue)
	assert.Equal(t, at, read.Fields["at"].DefaultValue)
	require.Contains(t, read.Indexes, "by_score_title")
	assert.Equal(t, client.Index{{Field: "score", Value: -1}, {Field: "title", Value: 1}}, read.Indexes["by_score_title"])
	assert.True(t, read.CLP.Get.Public, "default permissions are public")

	all, err := admin.Schemas.List(ctx)
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(all, func(s *client.Schema) bool { return s.ClassName == class }))

	// The required field and the defaults act on saves.
	user := admin.WithMasterKey()
	o := parse.NewObject(class)
	o.Set("tags", []any{"x"})
	err = user.Objects.Save(ctx, o)
	var perr *parse.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 142, int(perr.Code), "%v", err)
	o.Set("title", "t")
	require.NoError(t, user.Objects.Save(ctx, o))
	got, err := user.Objects.Get(ctx, class, o.ID())
	require.NoError(t, err)
	assert.EqualValues(t, 7, got.Int("score"))
	assert.Equal(t, at, got.Time("at"))
	o.Set("score", "not a number")
	require.ErrorIs(t, user.Objects.Save(ctx, o), parse.ErrIncorrectType)
	objstate.Of(o).Forget("score")

	// Update: add and delete fields.
	read.AddString("extra").DeleteField("meta").DeleteIndex("by_score_title")
	require.NoError(t, admin.Schemas.Update(ctx, read))
	assert.Equal(t, client.FieldString, read.Fields["extra"].Type)
	assert.NotContains(t, read.Fields, "meta")
	assert.NotContains(t, read.Indexes, "by_score_title")
	again, err := admin.Schemas.Get(ctx, class)
	require.NoError(t, err)
	assert.Contains(t, again.Fields, "extra")
	assert.NotContains(t, again.Fields, "meta")

	// Creating it twice: 103, but not "Schema not found".
	err = admin.Schemas.Create(ctx, client.NewSchema(class).AddString("x"))
	require.ErrorIs(t, err, parse.ErrInvalidClassName)
	require.NotErrorIs(t, err, client.ErrSchemaNotFound)

	// Delete refuses a non-empty class (255); purge empties it.
	err = admin.Schemas.Delete(ctx, class)
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 255, int(perr.Code), "%v", err)
	require.NoError(t, admin.Schemas.Purge(ctx, class))
	_, err = user.Objects.Get(ctx, class, o.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	require.NoError(t, admin.Schemas.Delete(ctx, class))

	_, err = admin.Schemas.Get(ctx, class)
	require.EqualError(t, err, "Schema not found")
	require.ErrorIs(t, err, client.ErrSchemaNotFound)
	require.ErrorIs(t, err, parse.ErrInvalidClassName)
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, 103, int(perr.Code))
	assert.Equal(t, "Class "+class+" does not exist.", perr.Message)
	err = admin.Schemas.Update(ctx, client.NewSchema(class).AddString("x"))
	require.ErrorIs(t, err, client.ErrSchemaNotFound)
}

func TestIdentityFiles(t *testing.T) {
	ctx := t.Context()
	admin := identClient(t, identName("inst"), true)
	u, _ := identSignUp(t, admin, "file")
	c := admin.WithSessionToken(u.SessionToken())

	content := []byte("hello from moralis-go " + identName("f"))
	f, err := c.Files.Upload(ctx, "hello.txt", content, "", nil)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(f.Name, "hello.txt") && f.Name != "hello.txt", "the server makes the name unique: %s", f.Name)
	assert.Contains(t, f.URL, f.Name)
	data, err := c.Files.Data(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, content, data)

	fr, err := c.Files.UploadReader(ctx, "r.bin", bytes.NewReader([]byte{0, 1, 2, 255}), "application/octet-stream", nil)
	require.NoError(t, err)
	data, err = c.Files.Data(ctx, fr)
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 2, 255}, data)

	path := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(path, []byte("<html><body>hi</body></html>"), 0o600))
	fp, err := c.Files.UploadPath(ctx, path, "", nil)
	require.NoError(t, err)
	data, err = c.Files.Data(ctx, fp)
	require.NoError(t, err)
	assert.Equal(t, "<html><body>hi</body></html>", string(data))

	// A File field round-trips through an object.
	class := identName("WithFile")
	o := parse.NewObject(class)
	o.Set("doc", *f)
	require.NoError(t, c.Objects.Save(ctx, o))
	got, err := c.Objects.Get(ctx, class, o.ID())
	require.NoError(t, err)
	gf, ok := got.Get("doc").(parse.File)
	require.True(t, ok, "doc decodes as a File: %#v", got.Get("doc"))
	assert.Equal(t, f.Name, gf.Name)
	assert.Equal(t, f.URL, gf.URL)
	data, err = c.Files.Data(ctx, &gf)
	require.NoError(t, err)
	assert.Equal(t, content, data)

	// Validation before any request.
	_, err = c.Files.Data(ctx, &parse.File{Name: "x"})
	require.EqualError(t, err, "Cannot retrieve data for unsaved file")
	require.EqualError(t, c.Files.Delete(ctx, &parse.File{}), "Cannot delete an unnamed file")
	require.ErrorIs(t, identClient(t, identName("inst"), false).Files.Delete(ctx, f), client.ErrMasterKeyRequired)

	// Deleting with the master key: the URL then answers 404.
	require.NoError(t, admin.Files.Delete(ctx, f))
	_, err = c.Files.Data(ctx, f)
	var perr *parse.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, http.StatusNotFound, perr.Status)
	require.NoError(t, admin.Files.Delete(ctx, fr))
	require.NoError(t, admin.Files.Delete(ctx, fp))
}

func TestIdentityCLPPointerFields(t *testing.T) {
	ctx := t.Context()
	admin := identClient(t, identName("inst"), true)
	base := identClient(t, identName("inst"), false)
	owner, _ := identSignUp(t, base, "pown")
	other, _ := identSignUp(t, base, "poth")
	co, cx := base.WithSessionToken(owner.SessionToken()), base.WithSessionToken(other.SessionToken())
	class := identName("Owned")

	clp := &parse.CLP{}
	require.NoError(t, clp.SetPublicAccess(true, parse.CLPCreate))
	require.NoError(t, clp.SetPointerFields(parse.CLPGet, "owner"))
	clp.ReadUserFields = []string{"owner"}
	clp.WriteUserFields = []string{"owner"}
	require.NoError(t, admin.Schemas.Create(ctx, client.NewSchema(class).AddPointer("owner", "_User").AddString("title").SetCLP(clp)))
	t.Cleanup(func() {
		ctx := context.WithoutCancel(ctx)
		_ = admin.Schemas.Purge(ctx, class)
		_ = admin.Schemas.Delete(ctx, class)
	})
	read, err := admin.Schemas.Get(ctx, class)
	require.NoError(t, err)
	assert.Equal(t, []string{"owner"}, read.CLP.Get.PointerFields)
	assert.Equal(t, []string{"owner"}, read.CLP.ReadUserFields)
	assert.Equal(t, []string{"owner"}, read.CLP.WriteUserFields)
	assert.True(t, read.CLP.Create.Public)

	o := parse.NewObject(class)
	o.Set("owner", owner.Pointer())
	o.Set("title", "mine")
	require.NoError(t, cx.Objects.Save(ctx, o), "create is public")
	got, err := co.Objects.Get(ctx, class, o.ID())
	require.NoError(t, err, "the owner reads through the pointer permission")
	assert.Equal(t, "mine", got.String("title"))
	got.Set("title", "still mine")
	require.NoError(t, co.Objects.Save(ctx, got), "the owner writes through writeUserFields")

	_, err = cx.Objects.Get(ctx, class, o.ID())
	require.ErrorIs(t, err, parse.ErrObjectNotFound, "another user does not see it")
	var found struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, co.Request(ctx, http.MethodGet, "classes/"+class, nil, &found))
	assert.Len(t, found.Results, 1)
	require.NoError(t, cx.Request(ctx, http.MethodGet, "classes/"+class, nil, &found))
	assert.Len(t, found.Results, 0, "a find by another user returns nothing")
}
