package rest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recorded struct {
	body   map[string]any
	header http.Header
	method string
	path   string
}

// setup starts a server whose handler answers with the given function and records every request.
func setup(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) (*Transport, *[]recorded, *[]time.Duration) {
	t.Helper()
	var mu sync.Mutex
	var reqs []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		reqs = append(reqs, recorded{body: m, header: r.Header.Clone(), method: r.Method, path: r.URL.Path})
		n := len(reqs)
		mu.Unlock()
		answer(n, w, r)
	}))
	t.Cleanup(srv.Close)
	var waits []time.Duration
	tr, err := New(Config{
		ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "jsKey", MasterKey: "masterKey",
		InstallationID: "inst-1", Idempotency: true,
		Policy: httpx.Policy{
			Rand:  func() float64 { return 0.5 },
			Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() },
		},
	})
	require.NoError(t, err)
	return tr, &reqs, &waits
}

func TestBodyCarriesMethodKeysAndSession(t *testing.T) {
	tr, reqs, _ := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"ok":true}`)) })
	var out map[string]any
	err := tr.DoJSON(context.Background(), Call{Method: "GET", Path: "classes/Thing", Params: map[string]any{"limit": 2},
		SessionToken: "r:tok", Context: map[string]any{"a": 1}}, &out)
	require.NoError(t, err)
	require.Len(t, *reqs, 1)
	r := (*reqs)[0]
	assert.Equal(t, "POST", r.method)
	assert.Equal(t, "/parse/classes/Thing", r.path)
	assert.Equal(t, "text/plain", r.header.Get("Content-Type"))
	assert.Equal(t, "GET", r.body["_method"])
	assert.Equal(t, "app", r.body["_ApplicationId"])
	assert.Equal(t, "jsKey", r.body["_JavaScriptKey"])
	assert.Nil(t, r.body["_MasterKey"])
	assert.Equal(t, ClientVersion, r.body["_ClientVersion"])
	assert.Equal(t, "inst-1", r.body["_InstallationId"])
	assert.Equal(t, "r:tok", r.body["_SessionToken"])
	assert.Equal(t, map[string]any{"a": float64(1)}, r.body["_context"])
	assert.Equal(t, float64(2), r.body["limit"])
	assert.Empty(t, r.header.Get("X-Parse-Request-Id"), "GET-style calls carry no request id")
	assert.Equal(t, true, out["ok"])
}

func TestMasterKeyReplacesJavaScriptKey(t *testing.T) {
	tr, reqs, _ := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) })
	require.NoError(t, tr.DoJSON(context.Background(), Call{Method: "POST", Path: "jobs/x", UseMasterKey: true}, nil))
	r := (*reqs)[0]
	assert.Equal(t, "masterKey", r.body["_MasterKey"])
	assert.Nil(t, r.body["_JavaScriptKey"])
	assert.Nil(t, r.body["_method"], "a POST sends no _method")
}

func TestMasterKeyMissingFailsBeforeSending(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("no request expected") }))
	defer srv.Close()
	tr, err := New(Config{ServerURL: srv.URL, AppID: "a"})
	require.NoError(t, err)
	err = tr.DoJSON(context.Background(), Call{Method: "GET", Path: "schemas", UseMasterKey: true}, nil)
	require.ErrorIs(t, err, ErrMasterKeyRequired)
}

func TestReadsRetryOn5xxWithTheOriginalsBackoff(t *testing.T) {
	tr, reqs, waits := setup(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n < 4 {
			w.WriteHeader(503)
			w.Write([]byte(`{"code":1,"message":"Internal server error."}`))
			return
		}
		w.Write([]byte(`{"results":[]}`))
	})
	res, err := tr.Do(context.Background(), Call{Method: "GET", Path: "classes/Thing"})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Attempts)
	require.Len(t, *reqs, 4)
	// round(125ms x 0.5 x 2^attempts), the count already 1 at the first wait: 125ms, 250ms, 500ms.
	assert.Equal(t, []time.Duration{125 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond}, *waits)
}

func TestEachLogicalCallGetsItsOwnRequestID(t *testing.T) {
	tr, reqs, _ := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) })
	for i := 0; i < 2; i++ {
		require.NoError(t, tr.DoJSON(context.Background(), Call{Method: "PUT", Path: "classes/T/x"}, nil))
	}
	a, b := (*reqs)[0].header.Get("X-Parse-Request-Id"), (*reqs)[1].header.Get("X-Parse-Request-Id")
	assert.NotEmpty(t, a)
	assert.NotEqual(t, a, b)
}

func TestNoRetryOn4xx(t *testing.T) {
	tr, reqs, waits := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(404)
		w.Write([]byte(`{"code":101,"error":"Object not found."}`))
	})
	err := tr.DoJSON(context.Background(), Call{Method: "GET", Path: "classes/T/x"}, nil)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 101, int(pe.Code))
	assert.Equal(t, "Object not found.", pe.Message)
	assert.Equal(t, 404, pe.Status)
	assert.True(t, errors.Is(err, &Error{Code: 101}))
	assert.False(t, errors.Is(err, &Error{Code: 102}))
	assert.Len(t, *reqs, 1)
	assert.Empty(t, *waits)
}

func TestGivesUpAfterAttemptLimit(t *testing.T) {
	tr, reqs, waits := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(502)
		w.Write([]byte(`bad gateway`))
	})
	err := tr.DoJSON(context.Background(), Call{Method: "GET", Path: "x"}, nil)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 502, pe.Status)
	assert.Equal(t, "Received an error with invalid JSON from Parse: bad gateway", pe.Message)
	assert.Len(t, *reqs, httpx.DefaultMaxAttempts)
	assert.Len(t, *waits, httpx.DefaultMaxAttempts-1)
}

func TestErrorShapes(t *testing.T) {
	cases := []struct {
		status int
		body   string
		code   Code
		msg    string
	}{
		{400, `{"code":141,"error":"intentional failure"}`, 141, "intentional failure"},
		{500, `{"code":1,"message":"Internal server error."}`, 1, "Internal server error."},
		{403, `{"error":"unauthorized: master key is required"}`, 0, "unauthorized: master key is required"},
		{404, `Cannot POST /parse/nonexistent`, CodeInvalidJSON, "Received an error with invalid JSON from Parse: Cannot POST /parse/nonexistent"},
		{400, `{"code":5}`, CodeInvalidJSON, `Received an error with invalid JSON from Parse: {"code":5}`},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			tr, _, _ := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(c.status)
				w.Write([]byte(c.body))
			})
			tr.http = httpx.New(nil, httpx.Policy{MaxAttempts: 1})
			err := tr.DoJSON(context.Background(), Call{Method: "GET", Path: "x"}, nil)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, c.code, pe.Code)
			assert.Equal(t, c.msg, pe.Message)
			assert.Equal(t, c.status, pe.Status)
		})
	}
}

func TestNoResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	var waits []time.Duration
	tr, err := New(Config{ServerURL: "http://" + addr + "/parse", AppID: "a",
		Policy: httpx.Policy{Rand: func() float64 { return 0 }, Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}})
	require.NoError(t, err)
	err = tr.DoJSON(context.Background(), Call{Method: "GET", Path: "x"}, nil)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, ErrUnableToConnect, pe.Message)
	assert.Equal(t, CodeConnectionFailed, pe.Code)
	assert.Len(t, waits, httpx.DefaultMaxAttempts-1)

	tr.http = httpx.New(nil, httpx.Policy{MaxAttempts: 1})
	err = tr.DoJSON(context.Background(), Call{Method: "GET", Path: "x"}, nil)
	require.ErrorAs(t, err, &pe)
	assert.True(t, strings.HasPrefix(pe.Message, "XMLHttpRequest failed: "), pe.Message)
}

func TestContextCancelStopsRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tr, reqs, _ := setup(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		cancel()
		w.WriteHeader(503)
	})
	err := tr.DoJSON(ctx, Call{Method: "GET", Path: "x"}, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, *reqs, 1)
}

func TestDeadlineHonouredWithRealSleep(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	defer srv.Close()
	tr, err := New(Config{ServerURL: srv.URL, AppID: "a", Policy: httpx.Policy{MaxAttempts: 50, Rand: func() float64 { return 1 }}})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = tr.DoJSON(ctx, Call{Method: "GET", Path: "x"}, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestConfigValidation(t *testing.T) {
	_, err := New(Config{AppID: "a"})
	assert.EqualError(t, err, "moralis: ServerURL is required")
	_, err = New(Config{ServerURL: "http://x"})
	assert.EqualError(t, err, "moralis: AppID is required")
	_, err = New(Config{ServerURL: "ftp://user:secret@x/y?key=k", AppID: "a"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "secret")
	assert.NotContains(t, err.Error(), "key=k")
}

func TestFileRequestsUseHeaders(t *testing.T) {
	tr, reqs, _ := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(201)
		w.Write([]byte(`{"name":"x_a.txt","url":"http://h/x_a.txt"}`))
	})
	res, err := tr.DoFile(context.Background(), FileRequest{Method: "POST", Name: "a.txt", ContentType: "text/plain", Body: []byte("hi")})
	require.NoError(t, err)
	assert.Equal(t, 201, res.Status)
	r := (*reqs)[0]
	assert.Equal(t, "/parse/files/a.txt", r.path)
	assert.Equal(t, "app", r.header.Get("X-Parse-Application-Id"))
	assert.Equal(t, "jsKey", r.header.Get("X-Parse-JavaScript-Key"))
	assert.Equal(t, "text/plain", r.header.Get("Content-Type"))
	_, err = tr.DoFile(context.Background(), FileRequest{Method: "DELETE", Name: "x_a.txt", UseMasterKey: true})
	require.NoError(t, err)
	r = (*reqs)[1]
	assert.Equal(t, "DELETE", r.method)
	assert.Equal(t, "masterKey", r.header.Get("X-Parse-Master-Key"))
	assert.Empty(t, r.header.Get("X-Parse-JavaScript-Key"))
}

func TestErrorTextHasNoSecrets(t *testing.T) {
	tr, _, _ := setup(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(400)
		w.Write([]byte(`{"code":141,"error":"nope"}`))
	})
	err := tr.DoJSON(context.Background(), Call{Method: "GET", Path: "functions/f", SessionToken: "r:secret-token", UseMasterKey: true}, nil)
	require.Error(t, err)
	for _, s := range []string{"masterKey", "jsKey", "r:secret-token"} {
		assert.NotContains(t, err.Error(), s)
	}
}
