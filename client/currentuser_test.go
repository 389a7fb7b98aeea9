package client

import (
	"errors"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/parse"
)

// signedIn returns a user as the server gives one after a sign-in.
func signedIn(t *testing.T, id, token string, more map[string]any) *User {
	t.Helper()
	u := NewUser()
	m := map[string]any{"objectId": id, "sessionToken": token, "username": "ann"}
	for k, v := range more {
		m[k] = v
	}
	require.NoError(t, objstate.Of(u.Object).MergeServer(m))
	return u
}

func TestCurrentUserKeepsAndForgets(t *testing.T) {
	c, _ := setup(t)
	_, err := NewCurrentUser(nil, nil)
	assert.Error(t, err)
	st := NewMemoryStorage()
	cu, err := NewCurrentUser(c, st)
	require.NoError(t, err)
	u, err := cu.Get()
	require.NoError(t, err)
	assert.Nil(t, u, "nobody signed in")
	view, err := cu.Client()
	require.NoError(t, err)
	assert.Same(t, c, view)
	assert.Error(t, cu.Set(nil))

	ann := signedIn(t, "u1", "r:t1", nil)
	ann.SetPassword("secret")
	require.NoError(t, cu.Set(ann))
	raw, ok, err := st.Get(CurrentUserKey("app1"))
	require.NoError(t, err)
	require.True(t, ok)
	assert.NotContains(t, raw, "secret", "a password is never kept")
	got, err := cu.Get()
	require.NoError(t, err)
	assert.Equal(t, "u1", got.ID())
	assert.Equal(t, "r:t1", got.SessionToken())
	view, err = cu.Client()
	require.NoError(t, err)
	assert.Equal(t, "r:t1", view.SessionToken())

	require.NoError(t, cu.Clear())
	got, err = cu.Get()
	require.NoError(t, err)
	assert.Nil(t, got)

	require.NoError(t, st.Set(CurrentUserKey("app1"), "{not json"))
	_, err = cu.Get()
	assert.ErrorContains(t, err, "the stored current user is unreadable")
}

func TestCurrentUserLogInAndBecome(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/login", func(w http.ResponseWriter, r *http.Request) {
		expect(t, r, "POST")
		reply(w, 200, `{"objectId":"u1","username":"ann","sessionToken":"r:t1"}`)
	})
	mux.HandleFunc("/parse/users/me", func(w http.ResponseWriter, r *http.Request) {
		if expect(t, r, "GET").Keys["_SessionToken"] != "r:t2" {
			reply(w, 400, `{"code":209,"error":"Invalid session token"}`)
			return
		}
		reply(w, 200, `{"objectId":"u2","username":"bob"}`)
	})
	cu, err := NewCurrentUser(c, nil)
	require.NoError(t, err)
	_, err = cu.LogIn(t.Context(), "ann", "pw")
	require.NoError(t, err)
	kept, _ := cu.Get()
	assert.Equal(t, "u1", kept.ID())

	_, err = cu.Become(t.Context(), "")
	assert.ErrorIs(t, err, ErrSessionTokenRequired)
	_, err = cu.Become(t.Context(), "r:bad")
	assert.ErrorIs(t, err, parse.ErrInvalidSessionToken)
	kept, _ = cu.Get()
	assert.Equal(t, "u1", kept.ID(), "a refused token keeps nothing")
	_, err = cu.Become(t.Context(), "r:t2")
	require.NoError(t, err)
	kept, _ = cu.Get()
	assert.Equal(t, "u2", kept.ID())
	assert.Equal(t, "r:t2", kept.SessionToken())
}

