package moralis_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	moralis "github.com/c13f5054/moralis-go"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is an httptest server that records every request and answers with reply.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []recorded
	reply func(r recorded) (int, string)
}

type recorded struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

func newRecorder(t *testing.T, reply func(r recorded) (int, string)) *recorder {
	rec := &recorder{reply: reply}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rr := recorded{Path: r.URL.Path, Header: r.Header.Clone()}
		_ = json.Unmarshal(raw, &rr.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, rr)
		rec.mu.Unlock()
		status, body := rec.reply(rr)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

const userAddr = "0x57ec652a4f150f7ff94f089a38008f49a0df88e0"

// signIn keeps a user with an ethAddress (mixed case, as a wallet may give it) and a session token.
func signIn(t *testing.T, app *moralis.App) {
	u := client.NewUser()
	require.NoError(t, u.ParseObject().UnmarshalJSON([]byte(`{"objectId":"u1","username":"ann","sessionToken":"r:ann",
		"ethAddress":"0x57EC652A4F150F7FF94F089A38008F49A0DF88E0"}`)))
	require.NoError(t, app.User.Set(u))
}

// Start needs a server URL and an app id, with the original's texts, before anything is made or sent.
func TestStartChecksTheConfig(t *testing.T) {
	ctx := context.Background()
	_, err := moralis.Start(ctx, moralis.Config{AppID: "a"})
	require.ErrorIs(t, err, moralis.ErrServerURLRequired)
	assert.EqualError(t, err, "Moralis.start failed: serverUrl is required")
	_, err = moralis.Start(ctx, moralis.Config{ServerURL: "http://127.0.0.1:1/parse"})
	require.ErrorIs(t, err, moralis.ErrAppIDRequired)
	assert.EqualError(t, err, "Moralis.start failed: appId is required")
	_, err = moralis.Start(ctx, moralis.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "a", APIKey: "k", Secret: "s", AdminURL: "http://127.0.0.1:1"})
	require.ErrorContains(t, err, "Config.APIKey and Config.Secret cannot both be set")
	//lint:ignore SA1012 a nil context is refused, not used
	_, err = moralis.Start(nil, moralis.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "a"})
	require.Error(t, err)
}

// Without an API key, the chain-data calls go through the backend's cloud functions with the signed-in user's
// session token, and an empty address is the user's ethAddress (lower-cased); the installation id is the backend
// client's. Nobody signed in: no session token, and the address stays empty (the call is refused).
func TestStartWiresTheCurrentUserIntoWeb3API(t *testing.T) {
	backend := newRecorder(t, func(r recorded) (int, string) {
		return 200, `{"result":{"balance":"42"}}`
	})
	storage := client.NewMemoryStorage()
	app, err := moralis.Start(context.Background(), moralis.Config{ServerURL: backend.URL + "/parse", AppID: "app", JavaScriptKey: "js", Storage: storage})
	require.NoError(t, err)
	assert.False(t, app.Web3API.UsesAPIKey())
	assert.Empty(t, backend.all(), "Start sends nothing without a secret")

	_, err = app.Web3API.Account.GetNativeBalance(context.Background(), nil)
	require.Error(t, err, "nobody signed in: no address")
	assert.Contains(t, err.Error(), "required param address not provided")

	signIn(t, app)
	bal, err := app.Web3API.Account.GetNativeBalance(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, "42", bal.Balance)
	reqs := backend.all()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "/parse/functions/getNativeBalance", r.Path)
	assert.Equal(t, userAddr, r.Body["address"])
	assert.Equal(t, "r:ann", r.Body["_SessionToken"])
	assert.Equal(t, "js", r.Body["_JavaScriptKey"])
	assert.Equal(t, app.Client.InstallationID(), r.Body["_InstallationId"])

	// An address given explicitly wins.
	_, err = app.Web3API.Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{Address: "0x1111111111111111111111111111111111111111"})
	require.NoError(t, err)
	assert.Equal(t, "0x1111111111111111111111111111111111111111", backend.all()[1].Body["address"])

	uc, err := app.UserClient()
	require.NoError(t, err)
	assert.Equal(t, "r:ann", uc.SessionToken())
	require.NoError(t, app.User.Clear())
	uc, err = app.UserClient()
	require.NoError(t, err)
	assert.Empty(t, uc.SessionToken())
}

// With a secret, Start fetches the account's keys (GET {admin}/api/publics/apiKeys, the secret in the
// moralis-secret header) and the chain-data client calls the API directly with the fetched key; the address
// still defaults to the signed-in user's. A failed fetch gives the original's text and no App.
func TestStartFetchesKeysWithASecret(t *testing.T) {
	admin := newRecorder(t, func(r recorded) (int, string) {
		if r.Path != web3api.KeysPath || r.Header.Get("moralis-secret") != "s3cret" {
			return 401, `{"error":"unauthorized"}`
		}
		return 200, `{"result":{"web3ApiKey":"k-web3","speedyNodeApiKey":"k-node"}}`
	})
	api := newRecorder(t, func(r recorded) (int, string) { return 200, `{"balance":"7"}` })
	cfg := moralis.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "app", Secret: "s3cret", AdminURL: admin.URL, Web3APIBaseURL: api.URL}
	app, err := moralis.Start(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, app.Web3API.UsesAPIKey())
	assert.Equal(t, "k-node", app.SpeedyNodeKey)
	signIn(t, app)
	bal, err := app.Web3API.Account.GetNativeBalance(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, "7", bal.Balance)
	reqs := api.all()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/"+userAddr+"/balance", reqs[0].Path)
	assert.Equal(t, "k-web3", reqs[0].Header.Get("x-api-key"))

	cfg.Secret = "wrong"
	app, err = moralis.Start(context.Background(), cfg)
	require.ErrorIs(t, err, web3api.ErrFetchKeys)
	assert.EqualError(t, err, "Could not fetch keys with moralisSecret")
	assert.Nil(t, app)
	for _, r := range admin.all() {
		assert.False(t, strings.Contains(r.Path, "s3cret"), "the secret travels in a header only")
	}
	assert.False(t, errors.Is(err, moralis.ErrServerURLRequired))
}
