//go:build integration

package store_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// parseInstance is a parse-server of the test's own (over the stack's database, without LiveQuery), so that
// killing it disturbs no other test.
type parseInstance struct {
	t    *testing.T
	env  devstack.Env
	port int
	cmd  *exec.Cmd
	log  *bytes.Buffer
	URL  string
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the working directory")
		dir = parent
	}
}

func startParseInstance(t *testing.T) *parseInstance {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	p := &parseInstance{t: t, env: devstack.MustLoad(t), port: port, URL: fmt.Sprintf("http://127.0.0.1:%d/parse", port)}
	p.launch()
	t.Cleanup(p.kill)
	return p
}

// launch starts the node process; waitHealthy waits until it answers /health.
func (p *parseInstance) launch() {
	t := p.t
	t.Helper()
	root := repoRoot(t)
	state := os.Getenv("MORALIS_DEVSTACK_STATE")
	if state == "" {
		state = filepath.Join(root, ".devstack")
	}
	cmd := exec.Command("node", filepath.Join(root, "internal", "devstack", "app", "index.js")) // the stack's app, as up.sh runs it
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(state, "server", "node_modules"),
		fmt.Sprintf("DEVSTACK_PORT=%d", p.port), "DEVSTACK_APP_ID="+p.env.AppID, "DEVSTACK_JS_KEY="+p.env.JavaScriptKey,
		"DEVSTACK_MASTER_KEY="+p.env.MasterKey, "DEVSTACK_DATABASE_URI="+p.env.PGURL, "DEVSTACK_MAIL_FILE="+p.env.MailFile,
		"DEVSTACK_LIVEQUERY=0", "DEVSTACK_IDEMPOTENCY_PURGE_SECONDS=0", "DEVSTACK_LOG_LEVEL=error")
	p.log = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	require.NoError(t, cmd.Start())
	p.cmd = cmd
}

func (p *parseInstance) waitHealthy() {
	t := p.t
	t.Helper()
	deadline := time.Now().Add(150 * time.Second) // start-up takes seconds, but the machine may be loaded
	for {
		resp, err := http.Get(p.URL + "/health")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && strings.Contains(string(body), "ok") {
				return
			}
		}
		if time.Now().After(deadline) {
			p.kill()
			t.Fatalf("parse-server on port %d did not answer /health in 150 s:\n%s", p.port, p.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill sends SIGKILL to the instance (if running) and waits for it.
func (p *parseInstance) kill() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
	p.cmd = nil
}

// forward listens on 127.0.0.1:from (free again after a kill) and relays every connection to 127.0.0.1:to.
func forward(t *testing.T, from, to int) {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", from))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", to))
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in); _ = out.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
}

func queueClient(t testing.TB, url string, hc *http.Client) *client.Client {
	t.Helper()
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: url, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey, HTTPClient: hc})
	require.NoError(t, err)
	return c
}

// forgetRequestIDs deletes the server's memory of the given request ids, as the end of its idempotency ttl
// would (parse-server keeps them 300 s here; an offline period is longer).
func forgetRequestIDs(t *testing.T, ids ...string) {
	t.Helper()
	env := devstack.MustLoad(t)
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = "'" + strings.ReplaceAll(id, "'", "''") + "'"
	}
	out, err := exec.Command("psql", env.PGURL, "-v", "ON_ERROR_STOP=1", "-qAtc",
		`DELETE FROM "_Idempotency" WHERE "reqId" IN (`+strings.Join(quoted, ",")+`) RETURNING 1`).CombinedOutput()
	require.NoError(t, err, "%s", out)
	// Not asserted: the rows are there only if the writes carried these ids, which the writes' results check.
	t.Logf("forgot %d of %d request ids", strings.Count(string(out), "1"), len(ids))
}

// stopAfter is an http.RoundTripper that, once a request whose URL or body contains marker has been answered
// (the answer read, so the server has applied the write), prints "BLOCKED" and blocks for ever: the process
// is killed there, between the server's answer and the queue's record of it.
type stopAfter struct {
	marker string
	base   http.RoundTripper
}

