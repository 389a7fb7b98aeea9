package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
)

// Request sends any backend call: method GET, POST, PUT or DELETE (sent as a POST with _method, like every
// call), path relative to the server URL (e.g. "events/AppOpened"), params encoded with the Parse codecs. The
// JSON answer is decoded into out (skipped when nil). Use it for routes the SDK has no method for.
func (c *Client) Request(ctx context.Context, method, path string, params map[string]any, out any) error {
	method = strings.ToUpper(method)
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		return fmt.Errorf("moralis: unsupported method %q", method)
	}
	path = trimSlash(path)
	if path == "" {
		return fmt.Errorf("moralis: Request needs a path")
	}
	enc, err := parse.Encode(params)
	if err != nil {
		return fmt.Errorf("moralis: %s %s: %w", method, path, err)
	}
	body, _ := enc.(map[string]any)
	return c.do(ctx, c.call(method, path, body), out)
}

func trimSlash(s string) string { return strings.Trim(s, "/") }
