package query

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"sync"

	"github.com/c13f5054/moralis-go/parse"
)

// DefaultBatchSize is the page size of Batches when BatchOptions.Size is 0: the spec's query batch iteration
// size, the batchSize the original client's each and eachBatch use by default. All starts with a page of this
// size too, then grows its pages (see All).
const DefaultBatchSize = 100

// MaxBatchSize is the largest page Batches asks for.
const MaxBatchSize = 10000

// allPageSize is the size of All's pages after the first: on parse-server a find costs about as much per call as
// 10-15 rows, so pages of 1,000 spend under 2% of the server's time on calls, while 2 pages of 1,000 decoded
// objects stay a few MB. Measured in BENCHMARKS.md ("Iteration at the defaults").
const allPageSize = 1000

// BatchOptions tune Batches. A nil *BatchOptions, like the zero value, means the defaults. Batches reads it and
// never changes it.
type BatchOptions struct {
	// Size is the number of objects per page: 0 (or below) means DefaultBatchSize, the spec's 100; above
	// MaxBatchSize means MaxBatchSize. A server configured with a smaller maxLimit (of DefaultBatchSize or more)
	// answers smaller pages, and the walk still ends only at the real end: a last page of DefaultBatchSize objects
	// or more, but fewer than Size, costs one more request, which finds nothing.
	Size int
}

func (o *BatchOptions) size() int {
	switch {
	case o == nil || o.Size < 1:
		return DefaultBatchSize
	case o.Size > MaxBatchSize:
		return MaxBatchSize
	}
	return o.Size
}

// All iterates over every object the query matches, however many. It is the fast path, and needs no setting:
// it asks for a first page of DefaultBatchSize (100) objects, so the first object comes as soon as with the
// original client's each, then for pages of 1,000, and while the caller works on one page the next is fetched and
// decoded in a goroutine; when the caller is already waiting, the next page is asked for as soon as this one's
// answer arrives, before it is decoded (runners that support Request.Arrived, like the client). At most two pages
// are held at a time. Batches walks the same way in pages of a size you choose (by default the spec's 100, as the
// original's each and eachBatch).
//
// It pages by key, as the original client's each does: the requests are ordered by objectId, ascending, and each
// asks for objectId > the last id seen, so the walk neither skips nor repeats objects when others are added
// meanwhile, and costs the same at the millionth object as at the first. A short first page ends the walk; a later
// page shorter than asked for ends it only when it is also shorter than the largest page the server has served in
// full, so a server whose maxLimit caps pages below 1,000 is still walked to its end (a walk whose last page holds
// 100 to 999 objects costs one more request, which finds nothing). Breaking out of the loop, or the context
// ending, cancels the fetches in flight and waits for their goroutines to end before All returns (runners must
// honour their context).
//
// A query with its own order, skip or limit is refused with ErrCannotIterate ("Cannot iterate on a query with
// sort, skip, or limit."). Errors (building, the runner's, decoding) are yielded once, with a zero T, and end the
// walk. The query's include, keys, excludeKeys, hint and read preferences are kept; count is not sent. All is
// safe for concurrent use: each range over it is a walk of its own.
func (q *Query[T]) All(ctx context.Context, r parse.QueryRunner) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		q.walk(ctx, r, allSizes, func(items []T, err error) bool {
			if err != nil {
				yield(zero, err)
				return false
			}
			for _, it := range items {
				if !yield(it, nil) {
					return false
				}
			}
			return true
		})
	}
}

// Batches iterates over every object the query matches page by page, as the original client's eachBatch does:
// pages of opts.Size objects (nil or 0: DefaultBatchSize, the spec's 100), keyset-paged by objectId, the next
// page fetched while the caller works on the current one, exactly as All walks (see All for the order, the
// prefetch, the end of the walk, cancellation and errors). Each yielded slice is the caller's to keep; an error is
// yielded once, with a nil slice, and ends the walk. Use it for the spec's page size, or to choose the size (a
// larger one for small rows, a smaller one for very large rows).
func (q *Query[T]) Batches(ctx context.Context, r parse.QueryRunner, opts *BatchOptions) iter.Seq2[[]T, error] {
	size := opts.size()
	return func(yield func([]T, error) bool) {
		q.walk(ctx, r, func(int) int { return size }, yield)
	}
}

// allSizes is All's page schedule: DefaultBatchSize first, then allPageSize.
func allSizes(page int) int {
	if page == 0 {
		return DefaultBatchSize
	}
	return allPageSize
}

type page[T any] struct {
	items  []T
	lastID string
	more   bool
	err    error
	// proven is the largest page size the server has served in full, this page included.
	proven int
	// next is the following page's fetch when it was started early, as soon as this page's answer arrived.
	next <-chan page[T]
	// nextAfter is the id the early fetch pages after; nextWaiting is to be closed when the caller waits for it.
	nextAfter   string
	nextWaiting chan struct{}
}