func (s stopAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := s.base.RoundTrip(req)
	if err == nil && (strings.Contains(req.URL.Path, s.marker) || bytes.Contains(body, []byte(s.marker))) {
		_, _ = io.ReadAll(resp.Body)
		fmt.Println("BLOCKED")
		select {} // killed here
	}
	return resp, err
}

// TestHelperQueueReplay is not a test on its own: TestIntegrationQueueReplayExactlyOnce runs it in child
// processes, which replay the queue file and die (SIGKILL) where the parent decides.
func TestHelperQueueReplay(t *testing.T) {
	path := os.Getenv("MORALIS_QUEUE_FILE")
	if path == "" {
		return // only meaningful in the child process
	}
	hc := &http.Client{Transport: http.DefaultTransport}
	if m := os.Getenv("MORALIS_QUEUE_STOP_AFTER"); m != "" {
		hc.Transport = stopAfter{marker: m, base: http.DefaultTransport}
	}
	c := queueClient(t, os.Getenv("MORALIS_QUEUE_URL"), hc)
	s, err := store.Open(path, store.Config{AppID: c.AppID()})
	require.NoError(t, err)
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	fmt.Printf("START %d\n", q.State().Len)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = q.Replay(ctx, c)
	st := q.State()
	fmt.Printf("END len=%d replayed=%d paused=%q err=%v\n", st.Len, st.Replayed, st.Paused, err)
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

// runReplayChild runs TestHelperQueueReplay; with a marker it waits for "BLOCKED" and kills the child with
// SIGKILL, else it waits for the child to finish the queue.
func runReplayChild(t *testing.T, file, url, marker string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperQueueReplay$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "MORALIS_QUEUE_FILE="+file, "MORALIS_QUEUE_URL="+url, "MORALIS_QUEUE_STOP_AFTER="+marker)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var lines []string
	blocked := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "BLOCKED" {
			blocked = true
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			break
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	out := strings.Join(lines, "\n")
	if marker != "" {
		require.True(t, blocked, "the child should have stopped after %q; it said:\n%s\n%s", marker, out, stderr.String())
		t.Logf("child killed with SIGKILL after the answer to %q (%s)", marker, lines[0])
		return
	}
	require.NoError(t, werr, "child:\n%s\n%s", out, stderr.String())
	t.Logf("child finished: %s", lines[len(lines)-1])
}

// The queue's crash test: parse-server is killed, 100 creates, 100 updates (increments) and 20 deletes are
// queued, a parse-server comes back on the address (a second process, started early to overlap the start-ups), and the replaying process is killed twice with SIGKILL right after the
// server answered a write and before the queue recorded it: once after a create (whose request id the server
// has forgotten since, as after a long offline period: settled by its object id, "duplicate value", read back)
// and once after an increment (settled by its request id, "duplicate request"). A third process finishes:
// exactly the intended rows, each increment applied once, no duplicate, nothing lost.
func TestIntegrationQueueReplayExactlyOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	phase := func(what string) { t.Logf("%-40s %v", what, time.Since(began).Round(time.Millisecond)) }
	// Two parse-server processes of the test's own start while the objects are seeded through the stack's server
	// (same database): srv, killed before the writes are queued, and next, which takes over srv's address once
	// the writes are queued, as a restarted server would (started early only to overlap their start-ups).
	srv := startParseInstance(t)
	next := startParseInstance(t)
	master := queueClient(t, devstack.MustLoad(t).ServerURL, nil).WithMasterKey()
	class := uniqueClass("Eventually")

	// 100 objects on the server to update and delete.
	seeded := make([]*parse.Object, 100)
	for i := range seeded {
		o := parse.NewObject(class)
		require.NoError(t, o.Set("i", i))
		require.NoError(t, o.Set("kind", "seeded"))
		require.NoError(t, o.Set("n", 0))
		seeded[i] = o
	}
	require.NoError(t, master.Objects.SaveAll(ctx, seeded))

	phase("100 objects seeded")
	srv.waitHealthy()
	phase("own parse-server started")
	srv.kill() // the server is gone while the writes are queued
	file := filepath.Join(t.TempDir(), "queue.db")
	c := queueClient(t, srv.URL, nil)
	s, err := store.Open(file, store.Config{AppID: c.AppID()})
	require.NoError(t, err)
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	created := make([]*parse.Object, 100)
	for i := range created {
		o := parse.NewObject(class)
		require.NoError(t, o.Set("i", i))
		require.NoError(t, o.Set("kind", "created"))
		require.NoError(t, o.Set("n", 0))
		require.NoError(t, q.SaveEventually(ctx, o))
		require.NotEmpty(t, o.ID(), "a queued create has its id at once")
		assert.Empty(t, o.DirtyKeys())
		created[i] = o
	}
	for i := range 50 { // 50 increments of seeded objects and 50 of queued creates (after their creates)
		for _, o := range []*parse.Object{seeded[i], created[i]} {
			require.NoError(t, o.Increment("n", 1))
			require.NoError(t, q.SaveEventually(ctx, o))
		}
	}
	for i := 90; i < 100; i++ {
		require.NoError(t, q.DestroyEventually(ctx, seeded[i]))
		require.NoError(t, q.DestroyEventually(ctx, created[i]))
	}
	require.Equal(t, 220, q.State().Len)
	phase("220 writes queued")

	// With the server down a replay fails, keeps every write and says why.
	states, stop := q.Subscribe()
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Second)
	err = q.Replay(rctx, c)
	rcancel()
	require.Error(t, err)
	st := q.State()
	assert.Equal(t, 220, st.Len)
	assert.Equal(t, store.NotPaused, st.Paused)
	require.Error(t, st.LastError)
	last := <-states
	assert.Equal(t, 220, last.Len)
	stop()
	pending, err := q.Pending(ctx)
	require.NoError(t, err)
	require.Len(t, pending, 220)
	require.NoError(t, s.Close())
	phase("replay with the server down refused")

	next.waitHealthy()
	forward(t, srv.port, next.port) // the server is back on its address
	phase("parse-server restarted")
	// First replaying process: killed after the server answered the 50th create.
	createMarker := `"objectId":"` + created[49].ID() + `"`
	runReplayChild(t, file, srv.URL, createMarker)
	// As after an offline period longer than the idempotency ttl: the server forgets that create's request id.
	phase("child 1 killed")
	forgetRequestIDs(t, pending[49].RequestID)
	// Second: killed after the server answered the increment of created[10].
	runReplayChild(t, file, srv.URL, "/classes/"+class+"/"+created[10].ID())
	phase("child 2 killed")
	// Third: finishes.
	runReplayChild(t, file, srv.URL, "")
	phase("child 3 finished the queue")

	rows, err := query.New[*parse.Object](class).Limit(1000).Find(ctx, master)
	require.NoError(t, err)
	want := map[string]int{}
	for i := range 90 {
		n := 0
		if i < 50 {
			n = 1
		}
		want[fmt.Sprintf("seeded %d", i)] = n
		want[fmt.Sprintf("created %d", i)] = n
	}
	got := map[string]int{}
	ids := map[string]string{}
	for _, r := range rows {
		name := fmt.Sprintf("%v %v", r.Get("kind"), r.Get("i"))
		_, dup := got[name]
		assert.False(t, dup, "row %s stored twice", name)
		n, _ := r.Get("n").(float64)
		got[name] = int(n)
		ids[name] = r.ID()
	}
	assert.Equal(t, want, got, "exactly the intended rows, each increment applied once")
	for i := range 90 {
		assert.Equal(t, created[i].ID(), ids[fmt.Sprintf("created %d", i)], "a queued create keeps the id it was given")
	}

	s, err = store.Open(file, store.Config{AppID: c.AppID()})
	require.NoError(t, err)
	defer s.Close()
	q, err = store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	assert.Equal(t, 0, q.State().Len)
}

