package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// Download GETs an absolute http(s) URL, such as a stored file's url, through the transport's HTTP client and
// retry policy, and returns the answer. No application key, master key or session token is sent: file URLs are
// public and may point at another host. A status of 400 or more gives an *Error with that Status (and the
// server's code when the body is a Parse error). Safe for concurrent use.
func (t *Transport) Download(ctx context.Context, rawURL string) (*Result, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("moralis: download: %q is not an absolute http(s) URL", redactURL(rawURL))
	}
	op := "GET " + redactURL(rawURL)
	resp, err := t.http.Do(ctx, &httpx.Request{Method: http.MethodGet, URL: u.String()})
	if err != nil {
		return nil, t.transportError(ctx, op, err)
	}
	if resp.Status >= 400 || resp.Status < 200 {
		perr := DecodeError(op, resp.Status, resp.Body)
		if perr.Code == CodeInvalidJSON {
			// Not a Parse error body (e.g. an HTML 404 page): report the status only.
			perr = &Error{Status: resp.Status, Op: op, Message: fmt.Sprintf("download failed with HTTP status %d", resp.Status)}
		}
		return nil, perr
	}
	return &Result{Status: resp.Status, Header: resp.Header, Body: resp.Body, Attempts: resp.Attempts}, nil
}
