package analytics_test

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
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/analytics"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

type seen struct {
	path string
	body map[string]any
}

// backend is a fake server that records every request and fails the test on any path but events/*.
func backend(t *testing.T) (*client.Client, func() []seen) {
	t.Helper()
	var mu sync.Mutex
	var reqs []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		reqs = append(reqs, seen{r.URL.Path, m})
		mu.Unlock()
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/parse/events/") {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js"})
	require.NoError(t, err)
	return c, func() []seen { mu.Lock(); defer mu.Unlock(); return append([]seen{}, reqs...) }
}

func TestTrackSendsDimensions(t *testing.T) {
	c, reqs := backend(t)
	ctx := context.Background()
	require.NoError(t, analytics.Track(ctx, c, "  Purchase  ", map[string]string{"item": "sword", "price": "10"}))
	require.NoError(t, analytics.Track(ctx, c, "with space/slash", nil))
	got := reqs()
	require.Len(t, got, 2)
	assert.Equal(t, "/parse/events/Purchase", got[0].path, "the name is trimmed")
	assert.Equal(t, map[string]any{"item": "sword", "price": "10"}, got[0].body["dimensions"])
	assert.Equal(t, "app", got[0].body["_ApplicationId"])
	assert.Equal(t, "/parse/events/with space/slash", got[1].path, "the name is one escaped path segment (decoded by the server)")
	assert.Equal(t, map[string]any{}, got[1].body["dimensions"])
}

func TestTrackValidationSendsNothing(t *testing.T) {
	c, reqs := backend(t)
	ctx := context.Background()
	for _, name := range []string{"", "   ", "\t\n"} {
		err := analytics.Track(ctx, c, name, nil)
		require.ErrorIs(t, err, analytics.ErrEmptyName)
		assert.Equal(t, "A name for the custom event must be provided", err.Error())
	}
	err := analytics.TrackAny(ctx, c, "ev", map[string]any{"ok": "yes", "level": 3})
	require.ErrorIs(t, err, analytics.ErrDimensionType)
	assert.Contains(t, err.Error(), `"level"`)
	assert.Contains(t, err.Error(), "int")
	err = analytics.TrackAny(ctx, c, "ev", map[string]any{"nested": map[string]any{"a": "b"}})
	assert.ErrorContains(t, err, `"nested"`)
	err = analytics.TrackAny(ctx, c, "", map[string]any{"a": "b"})
	assert.ErrorIs(t, err, analytics.ErrEmptyName)
	assert.Empty(t, reqs(), "nothing is sent on a validation error")

	require.NoError(t, analytics.TrackAny(ctx, c, "ev", map[string]any{"a": "b"}))
	got := reqs()
	require.Len(t, got, 1)
	assert.Equal(t, map[string]any{"a": "b"}, got[0].body["dimensions"])
}

func TestAppOpened(t *testing.T) {
	c, reqs := backend(t)
	at := time.Date(2026, 11, 22, 1, 2, 3, 456_000_000, time.UTC)
	require.NoError(t, analytics.AppOpenedAt(context.Background(), c, at, map[string]string{"src": "push"}))
	require.NoError(t, analytics.AppOpened(context.Background(), c))
	got := reqs()
	require.Len(t, got, 2)
	assert.Equal(t, "/parse/events/AppOpened", got[0].path)
	assert.Equal(t, map[string]any{"__type": "Date", "iso": "2026-11-22T01:02:03.456Z"}, got[0].body["at"])
	assert.Equal(t, map[string]any{"src": "push"}, got[0].body["dimensions"])
	at2, _ := got[1].body["at"].(map[string]any)
	require.Equal(t, "Date", at2["__type"])
	when, err := time.Parse(time.RFC3339, at2["iso"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), when, time.Minute)
}

func TestTrackReportsServerErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"code":141,"error":"no analytics here"}`))
	}))
	defer srv.Close()
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app"})
	require.NoError(t, err)
	err = analytics.Track(context.Background(), c, "x", nil)
	require.Error(t, err)
	var perr *parse.Error
	require.True(t, errors.As(err, &perr))
	assert.Equal(t, 141, perr.Code)
}