// The conflict rule, last writer wins by field: a queued update sends only the fields it changed, so the fields
// another client changed on the server since stay as that client left them, and a field both changed takes the
// queued value (the queued write is the later one).
func TestIntegrationQueueConflictLastWriterWinsByField(t *testing.T) {
	ctx := t.Context()
	env := devstack.MustLoad(t)
	c := queueClient(t, env.ServerURL, nil)
	class := uniqueClass("EventuallyConflict")
	o := parse.NewObject(class)
	require.NoError(t, o.Set("a", 1))
	require.NoError(t, o.Set("b", 1))
	require.NoError(t, o.Set("c", 1))
	require.NoError(t, c.Objects.Save(ctx, o))

	q, _ := memoryQueue(t)
	require.NoError(t, o.Set("a", 3)) // queued while offline
	require.NoError(t, o.Set("b", 5))
	require.NoError(t, q.SaveEventually(ctx, o))

	other := parse.NewObjectWithID(class, o.ID()) // meanwhile, another client
	require.NoError(t, other.Set("a", 2))
	require.NoError(t, other.Set("c", 9))
	require.NoError(t, c.Objects.Save(ctx, other))

	require.NoError(t, q.Replay(ctx, c))
	back, err := c.Objects.Get(ctx, class, o.ID())
	require.NoError(t, err)
	assert.EqualValues(t, 3, back.Get("a"), "a field both changed: the queued value")
	assert.EqualValues(t, 5, back.Get("b"), "a field only the queue changed")
	assert.EqualValues(t, 9, back.Get("c"), "a field only the server changed keeps the server's value")
}

