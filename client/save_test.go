package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memServer is a small parse-server in memory: creates (with client-chosen ids, refusing a repeated one with
// 137, or ids of its own), updates, deletes and finds by id, alone or in /batch, and transactional /batch calls
// (all or nothing; a rollback answered as parse-server answers it, a bare 500). failClass refuses every write of a
// class; loseClass applies a /batch holding a create of the class and then answers 502 (and refuses finds of it),
// so the create stays in doubt; dropClass answers a /batch holding a write of the class 502 without applying it.
// With txMark it is a backend with moralis-go-server's txMark feature (moralisGoServerInfo, MoralisGoTxMark rows
// named by their mark, moralisGoTxApplied with its fence); without, those functions are "Invalid function".
type memServer struct {
	mu         sync.Mutex
	rows       map[string]map[string]map[string]any // class -> id -> fields
	writes     []string                             // "POST Class" / "PUT Class id" / "DELETE Class id", in the order applied
	failClass  string
	loseClass  string
	dropClass  string
	loseAtomic bool // apply a transactional /batch, then answer 502 (the answer lost)
	txMark     bool
	loseOne    bool // lose the answers of single (not /batch) writes, after applying them
	serverIDs  bool // the client leaves ids to the server (the default config); false: ClientObjectIDs
	seenReq    map[string]bool
	clock      int // seconds of the next updatedAt
}

// stamp is a new, later updatedAt.
func (m *memServer) stamp() string {
	m.clock++
	return fmt.Sprintf("2026-01-02T00:%02d:%02d.000Z", m.clock/60, m.clock%60)
}

// snapshot copies the rows (for a transaction's rollback).
func (m *memServer) snapshot() map[string]map[string]map[string]any {
	out := make(map[string]map[string]map[string]any, len(m.rows))
	for cls, ids := range m.rows {
		out[cls] = make(map[string]map[string]any, len(ids))
		for id, row := range ids {
			cp := make(map[string]any, len(row))
			for k, v := range row {
				cp[k] = v
			}
			out[cls][id] = cp
		}
	}
	return out
}

// function answers a cloud function call.
func (m *memServer) function(name string, params map[string]any) (int, any) {
	if !m.txMark {
		return 400, map[string]any{"code": 141, "error": "Invalid function: \"" + name + "\""}
	}
	switch name {
	case "moralisGoServerInfo":
		return 200, map[string]any{"result": map[string]any{"name": "moralis-go-server", "version": "0.0.0", "features": []any{"txMark"}}}
	case "moralisGoTxApplied":
		mark, _ := params["mark"].(string)
		if m.rows["MoralisGoTxMark"] == nil {
			m.rows["MoralisGoTxMark"] = map[string]map[string]any{}
		}
		if row := m.rows["MoralisGoTxMark"][mark]; row != nil {
			return 200, map[string]any{"result": map[string]any{"applied": row["fence"] != true}}
		}
		m.rows["MoralisGoTxMark"][mark] = map[string]any{"mark": mark, "fence": true}
		return 200, map[string]any{"result": map[string]any{"applied": false}}
	}
	return 400, map[string]any{"code": 141, "error": "Invalid function: \"" + name + "\""}
}

func (m *memServer) write(method, path string, body map[string]any) (int, map[string]any) {
	parts := strings.Split(strings.TrimPrefix(path, "/parse/"), "/")
	if parts[0] == "users" {
		parts = append([]string{"classes", "_User"}, parts[1:]...)
	}
	if len(parts) < 2 || parts[0] != "classes" {
		return 404, map[string]any{"code": 1, "error": "unexpected path " + path}
	}
	cls := parts[1]
	if cls == m.failClass {
		return 400, map[string]any{"code": 142, "error": "refused by the test"}
	}
	if m.rows[cls] == nil {
		m.rows[cls] = map[string]map[string]any{}
	}
	switch {
	case method == "POST" && len(parts) == 2:
		id, _ := body["objectId"].(string)
		if cls == "MoralisGoTxMark" {
			id, _ = body["mark"].(string) // the server's beforeSave makes the mark the row's id
		}
		if id == "" {
			id = fmt.Sprintf("srv%d", len(m.writes))
		}
		if _, dup := m.rows[cls][id]; dup {
			return 400, map[string]any{"code": 137, "error": "A duplicate value for a field with unique values was provided"}
		}
		row := map[string]any{}
		for k, v := range body {
			if op, ok := v.(map[string]any); ok && op["__op"] == "Increment" {
				v = op["amount"]
			}
			row[k] = v
		}
		row["objectId"] = id
		row["createdAt"], row["updatedAt"] = "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"
		m.rows[cls][id] = row
		m.writes = append(m.writes, "POST "+cls)
		return 201, map[string]any{"objectId": id, "createdAt": "2026-01-01T00:00:00.000Z"}
	case method == "PUT" && len(parts) == 3:
		row := m.rows[cls][parts[2]]
		if row == nil {
			return 404, map[string]any{"code": 101, "error": "Object not found."}
		}
		answer := map[string]any{}
		for k, v := range body {
			if op, ok := v.(map[string]any); ok && op["__op"] == "Increment" {
				n, _ := row[k].(float64)
				d, _ := op["amount"].(float64)
				v = n + d
				answer[k] = v
			}
			row[k] = v
		}
		row["updatedAt"] = m.stamp()
		answer["updatedAt"] = row["updatedAt"]
		m.writes = append(m.writes, "PUT "+cls+" "+parts[2])
		return 200, answer
	case method == "DELETE" && len(parts) == 3:
		if m.rows[cls][parts[2]] == nil {
			return 404, map[string]any{"code": 101, "error": "Object not found."}
		}
		delete(m.rows[cls], parts[2])
		m.writes = append(m.writes, "DELETE "+cls+" "+parts[2])
		return 200, map[string]any{}
	}
	return 404, map[string]any{"code": 1, "error": "unexpected " + method + " " + path}
}

func (m *memServer) reply(r idReq) (int, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := func(status int, v any) (int, string) {
		b, _ := json.Marshal(v)
		return status, string(b)
	}
	method, _ := r.Body["_method"].(string)
	if method == "" {
		method = "POST"
	}
	if r.Path == "batch" {
		reqs, _ := r.Body["requests"].([]any)
		answers := make([]map[string]any, len(reqs))
		lose, failed := false, false
		tx := r.Body["transaction"] == true
		before := m.snapshot()
		for _, q := range reqs {
			if path := q.(map[string]any)["path"].(string); m.dropClass != "" && strings.HasPrefix(path, "/parse/classes/"+m.dropClass) {
				return 502, "bad gateway" // lost before the server saw it
			}
		}
		for i, q := range reqs {
			sub := q.(map[string]any)
			body, _ := sub["body"].(map[string]any)
			path := sub["path"].(string)
			if m.loseClass != "" && strings.HasPrefix(path, "/parse/classes/"+m.loseClass) {
				lose = true
			}
			if status, a := m.write(sub["method"].(string), path, body); status < 300 {
				answers[i] = map[string]any{"success": a}
			} else {
				answers[i] = map[string]any{"error": a}
				failed = true
			}
		}
		if tx && failed {
			m.rows = before
			return 500, `{"code":1,"message":"Internal server error."}`
		}
		if lose || tx && m.loseAtomic {
			return 502, "bad gateway"
		}
		return out(200, answers)
	}
	if name, ok := strings.CutPrefix(r.Path, "functions/"); ok {
		params := map[string]any{}
		for k, v := range r.Body {
			if !strings.HasPrefix(k, "_") {
				params[k] = v
			}
		}
		status, a := m.function(name, params)
		return out(status, a)
	}
	if method == "GET" {
		cls := strings.TrimPrefix(r.Path, "classes/")
		if c, _, _ := strings.Cut(cls, "/"); c == m.loseClass {
			return 502, "bad gateway"
		}
		if cls, id, one := strings.Cut(cls, "/"); one { // one object
			if row := m.rows[cls][id]; row != nil {
				return out(200, row)
			}
			return out(404, map[string]any{"code": 101, "error": "Object not found."})
		}
		var where map[string]any
		switch w := r.Body["where"].(type) {
		case map[string]any:
			where = w
		case string:
			_ = json.Unmarshal([]byte(w), &where)
		}
		var results []map[string]any
		if in, ok := where["objectId"].(map[string]any)["$in"].([]any); ok {
			for _, id := range in {
				if row := m.rows[cls][id.(string)]; row != nil {
					results = append(results, row)
				}
			}
		}
		return out(200, map[string]any{"results": results})
	}
	body := map[string]any{}
	for k, v := range r.Body {
		if !strings.HasPrefix(k, "_") {
			body[k] = v
		}
	}
	// Request ids are deduplicated as parse-server's idempotencyOptions do: recorded before the write.
	if rid := r.Header.Get("X-Parse-Request-Id"); rid != "" {
		if m.seenReq == nil {
			m.seenReq = map[string]bool{}
		}
		if m.seenReq[rid] {
			return out(400, map[string]any{"code": 159, "error": "Duplicate request"})
		}
		m.seenReq[rid] = true
	}
	if id, ok := body["objectId"]; ok && id == "" { // the deduplication probe's body
		return out(400, map[string]any{"code": 104, "error": "objectId must not be empty, null or undefined"})
	}
	status, a := m.write(method, "/parse/"+r.Path, body)
	if m.loseOne {
		return 502, "bad gateway"
	}
	return out(status, a)
}

func memClient(t *testing.T, m *memServer) (*Client, *idServer) {
	t.Helper()
	m.rows = map[string]map[string]map[string]any{}
	srv := newIDServer(t, m.reply)
	c, err := New(Config{ServerURL: srv.URL + "/parse", AppID: "app", MaxAttempts: 2, Retry: RetryPolicy{Base: time.Millisecond}, ClientObjectIDs: !m.serverIDs})
	require.NoError(t, err)
	return c, srv
}

func ptr(o *parse.Object) map[string]any {
	return map[string]any{"__type": "Pointer", "className": o.ClassName(), "objectId": o.ID()}
}

// Saving an object saves the unsaved objects it points to first, children before parents, wherever they are (a
// field, an array, a nested map, a *User value), each create in a /batch with a client-chosen id; the parent is
// sent last with pointers to them.
func TestSaveSavesNestedObjectsFirst(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	grand := parse.NewObject("Grand")
	grand.Set("g", 1)
	child := parse.NewObject("Child")
	child.Set("grand", grand)
	inArray := parse.NewObject("Item")
	inMap := parse.NewObject("Item")
	user := NewUser()
	user.SetUsername("nested") // a user is created by the server (one by one, no chosen id)
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	parent.Set("items", []any{inArray, "x"})
	parent.Set("meta", map[string]any{"deep": map[string]any{"item": inMap}})
	parent.Set("owner", user)
	require.NoError(t, c.Objects.Save(context.Background(), parent))

	for _, o := range []*parse.Object{grand, child, inArray, inMap, user.Object, parent} {
		require.NotEmpty(t, o.ID(), "%s was saved", o.ClassName())
		assert.Empty(t, o.DirtyKeys(), "%s has no unsaved changes", o.ClassName())
	}
	pos := map[string]int{}
	for i, w := range m.writes {
		if _, ok := pos[w]; !ok {
			pos[w] = i
		}
	}
	assert.Less(t, pos["POST Grand"], pos["POST Child"], "the grandchild before the child: %v", m.writes)
	assert.Less(t, pos["POST Child"], pos["POST Parent"], "the child before the parent: %v", m.writes)
	assert.Less(t, pos["POST _User"], pos["POST Parent"], "%v", m.writes)
	assert.Equal(t, "POST Parent", m.writes[len(m.writes)-1], "the parent last")
	assert.Len(t, m.writes, 6, "one write each")

	row := m.rows["Parent"][parent.ID()]
	assert.Equal(t, ptr(child), row["child"])
	assert.Equal(t, []any{ptr(inArray), "x"}, row["items"])
	assert.Equal(t, map[string]any{"deep": map[string]any{"item": ptr(inMap)}}, row["meta"])
	assert.Equal(t, ptr(user.Object), row["owner"])
	assert.Equal(t, ptr(grand), m.rows["Child"][child.ID()]["grand"])
	// The creates of the nested objects carried ids the client chose, in /batch calls.
	var batches int
	for _, r := range srv.reqs {
		if r.Path == "batch" {
			batches++
		}
	}
	assert.Equal(t, 2, batches, "Grand and Items in the first round, Child in the second")
	assert.Equal(t, grand.ID(), m.rows["Grand"][grand.ID()]["objectId"])

	// Saving again sends nothing: everything is saved.
	n := len(srv.reqs)
	require.NoError(t, c.Objects.Save(context.Background(), parent))
	assert.Len(t, srv.reqs, n)
}

// A saved parent that is unchanged still saves the changed objects it points to (as the original's save of
// unsaved children does), and an object without an id that points to the saved parent is saved after it.
func TestSaveSendsChangedChildrenAndNeedsOfTheParent(t *testing.T) {
	m := &memServer{}
	c, _ := memClient(t, m)
	ctx := context.Background()
	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	require.NoError(t, c.Objects.Save(ctx, parent))
	m.writes = nil

	child.Set("name", "changed")
	require.NoError(t, c.Objects.Save(ctx, parent))
	assert.Equal(t, []string{"PUT Child " + child.ID()}, m.writes, "the parent has no changes: only the child is sent")

	// A new post pointing to a saved user whose change points back to the new post: the post goes first.
	m.writes = nil
	post := parse.NewObject("Post")
	post.Set("author", parent)
	parent.Set("lastPost", post)
	require.NoError(t, c.Objects.Save(ctx, post))
	assert.Equal(t, []string{"POST Post", "PUT Parent " + parent.ID()}, m.writes)
	assert.Equal(t, ptr(post), m.rows["Parent"][parent.ID()]["lastPost"])
}

// Cycles of unsaved objects, files never uploaded and values that hold themselves are refused before any
// request, with the original's texts.
func TestSaveRefusesBeforeAnyRequest(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	ctx := context.Background()

	a, b := parse.NewObject("A"), parse.NewObject("B")
	a.Set("b", b)
	b.Set("a", a)
	err := c.Objects.Save(ctx, a)
	require.ErrorIs(t, err, ErrSaveCycle)
	assert.EqualError(t, err, "Tried to save a batch with a cycle.")
	require.ErrorIs(t, c.Objects.SaveAll(ctx, []*parse.Object{b}), ErrSaveCycle)

	// A cycle through a saved object is not a cycle: only objects without ids need one another first.
	self := parse.NewObject("Self")
	self.Set("me", self)
	require.ErrorIs(t, c.Objects.Save(ctx, self), ErrSaveCycle, "an unsaved object pointing to itself")

	// A longer cycle, reached through an array and a map.
	x, y, z := parse.NewObject("X"), parse.NewObject("Y"), parse.NewObject("Z")
	x.Set("list", []any{y})
	y.Set("m", map[string]any{"z": z})
	z.Set("x", x)
	root := parse.NewObject("Root")
	root.Set("x", x)
	require.ErrorIs(t, c.Objects.Save(ctx, root), ErrSaveCycle)

	file := parse.NewObject("Doc")
	file.Set("file", parse.File{Name: "a.txt"})
	err = c.Objects.Save(ctx, file)
	require.ErrorIs(t, err, ErrUnsavedFile)
	assert.EqualError(t, err, "Tried to encode an unsaved file.")
	nestedFile := parse.NewObject("Doc")
	inner := parse.NewObject("Doc")
	inner.Set("files", []any{&parse.File{Name: "b.txt"}})
	nestedFile.Set("inner", inner)
	require.ErrorIs(t, c.Objects.SaveAll(ctx, []*parse.Object{nestedFile}), ErrUnsavedFile)

	loop := make([]any, 1)
	loop[0] = loop
	deep := parse.NewObject("Deep")
	deep.Set("loop", loop)
	require.ErrorIs(t, c.Objects.Save(ctx, deep), ErrNestingTooDeep)

	assert.Empty(t, srv.reqs, "nothing was sent")
	assert.Empty(t, a.ProposedID(), "no id was chosen")

	// An uploaded file is fine.
	ok := parse.NewObject("Doc")
	ok.Set("file", parse.File{Name: "a.txt", URL: "http://files/a.txt"})
	require.NoError(t, c.Objects.Save(ctx, ok))
}

// A parent whose child failed is not sent: its error says so (ErrNestedNotSaved), names the child's error, and
// does not match ErrWriteInDoubt (the parent was not sent). A child in doubt keeps the id it was sent with:
// saving the parent again sends it with that id, finds it stored, and then saves the parent, one row each.
func TestSaveHoldsTheParentBackWhenAChildFails(t *testing.T) {
	m := &memServer{failClass: "Child"}
	c, _ := memClient(t, m)
	ctx := context.Background()
	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	err := c.Objects.Save(ctx, parent)
	var ne *NestedError
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.NotSent)
	assert.ErrorIs(t, err, ErrNestedNotSaved)
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	assert.Equal(t, []*parse.Object{child}, ne.Nested)
	assert.ErrorIs(t, ne.Errors[0], &parse.Error{Code: 142})
	assert.Contains(t, err.Error(), "not sent, because 1 object(s) it points to could not be saved first; first: ")
	assert.Contains(t, err.Error(), "refused by the test")
	assert.Empty(t, m.rows["Parent"], "the parent was not sent")
	assert.Empty(t, parent.ID())

	// In doubt: the /batch of the child was applied but its answer lost, and it cannot be looked up.
	m.failClass, m.loseClass = "", "Child"
	err = c.Objects.Save(ctx, parent)
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.NotSent)
	assert.Equal(t, 1, ne.InDoubt())
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt, "the parent itself was not sent")
	assert.Contains(t, err.Error(), "(1 in doubt)")
	proposed := child.ProposedID()
	require.Len(t, proposed, 10)
	require.Contains(t, m.rows["Child"], proposed, "the child was stored")

	m.loseClass = ""
	require.NoError(t, c.Objects.Save(ctx, parent))
	assert.Equal(t, proposed, child.ID(), "the child kept the id it was first sent with")
	assert.Len(t, m.rows["Child"], 1, "one child row")
	assert.Len(t, m.rows["Parent"], 1)
	assert.Equal(t, ptr(child), m.rows["Parent"][parent.ID()]["child"])
}

