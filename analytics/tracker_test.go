package analytics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/analytics"
	"github.com/c13f5054/moralis-go/client"
)

type usageServer struct {
	*httptest.Server
	hits    atomic.Int32
	mu      sync.Mutex
	reports []map[string]any
	latest  string
	status  int
}

func newUsageServer(t *testing.T) *usageServer {
	u := &usageServer{latest: `{"version":"9.9.9"}`, status: http.StatusOK}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/usage":
			b, _ := io.ReadAll(r.Body)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Errorf("usage body is not JSON: %s", b)
			}
			u.mu.Lock()
			u.reports = append(u.reports, m)
			u.mu.Unlock()
			w.WriteHeader(u.status)
		case r.Method == http.MethodGet && r.URL.Path == "/version":
			w.WriteHeader(u.status)
			_, _ = w.Write([]byte(u.latest))
		default:
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func TestTrackerOffByDefaultSendsNothing(t *testing.T) {
	u := newUsageServer(t)
	ctx := context.Background()
	// Enabled is false (the zero value) even though both URLs point at a live server.
	tr, err := analytics.NewTracker(analytics.TrackerConfig{Endpoint: u.URL + "/usage", VersionURL: u.URL + "/version", Subdomain: "x"})
	require.NoError(t, err)
	assert.False(t, tr.Enabled())
	assert.False(t, tr.TrackUsage(ctx, "start", map[string]any{"a": 1}))
	st := tr.CheckVersion(ctx)
	assert.Empty(t, st.Latest)
	assert.Equal(t, client.Version, st.Current)
	var nilTracker *analytics.Tracker
	assert.False(t, nilTracker.TrackUsage(ctx, "start", nil))
	assert.Equal(t, analytics.VersionStatus{}, nilTracker.CheckVersion(ctx))
	assert.Equal(t, int32(0), u.hits.Load(), "a disabled tracker makes no request")
}

func TestTrackerSendsUsageAndChecksVersion(t *testing.T) {
	u := newUsageServer(t)
	ctx := context.Background()
	var logs bytes.Buffer
	tr, err := analytics.NewTracker(analytics.TrackerConfig{
		Enabled: true, Endpoint: u.URL + "/usage", VersionURL: u.URL + "/version", Subdomain: "abc.example.com",
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	require.NoError(t, err)
	assert.True(t, tr.TrackUsage(ctx, "start", map[string]any{"chain": "eth"}))
	require.Len(t, u.reports, 1)
	assert.Equal(t, "abc.example.com", u.reports[0]["subdomain"])
	assert.Equal(t, "start", u.reports[0]["event"])
	assert.Equal(t, map[string]any{"chain": "eth"}, u.reports[0]["options"])
	assert.Equal(t, client.Version, u.reports[0]["version"])

	st := tr.CheckVersion(ctx)
	assert.Equal(t, analytics.VersionStatus{Current: client.Version, Latest: "9.9.9", Outdated: true}, st)
	assert.Contains(t, logs.String(), "newer moralis-go version")

	for body, outdated := range map[string]bool{`"1.5.5"`: false, `1.5.4`: false, `{"latest":"v1.6.0"}`: true, `{"version":"1.5.5-beta"}`: false} {
		u.latest = body
		st := tr.CheckVersion(ctx)
		assert.Equal(t, outdated, st.Outdated, body)
		assert.NotEmpty(t, st.Latest, body)
	}
}

func TestTrackerFailuresNeverReachTheCaller(t *testing.T) {
	u := newUsageServer(t)
	ctx := context.Background()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	tr, err := analytics.NewTracker(analytics.TrackerConfig{Enabled: true, Endpoint: u.URL + "/usage", VersionURL: u.URL + "/version", Logger: logger})
	require.NoError(t, err)

	u.status = http.StatusInternalServerError
	assert.False(t, tr.TrackUsage(ctx, "start", nil))
	assert.Empty(t, tr.CheckVersion(ctx).Latest)
	assert.Equal(t, int32(2), u.hits.Load(), "one attempt each, no retries")
	u.status = http.StatusOK
	u.latest = "<html>oops</html>"
	assert.Empty(t, tr.CheckVersion(ctx).Latest)
	assert.Contains(t, logs.String(), "usage report refused")
	assert.Contains(t, logs.String(), "version check")

	// A server that is gone.
	u.Close()
	assert.False(t, tr.TrackUsage(ctx, "start", nil))
	assert.Empty(t, tr.CheckVersion(ctx).Latest)
	assert.Contains(t, logs.String(), "usage report failed")

	// No logger at all: still silent and safe.
	quiet, err := analytics.NewTracker(analytics.TrackerConfig{Enabled: true, Endpoint: u.URL + "/usage"})
	require.NoError(t, err)
	assert.False(t, quiet.TrackUsage(ctx, "start", nil))
}

func TestNewTrackerChecksURLsOnlyWhenEnabled(t *testing.T) {
	_, err := analytics.NewTracker(analytics.TrackerConfig{Enabled: true})
	assert.ErrorContains(t, err, "Endpoint must be an absolute http(s) URL")
	_, err = analytics.NewTracker(analytics.TrackerConfig{Enabled: true, Endpoint: "http://127.0.0.1/u", VersionURL: "ftp://x"})
	assert.ErrorContains(t, err, "VersionURL")
	_, err = analytics.NewTracker(analytics.TrackerConfig{Endpoint: "::bad"})
	assert.NoError(t, err, "a disabled tracker never uses its URLs")
}
