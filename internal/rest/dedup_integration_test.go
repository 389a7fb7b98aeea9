package rest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Against the real parse-server (idempotency on for every path): the probe learns that objects, users, cloud
// functions and jobs are deduplicated, sends exactly the two harmless requests, and leaves nothing behind.
func TestDeduplicationProbeAgainstTheRealServer(t *testing.T) {
	env := devstack.MustLoad(t)
	tr, err := New(Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey, Idempotency: true})
	require.NoError(t, err)
	ctx := context.Background()
	cls := fmt.Sprintf("Probe%d", rand.Uint32())
	for _, path := range []string{"classes/" + cls, "classes/" + cls + "/abc", "users", "users/abc", "installations", "functions/echo", "jobs/simpleJob"} {
		ok, err := tr.Deduplicates(ctx, path)
		require.NoError(t, err, path)
		assert.True(t, ok, "%s is deduplicated by the local server", path)
	}
	for _, path := range []string{"batch", "roles", "sessions", "files/x.txt", "events/Open", "logout"} {
		ok, err := tr.Deduplicates(ctx, path)
		require.NoError(t, err, path)
		assert.False(t, ok, "%s is never deduplicated by parse-server", path)
	}
	// The probes created nothing: the class does not even exist.
	_, err = tr.Do(ctx, Call{Method: http.MethodGet, Path: "schemas/" + cls, UseMasterKey: true})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, CodeInvalidClassName, pe.Code, "no class was created by the probe: %v", err)
}