func memoryQueue(t *testing.T) (*store.Queue, *store.Store) {
	t.Helper()
	s := store.NewMemory(store.Config{})
	t.Cleanup(func() { _ = s.Close() })
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	return q, s
}

// An invalid session pauses the queue and keeps every write; signed in again, Resume replays them.
func TestIntegrationQueueInvalidSessionPauses(t *testing.T) {
	ctx := t.Context()
	env := devstack.MustLoad(t)
	c := queueClient(t, env.ServerURL, nil)
	class := uniqueClass("EventuallySession")
	q, _ := memoryQueue(t)
	for i := range 3 {
		o := parse.NewObject(class)
		require.NoError(t, o.Set("i", i))
		require.NoError(t, q.SaveEventually(ctx, o))
	}
	states, stop := q.Subscribe()
	defer stop()
	err := q.Replay(ctx, c.WithSessionToken("r:expired0000000000000000000000"))
	require.ErrorIs(t, err, store.ErrQueuePaused)
	require.ErrorIs(t, err, parse.ErrInvalidSessionToken)
	st := q.State()
	assert.Equal(t, store.PausedSession, st.Paused)
	assert.Equal(t, 3, st.Len, "nothing dropped")
	require.NotNil(t, st.Head)
	assert.Equal(t, store.WriteCreate, st.Head.Kind)
	seen := <-states
	assert.Equal(t, store.PausedSession, seen.Paused, "subscribers see the pause")

	// Paused: a replay sends nothing, even with a good client.
	require.ErrorIs(t, q.Replay(ctx, c), store.ErrQueuePaused)
	rows, err := query.New[*parse.Object](class).Find(ctx, c.WithMasterKey()) // (Count without a where is an estimate on PostgreSQL)
	require.NoError(t, err)
	assert.Empty(t, rows)

	require.NoError(t, q.Resume(ctx))
	require.NoError(t, q.Replay(ctx, c))
	assert.Equal(t, 0, q.State().Len)
	rows, err = query.New[*parse.Object](class).Find(ctx, c.WithMasterKey())
	require.NoError(t, err)
	assert.Len(t, rows, 3)
}