// SaveAll saves the nested objects too, and reports each given object: saved, failed, or held back because an
// object it points to failed.
func TestSaveAllSavesNestedObjectsAndReportsEachItem(t *testing.T) {
	m := &memServer{failClass: "Bad"}
	c, _ := memClient(t, m)
	good := parse.NewObject("Post")
	good.Set("author", parse.NewObject("Author"))
	held := parse.NewObject("Post")
	held.Set("tags", []any{parse.NewObject("Bad")})
	plain := parse.NewObject("Post")
	listed := parse.NewObject("Author")
	pointing := parse.NewObject("Post")
	pointing.Set("author", listed) // points to an object given in the same call: it goes first
	err := c.Objects.SaveAll(context.Background(), []*parse.Object{good, held, plain, pointing, listed})
	var be *BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, be.Failed)
	assert.Equal(t, 0, be.InDoubt)
	for _, i := range []int{0, 2, 3, 4} {
		assert.NoError(t, be.Errors[i], "item %d", i)
	}
	assert.ErrorIs(t, be.Errors[1], ErrNestedNotSaved)
	assert.Empty(t, held.ID())
	assert.NotEmpty(t, good.Get("author").(*parse.Object).ID())
	assert.Equal(t, ptr(listed), m.rows["Post"][pointing.ID()]["author"])
	assert.Len(t, m.rows["Post"], 3)
}

