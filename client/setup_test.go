package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The offline harness of users_test.go, cloud_test.go and currentuser_test.go, after go-github's setup(t): a
// server mounted at /parse/ whose mux answers only the routes a test registers; any other call fails the test.

// wireCall is one call as the server reads it: every call travels as a POST whose body carries the real method
// (_method, absent for a POST), the keys (_ApplicationId, _JavaScriptKey or _MasterKey, _SessionToken) and the
// parameters.
type wireCall struct {
	Method string         // the real method: _method, or POST
	Params map[string]any // the body without its underscore keys
	Keys   map[string]any // the underscore keys
}

// setup starts the server and returns a client of it (master key "mk1", one attempt per request) and its mux.
func setup(t *testing.T) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request: %s %s", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":1,"error":"unexpected request"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := New(Config{
		ServerURL: srv.URL + "/parse", AppID: "app1", JavaScriptKey: "js1", MasterKey: "mk1", InstallationID: "inst-1",
		MaxAttempts: 1, Retry: RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, mux
}

// readCall decodes r's body into a wireCall, failing the test on a body that is not a JSON object.
func readCall(t *testing.T, r *http.Request) wireCall {
	t.Helper()
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		t.Errorf("%s: body is not a JSON object: %v", r.URL.Path, err)
		return wireCall{}
	}
	call := wireCall{Method: r.Method, Params: map[string]any{}, Keys: map[string]any{}}
	for k, v := range m {
		if len(k) > 0 && k[0] == '_' {
			call.Keys[k] = v
		} else {
			call.Params[k] = v
		}
	}
	if s, ok := m["_method"].(string); ok {
		call.Method = s
	}
	return call
}

// expect reads the call and fails the test unless its real method is method.
func expect(t *testing.T, r *http.Request, method string) wireCall {
	t.Helper()
	call := readCall(t, r)
	if call.Method != method {
		t.Errorf("%s: method %s, want %s", r.URL.Path, call.Method, method)
	}
	return call
}

// reply writes a JSON answer.
func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}
