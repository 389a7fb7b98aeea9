package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

func newClient(e env, mods ...func(*client.Config)) (*client.Client, error) {
	cfg := client.Config{ServerURL: e.server, AppID: e.appID, JavaScriptKey: e.jsKey, MasterKey: e.master}
	for _, m := range mods {
		m(&cfg)
	}
	return client.New(cfg)
}

func init() {
	register("creates", "go", func(ctx context.Context, e env) (result, error) {
		c, err := newClient(e)
		if err != nil {
			return result{}, err
		}
		start := time.Now()
		for i := 0; i < e.n; i++ {
			o := parse.NewObject(e.class)
			o.Set("n", i)
			if err := c.Objects.Save(ctx, o); err != nil {
				return result{}, err
			}
		}
		return result{MS: since(start), N: e.n, Check: e.n}, nil
	})
	register("creates", "raw", func(ctx context.Context, e env) (result, error) {
		hc := &http.Client{}
		start := time.Now()
		for i := 0; i < e.n; i++ {
			body := fmt.Sprintf(`{"n":%d,"_ApplicationId":%q,"_JavaScriptKey":%q}`, i, e.appID, e.jsKey)
			if err := rawPost(ctx, hc, e.server+"/classes/"+e.class, []byte(body), nil); err != nil {
				return result{}, err
			}
		}
		return result{MS: since(start), N: e.n, Check: e.n}, nil
	})
	// SaveAll: each side at its default (ours and raw /batch in chunks of 20, 4 calls in flight), then tuned to
	// chunks of 50.
	register("saveall", "go", saveAll(0))
	register("saveall", "go:b50", saveAll(50))
	register("saveall", "raw", rawSaveAll(20, 4))
	register("saveall", "raw:b50", rawSaveAll(50, 4))
	register("iterate", "raw", func(ctx context.Context, e env) (result, error) {
		// Keyset paging by objectId, limit 1000, with the next page fetched while this one is processed.
		hc := &http.Client{}
		type page struct {
			ids []string
			err error
		}
		fetch := func(after string) page {
			where := map[string]any{}
			if after != "" {
				where["objectId"] = map[string]any{"$gt": after}
			}
			body, _ := json.Marshal(map[string]any{"_method": "GET", "where": where, "order": "objectId", "limit": 1000, "_ApplicationId": e.appID, "_JavaScriptKey": e.jsKey})
			var out struct {
				Results []map[string]any `json:"results"`
			}
			if err := rawPost(ctx, hc, e.server+"/classes/"+e.class, body, &out); err != nil {
				return page{err: err}
			}
			ids := make([]string, len(out.Results))
			for i, r := range out.Results {
				ids[i], _ = r["objectId"].(string)
			}
			return page{ids: ids}
		}
		start := time.Now()
		count := 0
		next := make(chan page, 1)
		go func() { next <- fetch("") }()
		for {
			p := <-next
			if p.err != nil {
				return result{}, p.err
			}
			if len(p.ids) == 1000 {
				last := p.ids[len(p.ids)-1]
				go func() { next <- fetch(last) }()
			}
			count += len(p.ids)
			if len(p.ids) < 1000 {
				break
			}
		}
		return result{MS: since(start), N: count, Check: count}, nil
	})
}

func mountPath(server string) string {
	for i := len("https://"); i < len(server); i++ {
		if server[i] == '/' {
			return server[i:]
		}
	}
	return ""
}

