package web3api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// ErrCursorRepeated is returned by an iterator when the API hands back a cursor it already gave, which would
// loop forever.
var ErrCursorRepeated = errors.New("web3api: the API returned a cursor it had already returned")

// DefaultPageLimit is the page size assumed for offset paging when the call sets no limit.
const DefaultPageLimit = 500

// intArg reads an integer argument given as any Go integer type, an integral float or a json.Number.
func intArg(v any) (int64, bool) {
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

type page[T any] struct {
	Result   []T             `json:"result"`
	Cursor   json.RawMessage `json:"cursor"`
	Total    *int            `json:"total"`
	Page     *int            `json:"page"`
	PageSize *int            `json:"page_size"`
}

// Pages walks every item of every page of the paged endpoint called name, starting from args (copied, never
// changed). It follows "cursor" when the answer carries one, else the older page/total/page_size form (setting
// "offset" to (page+1) x (limit or 500)). It stops when ctx is done, on the first error (yielded once), when a
// cursor repeats (ErrCursorRepeated), or when the caller stops ranging.
func Pages[T any](ctx context.Context, c *Client, name string, args Args) iter.Seq2[T, error] {
	return pages[T](ctx, c, name, args)
}

func pages[T any](ctx context.Context, c *Client, name string, args Args) iter.Seq2[T, error] {
	start := args.clone()
	return func(yield func(T, error) bool) {
		var zero T
		if ctx == nil {
			yield(zero, errors.New("web3api: nil context"))
			return
		}
		a := start.clone()
		ep, _ := ref.Lookup(name)
		seen := map[string]bool{}
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
			if pg.Total == nil || pg.Page == nil || len(pg.Result) == 0 || ep == nil {
				return
			}
			if _, ok := ep.Param("offset"); !ok {
				return
			}
			limit := DefaultPageLimit
			if l, ok := intArg(a["limit"]); ok && l > 0 {
				limit = int(l)
			}
			offset := (*pg.Page + 1) * limit
			if offset >= *pg.Total {
				return
			}
			a = a.clone()
			a["offset"] = int64(offset)
		}
	}
}
