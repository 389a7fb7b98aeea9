package main

import (
	"context"
	"fmt"

	"github.com/c13f5054/moralis-go/internal/cli"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// score is the caller's own struct: query results decode straight into it.
type score struct {
	ObjectID string `json:"objectId"`
	Player   string `json:"player"`
	Score    int    `json:"score"`
}

func (d *demo) query(ctx context.Context) (string, error) {
	q := query.New[score](d.class).GreaterThanOrEqualTo("score", 90).Descending("score").Limit(3)
	top, err := q.Find(ctx, d.c)
	if err != nil {
		return "", err
	}
	n, err := query.New[*parse.Object](d.class).GreaterThanOrEqualTo("score", 90).Count(ctx, d.c)
	if err != nil {
		return "", err
	}
	out := fmt.Sprintf("%d rows have score >= 90; the top 3:", n)
	for _, s := range top {
		out += fmt.Sprintf("\n  %s %s %d", s.ObjectID, s.Player, s.Score)
	}
	return out, nil
}

func (d *demo) iterate(ctx context.Context) (string, error) {
	bar := cli.NewProgress(d.progress, "All()", d.rows)
	count, sum := 0, 0
	for s, err := range query.New[score](d.class).All(ctx, d.c) {
		if err != nil {
			return "", err
		}
		count++
		sum += s.Score
		bar.Add(1)
	}
	bar.Done()
	if count != d.rows {
		return "", fmt.Errorf("iterated %d rows, want %d", count, d.rows)
	}
	return fmt.Sprintf("walked %d rows by objectId (a page of 100, then pages of 1,000, the next one prefetched; sum of scores %d)", count, sum), nil
}
