package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/store"
)

func TestQueueRefusesWhatItCannotReplaySafely(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory(store.Config{})
	defer s.Close()
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	_, err = store.NewQueue(s, store.QueueConfig{})
	require.ErrorIs(t, err, store.ErrQueueTaken)

	require.ErrorContains(t, q.SaveEventually(ctx, (*parse.Object)(nil)), "nil object")
	require.ErrorContains(t, q.SaveEventually(ctx, parse.NewObject("")), "no class name")
	require.ErrorContains(t, q.SaveEventually(ctx, parse.NewObject("_User")), `not the server's own`)
	require.ErrorContains(t, q.DestroyEventually(ctx, parse.NewObject("_Role")), `not the server's own`)
	err = q.DestroyEventually(ctx, parse.NewObject("Item"))
	require.ErrorIs(t, err, &parse.Error{Code: parse.CodeMissingObjectID})
	unsaved := parse.NewObject("Item")
	o := parse.NewObject("Item")
	require.NoError(t, o.Set("ref", unsaved))
	require.Error(t, q.SaveEventually(ctx, o), "a pointer to an object without an id")
	require.NoError(t, q.SaveEventually(ctx, parse.NewObjectWithID("Item", "abc")), "no changes: nothing queued")
	assert.Equal(t, 0, q.State().Len)
	_, err = q.Skip(ctx)
	require.ErrorIs(t, err, store.ErrQueueEmpty)
	require.ErrorContains(t, q.Replay(ctx, nil), "needs a client")
	_, err = store.NewQueue(s, store.QueueConfig{DedupWindow: -1})
	require.Error(t, err)

	require.NoError(t, s.Close())
	require.ErrorIs(t, q.SaveEventually(ctx, parse.NewObject("Item")), store.ErrNotEnabled)
}

func TestQueueKeepsWritesInOrderAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	s, err := store.Open(path, store.Config{AppID: "q"})
	require.NoError(t, err)
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	states, stop := q.Subscribe()
	assert.Equal(t, 0, (<-states).Len, "the channel first holds the current state")

	o := parse.NewObject("Item")
	require.NoError(t, o.Set("name", "a"))
	require.NoError(t, o.Set("n", 1))
	require.NoError(t, q.SaveEventually(ctx, o))
	require.Len(t, o.ID(), 10, "a create gets its id when it is queued")
	assert.False(t, o.Dirty(), "its changes count as saved")
	assert.Equal(t, "a", o.Get("name"))
	assert.Equal(t, 1, (<-states).Len)
	require.NoError(t, o.Increment("n", 2))
	require.NoError(t, q.SaveEventually(ctx, o))
	assert.EqualValues(t, 3, o.Get("n"), "the object shows the value it expects")
	require.NoError(t, q.DestroyEventually(ctx, o))
	stop()
	_, open := <-states
	for open { // drain what was sent before cancel
		_, open = <-states
	}
	before, err := q.Pending(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = store.Open(path, store.Config{AppID: "q"})
	require.NoError(t, err)
	defer s.Close()
	q, err = store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	assert.Equal(t, 3, q.State().Len)
	after, err := q.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, before, after, "the same writes, ids and request ids after a reopen")
	require.Len(t, after, 3)
	assert.Equal(t, []store.WriteKind{store.WriteCreate, store.WriteUpdate, store.WriteDelete}, []store.WriteKind{after[0].Kind, after[1].Kind, after[2].Kind})
	assert.Equal(t, o.ID(), after[0].Body["objectId"], "a create is sent with its id")
	assert.Equal(t, map[string]any{"__op": "Increment", "amount": json.Number("2")}, after[1].Body["n"], "an update sends its operations")
	assert.NotContains(t, after[1].Body, "name", "an update sends only what changed")
	ids := map[string]bool{}
	for i, w := range after {
		assert.Equal(t, uint64(i+1), w.Seq)
		assert.Equal(t, o.ID(), w.ObjectID)
		assert.NotEmpty(t, w.RequestID)
		assert.False(t, ids[w.RequestID], "one request id per write")
		ids[w.RequestID] = true
	}
	require.NoError(t, q.SaveEventually(ctx, parse.NewObject("Item")))
	more, err := q.Pending(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(4), more[3].Seq, "sequence numbers go on after a reopen")
}

