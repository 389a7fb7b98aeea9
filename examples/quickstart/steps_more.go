package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/c13f5054/moralis-go/analytics"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

func (d *demo) file(ctx context.Context) (string, error) {
	data := []byte("hello from the moralis-go quickstart\n")
	f, err := d.c.Files.Upload(ctx, "hello.txt", data, "text/plain", nil)
	if err != nil {
		return "", err
	}
	got, err := d.c.Files.Data(ctx, f)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(got, data) {
		return "", fmt.Errorf("downloaded %q, uploaded %q", got, data)
	}
	o := parse.NewObject(d.class)
	o.Set("attachment", *f)
	if err := d.c.Objects.Save(ctx, o); err != nil {
		return "", err
	}
	return fmt.Sprintf("uploaded %s (%d bytes), read it back, attached it to %s/%s", f.Name, len(data), d.class, o.ID()), nil
}

func (d *demo) analytics(ctx context.Context) (string, error) {
	if err := analytics.Track(ctx, d.c, "QuickstartRun", map[string]string{"step": "analytics", "client": client.Version}); err != nil {
		return "", err
	}
	if err := analytics.AppOpened(ctx, d.c); err != nil {
		return "", err
	}
	return "sent events QuickstartRun (with dimensions) and AppOpened", nil
}

func (d *demo) pinning(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "moralis-quickstart-store")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(filepath.Join(dir, "pins.db"), store.Config{AppID: d.cfg.AppID})
	if err != nil {
		return "", err
	}
	defer st.Close()
	top, err := query.New[*parse.Object](d.class).GreaterThanOrEqualTo("score", 95).Limit(1000).Find(ctx, d.c)
	if err != nil {
		return "", err
	}
	if err := st.PinWithName(ctx, "top", top...); err != nil {
		return "", err
	}
	// The same query runs against the pinned copies, offline.
	q := query.New[*parse.Object](d.class).EqualTo("score", 99)
	local, err := q.Count(ctx, st)
	if err != nil {
		return "", err
	}
	remote, err := q.Count(ctx, d.c)
	if err != nil {
		return "", err
	}
	// Change one object on the server and delete another; Sync brings both changes in.
	changed := top[0]
	changed.Set("score", 100)
	if err := d.c.Objects.Save(ctx, changed); err != nil {
		return "", err
	}
	if err := d.c.Objects.Destroy(ctx, top[1]); err != nil {
		return "", err
	}
	res, err := st.Sync(ctx, d.c)
	if err != nil {
		return "", err
	}
	after, err := st.Get(ctx, d.class, changed.ID())
	if err != nil {
		return "", err
	}
	if after.Int("score") != 100 {
		return "", fmt.Errorf("after Sync the pinned copy has score %v, want 100", after.Get("score"))
	}
	return fmt.Sprintf("pinned %d objects in a bbolt file; score == 99: %d locally, %d on the server\nsync after a change and a delete on the server: %d updated, %d not returned (kept, never dropped)",
		len(top), local, remote, res.Updated, len(res.NotReturned)), nil
}
