package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/cli"
	"github.com/c13f5054/moralis-go/parse"
)

func (d *demo) objects(ctx context.Context) (string, error) {
	o := parse.NewObject(d.class)
	o.Set("player", "Ann")
	o.Set("score", 10)
	o.Set("at", time.Now())
	if err := d.c.Objects.Save(ctx, o); err != nil {
		return "", err
	}
	o.Increment("score", 5)
	o.AddUnique("tags", "first", "demo")
	if err := d.c.Objects.Save(ctx, o); err != nil {
		return "", err
	}
	got, err := d.c.Objects.Get(ctx, d.class, o.ID())
	if err != nil {
		return "", err
	}
	if got.Int("score") != 15 {
		return "", fmt.Errorf("score is %v after Increment(5), want 15", got.Get("score"))
	}
	if err := d.c.Objects.Destroy(ctx, got); err != nil {
		return "", err
	}
	if _, err := d.c.Objects.Get(ctx, d.class, o.ID()); !errors.Is(err, parse.ErrObjectNotFound) {
		return "", fmt.Errorf("after Destroy, Get answered %v", err)
	}
	return fmt.Sprintf("created %s/%s, incremented score to %d, tagged %v, deleted it", d.class, o.ID(), got.Int("score"), got.Strings("tags")), nil
}

func (d *demo) batch(ctx context.Context) (string, error) {
	objs := make([]*parse.Object, d.rows)
	for i := range objs {
		o := parse.NewObject(d.class)
		o.Set("player", fmt.Sprintf("player%04d", i))
		o.Set("score", i%100)
		objs[i] = o
	}
	bar := cli.NewProgress(d.progress, "SaveAll", len(objs))
	const chunk = 500
	for i := 0; i < len(objs); i += chunk {
		part := objs[i:min(i+chunk, len(objs))]
		if err := d.c.Objects.SaveAll(ctx, part); err != nil {
			return "", err
		}
		bar.Add(len(part))
	}
	bar.Done()
	return fmt.Sprintf("saved %d objects through /batch (chunks of %d, %d in flight)", len(objs), client.DefaultBatchSize, client.DefaultBatchConcurrency), nil
}

func (d *demo) cloud(ctx context.Context) (string, error) {
	t, err := d.c.Cloud.ServerTime(ctx)
	if err != nil {
		return "", err
	}
	var echo map[string]any
	if err := d.c.Cloud.Call(ctx, "echo", map[string]any{"hello": "world"}, &echo); err != nil {
		return "", err
	}
	return fmt.Sprintf("getServerTime: %s\necho: %v", t.Format(time.RFC3339Nano), echo["params"]), nil
}

func (d *demo) job(ctx context.Context) (string, error) {
	if !d.c.HasMasterKey() {
		return "skipped: no master key configured (-master-key)", nil
	}
	id, err := d.c.Cloud.StartJob(ctx, "simpleJob", map[string]any{"from": "quickstart"})
	if err != nil {
		return "", err
	}
	for {
		st, err := d.c.WithMasterKey().Objects.Get(ctx, "_JobStatus", id)
		if err != nil {
			return "", err
		}
		switch st.String("status") {
		case "succeeded":
			return fmt.Sprintf("job simpleJob %s succeeded: %s", id, st.String("message")), nil
		case "failed":
			return "", fmt.Errorf("job %s failed: %s", id, st.String("message"))
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
