package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

func init() {
	// lds pins n objects in an on-disk store, then runs the same local queries as the JavaScript contender; ms is
	// the pinning time and queryMs the time of one local query.
	register("lds", "go", func(ctx context.Context, e env) (result, error) {
		dir, err := os.MkdirTemp("", "bench-lds")
		if err != nil {
			return result{}, err
		}
		defer os.RemoveAll(dir)
		st, err := store.Open(filepath.Join(dir, "pins.db"), nil)
		if err != nil {
			return result{}, err
		}
		defer st.Close()
		start := time.Now()
		const chunk = 5000
		batch := make([]*parse.Object, 0, chunk)
		for i := 0; i < e.n; i++ {
			o := parse.NewObjectWithID(e.class, fmt.Sprintf("o%d", i))
			o.Set("n", i)
			o.Set("name", fmt.Sprintf("name%d", i%1000))
			tag := "other"
			if i%7 == 0 {
				tag = "seven"
			}
			o.Set("tag", tag)
			batch = append(batch, o)
			if len(batch) == chunk || i == e.n-1 {
				if err := st.Pin(ctx, batch...); err != nil {
					return result{}, err
				}
				batch = batch[:0]
			}
		}
		pinMS := since(start)
		queries := 5
		qstart := time.Now()
		check := 0
		for q := 0; q < queries; q++ {
			found, err := query.New[*parse.Object](e.class).EqualTo("tag", "seven").GreaterThan("n", q*10).Limit(1000000).Find(ctx, st)
			if err != nil {
				return result{}, err
			}
			check += len(found)
		}
		return result{MS: pinMS, QueryMS: since(qstart) / float64(queries), N: e.n, Check: check}, nil
	})
}
