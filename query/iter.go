package query

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"sync"
)

// DefaultBatchSize is the page size of All: the original client's query batch iteration size.
const DefaultBatchSize = 100

// MaxBatchSize is the largest page All asks for.
const MaxBatchSize = 10000

// IterOption configures All.
type IterOption func(*iterConfig)

type iterConfig struct {
	batchSize int
}

// WithBatchSize sets how many objects All fetches per request (default 100; values below 1 mean the default,
// values above MaxBatchSize are capped).
func WithBatchSize(n int) IterOption {
	return func(c *iterConfig) {
		switch {
		case n < 1:
			c.batchSize = DefaultBatchSize
		case n > MaxBatchSize:
			c.batchSize = MaxBatchSize
		default:
			c.batchSize = n
		}
	}
}

type page[T any] struct {
	items  []T
	lastID string
	full   bool
	err    error
}

// All iterates over every object the query matches, however many, in pages (batches of 100 unless WithBatchSize
// says otherwise). It pages by key, as the original client's each does: the requests are ordered by objectId,
// ascending, and each asks for objectId > the last id seen, so the walk neither skips nor repeats objects when
// others are added meanwhile, and costs the same at the millionth object as at the first. While the caller works
// on one page, the next is fetched and decoded in a goroutine; breaking out of the loop, or the context ending,
// cancels that fetch and waits for the goroutine to end before All returns (runners must honour their context).
//
// A query with its own order, skip or limit is refused with ErrCannotIterate ("Cannot iterate on a query with
// sort, skip, or limit."). Errors (building, the runner's, decoding) are yielded once, with a zero T, and end the
// walk. The query's include, keys, excludeKeys, hint and read preferences are kept; count is not sent.
func (q *Query[T]) All(ctx context.Context, r Runner, opts ...IterOption) iter.Seq2[T, error] {
	cfg := iterConfig{batchSize: DefaultBatchSize}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return func(yield func(T, error) bool) {
		var zero T
		base, err := q.iterBase()
		if err != nil {
			yield(zero, err)
			return
		}
		if ctx == nil {
			yield(zero, fmt.Errorf("query: nil context"))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		// Deferred calls run last-first: cancel the fetch in flight, then wait for its goroutine.
		defer wg.Wait()
		defer cancel()

		pages := make(chan page[T], 1)
		fetch := func(after string) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := fetchPage[T](ctx, r, q.className, base, after, cfg.batchSize)
				pages <- p // buffered, and only one fetch is ever in flight: never blocks
			}()
		}

		fetch("")
		for {
			var p page[T]
			select {
			case p = <-pages:
			case <-ctx.Done():
				yield(zero, ctx.Err())
				return
			}
			if p.err != nil {
				if ctx.Err() != nil {
					p.err = ctx.Err()
				}
				yield(zero, p.err)
				return
			}
			if p.full {
				fetch(p.lastID) // prefetch while the caller works on this page
			}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			if !p.full {
				return
			}
		}
	}
}

// iterBase checks that the query can be iterated and returns its parameters without count.
func (q *Query[T]) iterBase() (map[string]any, error) {
	if q == nil {
		return nil, ErrNilQuery
	}
	if err := q.Err(); err != nil {
		return nil, err
	}
	if len(q.order) > 0 || q.skip > 0 || q.limit >= 0 {
		return nil, fmt.Errorf("query: All on %s: %w", q.className, ErrCannotIterate)
	}
	p := q.params()
	delete(p, "count")
	return p, nil
}

// fetchPage asks for one page of at most size objects with objectId > after ("" for the first page).
func fetchPage[T any](ctx context.Context, r Runner, className string, base map[string]any, after string, size int) page[T] {
	params := maps.Clone(base)
	where := maps.Clone(base["where"].(map[string]any))
	if after != "" {
		where["objectId"] = keysetCondition(where["objectId"], after)
	}
	params["where"] = where
	params["order"] = "objectId"
	params["limit"] = size
	resp, err := run(ctx, r, &Request{ClassName: className, Op: OpFind, Params: params, PreferObjects: wantsObjects[T]()})
	if err != nil {
		return page[T]{err: err}
	}
	lastObjectID := ""
	if n := len(resp.Objects); n > 0 && resp.Objects[n-1] != nil {
		lastObjectID = resp.Objects[n-1].ID()
	}
	items, err := decodeResponse[T](resp, className)
	if err != nil {
		return page[T]{err: err}
	}
	p := page[T]{items: items, full: resultCount(resp) >= size}
	if p.full && resp.Objects != nil {
		if lastObjectID == "" {
			return page[T]{err: fmt.Errorf("query: All on %s: a result has no objectId to page by", className)}
		}
		p.lastID = lastObjectID
	} else if p.full {
		var last struct {
			ObjectID string `json:"objectId"`
		}
		if err := json.Unmarshal(resp.Results[len(resp.Results)-1], &last); err != nil || last.ObjectID == "" {
			return page[T]{err: fmt.Errorf("query: All on %s: a result has no objectId to page by", className)}
		}
		p.lastID = last.ObjectID
	}
	return p
}

// keysetCondition merges "objectId > after" with the query's own objectId constraint, if any: an equality becomes
// $eq, and an own $gt keeps whichever bound is larger.
func keysetCondition(existing any, after string) any {
	switch x := existing.(type) {
	case nil:
		return map[string]any{"$gt": after}
	case map[string]any:
		if isConditionMap(x) {
			c := maps.Clone(x)
			if own, ok := c["$gt"].(string); !ok || own < after {
				c["$gt"] = after
			}
			return c
		}
	}
	return map[string]any{"$eq": existing, "$gt": after}
}
