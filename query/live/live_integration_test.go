//go:build integration

package live_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The local stack serves LiveQuery for these classes (internal/devstack, MORALIS_LIVEQUERY_CLASSES).
const liveClass = "LiveItem"

func setup(t *testing.T) (devstack.Env, *client.Client) {
	env := devstack.MustLoad(t)
	require.NotEmpty(t, env.LiveQueryURL, "the local stack has no LiveQuery URL")
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	return env, c
}

func TestEveryEventKind(t *testing.T) {
	ctx := context.Background()
	env, c := setup(t)
	run := fmt.Sprintf("run%d", rand.Uint32())
	lc, err := live.Dial(ctx, live.Config{URL: env.LiveQueryURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, Runner: c})
	require.NoError(t, err)
	defer lc.Close()
	sub, err := lc.Subscribe(ctx, liveClass, map[string]any{"run": run, "score": map[string]any{"$gte": 10}}, nil)
	require.NoError(t, err)

	o := parse.NewObject(liveClass)
	o.Set("run", run)
	o.Set("score", 20)
	require.NoError(t, c.Objects.Save(ctx, o))
	ev := next(t, sub)
	assert.Equal(t, live.Create, ev.Kind)
	assert.Equal(t, o.ID(), ev.Object.ID())
	assert.Equal(t, float64(20), ev.Object.Get("score"))

	o.Set("score", 30)
	require.NoError(t, c.Objects.Save(ctx, o))
	ev = next(t, sub)
	assert.Equal(t, live.Update, ev.Kind)
	assert.Equal(t, float64(30), ev.Object.Get("score"))
	require.NotNil(t, ev.Original)
	assert.Equal(t, float64(20), ev.Original.Get("score"))

	o.Set("score", 1)
	require.NoError(t, c.Objects.Save(ctx, o))
	ev = next(t, sub)
	assert.Equal(t, live.Leave, ev.Kind)

	o.Set("score", 11)
	require.NoError(t, c.Objects.Save(ctx, o))
	ev = next(t, sub)
	assert.Equal(t, live.Enter, ev.Kind)

	require.NoError(t, c.Objects.Destroy(ctx, o))
	ev = next(t, sub)
	assert.Equal(t, live.Delete, ev.Kind)
	assert.Equal(t, o.ID(), ev.Object.ID())

	require.NoError(t, sub.Unsubscribe())
	_, open := <-sub.Events()
	assert.False(t, open, "Unsubscribe closes the channel")
}

func TestACLsAreRespected(t *testing.T) {
	ctx := context.Background()
	env, c := setup(t)
	run := fmt.Sprintf("acl%d", rand.Uint32())
	signUp := func(name string) *client.User {
		dev, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, InstallationID: name})
		require.NoError(t, err)
		u := client.NewUser()
		u.SetUsername(name)
		u.SetPassword("pw")
		require.NoError(t, dev.Users.SignUp(ctx, u))
		return u
	}
	alice, bob := signUp(run+"alice"), signUp(run+"bob")
	lc, err := live.Dial(ctx, live.Config{URL: env.LiveQueryURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		SessionToken: alice.SessionToken(), Runner: c.WithSessionToken(alice.SessionToken())})
	require.NoError(t, err)
	defer lc.Close()
	sub, err := lc.Subscribe(ctx, liveClass, map[string]any{"run": run}, nil)
	require.NoError(t, err)

	secret := parse.NewObject(liveClass)
	secret.Set("run", run)
	secret.Set("name", "bob's")
	secret.SetACL(parse.NewUserACL(bob.ID()))
	require.NoError(t, c.WithSessionToken(bob.SessionToken()).Objects.Save(ctx, secret))
	shared := parse.NewObject(liveClass)
	shared.Set("run", run)
	shared.Set("name", "alice's")
	shared.SetACL(parse.NewUserACL(alice.ID()))
	require.NoError(t, c.WithSessionToken(alice.SessionToken()).Objects.Save(ctx, shared))

	ev := next(t, sub)
	assert.Equal(t, shared.ID(), ev.Object.ID(), "alice sees only her own object; bob's came first and was not sent")
	select {
	case ev := <-sub.Events():
		t.Fatalf("unexpected event %s for %s", ev.Kind, ev.Object.ID())
	case <-time.After(300 * time.Millisecond):
	}
}

