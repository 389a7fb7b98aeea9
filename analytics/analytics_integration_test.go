//go:build integration

package analytics_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/analytics"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
)

// TestIntegrationEventsAccepted sends each kind of event to the real server; the server answers 200 {} (any other
// status is an error from the client).
func TestIntegrationEventsAccepted(t *testing.T) {
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, analytics.Track(ctx, c, "Purchase", map[string]string{"item": "sword", "price": "10"}))
	require.NoError(t, analytics.Track(ctx, c, "Signed in/out", nil))
	require.NoError(t, analytics.TrackAny(ctx, c, "Search", map[string]any{"query": "eth"}))
	require.NoError(t, analytics.AppOpened(ctx, c))
	require.NoError(t, analytics.AppOpenedAt(ctx, c, time.Now().Add(-time.Hour), map[string]string{"source": "push"}))

	// The raw answer is the server's empty object.
	var out map[string]any
	require.NoError(t, c.Request(ctx, http.MethodPost, "events/Raw", map[string]any{"dimensions": map[string]any{"a": "b"}}, &out))
	require.Equal(t, map[string]any{}, out)
}
