package web3api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// DefaultAdminURL is the admin host asked for API keys by FetchKeys.
const DefaultAdminURL = "https://admin.moralis.io"

// KeysPath is the admin path FetchKeys reads; SecretHeader the header that carries the secret.
const (
	KeysPath     = "/api/publics/apiKeys"
	SecretHeader = "moralis-secret"
)

// ErrFetchKeys is returned by FetchKeys for any failure; the secret never appears in it.
var ErrFetchKeys = errors.New("Could not fetch keys with moralisSecret")

// Keys are the keys an account secret unlocks.
type Keys struct {
	Web3APIKey    string `json:"web3ApiKey"`
	SpeedyNodeKey string `json:"speedyNodeApiKey"`
}

// KeysOptions tune FetchKeys; nil means defaults.
type KeysOptions struct {
	// AdminURL is the admin host base (default DefaultAdminURL).
	AdminURL string
	// HTTPClient is the client to use (default: the shared keep-alive client).
	HTTPClient *http.Client
}

// FetchKeys reads the account's API keys with its secret: GET {admin}/api/publics/apiKeys with the secret in the
// moralis-secret header (as moralis-v1 1.13.0 sends it); the keys come from "result". Any failure gives
// ErrFetchKeys. Secrets belong on servers only, never in browsers.
func FetchKeys(ctx context.Context, secret string, opts *KeysOptions) (Keys, error) {
	if ctx == nil {
		return Keys{}, errors.New("web3api: nil context")
	}
	base := DefaultAdminURL
	var hc *http.Client
	if opts != nil {
		if opts.AdminURL != "" {
			base = strings.TrimRight(opts.AdminURL, "/")
		}
		hc = opts.HTTPClient
	}
	if secret == "" {
		return Keys{}, ErrFetchKeys
	}
	req := &httpx.Request{Method: http.MethodGet, URL: base + KeysPath, Header: http.Header{}}
	req.Header.Set(SecretHeader, secret)
	resp, err := httpx.New(hc, httpx.Policy{}).Do(ctx, req)
	if err != nil || resp.Status != http.StatusOK {
		return Keys{}, ErrFetchKeys
	}
	var env struct {
		Result *Keys `json:"result"`
	}
	if json.Unmarshal(resp.Body, &env) != nil || env.Result == nil {
		return Keys{}, ErrFetchKeys
	}
	return *env.Result, nil
}
