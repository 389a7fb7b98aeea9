package client

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// When the read back of an array field whose save answer was not taken fails, Save says so (the save itself
// was applied), the field keeps the local result, and the next Save, with nothing to send, reads it back.
func TestFailedReadBackIsReportedAndRetried(t *testing.T) {
	c, mux := setup(t)
	var readOK atomic.Bool
	var puts, gets atomic.Int32
	mux.HandleFunc("/parse/classes/Thing/t1", func(w http.ResponseWriter, r *http.Request) {
		call := readCall(t, r)
		w.Header().Set("Content-Type", "application/json")
		switch call.Method {
		case "PUT":
			puts.Add(1)
			io.WriteString(w, `{"updatedAt":"2026-01-01T00:00:01.000Z","arr":["a"]}`) // the stand-in
		case "GET":
			gets.Add(1)
			assert.Equal(t, "arr", call.Params["keys"])
			if !readOK.Load() {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"code":141,"error":"not now"}`)
				return
			}
			io.WriteString(w, `{"objectId":"t1","updatedAt":"2026-01-01T00:00:02.000Z","arr":["a","b","x"]}`)
		default:
			t.Errorf("unexpected %s", call.Method)
		}
	})
	ctx := context.Background()
	o := parse.NewObjectWithID("Thing", "t1")
	require.NoError(t, objstate.Of(o).MergeServer(map[string]any{"objectId": "t1", "arr": []any{"a", "b"}}))
	require.NoError(t, o.AddUnique("arr", "a"))
	err := c.Objects.Save(ctx, o)
	require.ErrorContains(t, err, "Thing t1 was saved, but reading back arr failed")
	var pe *parse.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []any{"a", "b"}, o.Get("arr"), "the local result, not the stand-in")
	assert.Empty(t, o.DirtyKeys(), "the sent change is not pending: it was applied")
	readOK.Store(true)
	require.NoError(t, c.Objects.Save(ctx, o))
	assert.Equal(t, []any{"a", "b", "x"}, o.Get("arr"))
	assert.Equal(t, int32(1), puts.Load(), "the change was sent once")
	assert.Equal(t, int32(2), gets.Load())
	require.NoError(t, c.Objects.Save(ctx, o))
	assert.Equal(t, int32(2), gets.Load(), "nothing left to read back")
}
