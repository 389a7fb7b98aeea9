//go:build integration

package client_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/stretchr/testify/require"
)

type act int

const (
	pass   act = iota
	reset      // forward, then drop the connection (applied, answer lost)
	bad502     // answer 502 without forwarding
)

// hookProxy forwards to the real server; hook decides per request. between runs after forwarding, before the answer.
type hookProxy struct {
	mu   sync.Mutex
	n    int
	hook func(n int, path string, body []byte) (act, func())
	// noIdem strips X-Parse-Request-Id: the server then behaves as one without idempotencyOptions.
	noIdem bool
}

func newHookProxy(t *testing.T, target string, hp *hookProxy) string {
	u, _ := url.Parse(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hp.mu.Lock()
		hp.n++
		n := hp.n
		hp.mu.Unlock()
		a, between := pass, func() {}
		if hp.hook != nil {
			var b func()
			a, b = hp.hook(n, r.URL.Path, body)
			if b != nil {
				between = b
			}
		}
		if a == bad502 {
			w.WriteHeader(502)
			return
		}
		req, _ := http.NewRequest(r.Method, u.Scheme+"://"+u.Host+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		if hp.noIdem {
			req.Header.Del("X-Parse-Request-Id")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(599)
			return
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		between()
		if a == reset {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(rb)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

func rtClients(t *testing.T, hp *hookProxy) (c, direct, master *client.Client, env devstack.Env) {
	env = devstack.MustLoad(t)
	purl := newHookProxy(t, env.ServerURL, hp)
	var err error
	c, err = client.New(client.Config{ServerURL: purl, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	require.NoError(t, err)
	direct, err = client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	require.NoError(t, err)
	master, err = client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	return
}