// TestHelperProcessQueuesAndDies is not a test on its own: TestQueueSurvivesACrash runs it in a child process,
// which queues writes and exits abruptly, without closing the store.
func TestHelperProcessQueuesAndDies(t *testing.T) {
	path := os.Getenv("MORALIS_QUEUE_CRASH_FILE")
	if path == "" {
		return // only meaningful in the child process
	}
	s, err := store.Open(path, store.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	q, err := store.NewQueue(s, store.QueueConfig{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := range 50 {
		o := parse.NewObject("Crash")
		_ = o.Set("i", i)
		if err := q.SaveEventually(context.Background(), o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(3) // no Close
}

func TestQueueSurvivesACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessQueuesAndDies$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MORALIS_QUEUE_CRASH_FILE="+path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "output: %s", out)
	require.Equal(t, 3, ee.ExitCode(), "output: %s", out)
	s, err := store.Open(path, store.Config{})
	require.NoError(t, err)
	defer s.Close()
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	pending, err := q.Pending(context.Background())
	require.NoError(t, err)
	require.Len(t, pending, 50, "every queued write survived the crash")
	for i, w := range pending {
		assert.EqualValues(t, json.Number(fmt.Sprint(i)), w.Body["i"])
	}
}

// fakeParse answers creates like parse-server with idempotency and custom object ids, and records them: a
// repeated request id is a "Duplicate request" (159), an empty objectId is refused (the transport's
// deduplication probe), a taken objectId is a "duplicate value" (137), and GET reads a stored object.
type fakeParse struct {
	mu      sync.Mutex
	creates []map[string]any
	reqIDs  []string
	seen    map[string]bool
	byID    map[string]bool
}

func (f *fakeParse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	w.Header().Set("Content-Type", "application/json")
	refuse := func(code int, msg string) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"code":%d,"error":%q}`, code, msg)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen, f.byID = map[string]bool{}, map[string]bool{}
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/health"):
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	case strings.Contains(r.URL.Path, "/classes/Item/") && m["_method"] == "GET":
		id := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		if !f.byID[id] {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"code":101,"error":"Object not found."}`))
			return
		}
		_, _ = fmt.Fprintf(w, `{"objectId":%q}`, id)
	case strings.HasSuffix(r.URL.Path, "/classes/Item"):
		rid := r.Header.Get("X-Parse-Request-Id")
		id, _ := m["objectId"].(string)
		switch {
		case f.seen[rid]:
			refuse(159, "Duplicate request")
			return
		case id == "":
			f.seen[rid] = true
			refuse(104, "objectId must not be empty, null or undefined")
			return
		case f.byID[id]:
			f.seen[rid] = true
			refuse(137, "A duplicate value for a field with unique values was provided")
			return
		}
		f.seen[rid], f.byID[id] = true, true
		f.creates = append(f.creates, m)
		f.reqIDs = append(f.reqIDs, rid)
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, `{"objectId":%q,"createdAt":"2026-01-01T00:00:00.000Z"}`, id)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"code":101,"error":"not found"}`))
	}
}

// Run replays once the server answers: refused connections first, then a server on the same address.
func TestQueueRunReplaysWhenTheServerAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there yet
	c, err := client.New(client.Config{ServerURL: "http://" + addr + "/parse", AppID: "app", JavaScriptKey: "js"})
	require.NoError(t, err)

	s := store.NewMemory(store.Config{})
	defer s.Close()
	q, err := store.NewQueue(s, store.QueueConfig{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	require.NoError(t, err)
	for i := range 5 {
		o := parse.NewObject("Item")
		require.NoError(t, o.Set("i", i))
		require.NoError(t, q.SaveEventually(ctx, o))
	}
	pending, err := q.Pending(ctx)
	require.NoError(t, err)
	states, stop := q.Subscribe()
	defer stop()
	done := make(chan error, 1)
	go func() { done <- q.Run(ctx, c) }()
	for st := range states { // the server does not answer: the error shows, every write stays
		if st.LastError != nil {
			assert.Equal(t, 5, st.Len)
			break
		}
	}

	fake := &fakeParse{}
	srv := httptest.NewUnstartedServer(fake)
	l2, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	srv.Listener = l2
	srv.Start()
	defer srv.Close()
	for st := range states {
		if st.Len == 0 && !st.Replaying {
			break
		}
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	fake.mu.Lock()
	defer fake.mu.Unlock()
	require.Len(t, fake.creates, 5)
	for i, m := range fake.creates {
		assert.EqualValues(t, i, m["i"], "in queue order")
		assert.Equal(t, pending[i].ObjectID, m["objectId"])
		assert.Equal(t, pending[i].RequestID, fake.reqIDs[i], "the request id it was queued with")
	}
	assert.Equal(t, uint64(5), q.State().Replayed)
}

// BenchmarkQueueSaveEventually is the cost of queueing one create in a store file: one bbolt transaction,
// committed (fsync) before SaveEventually returns.
func BenchmarkQueueSaveEventually(b *testing.B) {
	s, err := store.Open(filepath.Join(b.TempDir(), "q.db"), store.Config{})
	require.NoError(b, err)
	defer s.Close()
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(b, err)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o := parse.NewObject("Bench")
		_ = o.Set("i", i)
		_ = o.Set("name", "a queued create")
		if err := q.SaveEventually(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
}

// SaveEventually follows the client's settle flow for a create in doubt: held (the server chose its id, which
// the lost answer held), it is refused with client.ErrCreateHeld and nothing is queued; released with
// Settle(ctx, obj, ""), it queues the first attempt as the create and the changes made since as an update of the
// same id, in that order, and the object then has nothing pending.
func TestSaveEventuallyFollowsTheSettleFlow(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway) // the create's answer is lost
	}))
	defer srv.Close()
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", MaxAttempts: 1})
	require.NoError(t, err)
	o := parse.NewObject("Item")
	require.NoError(t, o.Set("tag", "A"))
	require.ErrorIs(t, c.Objects.Save(ctx, o), parse.ErrWriteInDoubt)
	require.NoError(t, o.Set("tag", "B"))
	require.NoError(t, o.Increment("n", 2))

	s := store.NewMemory(store.Config{})
	defer s.Close()
	q, err := store.NewQueue(s, store.QueueConfig{})
	require.NoError(t, err)
	require.ErrorIs(t, q.SaveEventually(ctx, o), client.ErrCreateHeld)
	assert.Equal(t, 0, q.State().Len, "a held create queues nothing")

	require.NoError(t, c.Objects.Settle(ctx, o, ""))
	require.NoError(t, q.SaveEventually(ctx, o))
	pending, err := q.Pending(ctx)
	require.NoError(t, err)
	require.Len(t, pending, 2)
	assert.Equal(t, store.WriteCreate, pending[0].Kind)
	assert.Equal(t, "A", pending[0].Body["tag"], "the first attempt, as it was sent")
	assert.NotContains(t, pending[0].Body, "n")
	assert.Equal(t, store.WriteUpdate, pending[1].Kind)
	assert.Equal(t, pending[0].ObjectID, pending[1].ObjectID)
	assert.Equal(t, "B", pending[1].Body["tag"])
	assert.Contains(t, pending[1].Body, "n")
	assert.Equal(t, pending[0].ObjectID, o.ID())
	assert.Empty(t, o.DirtyKeys())
	assert.Equal(t, "B", o.String("tag"))
	assert.EqualValues(t, 2, o.Get("n"))
}
