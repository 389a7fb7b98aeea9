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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSSEBridge(t *testing.T) {
	env, c := setup(t)
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
		AllowedClasses: []string{liveClass},
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	u := client.NewUser()
	u.SetUsername(fmt.Sprintf("sse%d", rand.Uint32()))
	u.SetPassword("pw")
	require.NoError(t, c.Users.SignUp(context.Background(), u))
	run := fmt.Sprintf("sse%d", rand.Uint32())

	get := func(query string, session string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+"/live?"+query, nil)
		if session != "" {
			req.Header.Set("X-Test-Session", session)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		return resp
	}
	// Refusals.
	for _, c := range []struct {
		q, session string
		status     int
	}{
		{"class=" + liveClass, "", 401},
		{"class=bad-name", u.SessionToken(), 400},
		{"class=Other", u.SessionToken(), 403},
		{"class=" + liveClass + "&where=notjson", u.SessionToken(), 400},
	} {
		resp := get(c.q, c.session)
		resp.Body.Close()
		assert.Equal(t, c.status, resp.StatusCode, c.q)
	}

	where, _ := json.Marshal(map[string]any{"run": run})
	resp := get("class="+liveClass+"&where="+url.QueryEscape(string(where)), u.SessionToken())
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": subscribed\n", line)

	o := parse.NewObject(liveClass)
	o.Set("run", run)
	o.Set("v", 1)
	require.NoError(t, c.Objects.Save(context.Background(), o))
	o.Set("v", 2)
	require.NoError(t, c.Objects.Save(context.Background(), o))

	type sse struct {
		name string
		data map[string]any
	}
	read := func() sse {
		var ev sse
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data))
			case line == "" && ev.name != "":
				return ev
			}
		}
		t.Fatal("no event")
		return ev
	}
	ev := read() // the stream starts with the current result set: nothing yet
	assert.Equal(t, "snapshot", ev.name)
	assert.Equal(t, []any{}, ev.data["objects"])
	ev = read()
	assert.Equal(t, "create", ev.name)
	assert.Equal(t, o.ID(), ev.data["object"].(map[string]any)["objectId"])
	ev = read()
	assert.Equal(t, "update", ev.name)
	assert.Equal(t, float64(2), ev.data["object"].(map[string]any)["v"])
	assert.Equal(t, float64(1), ev.data["original"].(map[string]any)["v"])
}
