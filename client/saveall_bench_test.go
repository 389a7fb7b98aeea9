package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

// The CPU price of SaveAll's settle path at the default config, on a local server that answers each /batch
// sub-request with a success: go test -run '^$' -bench SaveAll -benchmem ./client/
// Each round saves 20 new objects (one /batch of creates), then an update of each (one /batch of updates).

// batchEchoServer answers a /batch with one success per sub-request (creates get an id and createdAt, updates an
// updatedAt), and moralisGoServerInfo with the features given.
func batchEchoServer(tb testing.TB, features string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/functions/moralisGoServerInfo") {
			fmt.Fprintf(w, `{"result":{"name":"moralis-go-server","version":"0.0.0","features":[%s]}}`, features)
			return
		}
		n := bytes.Count(body, []byte(`"method":`))
		var out strings.Builder
		out.WriteByte('[')
		for i := range n {
			if i > 0 {
				out.WriteByte(',')
			}
			fmt.Fprintf(&out, `{"success":{"objectId":"id%08d","createdAt":"2026-11-22T00:00:00.000Z","updatedAt":"2026-11-22T00:00:01.000Z"}}`, i)
		}
		out.WriteByte(']')
		io.WriteString(w, out.String())
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// saveAllRound returns one round: 20 new objects saved, then one change of each saved, through SaveAll with opts.
func saveAllRound(tb testing.TB, srv *httptest.Server, opts ...BatchOption) func() {
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	return func() {
		objs := make([]*parse.Object, 20)
		for i := range objs {
			objs[i] = parse.NewObject("GameScore")
			objs[i].Set("player", "p")
			objs[i].Set("score", i)
		}
		if err := c.Objects.SaveAll(ctx, objs, opts...); err != nil {
			tb.Fatal(err)
		}
		for _, o := range objs {
			if err := o.Increment("score", 1); err != nil {
				tb.Fatal(err)
			}
		}
		if err := c.Objects.SaveAll(ctx, objs, opts...); err != nil {
			tb.Fatal(err)
		}
	}
}

func BenchmarkSaveAll(b *testing.B) {
	once := saveAllRound(b, batchEchoServer(b, ""))
	b.ReportAllocs()
	for b.Loop() {
		once()
	}
}

func BenchmarkSaveAllAtomic(b *testing.B) {
	once := saveAllRound(b, batchEchoServer(b, `"txMark"`), Atomic())
	b.ReportAllocs()
	for b.Loop() {
		once()
	}
}