// After a SaveAll whose create stayed in doubt, saving the object again with SaveAll sends the same id. Any answer
// to that resend is settled by reading the object by its id (internal/settle): found, the first attempt is what is
// stored, and the save succeeds with one row, even when the resend itself is refused; not found after a refusal,
// it stays in doubt with its id kept (an ACL could hide it from its creator).
func TestSaveAllResendsACreateInDoubtWithItsID(t *testing.T) {
	for _, stored := range []bool{true, false} {
		t.Run(fmt.Sprintf("first attempt stored %v", stored), func(t *testing.T) {
			m := &memServer{loseClass: "Thing"}
			c, _ := memClient(t, m)
			o := parse.NewObject("Thing")
			o.Set("n", 1)
			err := c.Objects.SaveAll(context.Background(), []*parse.Object{o})
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			id := o.ProposedID()
			require.Contains(t, m.rows["Thing"], id)
			if !stored {
				delete(m.rows["Thing"], id) // as if the lost call never reached the database
			}

			m.loseClass, m.failClass = "", "Thing"
			err = c.Objects.SaveAll(context.Background(), []*parse.Object{o})
			if stored {
				require.NoError(t, err, "the read back found the first attempt's row")
				assert.Equal(t, id, o.ID())
				assert.Len(t, m.rows["Thing"], 1)
				return
			}
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			assert.Equal(t, id, o.ProposedID())

			m.failClass = ""
			require.NoError(t, c.Objects.SaveAll(context.Background(), []*parse.Object{o}))
			assert.Equal(t, id, o.ID())
			assert.Len(t, m.rows["Thing"], 1)
		})
	}
}

