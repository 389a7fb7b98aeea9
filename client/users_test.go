package client

import (
	"errors"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/parse"
)

func TestSignUpSendsUsernameAndPasswordAndForgetsThePassword(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/users", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		assert.Equal(t, map[string]any{"username": "ann", "password": "pw", "email": "ann@example.com"}, call.Params)
		assert.Nil(t, call.Keys["_SessionToken"])
		reply(w, 201, `{"objectId":"u1","createdAt":"2026-01-02T03:04:05.000Z","sessionToken":"r:t1"}`)
	})
	u := NewUser()
	u.SetUsername("ann")
	u.SetPassword("pw")
	u.SetEmail("ann@example.com")
	require.NoError(t, c.Users.SignUp(t.Context(), u))
	assert.Equal(t, "u1", u.ID())
	assert.Equal(t, "r:t1", u.SessionToken())
	assert.Nil(t, u.Get("password"), "the password is not kept")
	assert.Empty(t, u.DirtyKeys())
}

func TestSignUpChecksBeforeSending(t *testing.T) {
	c, _ := setup(t) // no route: any request fails the test
	u := NewUser()
	assert.ErrorIs(t, c.Users.SignUp(t.Context(), u), ErrEmptyUsername)
	u.SetUsername("ann")
	assert.ErrorIs(t, c.Users.SignUp(t.Context(), u), ErrEmptyPassword)
	assert.EqualError(t, c.Users.SignUp(t.Context(), nil), "moralis: SignUp needs a user")
}

// The anonymous upgrade on the wire: SetUsername nulls authData.anonymous, and SignUp of the existing user is a
// PUT acting as that user.
func TestSignUpOfAnAnonymousUserUpgradesIt(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/users/u9", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "PUT")
		assert.Equal(t, "r:anon", call.Keys["_SessionToken"], "acting as the user")
		assert.Equal(t, map[string]any{"username": "ann", "password": "pw", "authData": map[string]any{"anonymous": nil}}, call.Params)
		reply(w, 200, `{"updatedAt":"2026-01-02T03:04:05.000Z"}`)
	})
	u := UserFromObject(parse.NewObjectWithID(UserClass, "u9"))
	require.NoError(t, objstate.Of(u.Object).MergeServer(map[string]any{"objectId": "u9", "sessionToken": "r:anon",
		"authData": map[string]any{"anonymous": map[string]any{"id": "a-b"}}}))
	require.True(t, u.IsAnonymous())
	u.SetUsername("ann")
	u.SetPassword("pw")
	assert.False(t, u.IsAnonymous())
	require.NoError(t, c.Users.SignUp(t.Context(), u))
	assert.Equal(t, "r:anon", u.SessionToken())
}

func TestLogInAndLogInOrSignUp(t *testing.T) {
	c, mux := setup(t)
	logins := 0
	mux.HandleFunc("/parse/login", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		logins++
		if call.Params["password"] != "pw" {
			reply(w, 404, `{"code":101,"error":"Invalid username/password."}`)
			return
		}
		reply(w, 200, `{"objectId":"u1","username":"ann","sessionToken":"r:t1"}`)
	})
	mux.HandleFunc("/parse/users", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		assert.Equal(t, map[string]any{"username": "bob", "password": "other"}, call.Params)
		reply(w, 201, `{"objectId":"u2","createdAt":"2026-01-02T03:04:05.000Z","sessionToken":"r:t2"}`)
	})
	u, err := c.Users.LogIn(t.Context(), "ann", "pw")
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID())
	assert.Equal(t, "r:t1", u.SessionToken())
	_, err = c.Users.LogIn(t.Context(), "ann", "bad")
	assert.ErrorIs(t, err, parse.ErrObjectNotFound)
	assert.Contains(t, err.Error(), "Invalid username/password.")

	nu, err := c.Users.LogInOrSignUp(t.Context(), "bob", "other")
	require.NoError(t, err)
	assert.Equal(t, "u2", nu.ID())
	assert.Equal(t, "bob", nu.Username())
	assert.Equal(t, 3, logins)
}

