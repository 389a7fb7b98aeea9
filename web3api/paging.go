package web3api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
)

// ErrCursorRepeated is returned by an iterator when the API hands back a cursor it already gave, which would
// loop forever.
var ErrCursorRepeated = errors.New("web3api: the API returned a cursor it had already returned")

// ErrPageRepeated is returned by an iterator paging by offset when the API answers a page number that is not
// past the previous one (it ignored the offset), which would loop forever.
var ErrPageRepeated = errors.New("web3api: the API returned a page it had already returned")

// DefaultPageLimit is the page size assumed for offset paging when the call sets no limit.
const DefaultPageLimit = 500

// intArg reads an integer argument given as any Go integer type (or a pointer to one), an integral float or a
// json.Number.
func intArg(v any) (int64, bool) {
	v, _ = deref(v)
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		return int64(n), n <= math.MaxInt64
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case float64:
		return int64(n), n == math.Trunc(n) && math.Abs(n) < 1<<53
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// pageNumber is a page, page_size or total field: a JSON number or a numeric string; null or absent is unset.
type pageNumber struct {
	n   int64
	set bool
}

func (p *pageNumber) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		*p = pageNumber{}
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Not an integer: the page cannot be followed by offset, but the items are still good.
		*p = pageNumber{}
		return nil
	}
	*p = pageNumber{n: n, set: true}
	return nil
}

type page[T any] struct {
	Result   []T             `json:"result"`
	Cursor   json.RawMessage `json:"cursor"`
	Total    pageNumber      `json:"total"`
	Page     pageNumber      `json:"page"`
	PageSize pageNumber      `json:"page_size"`
}

// Pages walks every item of every page of the paged endpoint called name, starting from args (copied, never
// changed), as the original client's next() did:
//   - an answer with a "cursor" has a next page when the cursor is not empty; it is asked for with that cursor;
//   - an answer without one (or with a null one) that has "page", "page_size" and "total" (not 0) has a next page
//     when total > page_size x (page+1); it is asked for with "offset" = (page+1) x (limit or 500), whether or
//     not the reference lists an offset parameter for the endpoint. An empty page ends the walk.
//
// It stops when ctx is done, on the first error (yielded once), when a cursor repeats (ErrCursorRepeated) or a
// page number does not grow (ErrPageRepeated), or when the caller stops ranging.
func Pages[T any](ctx context.Context, c *Client, name string, args Args) iter.Seq2[T, error] {
	return pages[T](ctx, c, name, args, nil)
}

// pages is Pages; a non-nil argErr (a typed call's bad parameters) is yielded at once.
func pages[T any](ctx context.Context, c *Client, name string, args Args, argErr error) iter.Seq2[T, error] {
	start := args.clone()
	return func(yield func(T, error) bool) {
		var zero T
		if ctx == nil {
			yield(zero, errNilContext)
			return
		}
		if argErr != nil {
			yield(zero, argErr)
			return
		}
		a := start.clone()
		seen := map[string]bool{}
		lastPage := int64(-1)
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			var pg page[T]
			if err := c.Call(ctx, name, a, &pg); err != nil {
				yield(zero, err)
				return
			}
			for _, it := range pg.Result {
				if !yield(it, nil) {
					return
				}
			}
			if len(pg.Cursor) > 0 && string(pg.Cursor) != "null" {
				var cur string
				if err := json.Unmarshal(pg.Cursor, &cur); err != nil {
					yield(zero, fmt.Errorf("web3api: cursor is not a string: %w", err))
					return
				}
				if cur == "" {
					return
				}
				if seen[cur] {
					yield(zero, ErrCursorRepeated)
					return
				}
				seen[cur] = true
				a = a.clone()
				a["cursor"] = cur
				continue
			}
			// As the original: no page number, a page_size that is absent, null or 0, or a total that is not past
			// this page (an absent or null total counts as 0) ends the walk.
			if !pg.Page.set || pg.PageSize.n == 0 || len(pg.Result) == 0 || pg.Total.n <= pg.PageSize.n*(pg.Page.n+1) {
				return
			}
			if pg.Page.n <= lastPage {
				yield(zero, ErrPageRepeated)
				return
			}
			lastPage = pg.Page.n
			limit := int64(DefaultPageLimit)
			if l, ok := intArg(a["limit"]); ok && l > 0 {
				limit = l
			}
			a = a.clone()
			a["offset"] = (pg.Page.n + 1) * limit
		}
	}
}
