package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// batchClient is a client of srv that sends /batch in chunks of size with conc calls in flight, and makes up to
// three attempts per call without waiting between them.
func batchClient(t *testing.T, srv *idServer, size, conc int) *Client {
	t.Helper()
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app1", JavaScriptKey: "js1", InstallationID: "inst-1",
		BatchSize: size, BatchConcurrency: conc, MaxAttempts: 3,
		Retry: RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}})
	require.NoError(t, err)
	return c
}

// createItems are n creates of class Thing, item i with {"n": i}.
func createItems(n int) []batchItem {
	items := make([]batchItem, n)
	for i := range items {
		items[i] = batchItem{method: http.MethodPost, path: "classes/Thing", body: map[string]any{"n": i}}
	}
	return items
}

// subRequests are the sub-requests of a /batch call as the server reads them.
func subRequests(t *testing.T, r idReq) []map[string]any {
	t.Helper()
	require.Equal(t, "batch", r.Path)
	list, ok := r.Body["requests"].([]any)
	require.True(t, ok, "requests is a list: %s", r.Raw)
	out := make([]map[string]any, len(list))
	for i, e := range list {
		out[i] = e.(map[string]any)
	}
	return out
}

// decodeBatchAnswers reads every shape parse-server answers a /batch with: a success, an error with its code and
// text, and the empty or null entries and fields that carry neither.
func TestDecodeBatchAnswersReadsEachShape(t *testing.T) {
	got, err := decodeBatchAnswers([]byte(`[{"success":{"objectId":"a1","n":1}},{"error":{"code":101,"error":"Object not found."}},` +
		`null,{},{"success":null,"error":null},{"error":{}},{"error":{"code":1e2,"error":"x"}}]`))
	require.NoError(t, err)
	require.Len(t, got, 7)
	assert.Equal(t, map[string]any{"objectId": "a1", "n": 1.0}, got[0].Success)
	assert.Nil(t, got[0].Error)
	require.NotNil(t, got[1].Error)
	assert.Nil(t, got[1].Success)
	assert.Equal(t, 101, got[1].Error.Code)
	assert.Equal(t, "Object not found.", got[1].Error.Error)
	for i := 2; i <= 4; i++ {
		assert.Nil(t, got[i].Success, "answer %d", i)
		assert.Nil(t, got[i].Error, "answer %d", i)
	}
	require.NotNil(t, got[5].Error, "an empty error object is still an error")
	assert.Zero(t, got[5].Error.Code)
	assert.Empty(t, got[5].Error.Error)
	assert.Equal(t, 100, got[6].Error.Code, "a whole number written with an exponent")

	for _, body := range []string{`[]`, `null`} {
		got, err := decodeBatchAnswers([]byte(body))
		require.NoError(t, err, body)
		assert.Empty(t, got, body)
	}
}

