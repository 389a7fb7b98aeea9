package query_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// maxLimitServer plays parse-server's find route for one class of n objects with its maxLimit option: a limit
// above maxLimit is lowered to it, as parse-server does.
func maxLimitServer(t *testing.T, n, maxLimit int) ([]string, *client.Client, *atomic.Int32) {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("o%06d", i)
	}
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			w.WriteHeader(400)
			return
		}
		where, _ := body["where"].(map[string]any)
		after := ""
		if c, ok := where["objectId"].(map[string]any); ok {
			after, _ = c["$gt"].(string)
		}
		limit := 100
		if l, ok := body["limit"].(float64); ok {
			limit = int(l)
		}
		limit = min(limit, maxLimit)
		start := sort.SearchStrings(ids, after)
		if start < len(ids) && ids[start] == after {
			start++
		}
		end := min(start+limit, len(ids))
		res := make([]map[string]any, 0, end-start)
		for i := start; i < end; i++ {
			res = append(res, map[string]any{"objectId": ids[i], "n": i})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"results": res})
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return ids, c, &calls
}

func checkWalk(t *testing.T, name string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: walked %d objects, want %d", name, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: object %d = %s, want %s", name, i, got[i], want[i])
			return
		}
	}
}

// All walks a server whose maxLimit is below its page size to the end, through the client and HTTP, neither
// losing nor repeating an object.
func TestAllWalksAServerWhoseMaxLimitIsBelowItsPage(t *testing.T) {
	for _, maxLimit := range []int{100, 500, 999, 1000, 5000} {
		for _, rows := range []int{0, 1, 99, 100, 101, 500, 1000, 1100, 1101, 2345} {
			ids, c, _ := maxLimitServer(t, rows, maxLimit)
			var got []string
			for o, err := range query.New[*parse.Object]("T").All(context.Background(), c) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, o.ID())
			}
			checkWalk(t, fmt.Sprintf("All, maxLimit %d, %d rows", maxLimit, rows), got, ids)
		}
	}
}

// Batches promises (BatchOptions.Size) that a server whose maxLimit is below Size, answering shorter pages, is
// still walked to its end.
func TestBatchesWalkAServerWhoseMaxLimitIsBelowSize(t *testing.T) {
	for _, tc := range []struct{ size, maxLimit, rows int }{
		{500, 100, 250},
		{500, 100, 1000},
		{1000, 500, 1700},
		{MaxBatch, 1000, 2500},
	} {
		ids, c, _ := maxLimitServer(t, tc.rows, tc.maxLimit)
		var got []string
		for page, err := range query.New[*parse.Object]("T").Batches(context.Background(), c, &query.BatchOptions{Size: tc.size}) {
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page {
				got = append(got, o.ID())
			}
		}
		checkWalk(t, fmt.Sprintf("Batches of %d, maxLimit %d, %d rows", tc.size, tc.maxLimit, tc.rows), got, ids)
	}
}

const MaxBatch = query.MaxBatchSize