func TestLogInAnonymouslyAndLinks(t *testing.T) {
	c, mux := setup(t)
	var ids []string
	mux.HandleFunc("/parse/users", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		ad, _ := call.Params["authData"].(map[string]any)
		anon, _ := ad["anonymous"].(map[string]any)
		id, _ := anon["id"].(string)
		if _, err := uuid.Parse(id); err != nil {
			t.Errorf("anonymous id %q is not a UUID", id)
		}
		ids = append(ids, id)
		if len(ids) == 3 {
			reply(w, 201, `{"objectId":"a3","createdAt":"2026-01-02T03:04:05.000Z"}`) // no session
			return
		}
		reply(w, 201, `{"objectId":"a1","createdAt":"2026-01-02T03:04:05.000Z","sessionToken":"r:a"}`)
	})
	mux.HandleFunc("/parse/users/a1", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "PUT")
		assert.Equal(t, "r:a", call.Keys["_SessionToken"])
		ad := call.Params["authData"].(map[string]any)
		assert.Len(t, ad, 1)
		reply(w, 200, `{"updatedAt":"2026-01-02T03:04:06.000Z"}`)
	})
	u, err := c.Users.LogInAnonymously(t.Context())
	require.NoError(t, err)
	assert.True(t, u.IsAnonymous(), "the user holds the authData it was signed in with")
	assert.Equal(t, "r:a", u.SessionToken())
	_, err = c.Users.LogInAnonymously(t.Context())
	require.NoError(t, err)
	require.Len(t, ids, 2)
	assert.NotEqual(t, ids[0], ids[1], "a new identity each time")
	_, err = c.Users.LogInAnonymously(t.Context())
	assert.ErrorIs(t, err, ErrCouldNotGetUser, "an answer without a session")

	require.NoError(t, c.Users.Unlink(t.Context(), u, AnonymousProvider))
	assert.False(t, u.IsAnonymous())
	require.NoError(t, c.Users.LinkAnonymous(t.Context(), u))
	assert.True(t, u.IsAnonymous())
	assert.Error(t, c.Users.Link(t.Context(), NewUser(), "x", nil), "an unsaved user is refused before sending")
	assert.Error(t, c.Users.Link(t.Context(), u, "", nil))
	_, err = c.Users.LogInWith(t.Context(), "", nil)
	assert.Error(t, err)
}

func TestMeAndLogOut(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/users/me", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "GET")
		if call.Keys["_SessionToken"] != "r:good" {
			reply(w, 400, `{"code":209,"error":"Invalid session token"}`)
			return
		}
		reply(w, 200, `{"objectId":"u1","username":"ann"}`)
	})
	mux.HandleFunc("/parse/logout", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		switch call.Keys["_SessionToken"] {
		case "r:good":
			reply(w, 200, `{}`)
		case "r:gone":
			reply(w, 400, `{"code":209,"error":"Invalid session token"}`)
		default:
			reply(w, 500, `{"code":1,"error":"down"}`)
		}
	})
	_, err := c.Users.Me(t.Context())
	assert.ErrorIs(t, err, ErrSessionTokenRequired, "refused before any request")
	assert.ErrorIs(t, c.Users.LogOut(t.Context()), ErrSessionTokenRequired)

	me, err := c.WithSessionToken("r:good").Users.Me(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "r:good", me.SessionToken(), "the view's token when the answer has none")
	_, err = c.WithSessionToken("r:bad").Users.Me(t.Context())
	assert.ErrorIs(t, err, parse.ErrInvalidSessionToken)

	assert.NoError(t, c.WithSessionToken("r:good").Users.LogOut(t.Context()))
	assert.NoError(t, c.WithSessionToken("r:gone").Users.LogOut(t.Context()), "a session the server no longer knows is logged out")
	err = c.WithSessionToken("r:other").Users.LogOut(t.Context())
	var pe *parse.Error
	assert.True(t, errors.As(err, &pe), "%v", err)
}

func TestPasswordResetVerificationAndVerifyPassword(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/requestPasswordReset", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"email": "a@example.com"}, expect(t, r, "POST").Params)
		reply(w, 200, `{}`)
	})
	mux.HandleFunc("/parse/verificationEmailRequest", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"email": "a@example.com"}, expect(t, r, "POST").Params)
		reply(w, 200, `{}`)
	})
	mux.HandleFunc("/parse/verifyPassword", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"username": "ann", "password": "pw"}, expect(t, r, "GET").Params)
		reply(w, 200, `{"objectId":"u1","username":"ann"}`)
	})
	mux.HandleFunc("/parse/upgradeToRevocableSession", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "legacy", expect(t, r, "POST").Keys["_SessionToken"])
		reply(w, 200, `{"sessionToken":"r:new"}`)
	})
	ctx := t.Context()
	assert.Error(t, c.Users.RequestPasswordReset(ctx, ""))
	assert.Error(t, c.Users.RequestEmailVerification(ctx, ""))
	require.NoError(t, c.Users.RequestPasswordReset(ctx, "a@example.com"))
	require.NoError(t, c.Users.RequestEmailVerification(ctx, "a@example.com"))
	u, err := c.Users.VerifyPassword(ctx, "ann", "pw")
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID())
	_, err = c.Sessions.Upgrade(ctx)
	assert.ErrorIs(t, err, ErrNoSessionToken)
	tok, err := c.WithSessionToken("legacy").Sessions.Upgrade(ctx)
	require.NoError(t, err)
	assert.Equal(t, "r:new", tok)
}

func TestUserAccessors(t *testing.T) {
	u := NewUser()
	require.NoError(t, objstate.Of(u.Object).MergeServer(map[string]any{"objectId": "u1", "ethAddress": "0xab",
		"accounts": []any{"0xab", "0xcd"}, "solAccounts": []any{"S1", "S2", "S1"}}))
	assert.Equal(t, "0xab", u.EthAddress())
	assert.Equal(t, []string{"0xab", "0xcd"}, u.Accounts())
	assert.Equal(t, []string{"S1", "S2"}, u.SolAccounts())
	assert.Equal(t, "S1", u.SolAddress(), "the first Solana account when solAddress is absent")
	assert.False(t, u.IsAnonymous())
	u.SetUsername("x") // no authData: nothing to unlink
	assert.Nil(t, u.Get("authData"))
}