// Saves and fetches of the kept user update the stored copy (moralis-v1's updateUserOnDisk); others do not.
func TestCurrentUserSaveAndFetchKeepTheUser(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/users/u1", func(w http.ResponseWriter, r *http.Request) {
		call := readCall(t, r)
		assert.Equal(t, "r:t1", call.Keys["_SessionToken"], "acting as the user")
		switch call.Method {
		case "PUT":
			if call.Params["bio"] == "refused" {
				reply(w, 400, `{"code":142,"error":"bio refused"}`)
				return
			}
			reply(w, 200, `{"updatedAt":"2026-01-02T03:04:05.000Z"}`)
		case "GET":
			if call.Params["include"] == "pet" {
				reply(w, 200, `{"objectId":"u1","username":"ann","bio":"fetched","pet":{"__type":"Object","className":"Pet","objectId":"p1","name":"Rex"}}`)
				return
			}
			reply(w, 200, `{"objectId":"u1","username":"ann","bio":"fetched"}`)
		default:
			t.Errorf("method %s", call.Method)
		}
	})
	mux.HandleFunc("/parse/users/u2", func(w http.ResponseWriter, r *http.Request) {
		expect(t, r, "PUT")
		reply(w, 200, `{"updatedAt":"2026-01-02T03:04:05.000Z"}`)
	})
	cu, err := NewCurrentUser(c, nil)
	require.NoError(t, err)
	none, err := cu.Fetch(t.Context())
	require.NoError(t, err)
	assert.Nil(t, none, "nobody to fetch: no request")
	ann := signedIn(t, "u1", "r:t1", nil)
	require.NoError(t, cu.Set(ann))
	assert.Error(t, cu.Save(t.Context(), nil))

	ann.Set("bio", "saved")
	require.NoError(t, cu.Save(t.Context(), ann))
	kept, _ := cu.Get()
	assert.Equal(t, "saved", kept.String("bio"))
	assert.Equal(t, "r:t1", kept.SessionToken())

	ann.Set("bio", "refused")
	assert.Error(t, cu.Save(t.Context(), ann))
	kept, _ = cu.Get()
	assert.Equal(t, "saved", kept.String("bio"), "a failed save keeps nothing")

	bob := signedIn(t, "u2", "r:t2", nil)
	bob.Set("bio", "bob's")
	require.NoError(t, cu.Save(t.Context(), bob))
	kept, _ = cu.Get()
	assert.Equal(t, "u1", kept.ID(), "another user's save changes nothing kept")

	f, err := cu.Fetch(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "fetched", f.String("bio"))
	kept, _ = cu.Get()
	assert.Equal(t, "fetched", kept.String("bio"))
	assert.Equal(t, "r:t1", kept.SessionToken(), "the answer of users/{id} has no token: the kept one stays")

	_, err = cu.FetchWithInclude(t.Context(), "pet")
	require.NoError(t, err)
	kept, _ = cu.Get()
	pet, ok := kept.Get("pet").(*parse.Object)
	require.True(t, ok, "the included object is kept whole: %T", kept.Get("pet"))
	assert.Equal(t, "Rex", pet.String("name"))
}

// LogOut forgets the user before the server hears of it, and returns the revoke's failure typed.
func TestCurrentUserLogOutOrder(t *testing.T) {
	c, mux := setup(t)
	var (
		mu    sync.Mutex
		order []string
		cu    *CurrentUser
	)
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	mux.HandleFunc("/parse/logout", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		kept, err := cu.Get()
		if err != nil || kept != nil {
			t.Errorf("the user is still kept when the server is told: %v %v", kept, err)
		}
		note("logout " + call.Keys["_SessionToken"].(string))
		if call.Keys["_SessionToken"] == "r:down" {
			reply(w, 503, `{"code":1,"error":"unavailable"}`)
			return
		}
		reply(w, 200, `{}`)
	})
	mux.HandleFunc("/parse/users/anon1", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "DELETE")
		assert.Equal(t, "r:anon", call.Keys["_SessionToken"])
		note("delete anon1")
		reply(w, 200, `{}`)
	})
	var err error
	cu, err = NewCurrentUser(c, nil)
	require.NoError(t, err)
	require.NoError(t, cu.LogOut(t.Context()), "nobody signed in")

	require.NoError(t, cu.Set(signedIn(t, "u1", "r:ok", nil)))
	require.NoError(t, cu.LogOut(t.Context()))

	require.NoError(t, cu.Set(signedIn(t, "u1", "r:down", nil)))
	err = cu.LogOut(t.Context())
	var le *LogOutError
	require.True(t, errors.As(err, &le), "typed: %v", err)
	assert.Equal(t, "r:down", le.SessionToken)
	assert.NotContains(t, err.Error(), "r:down")
	var pe *parse.Error
	assert.True(t, errors.As(err, &pe), "the cause is kept: %v", err)
	kept, _ := cu.Get()
	assert.Nil(t, kept, "signed out locally all the same")

	// A legacy session (no "r:") is not revoked, as the original: no request.
	require.NoError(t, cu.Set(signedIn(t, "u1", "legacy", nil)))
	require.NoError(t, cu.LogOut(t.Context()))
	kept, _ = cu.Get()
	assert.Nil(t, kept)

	// An anonymous user is deleted, then its session revoked.
	require.NoError(t, cu.Set(signedIn(t, "anon1", "r:anon", map[string]any{"authData": map[string]any{"anonymous": map[string]any{"id": "x"}}})))
	require.NoError(t, cu.LogOut(t.Context()))
	assert.Equal(t, []string{"logout r:ok", "logout r:down", "delete anon1", "logout r:anon"}, order)

	// An unreadable kept user is forgotten, and the error says its session was not revoked.
	st := NewMemoryStorage()
	cu2, err := NewCurrentUser(c, st)
	require.NoError(t, err)
	require.NoError(t, st.Set(CurrentUserKey("app1"), "{broken"))
	err = cu2.LogOut(t.Context())
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "moralis: logged out locally"), err.Error())
	_, ok, _ := st.Get(CurrentUserKey("app1"))
	assert.False(t, ok)
}
