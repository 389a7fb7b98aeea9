//go:build integration

package live_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// journaled is a journaled SSE bridge over the stack (the session in X-Test-Session), with ttl as JournalTTL.
func journaled(t *testing.T, ttl time.Duration) (*httptest.Server, *client.Client) {
	env, c := setup(t)
	opt, err := redis.ParseURL(env.RedisURL)
	require.NoError(t, err, "the stack's Redis")
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	h, err := live.NewSSEHandler(live.SSEConfig{
		Session: func(r *http.Request) (string, error) {
			if tok := r.Header.Get("X-Test-Session"); tok != "" {
				return tok, nil
			}
			return "", errors.New("no session")
		},
		Dial: func(ctx context.Context, token string) (*live.Client, error) {
			return live.Dial(ctx, live.Config{URL: env.LiveQueryURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
				SessionToken: token, Runner: c.WithSessionToken(token)})
		},
		Redis:      rdb,
		JournalTTL: ttl,
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, c
}

type sseEv struct{ id, name, data string }

// stream opens the bridge's stream of run for session tok with lastID; cancel ends it.
func stream(t *testing.T, srv *httptest.Server, tok, run, lastID string) (events <-chan sseEv, cancel func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	where, _ := json.Marshal(map[string]any{"run": run})
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/live?class="+liveClass+"&where="+url.QueryEscape(string(where)), nil)
	req.Header.Set("X-Test-Session", tok)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	ch := make(chan sseEv, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		var ev sseEv
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			k, v, _ := strings.Cut(strings.TrimRight(line, "\n"), ": ")
			switch k {
			case "id":
				ev.id = v
			case "event":
				ev.name = v
			case "data":
				ev.data = v
			case "":
				if ev.name != "" {
					ch <- ev
				}
				ev = sseEv{}
			}
		}
	}()
	t.Cleanup(cancel)
	return ch, cancel
}

func nextSSE(t *testing.T, ch <-chan sseEv) sseEv {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the stream ended")
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return sseEv{}
}

func signUp(t *testing.T, c *client.Client) string {
	t.Helper()
	u := client.NewUser()
	u.SetUsername(fmt.Sprintf("journal%d", rand.Uint32()))
	u.SetPassword("pw")
	require.NoError(t, c.Users.SignUp(context.Background(), u))
	return u.SessionToken()
}

// An object changed several times while no bridge holds the stream comes back, on resume, as one update with its
// latest version (parse-server keeps no history to replay), with no snapshot; the changes after go on live.
func TestJournalResumeCollapsesUnrecorded(t *testing.T) {
	srv, c := journaled(t, 0)
	tok := signUp(t, c)
	run := fmt.Sprintf("collapse%d", rand.Uint32())
	o := parse.NewObject(liveClass)
	o.Set("run", run)
	o.Set("v", 0)
	require.NoError(t, c.Objects.Save(context.Background(), o))

	events, cancel := stream(t, srv, tok, run, "")
	snap := nextSSE(t, events)
	require.Equal(t, "snapshot", snap.name)
	assert.Contains(t, snap.data, o.ID())
	cancel()
	time.Sleep(200 * time.Millisecond) // the bridge sees the browser gone and stops recording
	for v := 1; v <= 3; v++ {
		o.Set("v", v)
		require.NoError(t, c.Objects.Save(context.Background(), o))
	}
	events, _ = stream(t, srv, tok, run, snap.id)
	ev := nextSSE(t, events)
	assert.Equal(t, "update", ev.name)
	assert.Contains(t, ev.data, `"v":3`)
	o.Set("v", 4)
	require.NoError(t, c.Objects.Save(context.Background(), o))
	ev2 := nextSSE(t, events)
	assert.Equal(t, "update", ev2.name)
	assert.Contains(t, ev2.data, `"v":4`)
	assert.NotEqual(t, ev.id, ev2.id)
}

// A Last-Event-ID the journal no longer holds (expired), one not of the journal's form, and one from another
// session's journal each get a resync event (no id), then a fresh snapshot with the current result set.
func TestJournalResync(t *testing.T) {
	srv, c := journaled(t, 300*time.Millisecond)
	tok, other := signUp(t, c), signUp(t, c)
	run := fmt.Sprintf("resync%d", rand.Uint32())
	events, cancel := stream(t, srv, tok, run, "")
	snap := nextSSE(t, events)
	require.Equal(t, "snapshot", snap.name)
	require.Regexp(t, `^[0-9a-f]{32}/[0-9]+-[0-9]+$`, snap.id)
	cancel()
	o := parse.NewObject(liveClass)
	o.Set("run", run)
	require.NoError(t, c.Objects.Save(context.Background(), o))

	// Another session presenting tok's id: the id names no journal of its own.
	events, cancel = stream(t, srv, other, run, snap.id)
	ev := nextSSE(t, events)
	assert.Equal(t, sseEv{name: "resync", data: `{"reason":"expired"}`}, ev)
	cancel()
	for _, id := range []string{"42", "zz/1-1", strings.Repeat("a", 32) + "/1-1x"} {
		events, cancel = stream(t, srv, tok, run, id)
		assert.Equal(t, sseEv{name: "resync", data: `{"reason":"unknown-event-id"}`}, nextSSE(t, events), id)
		cancel()
	}
	time.Sleep(600 * time.Millisecond) // past JournalTTL
	events, _ = stream(t, srv, tok, run, snap.id)
	assert.Equal(t, sseEv{name: "resync", data: `{"reason":"expired"}`}, nextSSE(t, events))
	fresh := nextSSE(t, events)
	assert.Equal(t, "snapshot", fresh.name)
	assert.Contains(t, fresh.data, o.ID())
	assert.NotEqual(t, snap.id[:32], fresh.id[:32], "a fresh journal")
}
