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
	// next is the following page's fetch when it was started early, as soon as this page's answer arrived.
	next <-chan page[T]
	// nextAfter is the id the early fetch pages after; nextWaiting is to be closed when the caller waits for it.
	nextAfter   string
	nextWaiting chan struct{}
}

// All iterates over every object the query matches, however many, in pages (batches of 100 unless WithBatchSize
// says otherwise). It pages by key, as the original client's each does: the requests are ordered by objectId,
// ascending, and each asks for objectId > the last id seen, so the walk neither skips nor repeats objects when
// others are added meanwhile, and costs the same at the millionth object as at the first. While the caller works
// on one page, the next is fetched and decoded in a goroutine; when the caller is already waiting, the next
// page is asked for as soon as this one's answer arrives, before it is decoded (runners that support
// Request.Arrived, like the client). At most two pages are held at a time. Breaking out of the loop, or the
// context ending, cancels the fetches in flight and waits for their goroutines to end before All returns (runners
// must honour their context).
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
		// Deferred calls run last-first: cancel the fetches in flight, then wait for their goroutines.
		defer wg.Wait()
		defer cancel()

		// fetch starts the page after the given id. waiting is closed when the caller is waiting for that page
		// (it has finished the previous one): only then may the page's arrival start the following fetch, so at
		// most two pages are held at once.
		var fetch func(after string, waiting <-chan struct{}) <-chan page[T]
		fetch = func(after string, waiting <-chan struct{}) <-chan page[T] {
			out := make(chan page[T], 1) // one send per fetch: never blocks
			wg.Add(1)
			go func() {
				defer wg.Done()
				var next <-chan page[T]
				var nextAfter string
				var nextWaiting chan struct{}
				arrived := func(n int, last string) {
					select {
					case <-waiting:
					default:
						return // the caller is still busy with the previous page
					}
					if n >= cfg.batchSize && last != "" && ctx.Err() == nil {
						nextAfter, nextWaiting = last, make(chan struct{})
						next = fetch(last, nextWaiting)
					}
				}
				p := fetchPage[T](ctx, r, q.className, base, after, cfg.batchSize, arrived)
				p.next, p.nextAfter, p.nextWaiting = next, nextAfter, nextWaiting
				out <- p
			}()
			return out
		}

		cur := fetch("", closedChan)
		for {
			var p page[T]
			select {
			case p = <-cur:
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
			var waiting chan struct{}
			if p.full {
				if p.next != nil && p.nextAfter == p.lastID {
					cur, waiting = p.next, p.nextWaiting // asked for when this page arrived
				} else {
					// Not started early (or, should the early look have disagreed with the decoded page,
					// started after the wrong id: that fetch is left to finish and be discarded).
					waiting = make(chan struct{})
					cur = fetch(p.lastID, waiting)
				}
			}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			if !p.full {
				return
			}
			close(waiting)
		}
	}
}

// closedChan is a closed channel: "the caller is waiting already".
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

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
func fetchPage[T any](ctx context.Context, r Runner, className string, base map[string]any, after string, size int, arrived func(int, string)) page[T] {
	params := maps.Clone(base)
	where := maps.Clone(base["where"].(map[string]any))
	if after != "" {
		where["objectId"] = keysetCondition(where["objectId"], after)
	}
	params["where"] = where
	params["order"] = "objectId"
	params["limit"] = size
	resp, err := run(ctx, r, &Request{ClassName: className, Op: OpFind, Params: params, PreferObjects: wantsObjects[T](), Arrived: arrived})
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