// Any other shape is an error that says what is wrong, never a partial answer.
func TestDecodeBatchAnswersRefusesOtherShapes(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"results":[]}`, "the answer is not a list"},
		{`"ok"`, "the answer is not a list"},
		{`[{"success":{}},7]`, "answer 1 is not an object"},
		{`[["success"]]`, "answer 0 is not an object"},
		{`[{"success":[1]}]`, "answer 0: success is not an object"},
		{`[{"success":"a1"}]`, "answer 0: success is not an object"},
		{`[{"error":"Object not found."}]`, "answer 0: error is not an object"},
		{`[{"success":{}},{"error":{"code":1.5,"error":"x"}}]`, "answer 1: code 1.5 is not a whole number"},
		{`[{"error":{"code":"101","error":"x"}}]`, "answer 0: code 101 is not a whole number"},
		{`[{"error":{"code":1e300,"error":"x"}}]`, "answer 0: code 1e+300 is not a whole number"},
		{`[{"error":{"code":101,"error":7}}]`, "answer 0: error text is not a string"},
	} {
		got, err := decodeBatchAnswers([]byte(tc.body))
		require.Error(t, err, tc.body)
		assert.Equal(t, tc.want, err.Error(), tc.body)
		assert.Nil(t, got, tc.body)
	}
	_, err := decodeBatchAnswers([]byte(`[{"success":`))
	assert.Error(t, err, "cut JSON")
}

// The engine sends items in chunks of Config.BatchSize, each sub-request with the mount path and its body, and
// returns each item's answer or error at the item's own index whatever order the chunks complete in.
func TestRunBatchSendsChunksAndAnswersInInputOrder(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		var out []map[string]any
		for _, q := range r.Body["requests"].([]any) {
			n := q.(map[string]any)["body"].(map[string]any)["n"].(float64)
			if n == 4 {
				out = append(out, map[string]any{"error": map[string]any{"code": 137, "error": "A duplicate value for a field with unique values was provided"}})
				continue
			}
			out = append(out, map[string]any{"success": map[string]any{"objectId": fmt.Sprintf("id%v", n)}})
		}
		b, _ := json.Marshal(out)
		return 200, string(b)
	})
	c := batchClient(t, srv, 3, 2)
	answers, errs := c.runBatch(context.Background(), createItems(7))

	reqs := srv.requests()
	require.Len(t, reqs, 3, "7 items in chunks of 3")
	sizes := map[int]int{}
	for _, r := range reqs {
		subs := subRequests(t, r)
		sizes[len(subs)]++
		_, atomic := r.Body["transaction"]
		assert.False(t, atomic, "a plain batch is not a transaction")
		for _, s := range subs {
			assert.Equal(t, "POST", s["method"])
			assert.Equal(t, "/parse/classes/Thing", s["path"], "the sub-request's path carries the mount path")
			assert.Contains(t, s["body"], "n")
		}
	}
	assert.Equal(t, map[int]int{3: 2, 1: 1}, sizes)
	for i := range 7 {
		if i == 4 {
			assert.Nil(t, answers[i])
			var pe *parse.Error
			require.ErrorAs(t, errs[i], &pe)
			assert.Equal(t, parse.CodeDuplicateValue, pe.Code)
			assert.Equal(t, "POST classes/Thing", pe.Op)
			assert.False(t, pe.InDoubt)
			assert.False(t, pe.MaybeAppliedBefore, "the call was answered at its first attempt")
			continue
		}
		require.NoError(t, errs[i], "item %d", i)
		assert.Equal(t, fmt.Sprintf("id%d", i), answers[i]["objectId"], "item %d", i)
	}
}

// A delete carries no body; an atomic call says "transaction": true.
func TestBatchChunkSendsDeletesBareAndAtomicAsATransaction(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) { return 200, `[{"success":{}},{"success":{}}]` })
	c := batchClient(t, srv, 20, 1)
	items := []batchItem{{method: http.MethodDelete, path: "classes/Thing/a1"}, {method: http.MethodPut, path: "classes/Thing/b2", body: map[string]any{"x": 1}}}
	answers, errs := make([]map[string]any, 2), make([]error, 2)
	c.batchChunk(context.Background(), items, answers, errs, batchMode{once: true, atomic: true})
	require.Equal(t, []error{nil, nil}, errs)
	r := srv.only(t)
	assert.Equal(t, true, r.Body["transaction"])
	subs := subRequests(t, r)
	assert.Equal(t, map[string]any{"method": "DELETE", "path": "/parse/classes/Thing/a1"}, subs[0], "no body key for a delete")
	assert.Equal(t, map[string]any{"x": 1.0}, subs[1]["body"])
}

// A 2xx answer that is not one result per sub-request leaves every item of the call in doubt: the server took the
// call, so its sub-requests may have been applied.
func TestBatchAnswerOfTheWrongShapeLeavesEveryItemInDoubt(t *testing.T) {
	for _, tc := range []struct{ body, msg string }{
		{`[{"success":{}}]`, "batch answered 1 results for 2 requests"},
		{`[{"success":{}},{"success":{}},{"success":{}}]`, "batch answered 3 results for 2 requests"},
		{`{"results":[]}`, "batch answered 0 results for 2 requests"},
		{`[{"error":"x"},{"success":{}}]`, "batch answered 0 results for 2 requests"},
	} {
		srv := newIDServer(t, func(r idReq) (int, string) { return 200, tc.body })
		c := batchClient(t, srv, 20, 1)
		answers, errs := c.runBatch(context.Background(), createItems(2))
		assert.Equal(t, 1, srv.count(), "%s: a 2xx is an answer, not sent again", tc.body)
		for i, err := range errs {
			assert.Nil(t, answers[i])
			var pe *parse.Error
			require.ErrorAs(t, err, &pe, tc.body)
			assert.True(t, pe.InDoubt, "%s: item %d in doubt", tc.body, i)
			assert.Equal(t, rest.CodeInvalidJSON, pe.Code)
			assert.Equal(t, tc.msg, pe.Message)
			assert.Equal(t, "POST batch", pe.Op)
			assert.Equal(t, 200, pe.Status)
		}
	}
}

// After an ambiguous failure (a 502), a call of items harmless to send twice is sent again, and an item error of
// the retried call says an earlier attempt may have been applied; a call sent once is not sent again, and every
// one of its items is in doubt.
func TestBatchModeDecidesWhetherACallIsSentAgain(t *testing.T) {
	calls := 0
	srv := newIDServer(t, func(r idReq) (int, string) {
		calls++
		if calls == 1 {
			return 502, `bad gateway`
		}
		return 200, `[{"success":{"objectId":"a"}},{"error":{"code":101,"error":"Object not found."}}]`
	})
	c := batchClient(t, srv, 20, 1)
	answers, errs := c.runBatch(context.Background(), createItems(2))
	assert.Equal(t, 2, srv.count(), "sent again after the 502")
	require.NoError(t, errs[0])
	assert.Equal(t, "a", answers[0]["objectId"])
	var pe *parse.Error
	require.ErrorAs(t, errs[1], &pe)
	assert.True(t, pe.MaybeAppliedBefore, "the first attempt may have been applied")
	assert.False(t, pe.InDoubt)

	calls = 0
	srv.reqs = nil
	_, errs = c.runBatchMode(context.Background(), createItems(2), batchMode{once: true})
	assert.Equal(t, 1, srv.count(), "a call sent once is not sent again")
	for i, err := range errs {
		assert.ErrorIs(t, err, parse.ErrWriteInDoubt, "item %d", i)
	}
}

// batchResult is nil when every item succeeded; else a *BatchError counts the failed and in-doubt items, says so
// with the first error, lets errors.Is and errors.As reach each item's error and lists the in-doubt indexes.
func TestBatchErrorCountsAndUnwrapsItsItems(t *testing.T) {
	assert.NoError(t, batchResult(nil))
	assert.NoError(t, batchResult([]error{nil, nil}))

	refused := &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Op: "DELETE classes/Thing/a"}
	doubt := &parse.Error{Code: rest.CodeConnectionFailed, Message: "no answer", Op: "POST batch", InDoubt: true}
	err := batchResult([]error{nil, refused, nil, doubt, doubt})
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 3, be.Failed)
	assert.Equal(t, 2, be.InDoubt)
	assert.Equal(t, []int{3, 4}, be.InDoubtItems())
	assert.Equal(t, []error{refused, doubt, doubt}, be.Unwrap())
	assert.ErrorIs(t, err, parse.ErrObjectNotFound)
	assert.ErrorIs(t, err, parse.ErrWriteInDoubt)
	assert.Equal(t, "moralis: 3 of 5 batch items failed (2 in doubt); first: "+refused.Error(), err.Error())

	err = batchResult([]error{errors.New("x"), nil})
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "moralis: 1 of 2 batch items failed; first: x", err.Error(), "no in-doubt count when none is")
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	assert.Empty(t, be.InDoubtItems())
}
