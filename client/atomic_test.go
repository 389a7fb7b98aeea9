package client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that, like parse-server 9.x on PostgreSQL, drops the connection after answering a rolled-back
// transaction: it answers 500 with "Connection: keep-alive" and then resets whatever request is written onto the
// connection next (a real server's destroy races with the client's next write; here the client always loses the
// race). A client that asked for the connection to be closed gets a clean close instead.
func TestAtomicFailureClosesItsConnection(t *testing.T) {
	c, mux := setup(t)
	var atomicAsked, resets, plainCalls atomic.Int32
	mux.HandleFunc("/parse/functions/moralisGoServerInfo", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusBadRequest, `{"code":141,"error":"Invalid function: \"moralisGoServerInfo\""}`) // a stock server
	})
	mux.HandleFunc("/parse/batch", func(w http.ResponseWriter, r *http.Request) {
		call := expect(t, r, http.MethodPost)
		reqs, _ := call.Params["requests"].([]any)
		if call.Params["transaction"] != true {
			plainCalls.Add(1)
			out := make([]string, len(reqs))
			for i := range reqs {
				out[i] = fmt.Sprintf(`{"success":{"objectId":"p%d","createdAt":"2026-01-01T00:00:00.000Z"}}`, i)
			}
			reply(w, http.StatusOK, "["+strings.Join(out, ",")+"]")
			return
		}
		atomicAsked.Add(1)
		wantsClose := r.Close
		conn, buf, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		body := `{"code":1,"message":"Internal server error."}`
		fmt.Fprintf(buf, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", len(body))
		if wantsClose {
			fmt.Fprintf(buf, "Connection: close\r\n\r\n%s", body)
			buf.Flush()
			conn.Close()
			return
		}
		fmt.Fprintf(buf, "Connection: keep-alive\r\n\r\n%s", body)
		buf.Flush()
		// Wait for the client's next request on this connection, then reset it unanswered.
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := bufio.NewReader(conn).Peek(1); err == nil {
			resets.Add(1)
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
		} else if err != io.EOF && !isTimeout(err) {
			t.Logf("waiting on the dropped connection: %v", err)
		}
		conn.Close()
	})

	objs := []*parse.Object{parse.NewObject("T"), parse.NewObject("T")}
	err := c.Objects.SaveAll(context.Background(), objs, Atomic())
	var be *BatchError
	require.ErrorAs(t, err, &be, "the rolled-back transaction is a failure")

	plain := []*parse.Object{parse.NewObject("T"), parse.NewObject("T")}
	require.NoError(t, c.Objects.SaveAll(context.Background(), plain), "the next call travels on a connection the server keeps")
	assert.Equal(t, int32(1), atomicAsked.Load())
	assert.Equal(t, int32(1), plainCalls.Load())
	assert.Zero(t, resets.Load(), "no call was written onto the dropped connection")
	for _, o := range plain {
		assert.NotEmpty(t, o.ID())
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// The second sequence, offline, on a backend without txMark: an atomic SaveAll of 3 new objects whose
// answer is lost after the commit leaves every create in doubt and held; the next atomic SaveAll is refused before
// anything is sent (never 6 rows); settled with the stored ids, it saves the edits as updates.
func TestAtomicHoldsACreateInDoubt(t *testing.T) {
	m := &memServer{serverIDs: true, loseAtomic: true}
	c, srv := memClient(t, m)
	ctx := context.Background()
	objs := newThings(t, 3)
	err := c.Objects.SaveAll(ctx, objs, Atomic())
	require.ErrorIs(t, err, parse.ErrWriteInDoubt)
	var ade *AtomicDoubtError
	require.ErrorAs(t, err, &ade)
	assert.False(t, ade.Applied)
	assert.Contains(t, ade.Reason, "txMark")
	require.Len(t, m.rows["Thing"], 3)
	m.loseAtomic = false

	editThings(t, objs)
	before := len(srv.requests())
	err = c.Objects.SaveAll(ctx, objs, Atomic())
	require.ErrorIs(t, err, ErrCreateHeld)
	assert.Contains(t, err.Error(), "item 0")
	assert.Equal(t, before, len(srv.requests()), "nothing sent")
	for _, o := range objs {
		id, _ := m.rowOf(o)
		require.NoError(t, c.Objects.Settle(ctx, o, id))
	}
	require.NoError(t, c.Objects.SaveAll(ctx, objs, Atomic()))
	assertIntended(t, m, objs)
}

// An atomic batch with a create released by Settle(ctx, obj, "") sends its first attempt in the transaction and
// the changes made since in one more atomic batch: the server ends with the edits, one row.
func TestAtomicSendsTheChangesMadeSinceAReleasedCreate(t *testing.T) {
	m := &memServer{serverIDs: true, loseOne: true, failClass: "Thing"}
	c, srv := memClient(t, m)
	ctx := context.Background()
	o := newThings(t, 1)[0]
	require.ErrorIs(t, c.Objects.Save(ctx, o), parse.ErrWriteInDoubt, "refused, but its answer lost: in doubt")
	m.loseOne, m.failClass = false, ""
	editThings(t, []*parse.Object{o})
	require.NoError(t, c.Objects.Settle(ctx, o, ""))
	before := len(srv.requests())
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{o}, Atomic()))
	assertIntended(t, m, []*parse.Object{o})
	batches := 0
	for _, r := range srv.requests()[before:] {
		if r.Path == "batch" && r.Body["transaction"] == true {
			batches++
		}
	}
	assert.Equal(t, 2, batches, "the first attempt, then the changes since")
	assert.Equal(t, []string{"POST Thing", "PUT Thing " + o.ID()}, m.writes)
}
