//go:build integration

package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// waitJob polls JobStatus until the run ends (the jobs of the local stack end in milliseconds).
func waitJob(t *testing.T, c *client.Client, id string) *client.JobStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		st, err := c.Cloud.JobStatus(ctx, id)
		require.NoError(t, err)
		if st.Done() {
			return st
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s still %q", id, st.Status)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// JobStatus and JobsData against real jobs of the local stack's cloud code (main.js's simpleJob, jobs.js's
// failingJob), as the original's Parse.Cloud.getJobStatus and getJobsData.
func TestJobStatusAndJobsData(t *testing.T) {
	ctx := t.Context()
	c := newClient(t)

	started := time.Now()
	id, err := c.Cloud.StartJob(ctx, "simpleJob", map[string]any{"x": 1.0})
	require.NoError(t, err)
	st := waitJob(t, c, id)
	assert.Equal(t, id, st.ID)
	assert.Equal(t, "simpleJob", st.JobName)
	assert.Equal(t, client.JobSucceeded, st.Status)
	assert.Equal(t, "api", st.Source)
	assert.Equal(t, "simpleJob ran", st.Message, "the job's progress message")
	assert.WithinDuration(t, started, st.CreatedAt, time.Minute)
	assert.False(t, st.FinishedAt.Before(st.CreatedAt), "finished %v, created %v", st.FinishedAt, st.CreatedAt)
	assert.Equal(t, id, st.Object.ID())

	id, err = c.Cloud.StartJob(ctx, "failingJob", nil)
	require.NoError(t, err)
	st = waitJob(t, c, id)
	assert.Equal(t, client.JobFailed, st.Status)
	assert.Equal(t, "failingJob failed on purpose", st.Message, "a failed job's row keeps its error's text")

	_, err = c.Cloud.JobStatus(ctx, "noSuchJobId")
	assert.ErrorIs(t, err, parse.ErrObjectNotFound)

	data, err := c.Cloud.JobsData(ctx)
	require.NoError(t, err)
	assert.Subset(t, data.Jobs, []string{"simpleJob", "failingJob"})
	assert.NotNil(t, data.InUse)

	// Without the master key: refused before any request. With a master key configured but a client key only on
	// the wire, the server itself refuses: _JobStatus rows are closed to everyone else.
	noMaster := newClient(t, func(cfg *client.Config) { cfg.MasterKey = "" })
	_, err = noMaster.Cloud.JobStatus(ctx, id)
	assert.ErrorIs(t, err, client.ErrMasterKeyRequired)
	_, err = noMaster.Cloud.JobsData(ctx)
	assert.ErrorIs(t, err, client.ErrMasterKeyRequired)
	_, err = noMaster.Objects.Get(ctx, client.JobStatusClass, id)
	assert.ErrorIs(t, err, parse.ErrOperationForbidden, "a job's row is readable with the master key only")
}
