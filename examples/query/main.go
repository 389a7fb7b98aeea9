// Command query runs a query against the backend from the command line: the where clause and options are the
// server's own JSON (as the REST API takes them), checked by query.FromJSON. It prints the matching objects as
// JSON lines, or just their count, or walks every match with -all (keyset paging, with progress on stderr).
//
//	go run ./examples/query -class GameScore -q '{"where":{"score":{"$gte":90}},"order":"-score","limit":5}'
//	go run ./examples/query -class GameScore -q '{"where":{"player":{"$regex":"^A"}}}' -count
//	go run ./examples/query -class GameScore -all
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/cli"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := cli.BackendFlags(fs)
	class := fs.String("class", "", "class to query (required)")
	q := fs.String("q", "{}", `query JSON: {"where":{...},"order":"-score","limit":10,"skip":0,"keys":"a,b","include":"owner"}`)
	count := fs.Bool("count", false, "print only the number of matches")
	all := fs.Bool("all", false, "walk every match page by page (the query must have no order, skip or limit)")
	batch := fs.Int("batch", 0, "page size for -all (0: All's own pages, 100 and then 1,000)")
	master := fs.Bool("master", false, "send the master key (needs -master-key)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: query -class NAME [-q JSON] [-count | -all] [flags]\n\nRuns a query against the backend and prints the results as JSON lines.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := cfg.Check(); err != nil {
		fmt.Fprintln(stderr, "query:", err)
		return 2
	}
	if *class == "" {
		fmt.Fprintln(stderr, "query: -class is required")
		return 2
	}
	qq, err := query.FromJSON[*parse.Object](*class, []byte(*q))
	if err != nil {
		fmt.Fprintln(stderr, "query:", err)
		return 2
	}
	c, err := client.New(client.Config{ServerURL: cfg.ServerURL, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey, MasterKey: cfg.MasterKey})
	if err != nil {
		fmt.Fprintln(stderr, "query:", err)
		return 2
	}
	if *master {
		c = c.WithMasterKey()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := execute(ctx, c, qq, *count, *all, *batch, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "query:", err)
		return 1
	}
	return 0
}

func execute(ctx context.Context, c *client.Client, q *query.Query[*parse.Object], count, all bool, batch int, stdout, stderr io.Writer) error {
	enc := json.NewEncoder(stdout)
	switch {
	case count:
		n, err := q.Count(ctx, c)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, n)
	case all:
		total, err := q.Count(ctx, c)
		if err != nil {
			return err
		}
		bar := cli.NewProgress(stderr, "rows", total)
		objs := q.All(ctx, c)
		if batch > 0 {
			objs = flatten(q.Batches(ctx, c, &query.BatchOptions{Size: batch}))
		}
		for o, err := range objs {
			if err != nil {
				return err
			}
			if err := enc.Encode(o); err != nil {
				return err
			}
			bar.Add(1)
		}
		bar.Done()
	default:
		objs, err := q.Find(ctx, c)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := enc.Encode(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// flatten walks the objects of pages in order.
func flatten(pages iter.Seq2[[]*parse.Object, error]) iter.Seq2[*parse.Object, error] {
	return func(yield func(*parse.Object, error) bool) {
		for page, err := range pages {
			if err != nil {
				yield(nil, err)
				return
			}
			for _, o := range page {
				if !yield(o, nil) {
					return
				}
			}
		}
	}
}
