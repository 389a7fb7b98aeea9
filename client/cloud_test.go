package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/parse"
)

func TestCallEncodesParamsAndDecodesTheResult(t *testing.T) {
	c, mux := setup(t)
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mux.HandleFunc("/parse/functions/hello", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		assert.Equal(t, map[string]any{"at": map[string]any{"__type": "Date", "iso": "2026-01-02T03:04:05.000Z"}, "n": 1.0}, call.Params)
		assert.Equal(t, "js1", call.Keys["_JavaScriptKey"])
		assert.Nil(t, call.Keys["_MasterKey"], "a function call sends no master key unless asked")
		reply(w, 200, `{"result":{"greeting":"hi","when":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"}}}`)
	})
	mux.HandleFunc("/parse/functions/fail", func(w http.ResponseWriter, r *http.Request) {
		expect(t, r, "POST")
		reply(w, 400, `{"code":141,"error":"intentional failure"}`)
	})
	var out any
	require.NoError(t, c.Cloud.Call(t.Context(), "hello", map[string]any{"at": when, "n": 1}, &out))
	m := out.(map[string]any)
	assert.Equal(t, "hi", m["greeting"])
	assert.True(t, when.Equal(m["when"].(time.Time)), "a Date comes back as time.Time")
	var typed struct {
		Greeting string `json:"greeting"`
	}
	require.NoError(t, c.Cloud.Call(t.Context(), "hello", map[string]any{"at": when, "n": 1}, &typed))
	assert.Equal(t, "hi", typed.Greeting)
	require.NoError(t, c.Cloud.Call(t.Context(), "hello", map[string]any{"at": when, "n": 1}, nil))

	err := c.Cloud.Call(t.Context(), "fail", nil, nil)
	assert.ErrorIs(t, err, parse.ErrScriptFailed)
	assert.Contains(t, err.Error(), "intentional failure")
	assert.Error(t, c.Cloud.Call(t.Context(), "", nil, nil), "no name: refused before sending")
}

func TestChainHelpersSendTheDefaults(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/functions/getTransactions", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"chain": "eth", "address": "0xab", "order": "desc"}, expect(t, r, "POST").Params)
		reply(w, 200, `{"result":[]}`)
	})
	mux.HandleFunc("/parse/functions/getERC20", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"chain": "bsc", "address": "0xab", "symbol": "X"}, expect(t, r, "POST").Params)
		reply(w, 200, `{"result":{}}`)
	})
	mux.HandleFunc("/parse/functions/getServerTime", func(w http.ResponseWriter, r *http.Request) {
		expect(t, r, "POST")
		reply(w, 200, `{"result":{"dateTime":"not a time"}}`)
	})
	require.NoError(t, c.Cloud.GetTransactions(t.Context(), ChainParams{Address: "0xab"}, nil))
	require.NoError(t, c.Cloud.GetERC20(t.Context(), ChainParams{Chain: "bsc", Address: "0xab", Symbol: "X"}, nil))
	_, err := c.Cloud.ServerTime(t.Context())
	assert.EqualError(t, err, `moralis: getServerTime answered an unreadable time "not a time"`)
}

func TestStartJobNeedsTheMasterKey(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/jobs/sweep", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "POST")
		assert.Equal(t, "mk1", call.Keys["_MasterKey"])
		assert.Equal(t, map[string]any{"days": 3.0}, call.Params)
		w.Header().Set("X-Parse-Job-Status-Id", "js42")
		reply(w, 200, `{}`)
	})
	id, err := c.Cloud.StartJob(t.Context(), "sweep", map[string]any{"days": 3})
	require.NoError(t, err)
	assert.Equal(t, "js42", id)
	_, err = c.Cloud.StartJob(t.Context(), "", nil)
	assert.Error(t, err)

	noMaster, err := New(Config{ServerURL: c.ServerURL(), AppID: "app1", MaxAttempts: 1})
	require.NoError(t, err)
	_, err = noMaster.Cloud.StartJob(t.Context(), "sweep", nil)
	assert.ErrorIs(t, err, ErrMasterKeyRequired, "refused before any request")
}

func TestJobStatusReadsTheRowWithTheMasterKey(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("/parse/classes/_JobStatus/js42", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, "GET")
		assert.Equal(t, "mk1", call.Keys["_MasterKey"], "as getJobStatus: useMasterKey")
		reply(w, 200, `{"objectId":"js42","jobName":"sweep","source":"api","status":"failed","message":"boom",
			"createdAt":"2026-01-02T03:04:05.000Z","finishedAt":{"__type":"Date","iso":"2026-01-02T03:04:06.000Z"},"ACL":{},"extra":7}`)
	})
	mux.HandleFunc("/parse/classes/_JobStatus/nope", func(w http.ResponseWriter, r *http.Request) {
		expect(t, r, "GET")
		reply(w, 404, `{"code":101,"error":"Object not found."}`)
	})
	st, err := c.Cloud.JobStatus(t.Context(), "js42")
	require.NoError(t, err)
	assert.Equal(t, "js42", st.ID)
	assert.Equal(t, "sweep", st.JobName)
	assert.Equal(t, "api", st.Source)
	assert.Equal(t, JobFailed, st.Status)
	assert.True(t, st.Done())
	assert.Equal(t, "boom", st.Message)
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), st.CreatedAt.UTC())
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), st.FinishedAt.UTC())
	assert.Equal(t, 7.0, st.Object.Get("extra"))
	assert.False(t, (&JobStatus{Status: JobRunning}).Done())

	_, err = c.Cloud.JobStatus(t.Context(), "nope")
	assert.ErrorIs(t, err, parse.ErrObjectNotFound)
	_, err = c.Cloud.JobStatus(t.Context(), "")
	assert.Error(t, err, "refused before sending")
	noMaster, err := New(Config{ServerURL: c.ServerURL(), AppID: "app1", MaxAttempts: 1})
	require.NoError(t, err)
	_, err = noMaster.Cloud.JobStatus(t.Context(), "js42")
	assert.ErrorIs(t, err, ErrMasterKeyRequired)
}

func TestJobsData(t *testing.T) {
	c, mux := setup(t)
	answers := []string{`{"jobs":["a","b"],"in_use":["b"]}`, `{}`}
	mux.HandleFunc("/parse/cloud_code/jobs/data", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "mk1", expect(t, r, "GET").Keys["_MasterKey"], "as getJobsData: useMasterKey")
		reply(w, 200, answers[0])
		answers = answers[1:]
	})
	d, err := c.Cloud.JobsData(t.Context())
	require.NoError(t, err)
	assert.Equal(t, &JobsData{Jobs: []string{"a", "b"}, InUse: []string{"b"}}, d)
	d, err = c.Cloud.JobsData(t.Context())
	require.NoError(t, err)
	assert.Equal(t, &JobsData{Jobs: []string{}, InUse: []string{}}, d, "absent lists are empty")
	noMaster, err := New(Config{ServerURL: c.ServerURL(), AppID: "app1", MaxAttempts: 1})
	require.NoError(t, err)
	_, err = noMaster.Cloud.JobsData(t.Context())
	assert.ErrorIs(t, err, ErrMasterKeyRequired)
}
