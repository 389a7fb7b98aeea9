package main

import (
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/web3api"
)

// dataProxy builds the handler of the React data hooks (/auth/data/...): backend queries and the listed cloud
// functions run as the signed-in user; chain data is fetched with the API key from MORALIS_API_KEY (at
// MORALIS_WEB3API_URL, default the hosted API), which stays in this process. Without a key the chain routes are
// off (404).
func dataProxy(h *authserver.Handler, cfg client.Config, getenv func(string) string, functions string) (http.Handler, error) {
	c, err := client.New(client.Config{ServerURL: cfg.ServerURL, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey})
	if err != nil {
		return nil, err
	}
	opts := authserver.DataProxyConfig{Backend: authserver.NewClientDataBackend(c)}
	for _, f := range strings.Split(functions, ",") {
		if f = strings.TrimSpace(f); f != "" {
			opts.AllowedFunctions = append(opts.AllowedFunctions, f)
		}
	}
	if key := getenv("MORALIS_API_KEY"); key != "" {
		w3, err := web3api.New(web3api.Config{APIKey: key, BaseURL: getenv("MORALIS_WEB3API_URL")})
		if err != nil {
			return nil, err
		}
		opts.Chain = w3
	}
	return h.DataProxy(opts)
}
