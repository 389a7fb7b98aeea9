//go:build integration

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
	for _, w := range [][2]string{{"POST", "classes/" + cls}, {"PUT", "classes/" + cls + "Upd/abc"}, {"POST", "users"}, {"PUT", "users/abc"},
		{"POST", "installations"}, {"PUT", "installations/abc"}, {"POST", "functions/echo"}, {"POST", "jobs/simpleJob"}} {
		ok, err := tr.Deduplicates(ctx, w[0], w[1])
		require.NoError(t, err, w)
		assert.True(t, ok, "%s is deduplicated by the local server", w)
	}
	for _, w := range [][2]string{{"POST", "batch"}, {"POST", "roles"}, {"POST", "sessions"}, {"POST", "files/x.txt"}, {"POST", "events/Open"}, {"POST", "logout"}} {
		ok, err := tr.Deduplicates(ctx, w[0], w[1])
		require.NoError(t, err, w)
		assert.False(t, ok, "%s is never deduplicated by parse-server", w)
	}
	// The create probe created nothing: its class does not even exist. (An update probe runs only after an update
	// of an existing object failed, so its class exists; parse-server would add an empty class otherwise.)
	_, err = tr.Do(ctx, Call{Method: http.MethodGet, Path: "schemas/" + cls, UseMasterKey: true})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, CodeInvalidClassName, pe.Code, "no class was created by the probe: %v", err)
}