// FetchAll refuses mixed classes and objects without ids before any request, with the original's texts and
// codes; an object the server does not return fails the whole call (nothing changes).
func TestFetchAllChecksAndNotFound(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	ctx := context.Background()
	err := c.Objects.FetchAll(ctx, []*parse.Object{parse.NewObjectWithID("A", "1"), parse.NewObjectWithID("B", "2")}, nil)
	require.ErrorIs(t, err, parse.ErrInvalidClassName)
	assert.Contains(t, err.Error(), "All objects should be of the same class")
	err = c.Objects.FetchAll(ctx, []*parse.Object{parse.NewObjectWithID("A", "1"), parse.NewObject("A")}, nil)
	require.ErrorIs(t, err, &parse.Error{Code: parse.CodeMissingObjectID})
	assert.Contains(t, err.Error(), "All objects must have an ID")
	err = c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{parse.NewObject("A")}, nil)
	assert.Contains(t, err.Error(), "All objects must have an ID")
	require.NoError(t, c.Objects.FetchAll(ctx, nil, nil))
	err = c.Objects.Fetch(ctx, parse.NewObject("A"))
	require.ErrorIs(t, err, &parse.Error{Code: parse.CodeMissingObjectID})
	assert.Contains(t, err.Error(), "Object does not have an ID")
	assert.Empty(t, srv.reqs, "nothing was sent")

	m.rows["A"] = map[string]map[string]any{"1": {"objectId": "1", "v": 1.0}, "2": {"objectId": "2", "v": 2.0}}
	one, two, gone := parse.NewObjectWithID("A", "1"), parse.NewObjectWithID("A", "2"), parse.NewObjectWithID("A", "3")
	err = c.Objects.FetchAll(ctx, []*parse.Object{one, two, gone}, nil)
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	assert.Contains(t, err.Error(), "All objects must exist on the server.")
	assert.False(t, one.IsDataAvailable(), "nothing changed")

	require.NoError(t, c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{one, gone}, nil), "IfNeeded leaves missing objects alone")
	assert.Equal(t, 1.0, one.Get("v"))
	assert.False(t, gone.IsDataAvailable())
	n := len(srv.reqs)
	require.NoError(t, c.Objects.FetchAllIfNeeded(ctx, []*parse.Object{one}, nil))
	assert.Len(t, srv.reqs, n, "nothing to fetch: nothing sent")
	require.NoError(t, c.Objects.FetchAll(ctx, []*parse.Object{one, two, one}, &FetchOptions{Include: []string{"a", "b.c"}}))
	last := srv.reqs[len(srv.reqs)-1]
	assert.Equal(t, "a,b.c", last.Body["include"])
	assert.Equal(t, float64(2), last.Body["limit"], "an object listed twice is asked for once")
	assert.Equal(t, 2.0, two.Get("v"))
}

