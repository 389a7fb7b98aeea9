package main

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// SaveAll of e.n existing objects (issue 30): "updates-set" sets a field on each, "updates-inc" increments one.
// The objects are created first, outside the clock; every contender counts the HTTP requests of the timed part.
func init() {
	for _, kind := range []string{"set", "inc"} {
		register("updates-"+kind, "go", goUpdates(kind))
		register("updates-"+kind, "raw", rawUpdates(kind, 20, 4))
	}
}

// countingTransport counts the requests sent through it.
type countingTransport struct {
	n  atomic.Int64
	rt http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

// createForUpdates creates e.n objects with raw /batch calls of 50 and returns their ids in order.
func createForUpdates(ctx context.Context, e env) ([]string, error) {
	hc := &http.Client{}
	ids := make([]string, 0, e.n)
	for from := 0; from < e.n; from += 50 {
		to := min(from+50, e.n)
		reqs := make([]map[string]any, 0, to-from)
		for i := from; i < to; i++ {
			reqs = append(reqs, map[string]any{"method": "POST", "path": mountPath(e.server) + "/classes/" + e.class, "body": map[string]any{"n": i, "score": 0}})
		}
		var out []struct {
			Success struct {
				ObjectID string `json:"objectId"`
			} `json:"success"`
		}
		if err := rawPostJSON(ctx, hc, e.server+"/batch", map[string]any{"requests": reqs, "_ApplicationId": e.appID, "_JavaScriptKey": e.jsKey}, &out); err != nil {
			return nil, err
		}
		for _, r := range out {
			if r.Success.ObjectID == "" {
				return nil, fmt.Errorf("create for updates: %v", out)
			}
			ids = append(ids, r.Success.ObjectID)
		}
	}
	return ids, nil
}

func goUpdates(kind string) func(context.Context, env) (result, error) {
	return func(ctx context.Context, e env) (result, error) {
		ids, err := createForUpdates(ctx, e)
		if err != nil {
			return result{}, err
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		ct := &countingTransport{rt: tr}
		c, err := newClient(e, func(cfg *client.Config) { cfg.HTTPClient = &http.Client{Transport: ct} })
		if err != nil {
			return result{}, err
		}
		objs := make([]*parse.Object, len(ids))
		for i, id := range ids {
			objs[i] = parse.NewObjectWithID(e.class, id)
			if kind == "set" {
				objs[i].Set("v", i+1)
			} else if err := objs[i].Increment("score", 1); err != nil {
				return result{}, err
			}
		}
		ms, ok, err := timedSaveAll(ctx, c, objs, func(o *parse.Object) bool { return !o.Dirty() })
		return result{MS: ms, N: e.n, Check: ok, Requests: ct.n.Load()}, err
	}
}

// rawUpdates is the floor: PUTs in /batch calls of size, inflight at once, nothing else.
func rawUpdates(kind string, size, inflight int) func(context.Context, env) (result, error) {
	return func(ctx context.Context, e env) (result, error) {
		ids, err := createForUpdates(ctx, e)
		if err != nil {
			return result{}, err
		}
		path := mountPath(e.server) + "/classes/" + e.class + "/"
		ms, calls, ok, err := rawBatches(ctx, e, len(ids), size, inflight, func(i int) map[string]any {
			body := map[string]any{"v": i + 1}
			if kind == "inc" {
				body = map[string]any{"score": map[string]any{"__op": "Increment", "amount": 1}}
			}
			return map[string]any{"method": "PUT", "path": path + ids[i], "body": body}
		})
		return result{MS: ms, N: e.n, Check: ok, Requests: int64(calls)}, err
	}
}