// A write the server refuses (an update of an object deleted there) pauses the queue with the reason; the writes
// behind it wait (order kept), and Skip drops the refused one.
func TestIntegrationQueueRefusedWritePausesUntilSkipped(t *testing.T) {
	ctx := t.Context()
	env := devstack.MustLoad(t)
	c := queueClient(t, env.ServerURL, nil)
	class := uniqueClass("EventuallyRefused")
	gone := parse.NewObject(class)
	require.NoError(t, gone.Set("a", 1))
	require.NoError(t, c.Objects.Save(ctx, gone))
	q, _ := memoryQueue(t)
	require.NoError(t, gone.Set("a", 2))
	require.NoError(t, q.SaveEventually(ctx, gone))
	after := parse.NewObject(class)
	require.NoError(t, after.Set("a", 3))
	require.NoError(t, q.SaveEventually(ctx, after))
	require.NoError(t, c.Objects.Destroy(ctx, parse.NewObjectWithID(class, gone.ID())))

	err := q.Replay(ctx, c)
	require.ErrorIs(t, err, store.ErrQueuePaused)
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	st := q.State()
	assert.Equal(t, store.PausedRefused, st.Paused)
	assert.Equal(t, 2, st.Len)
	assert.Equal(t, gone.ID(), st.Head.ObjectID)

	skipped, err := q.Skip(ctx)
	require.NoError(t, err)
	assert.Equal(t, store.WriteUpdate, skipped.Kind)
	require.NoError(t, q.Replay(ctx, c))
	_, err = c.Objects.Get(ctx, class, after.ID())
	require.NoError(t, err, "the write behind the refused one went out after Skip")
}

// An increment whose answer was lost, once the server's request-id window is over, is not sent again blindly:
// the queue pauses (in doubt) and the increment stays applied once.
func TestIntegrationQueueIncrementInDoubtAfterWindowPauses(t *testing.T) {
	ctx := t.Context()
	env := devstack.MustLoad(t)
	c := queueClient(t, env.ServerURL, nil)
	class := uniqueClass("EventuallyDoubt")
	o := parse.NewObject(class)
	require.NoError(t, o.Set("n", 0))
	require.NoError(t, c.Objects.Save(ctx, o))

	var offset atomic.Int64
	s := store.NewMemory(store.Config{})
	defer s.Close()
	q, err := store.NewQueue(s, store.QueueConfig{Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	require.NoError(t, err)
	require.NoError(t, o.Increment("n", 1))
	require.NoError(t, q.SaveEventually(ctx, o))
	pending, err := q.Pending(ctx)
	require.NoError(t, err)

	// The answer to the increment is lost, and the network stays down.
	var lost atomic.Bool
	cut := queueClient(t, env.ServerURL, &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if lost.Load() {
			return nil, errors.New("network down")
		}
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && strings.Contains(r.URL.Path, o.ID()) {
			_, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			lost.Store(true)
			return nil, io.ErrUnexpectedEOF
		}
		return resp, err
	})})
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	err = q.Replay(rctx, cut)
	rcancel()
	require.Error(t, err)
	require.True(t, lost.Load(), "the increment reached the server")
	assert.Equal(t, 1, q.State().Len)

	// Ten minutes later (the server forgot the request id, as its ttl says) the server answers again.
	offset.Store(int64(10 * time.Minute))
	forgetRequestIDs(t, pending[0].RequestID)
	rerr := q.Replay(ctx, c)
	back, err := c.Objects.Get(ctx, class, o.ID())
	require.NoError(t, err)
	assert.EqualValues(t, 1, back.Get("n"), "applied once, not twice")
	require.ErrorIs(t, rerr, store.ErrQueuePaused)
	assert.Equal(t, store.PausedInDoubt, q.State().Paused)
	_, err = q.Skip(ctx) // the object shows it applied
	require.NoError(t, err)
	assert.Equal(t, 0, q.State().Len)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