// morePages reports whether a page of n objects, asked for with limit size, may be followed by more: it is full,
// or (a server whose maxLimit is below size answers fewer) it holds at least as many objects as the largest page
// the server served in full before (proven). A page shorter than that is the last.
func morePages(n, size, proven int) bool {
	return n > 0 && (n >= size || n >= proven)
}

// grown is proven after a page of n objects asked for with limit size.
func grown(proven, n, size int) int {
	if n >= size && size > proven {
		return size
	}
	return proven
}

// walk runs the keyset walk under All and Batches: page i asks for sizes(i) objects, and each page's items are
// handed to yield (an error once, ending the walk) until it returns false or the walk ends.
func (q *Query[T]) walk(ctx context.Context, r parse.QueryRunner, sizes func(int) int, yield func([]T, error) bool) {
	base, err := q.iterBase()
	if err != nil {
		yield(nil, err)
		return
	}
	if ctx == nil {
		yield(nil, fmt.Errorf("query: nil context"))
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Deferred calls run last-first: cancel the fetches in flight, then wait for their goroutines.
	defer wg.Wait()
	defer cancel()

	// fetch starts page number index, after the given id, knowing the largest page served in full before it.
	// waiting is closed when the caller is waiting for that page (it has finished the previous one): only then may
	// the page's arrival start the following fetch, so at most two pages are held at once.
	var fetch func(after string, index, proven int, waiting <-chan struct{}) <-chan page[T]
	fetch = func(after string, index, proven int, waiting <-chan struct{}) <-chan page[T] {
		out := make(chan page[T], 1) // one send per fetch: never blocks
		size := sizes(index)
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
				if morePages(n, size, proven) && last != "" && ctx.Err() == nil {
					nextAfter, nextWaiting = last, make(chan struct{})
					next = fetch(last, index+1, grown(proven, n, size), nextWaiting)
				}
			}
			p := fetchPage[T](ctx, r, q.className, base, after, size, proven, arrived)
			p.next, p.nextAfter, p.nextWaiting = next, nextAfter, nextWaiting
			out <- p
		}()
		return out
	}

	// Before any page, the server is taken to serve DefaultBatchSize in full (a smaller first page ends the walk):
	// Batches' first page of a larger size, which a maxLimit below it shortens, is then not taken for the last.
	cur := fetch("", 0, min(sizes(0), DefaultBatchSize), closedChan)
	for index := 0; ; index++ {
		var p page[T]
		select {
		case p = <-cur:
		case <-ctx.Done():
			yield(nil, ctx.Err())
			return
		}
		if p.err != nil {
			if ctx.Err() != nil {
				p.err = ctx.Err()
			}
			yield(nil, p.err)
			return
		}
		var waiting chan struct{}
		if p.more {
			if p.next != nil && p.nextAfter == p.lastID {
				cur, waiting = p.next, p.nextWaiting // asked for when this page arrived
			} else {
				// Not started early (or, should the early look have disagreed with the decoded page,
				// started after the wrong id: that fetch is left to finish and be discarded).
				waiting = make(chan struct{})
				cur = fetch(p.lastID, index+1, p.proven, waiting)
			}
		}
		if len(p.items) > 0 && !yield(p.items, nil) {
			return
		}
		if !p.more {
			return
		}
		close(waiting)
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

// fetchPage asks for one page of at most size objects with objectId > after ("" for the first page); proven is
// the largest page the server served in full before this one.
func fetchPage[T any](ctx context.Context, r parse.QueryRunner, className string, base map[string]any, after string, size, proven int, arrived func(int, string)) page[T] {
	params := maps.Clone(base)
	where := maps.Clone(base["where"].(map[string]any))
	if after != "" {
		where["objectId"] = keysetCondition(where["objectId"], after)
	}
	params["where"] = where
	params["order"] = "objectId"
	params["limit"] = size
	resp, err := run(ctx, r, &parse.QueryRequest{ClassName: className, Op: OpFind, Params: params, PreferObjects: wantsObjects[T](), Arrived: arrived})
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
	n := resultCount(resp)
	p := page[T]{items: items, more: morePages(n, size, proven), proven: grown(proven, n, size)}
	if p.more && resp.Objects != nil {
		if lastObjectID == "" {
			return page[T]{err: fmt.Errorf("query: All on %s: a result has no objectId to page by", className)}
		}
		p.lastID = lastObjectID
	} else if p.more {
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
// $eq, and an own $gt is replaced. after is the last objectId the server returned for this query, so it is above
// the own bound in the server's own collation, and "above after" implies "above the own bound". Comparing the two
// here would use Go's byte order, which a database collation need not share (PostgreSQL with a case-insensitive
// locale puts "C" after "b"), and could keep the wrong bound and fetch the same rows again.
func keysetCondition(existing any, after string) any {
	switch x := existing.(type) {
	case nil:
		return map[string]any{"$gt": after}
	case map[string]any:
		if isConditionMap(x) {
			c := maps.Clone(x)
			c["$gt"] = after
			return c
		}
	}
	return map[string]any{"$eq": existing, "$gt": after}
}
