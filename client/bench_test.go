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

// pageServer answers every find with the same page of 100 objects, and every /batch with 20 successes.
func pageServer(b *testing.B) *httptest.Server {
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
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkQueryPage(b *testing.B) {
	srv := pageServer(b)
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := &parse.QueryRequest{ClassName: "GameScore", Op: "find", PreferObjects: true,
		Params: map[string]any{"where": map[string]any{"objectId": map[string]any{"$gt": "id00000000"}}, "order": "objectId", "limit": 100}}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.RunQuery(ctx, req)
		if err != nil || len(resp.Objects) != 100 {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawQueryPage(b *testing.B) {
	srv := pageServer(b)
	hc := &http.Client{}
	url := srv.URL + "/parse/classes/GameScore"
	b.ReportAllocs()
	for b.Loop() {
		body, _ := json.Marshal(map[string]any{"_method": "GET", "where": map[string]any{"objectId": map[string]any{"$gt": "id00000000"}},
			"order": "objectId", "limit": 100, "_ApplicationId": "app", "_JavaScriptKey": "js", "_ClientVersion": "go1.5.5", "_InstallationId": "inst"})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(rb, &out); err != nil || len(out.Results) != 100 {
			b.Fatal(err)
		}
	}
}

// One /batch call of 20 creates, as SaveAll sends it (the objects are made outside the timing).
func BenchmarkBatchChunk(b *testing.B) {
	srv := pageServer(b)
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	items := make([]batchItem, 20)
	for i := range items {
		items[i] = batchItem{method: http.MethodPost, path: "classes/GameScore", body: map[string]any{"n": i, "objectId": "abcdefghij"}, newID: "abcdefghij", className: "GameScore"}
	}
	answers, errs := make([]map[string]any, 20), make([]error, 20)
	b.ReportAllocs()
	for b.Loop() {
		c.batchChunk(ctx, items, answers, errs)
		if errs[0] != nil || answers[19] == nil {
			b.Fatal(errs[0])
		}
	}
}

func BenchmarkRawBatchChunk(b *testing.B) {
	srv := pageServer(b)
	hc := &http.Client{}
	url := srv.URL + "/parse/batch"
	b.ReportAllocs()
	for b.Loop() {
		reqs := make([]map[string]any, 20)
		for i := range reqs {
			reqs[i] = map[string]any{"method": "POST", "path": "/parse/classes/GameScore", "body": map[string]any{"n": i, "objectId": "abcdefghij"}}
		}
		body, _ := json.Marshal(map[string]any{"requests": reqs, "_ApplicationId": "app", "_JavaScriptKey": "js", "_ClientVersion": "go1.5.5", "_InstallationId": "inst"})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out []struct {
			Success map[string]any `json:"success"`
		}
		if err := json.Unmarshal(rb, &out); err != nil || len(out) != 20 {
			b.Fatal(err)
		}
	}
}