func rawPost(ctx context.Context, hc *http.Client, url string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s: %d %s", url, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

func init() {
	// iterate: All at its defaults (what a user reaches for first), and Batches at the spec's 100 and at 1,000.
	register("iterate", "go", func(ctx context.Context, e env) (result, error) {
		c, err := newClient(e)
		if err != nil {
			return result{}, err
		}
		start := time.Now()
		count := 0
		for o, err := range query.New[*parse.Object](e.class).All(ctx, c) {
			if err != nil {
				return result{}, err
			}
			if o.ID() != "" {
				count++
			}
		}
		return result{MS: since(start), N: count, Check: count}, nil
	})
	batches := func(opts *query.BatchOptions) func(context.Context, env) (result, error) {
		return func(ctx context.Context, e env) (result, error) {
			c, err := newClient(e)
			if err != nil {
				return result{}, err
			}
			start := time.Now()
			count := 0
			for page, err := range query.New[*parse.Object](e.class).Batches(ctx, c, opts) {
				if err != nil {
					return result{}, err
				}
				for _, o := range page {
					if o.ID() != "" {
						count++
					}
				}
			}
			return result{MS: since(start), N: count, Check: count}, nil
		}
	}
	register("iterate", "go:b100", batches(nil))
	register("iterate", "go:b1000", batches(&query.BatchOptions{Size: 1000}))
}

// saveAll is SaveAll of e.n new objects; batchSize 0 keeps the client's default (the spec's 20).
func saveAll(batchSize int) func(context.Context, env) (result, error) {
	return func(ctx context.Context, e env) (result, error) {
		c, err := newClient(e, func(cfg *client.Config) { cfg.BatchSize = batchSize })
		if err != nil {
			return result{}, err
		}
		objs := make([]*parse.Object, e.n)
		for i := range objs {
			objs[i] = parse.NewObject(e.class)
			objs[i].Set("n", i)
		}
		ms, ok, err := timedSaveAll(ctx, c, objs, func(o *parse.Object) bool { return o.ID() != "" })
		return result{MS: ms, N: e.n, Check: ok}, err
	}
}

// timedSaveAll times SaveAll of objs and counts the objects saved says were saved.
func timedSaveAll(ctx context.Context, c *client.Client, objs []*parse.Object, saved func(*parse.Object) bool) (float64, int, error) {
	start := time.Now()
	if err := c.Objects.SaveAll(ctx, objs); err != nil {
		return 0, 0, err
	}
	ms := since(start)
	ok := 0
	for _, o := range objs {
		if saved(o) {
			ok++
		}
	}
	return ms, ok, nil
}

// rawSaveAll is raw batching by hand: /batch of size sub-requests, inflight at once.
func rawSaveAll(size, inflight int) func(context.Context, env) (result, error) {
	return func(ctx context.Context, e env) (result, error) {
		path := mountPath(e.server) + "/classes/" + e.class
		ms, _, ok, err := rawBatches(ctx, e, e.n, size, inflight, func(i int) map[string]any {
			return map[string]any{"method": "POST", "path": path, "body": map[string]any{"n": i}}
		})
		return result{MS: ms, N: e.n, Check: ok}, err
	}
}

// rawBatches sends the sub-requests sub(0) ... sub(n-1) in /batch calls of size, inflight at once, and returns the
// wall time, the number of calls and the number of successful sub-requests.
func rawBatches(ctx context.Context, e env, n, size, inflight int, sub func(i int) map[string]any) (float64, int, int, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, inflight)
	errs := make(chan error, n/size+1)
	var mu sync.Mutex
	ok, calls := 0, 0
	for from := 0; from < n; from += size {
		to := min(from+size, n)
		calls++
		wg.Add(1)
		sem <- struct{}{}
		go func(from, to int) {
			defer wg.Done()
			defer func() { <-sem }()
			reqs := make([]map[string]any, 0, to-from)
			for i := from; i < to; i++ {
				reqs = append(reqs, sub(i))
			}
			body, _ := json.Marshal(map[string]any{"requests": reqs, "_ApplicationId": e.appID, "_JavaScriptKey": e.jsKey})
			var out []map[string]any
			if err := rawPost(ctx, hc, e.server+"/batch", body, &out); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			for _, r := range out {
				if r["success"] != nil {
					ok++
				}
			}
			mu.Unlock()
		}(from, to)
	}
	wg.Wait()
	ms := since(start)
	close(errs)
	for err := range errs {
		return 0, 0, 0, err
	}
	return ms, calls, ok, nil
}

// newRawClient is the raw contender's HTTP client: net/http's defaults (keep-alive connections).
func newRawClient() *http.Client { return &http.Client{} }

// rawPostJSON is rawPost of body encoded with encoding/json.
func rawPostJSON(ctx context.Context, hc *http.Client, url string, body map[string]any, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return rawPost(ctx, hc, url, b, out)
}