func TestBadQueryReachesTheSubscriber(t *testing.T) {
	ctx := context.Background()
	env, c := setup(t)
	lc, err := live.Dial(ctx, live.Config{URL: env.LiveQueryURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, Runner: c})
	require.NoError(t, err)
	defer lc.Close()
	_, err = lc.Subscribe(ctx, liveClass, map[string]any{"$or": "x"}, nil)
	var se *live.ServerError
	require.ErrorAs(t, err, &se, "the server's error reaches the subscriber")
	assert.Equal(t, 102, int(se.Code))
	assert.Equal(t, "$or must be an array", se.Message)
	// The connection survives a refused subscription.
	sub, err := lc.Subscribe(ctx, liveClass, map[string]any{"run": "still-works"}, nil)
	require.NoError(t, err)
	require.NoError(t, sub.Unsubscribe())
	_, err = lc.Subscribe(ctx, "", nil, nil)
	assert.Error(t, err)
	_, err = lc.Subscribe(ctx, liveClass, map[string]any{"bad": func() {}}, nil)
	assert.Error(t, err)
	_, err = live.Dial(ctx, live.Config{URL: "http://x", AppID: "a"})
	assert.Error(t, err)
}

// cutProxy forwards TCP to a target and can cut every connection and refuse new ones for a while.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	down   bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{ln: ln, target: target}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			down := p.down
			p.mu.Unlock()
			if down {
				in.Close()
				continue
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); p.cut(true) })
	return p
}

func (p *cutProxy) cut(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *cutProxy) restore() { p.mu.Lock(); p.down = false; p.mu.Unlock() }

func ids(objs []*parse.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.ID()
	}
	sort.Strings(out)
	return out
}

// The connection is cut while objects change; after the reconnect the caller's view equals a fresh query's answer.
func TestReconnectCatchesUp(t *testing.T) {
	ctx := context.Background()
	env, c := setup(t)
	u, err := url.Parse(env.LiveQueryURL)
	require.NoError(t, err)
	proxy := newCutProxy(t, u.Host)
	run := fmt.Sprintf("cut%d", rand.Uint32())
	lc, err := live.Dial(ctx, live.Config{URL: "ws://" + proxy.ln.Addr().String() + u.Path, AppID: env.AppID,
		JavaScriptKey: env.JavaScriptKey, Runner: c, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	require.NoError(t, err)
	defer lc.Close()

	// Three objects exist before; the caller's view is the snapshot plus events.
	var before []*parse.Object
	for i := 0; i < 3; i++ {
		o := parse.NewObject(liveClass)
		o.Set("run", run)
		o.Set("n", i)
		require.NoError(t, c.Objects.Save(ctx, o))
		before = append(before, o)
	}
	sub, err := lc.Subscribe(ctx, liveClass, map[string]any{"run": run}, nil)
	require.NoError(t, err)
	view := map[string]*parse.Object{}
	for _, o := range sub.Snapshot() {
		view[o.ID()] = o
	}
	require.Len(t, view, 3)

	proxy.cut(true)
	waitState(t, lc, live.Disconnected)
	// While disconnected: one created, one updated, one deleted, one moved out of the query.
	added := parse.NewObject(liveClass)
	added.Set("run", run)
	require.NoError(t, c.Objects.Save(ctx, added))
	before[0].Set("n", 100)
	require.NoError(t, c.Objects.Save(ctx, before[0]))
	require.NoError(t, c.Objects.Destroy(ctx, before[1]))
	before[2].Set("run", "elsewhere")
	require.NoError(t, c.Objects.Save(ctx, before[2]))
	proxy.restore()
	waitState(t, lc, live.Connected)

	deadline := time.After(10 * time.Second)
	for len(view) != 2 || view[before[0].ID()] == nil || view[before[0].ID()].Int("n") != 100 || view[added.ID()] == nil {
		select {
		case ev := <-sub.Events():
			require.NotEqual(t, live.Error, ev.Kind, "%v", ev.Err)
			switch ev.Kind {
			case live.Create, live.Enter, live.Update:
				view[ev.Object.ID()] = ev.Object
			case live.Leave, live.Delete:
				delete(view, ev.Object.ID())
			}
		case <-deadline:
			t.Fatalf("view did not converge: %v", view)
		}
	}
	// The view equals a fresh query's answer.
	resp, err := c.RunQuery(ctx, &parse.QueryRequest{ClassName: liveClass, Op: "find", Params: map[string]any{"where": map[string]any{"run": run}}})
	require.NoError(t, err)
	var fresh []string
	for _, raw := range resp.Results {
		o := parse.NewObject(liveClass)
		require.NoError(t, o.UnmarshalJSON(raw))
		fresh = append(fresh, o.ID())
	}
	sort.Strings(fresh)
	var got []*parse.Object
	for _, o := range view {
		got = append(got, o)
	}
	assert.Equal(t, fresh, ids(got))

	// Live events flow again after the reconnect.
	later := parse.NewObject(liveClass)
	later.Set("run", run)
	require.NoError(t, c.Objects.Save(ctx, later))
	for {
		ev := next(t, sub)
		if ev.Object.ID() == later.ID() {
			assert.Equal(t, live.Create, ev.Kind)
			break
		}
	}
}

func waitState(t *testing.T, lc *live.Client, want live.State) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s := <-lc.States():
			if s == want {
				return
			}
		case <-deadline:
			t.Fatalf("state %s not reached", want)
		}
	}
}
