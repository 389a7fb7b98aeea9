package moralis

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/web3api"
)

// Errors of Start, returned before anything is made or sent, with the original's texts.
var (
	ErrServerURLRequired = errors.New("Moralis.start failed: serverUrl is required")
	ErrAppIDRequired     = errors.New("Moralis.start failed: appId is required")
)

// Config configures Start. ServerURL and AppID are required; every other field is optional and its zero value
// is the default. Start copies it: changing it afterwards changes nothing.
type Config struct {
	// ServerURL is the backend's URL with its mount path, e.g. "http://127.0.0.1:1337/parse" (the original's
	// serverUrl). Required.
	ServerURL string
	// AppID is the application id (appId). Required.
	AppID string
	// JavaScriptKey is the backend's JavaScript key (javascriptKey), sent by both clients. Default: none.
	JavaScriptKey string
	// MasterKey is the backend's master key (masterKey), sent only by the client's WithMasterKey views. Never
	// set it in code that runs on a user's device. Default: none.
	MasterKey string
	// APIKey is the chain-data API key: with one, Web3API calls the API directly; without one, through the
	// backend's cloud functions. Default: none, unless Secret gives one. Not together with Secret.
	APIKey string
	// Secret is the account secret (the original's moralisSecret): Start fetches the account's keys with it
	// (web3api.FetchKeys) and uses the chain-data key as APIKey. Server-side only: a secret must never reach a
	// browser or a user's device. Default: none.
	Secret string
	// Storage keeps the installation id and the signed-in user, e.g. client.NewFileStorage(path) to stay signed
	// in between runs. Default: in memory, for this process.
	Storage client.Storage
	// HTTPClient is the HTTP client of both clients and of the key fetch. Default: a shared keep-alive client.
	HTTPClient *http.Client
	// Web3APIBaseURL is the chain-data API base. Default: web3api.DefaultBaseURL.
	Web3APIBaseURL string
	// AdminURL is the admin host Secret is sent to. Default: web3api.DefaultAdminURL.
	AdminURL string
}

// App is what Start makes: the parts of the SDK, built from one Config and wired together. Its fields are set by
// Start and never changed; an App is safe for concurrent use, as its parts are.
type App struct {
	// Client is the backend client. It acts as nobody in particular: use UserClient for the signed-in user.
	Client *client.Client
	// Web3API is the chain-data client. On endpoints with an address parameter, an empty address means the
	// signed-in user's ethAddress; through the backend (no API key) it sends the signed-in user's session token.
	Web3API *web3api.Client
	// User keeps the signed-in user in Config.Storage (Set it after a sign-in, or use its LogIn and Become).
	User *client.CurrentUser
	// SpeedyNodeKey is the node key fetched with Config.Secret ("" without a secret).
	SpeedyNodeKey string
}

// Start checks cfg and makes an App, as the original's Moralis.start. A missing ServerURL or AppID gives
// ErrServerURLRequired or ErrAppIDRequired. With cfg.Secret, the account's keys are fetched first (the only
// request Start makes); a failure gives web3api.ErrFetchKeys ("Could not fetch keys with moralisSecret"). The
// original also loads plugins and sends a usage event at start; Start does neither (see Client.Cloud.PluginSpecs
// and package analytics).
func Start(ctx context.Context, cfg Config) (*App, error) {
	if strings.TrimSpace(cfg.ServerURL) == "" {
		return nil, ErrServerURLRequired
	}
	if strings.TrimSpace(cfg.AppID) == "" {
		return nil, ErrAppIDRequired
	}
	if cfg.APIKey != "" && cfg.Secret != "" {
		return nil, errors.New("moralis: Config.APIKey and Config.Secret cannot both be set: the secret gives the API key")
	}
	if ctx == nil {
		return nil, errors.New("moralis: nil context")
	}
	c, err := client.New(client.Config{ServerURL: cfg.ServerURL, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey,
		MasterKey: cfg.MasterKey, Storage: cfg.Storage, HTTPClient: cfg.HTTPClient})
	if err != nil {
		return nil, err
	}
	cu, err := client.NewCurrentUser(c, cfg.Storage)
	if err != nil {
		return nil, err
	}
	app := &App{Client: c, User: cu}
	apiKey := cfg.APIKey
	if cfg.Secret != "" {
		keys, err := web3api.FetchKeys(ctx, cfg.Secret, &web3api.KeysOptions{AdminURL: cfg.AdminURL, HTTPClient: cfg.HTTPClient})
		if err != nil {
			return nil, err
		}
		apiKey, app.SpeedyNodeKey = keys.Web3APIKey, keys.SpeedyNodeKey
	}
	app.Web3API, err = web3api.New(web3api.Config{
		APIKey:         apiKey,
		BaseURL:        cfg.Web3APIBaseURL,
		ServerURL:      cfg.ServerURL,
		AppID:          cfg.AppID,
		JavaScriptKey:  cfg.JavaScriptKey,
		InstallationID: c.InstallationID(),
		SessionToken:   func(context.Context) string { return sessionToken(cu) },
		DefaultAddress: func(context.Context) (string, error) { return ethAddress(cu) },
		HTTPClient:     cfg.HTTPClient,
	})
	if err != nil {
		return nil, err
	}
	return app, nil
}

// UserClient returns a view of Client acting as the signed-in user (CurrentUser.Client), as the original sends
// the current user's session token with every call; Client itself when nobody is signed in.
func (a *App) UserClient() (*client.Client, error) { return a.User.Client() }

// sessionToken is the signed-in user's session token, or "" (nobody, or the storage cannot be read: the call is
// then sent without one, as nobody's).
func sessionToken(cu *client.CurrentUser) string {
	u, err := cu.Get()
	if err != nil || u == nil {
		return ""
	}
	return u.SessionToken()
}

// ethAddress is the signed-in user's ethAddress, lower-cased ("" when nobody is signed in or the user has none).
func ethAddress(cu *client.CurrentUser) (string, error) {
	u, err := cu.Get()
	if err != nil || u == nil {
		return "", err
	}
	return strings.ToLower(u.EthAddress()), nil
}
