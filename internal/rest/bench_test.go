package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The transport against a raw net/http + encoding/json baseline doing the same request by hand, on a local
// server answering a typical object. Run: go test -run '^$' -bench . -benchmem ./internal/rest/
func benchServer(b *testing.B) *httptest.Server {
	answer := []byte(`{"objectId":"XzkEvASBvJ","createdAt":"2026-11-21T22:36:39.296Z","score":1337,"playerName":"Sean"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write(answer)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkTransportDo(b *testing.B) {
	srv := benchServer(b)
	tr, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var out map[string]any
		if err := tr.DoJSON(ctx, Call{Method: "GET", Path: "classes/GameScore/XzkEvASBvJ"}, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawNetHTTP(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{}
	url := srv.URL + "/parse/classes/GameScore/XzkEvASBvJ"
	b.ReportAllocs()
	for b.Loop() {
		body, _ := json.Marshal(map[string]any{"_method": "GET", "_ApplicationId": "app", "_JavaScriptKey": "js",
			"_ClientVersion": ClientVersion, "_InstallationId": "inst"})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out map[string]any
		if err := json.Unmarshal(rb, &out); err != nil {
			b.Fatal(err)
		}
	}
}
