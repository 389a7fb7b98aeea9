//go:build integration

package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
)

// /auth/live streams a live query to the signed-in user (the session from the same Bearer token or cookie as the
// auth endpoint), and refuses a request without a session. A sign-out of the session ends its stream with a last
// event that says so (the React hooks end the session at once on it, rather than reconnect or ask /me). Fails
// when the stream ends without it (tried: the signedOutEvent call removed: the stream ended after the create).
func TestLiveQueryBridge(t *testing.T) {
	env := devstack.MustLoad(t)
	m := map[string]string{"MORALIS_SERVER_URL": env.ServerURL, "MORALIS_APP_ID": env.AppID, "MORALIS_JS_KEY": env.JavaScriptKey,
		"MORALIS_LIVEQUERY_URL": env.LiveQueryURL}
	ctx := t.Context()
	srv := startServer(t, []string{"-static", t.TempDir()}, m)
	base, logb := srv.base, srv.logs
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	if err != nil {
		t.Fatal(err)
	}
	u := client.NewUser()
	u.SetUsername(fmt.Sprintf("liveuser%d", rand.Uint32()))
	u.SetPassword("pw")
	if err := c.Users.SignUp(ctx, u); err != nil {
		t.Fatal(err)
	}
	run := fmt.Sprintf("bridge%d", rand.Uint32())
	liveURL := base + "/auth/live?class=LiveItem&where=" + url.QueryEscape(`{"run":"`+run+`"}`)

	resp, err := http.Get(liveURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a session: %d, want 401", resp.StatusCode)
	}

	req, _ := http.NewRequestWithContext(ctx, "GET", liveURL, nil)
	req.Header.Set("Authorization", "Bearer "+u.SessionToken())
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("with a session: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), logb.String())
	}
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); err != nil || line != ": subscribed\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	o := parse.NewObject("LiveItem")
	o.Set("run", run)
	o.SetACL(parse.NewUserACL(u.ID()))
	if err := c.WithSessionToken(u.SessionToken()).Objects.Save(ctx, o); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var event, data string
	for time.Now().Before(deadline) && (event == "" || data == "" || event == "snapshot") {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(line, "event: "):
			event, data = strings.TrimSpace(strings.TrimPrefix(line, "event: ")), ""
		case strings.HasPrefix(line, "data: "):
			data = line
		}
	}
	if event != "create" || !strings.Contains(data, o.ID()) {
		t.Fatalf("event %q data %q, want a create of %s", event, data, o.ID())
	}

	out, _ := http.NewRequestWithContext(ctx, "POST", base+"/auth/signout", nil)
	out.Header.Set("Authorization", "Bearer "+u.SessionToken())
	oresp, err := http.DefaultClient.Do(out)
	if err != nil {
		t.Fatal(err)
	}
	oresp.Body.Close()
	if oresp.StatusCode != 200 {
		t.Fatalf("sign-out: %d", oresp.StatusCode)
	}
	stop := time.AfterFunc(10*time.Second, func() { resp.Body.Close() }) // the stream must end well before
	defer stop.Stop()
	var rest strings.Builder
	for {
		line, err := r.ReadString('\n')
		if strings.HasPrefix(line, "event: ") || strings.HasPrefix(line, "data: ") {
			rest.WriteString(line)
		}
		if err != nil {
			break
		}
	}
	const want = "event: error\n" + `data: {"code":209,"error":"Invalid session token","reason":"signedOut"}` + "\n"
	if !strings.HasSuffix(rest.String(), want) {
		t.Fatalf("the stream's last event after the sign-out:\n%s\nwant it to end with\n%s", rest.String(), want)
	}
}