// The call context set with WithCallContext travels as _context on every backend call made with it: a save, a
// /batch, a cloud function, a find. It is copied when set, and nil removes it.
func TestCallContextIsSentAsContext(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	meta := map[string]any{"source": "import", "n": 1}
	ctx := WithCallContext(context.Background(), meta)
	meta["source"] = "changed after" // not seen
	assert.Equal(t, map[string]any{"source": "import", "n": float64(1)}, CallContext(ctx))
	want := map[string]any{"source": "import", "n": float64(1)}

	child := parse.NewObject("Child")
	parent := parse.NewObject("Parent")
	parent.Set("child", child)
	require.NoError(t, c.Objects.Save(ctx, parent))
	require.NoError(t, c.Objects.FetchAll(ctx, []*parse.Object{parent}, nil))
	_ = c.Cloud.Call(ctx, "hello", nil, nil)
	require.Len(t, srv.reqs, 4)
	for _, r := range srv.reqs {
		assert.Equal(t, want, r.Body["_context"], "%s", r.Path)
	}

	srv.reqs = nil
	require.NoError(t, c.Objects.FetchAll(WithCallContext(ctx, nil), []*parse.Object{parent}, nil))
	require.NoError(t, c.Objects.FetchAll(context.Background(), []*parse.Object{parent}, nil))
	for _, r := range srv.reqs {
		_, has := r.Body["_context"]
		assert.False(t, has, "no call context: no _context")
	}
	assert.Nil(t, CallContext(context.Background()))

	srv.reqs = nil
	bad := WithCallContext(context.Background(), map[string]any{"f": func() {}})
	err := c.Objects.Save(bad, parse.NewObject("Thing"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the call context cannot be encoded as JSON")
	assert.Empty(t, srv.reqs, "nothing was sent")
	err = c.Objects.SaveAll(bad, []*parse.Object{parse.NewObject("Thing")})
	require.Error(t, err)
	assert.NotErrorIs(t, err, parse.ErrWriteInDoubt, "nothing was sent: a definite failure")
	assert.Empty(t, srv.reqs, "nothing was sent")
}

// The object given to Save is sent only once the changed objects it points to are saved, ids or not (as the
// original saves its unsaved children first): a failed update of one holds it back. An object that needs the
// given one's id is saved after it and does not hold it back.
func TestSaveWaitsForChangedChildrenWithIDs(t *testing.T) {
	m := &memServer{}
	c, _ := memClient(t, m)
	ctx := context.Background()
	author := parse.NewObject("Author")
	other := parse.NewObject("Bad")
	require.NoError(t, c.Objects.SaveAll(ctx, []*parse.Object{author, other}))
	m.writes, m.failClass = nil, "Bad"

	post := parse.NewObject("Post")
	post.Set("author", author)
	author.Set("lastPost", post) // needs the post's id: after it
	post.Set("other", other)
	other.Set("x", 1) // a changed object with an id: the post waits for it
	err := c.Objects.Save(ctx, post)
	require.ErrorIs(t, err, ErrNestedNotSaved)
	assert.Empty(t, m.rows["Post"], "the post was held back by the failed update: %v", m.writes)
	assert.Empty(t, m.writes)

	m.failClass = ""
	require.NoError(t, c.Objects.Save(ctx, post))
	assert.Equal(t, []string{"PUT Bad " + other.ID(), "POST Post", "PUT Author " + author.ID()}, m.writes)

	// The given object is saved, and an object that needed its id then fails: the error says the object was
	// sent (it does not match ErrNestedNotSaved) and names the other.
	reply := parse.NewObject("Reply")
	author.Set("lastReply", reply)
	reply.Set("author", author)
	m.failClass = "Author"
	err = c.Objects.Save(ctx, reply)
	var ne *NestedError
	require.ErrorAs(t, err, &ne)
	assert.False(t, ne.NotSent)
	assert.NoError(t, ne.Err)
	assert.NotErrorIs(t, err, ErrNestedNotSaved)
	assert.Equal(t, []*parse.Object{author}, ne.Nested)
	assert.NotEmpty(t, reply.ID(), "the reply was saved")
	assert.Contains(t, err.Error(), "moralis: save Reply "+reply.ID()+": 1 object(s) it points to were not saved; first: ")
}

// FetchWithInclude asks for the included keys.
func TestFetchWithIncludeSendsInclude(t *testing.T) {
	m := &memServer{}
	c, srv := memClient(t, m)
	srv.reply = func(r idReq) (int, string) { return 200, `{"objectId":"p1","title":"t"}` }
	p := parse.NewObjectWithID("Post", "p1")
	require.NoError(t, c.Objects.FetchWithInclude(context.Background(), p, "author", "tags.owner"))
	require.Len(t, srv.reqs, 1)
	assert.Equal(t, "classes/Post/p1", srv.reqs[0].Path)
	assert.Equal(t, "author,tags.owner", srv.reqs[0].Body["include"])
	assert.Equal(t, "t", p.String("title"))
	require.NoError(t, c.Objects.Fetch(context.Background(), p))
	_, has := srv.reqs[1].Body["include"]
	assert.False(t, has)
}

// Edits made after a create in doubt are never lost (issue #30): the resend sends the first attempt's changes
// under the same id, which the server refuses as a duplicate (the first attempt was stored); settled, the object
// takes the stored row, and the later changes go out as an update in the same SaveAll, so the server agrees with
// the object once it reports success. Fetch settles a create in doubt through its proposed id.
func TestEditsAfterACreateInDoubtAreSaved(t *testing.T) {
	for _, via := range []string{"saveall", "fetch", "save"} {
		t.Run(via, func(t *testing.T) {
			m := &memServer{loseClass: "Thing", loseOne: via == "save"}
			c, _ := memClient(t, m)
			ctx := context.Background()
			save := saverVia(ctx, c, via)
			o := parse.NewObject("Thing")
			require.NoError(t, o.Set("tag", "A"))
			require.NoError(t, o.Increment("k", 1))
			err := save(o)
			require.ErrorIs(t, err, parse.ErrWriteInDoubt)
			assert.Contains(t, err.Error(), "Fetch it")
			id := o.ProposedID()
			require.Contains(t, m.rows["Thing"], id, "the first attempt was applied")
			m.loseClass, m.loseOne = "", false

			require.NoError(t, o.Set("tag", "B"))
			require.NoError(t, o.Set("b", 2))
			require.NoError(t, o.Increment("k", 1)) // the same op as the first attempt's: still a later change
			if via == "fetch" {
				require.NoError(t, c.Objects.Fetch(ctx, o))
				assert.Equal(t, id, o.ID(), "Fetch settled the create")
				assert.Equal(t, []string{"b", "k", "tag"}, o.DirtyKeys(), "the later changes stay pending")
			}
			require.NoError(t, save(o))
			assert.Equal(t, id, o.ID())
			assert.Empty(t, o.DirtyKeys())
			row := m.rows["Thing"][id]
			assert.Equal(t, "B", row["tag"])
			assert.EqualValues(t, 2, row["b"])
			assert.Len(t, m.rows["Thing"], 1)
			assert.Equal(t, "B", o.String("tag"))
		})
	}
}

// saverVia saves one object through Save when via is "save", else through SaveAll.
func saverVia(ctx context.Context, c *Client, via string) func(*parse.Object) error {
	return func(o *parse.Object) error {
		if via == "save" {
			return c.Objects.Save(ctx, o)
		}
		return c.Objects.SaveAll(ctx, []*parse.Object{o})
	}
}
