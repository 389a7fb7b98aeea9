package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

// The allocation budget of a query and of a /batch call: the client against net/http + encoding/json doing the
// same request by hand, on a local server (its own allocations, the same for both, are counted too). Run:
// go test -run '^$' -bench . -benchmem ./client/
// TestAllocationBudget holds the client to that budget in every test run.

// pageServer answers every find with the same page of 100 objects, and every /batch with 20 successes.
func pageServer(tb testing.TB) *httptest.Server {
	var page strings.Builder
	page.WriteString(`{"results":[`)
	for i := range 100 {
		if i > 0 {
			page.WriteByte(',')
		}
		fmt.Fprintf(&page, `{"objectId":"id%08d","score":%d,"playerName":"player %d","createdAt":"2026-11-22T00:00:00.000Z","updatedAt":"2026-11-22T00:00:00.000Z","ACL":{"*":{"read":true}}}`, i, i, i%97)
	}
	page.WriteString(`]}`)
	var batch strings.Builder
	batch.WriteByte('[')
	for i := range 20 {
		if i > 0 {
			batch.WriteByte(',')
		}
		batch.WriteString(`{"success":{"objectId":"abcdefghij","createdAt":"2026-11-22T00:00:00.000Z"}}`)
	}
	batch.WriteByte(']')
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if strings.HasSuffix(r.URL.Path, "/batch") {
			io.WriteString(w, batch.String())
			return
		}
		io.WriteString(w, page.String())
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// queryPage returns one find of a page of 100 objects, as the client runs it.
func queryPage(tb testing.TB, srv *httptest.Server) func() {
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	req := &parse.QueryRequest{ClassName: "GameScore", Op: "find", PreferObjects: true,
		Params: map[string]any{"where": map[string]any{"objectId": map[string]any{"$gt": "id00000000"}}, "order": "objectId", "limit": 100}}
	return func() {
		resp, err := c.RunQuery(ctx, req)
		if err != nil || len(resp.Objects) != 100 {
			tb.Fatal(err)
		}
	}
}

// rawQueryPage returns the same find by hand with net/http and encoding/json.
func rawQueryPage(tb testing.TB, srv *httptest.Server) func() {
	hc := &http.Client{}
	url := srv.URL + "/parse/classes/GameScore"
	return func() {
		body, _ := json.Marshal(map[string]any{"_method": "GET", "where": map[string]any{"objectId": map[string]any{"$gt": "id00000000"}},
			"order": "objectId", "limit": 100, "_ApplicationId": "app", "_JavaScriptKey": "js", "_ClientVersion": "go1.5.5", "_InstallationId": "inst"})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(rb, &out); err != nil || len(out.Results) != 100 {
			tb.Fatal(err)
		}
	}
}

func BenchmarkQueryPage(b *testing.B) {
	once := queryPage(b, pageServer(b))
	b.ReportAllocs()
	for b.Loop() {
		once()
	}
}

func BenchmarkRawQueryPage(b *testing.B) {
	once := rawQueryPage(b, pageServer(b))
	b.ReportAllocs()
	for b.Loop() {
		once()
	}
}

// batchChunk returns one /batch call of 20 creates, as SaveAll sends it (the objects are made once, outside).
func batchChunk(tb testing.TB, srv *httptest.Server) func() {
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	items := make([]batchItem, 20)
	for i := range items {
		items[i] = batchItem{method: http.MethodPost, path: "classes/GameScore", body: map[string]any{"n": i, "objectId": "abcdefghij"}}
	}
	answers, errs := make([]map[string]any, 20), make([]error, 20)
	return func() {
		c.batchChunk(ctx, items, answers, errs, batchMode{})
		if errs[0] != nil || answers[19] == nil {
			tb.Fatal(errs[0])
		}
	}
}

// rawBatchChunk returns the same /batch call by hand with net/http and encoding/json.
func rawBatchChunk(tb testing.TB, srv *httptest.Server) func() {
	hc := &http.Client{}
	url := srv.URL + "/parse/batch"
	return func() {
		reqs := make([]map[string]any, 20)
		for i := range reqs {
			reqs[i] = map[string]any{"method": "POST", "path": "/parse/classes/GameScore", "body": map[string]any{"n": i, "objectId": "abcdefghij"}}
		}
		body, _ := json.Marshal(map[string]any{"requests": reqs, "_ApplicationId": "app", "_JavaScriptKey": "js", "_ClientVersion": "go1.5.5", "_InstallationId": "inst"})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out []struct {
			Success map[string]any `json:"success"`
		}
		if err := json.Unmarshal(rb, &out); err != nil || len(out) != 20 {
			tb.Fatal(err)
		}
	}
}

func BenchmarkBatchChunk(b *testing.B) {
	once := batchChunk(b, pageServer(b))
	b.ReportAllocs()
	for b.Loop() {
		once()
	}
}

func BenchmarkRawBatchChunk(b *testing.B) {
	once := rawBatchChunk(b, pageServer(b))
	b.ReportAllocs()
	for b.Loop() {
		once()
	}
}

// The allocation budget, held in every test run: a query page and a /batch call allocate no more than the same
// request by hand with net/http + encoding/json (the budget), and keep what the reflection-free encoding
// won (BENCHMARKS.md: 2,441 against 3,139, 0.78; and 374 against 654, 0.57), with some room: a /batch body encoded
// by encoding/json again (630, 0.96) fails it.
func TestAllocationBudget(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ours, raw func(testing.TB, *httptest.Server) func()
		share     float64 // of the allocations by hand, at most
	}{
		{"query page of 100", queryPage, rawQueryPage, 0.9},
		{"/batch of 20 creates", batchChunk, rawBatchChunk, 0.75},
	} {
		srv := pageServer(t)
		ours := testing.AllocsPerRun(50, tc.ours(t, srv))
		raw := testing.AllocsPerRun(50, tc.raw(t, srv))
		t.Logf("%s: %.0f allocations, by hand %.0f", tc.name, ours, raw)
		if ours > tc.share*raw {
			t.Errorf("%s: %.0f allocations per call, more than %.2f of the %.0f of net/http + encoding/json by hand", tc.name, ours, tc.share, raw)
		}
	}
}
