package store

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

// sampleObjects covers the objects the fast paths take (scalar fields) and some they must leave to the JSON paths.
func sampleObjects(t *testing.T) []*parse.Object {
	t.Helper()
	var out []*parse.Object
	add := func(o *parse.Object) { out = append(out, o) }

	o := parse.NewObjectWithID("Item", "a1")
	o.Set("n", 42)
	o.Set("big", uint64(math.MaxUint64))
	o.Set("neg", int64(-1)<<60)
	o.Set("f", 0.1)
	o.Set("tiny", 5e-324)
	o.Set("s", `<b>"quoted" & €uro`)
	o.Set("empty", "")
	o.Set("yes", true)
	o.Set("none", nil)
	add(o)

	o = parse.NewObjectWithID("Item", "a2")
	o.Set("f32", float32(0.1)) // JSON writes it as 0.1: not the float64 of the float32
	add(o)

	o = parse.NewObjectWithID("Item", "a3")
	o.Set("bad", "\xff\xfe") // invalid UTF-8 is replaced when encoded
	add(o)

	o = parse.NewObject("Item")
	objstate.Of(o).SetLocalID("local00000000000000ab")
	o.Set("n", 1)
	add(o)

	o = parse.NewObjectWithID("Item", "a4")
	objstate.Of(o).SetLocalID("local00000000000000cd")
	o.Set("n", 2)
	add(o)

	saved := parse.NewObject("Item")
	require.NoError(t, saved.UnmarshalJSON([]byte(`{"objectId":"a5","createdAt":"2024-03-01T10:11:12.345Z",`+
		`"updatedAt":"2024-03-02T10:11:12.000Z","name":"x","score":7.5}`)))
	add(saved)

	withACL := parse.NewObjectWithID("Item", "a6")
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	withACL.SetACL(acl)
	withACL.Set("when", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	withACL.Set("tags", []any{"a", "b"})
	add(withACL)
	return out
}

// scalarData must give what the JSON round trip gives, or decline.
func TestScalarDataMatchesJSONRoundTrip(t *testing.T) {
	taken := 0
	for _, o := range sampleObjects(t) {
		want, err := objectDataJSON(o)
		require.NoError(t, err)
		delete(want, "__type") // both left out of the stored form (putObject)
		delete(want, "className")
		got, ok := scalarData(o)
		if !ok {
			continue
		}
		taken++
		assert.Equal(t, want, got, "object %s/%s", o.ID(), o.LocalID())
	}
	assert.GreaterOrEqual(t, taken, 4, "the fast path must take the plain objects")
	_, ok := scalarData(sampleObjects(t)[1])
	assert.False(t, ok, "a float32 must take the JSON path")
	_, ok = scalarData(sampleObjects(t)[2])
	assert.False(t, ok, "invalid UTF-8 must take the JSON path")
}

// A compact record must answer lookups, render and decode exactly as a full record of the same object.
func TestCompactRecordMatchesFullRecord(t *testing.T) {
	compact := 0
	docs := []string{
		`{"objectId":"c1","n":3,"name":"x","ok":false,"nothing":null}`,
		`{"objectId":"c2","createdAt":"2024-03-01T10:11:12.345Z","updatedAt":"2024-03-02T10:11:12.000Z","n":1e300}`,
		`{"objectId":"c3","createdAt":"2024-03-01T10:11:12.345Z","s":"only created"}`,
		`{"objectId":"c4","createdAt":"2024-03-01T10:11:12.3456Z","s":"more precise date: full"}`,
		`{"objectId":"c5","createdAt":"2024-03-01T10:11:12+02:00","s":"offset: full"}`,
		`{"objectId":"c6","arr":[1,2],"obj":{"a":1}}`,
		`{"_localId":"local00000000000000ef","n":1}`,
		`{"n":5}`,
	}
	keys := []string{"objectId", "createdAt", "updatedAt", "n", "name", "ok", "nothing", "s", "arr", "obj", "missing"}
	for i, doc := range docs {
		var data map[string]any
		require.NoError(t, json.Unmarshal([]byte(doc), &data))
		id, _ := data["objectId"].(string)
		if id == "" {
			id, _ = data["_localId"].(string)
		}
		if id == "" {
			id = "noid"
		}
		r, err := newRecord(&interner{}, "Item", id, data, []byte(doc))
		require.NoError(t, err)
		full, err := fullRecord("Item", id, data, []byte(doc))
		require.NoError(t, err)
		if r.vals == nil {
			compact++
		}
		for _, k := range keys {
			gv, gok := lookup(r, k)
			wv, wok := lookup(full, k)
			assert.Equal(t, wok, gok, "doc %d key %s present", i, k)
			if wt, isTime := wv.(time.Time); isTime {
				gt, _ := gv.(time.Time)
				assert.True(t, wt.Equal(gt), "doc %d key %s: %v != %v", i, k, gv, wv)
				continue
			}
			assert.Equal(t, wv, gv, "doc %d key %s", i, k)
		}
		// As a result: the same object the query package decodes from the record's JSON.
		want := parse.NewObject("Item")
		require.NoError(t, want.UnmarshalJSON([]byte(doc)))
		got, err := r.object(map[string]any{"stale": 1})
		require.NoError(t, err)
		assert.Equal(t, want, got, "doc %d", i)
		wm, err := full.decoded()
		require.NoError(t, err)
		gm, err := r.decoded()
		require.NoError(t, err)
		assert.Equal(t, wm, gm, "doc %d decoded", i)
	}
	assert.Equal(t, 3, compact, "c1, c2 and c3 are compact")
}

// The interner shares short strings and stops growing at its bound.
func TestInternerIsBounded(t *testing.T) {
	in := &interner{}
	a, b := in.value(string([]byte("seven"))), in.value(string([]byte("seven")))
	assert.Equal(t, "seven", a)
	assert.True(t, unsafe.StringData(a.(string)) == unsafe.StringData(b.(string)), "one copy is kept")
	long := string(make([]byte, maxInternedLen+1))
	assert.Equal(t, long, in.value(long))
	assert.Len(t, in.m, 1, "long strings are not kept")
	for i := range maxInterned + 10 {
		assert.Equal(t, fmt.Sprint(i), in.value(fmt.Sprint(i)))
	}
	assert.Len(t, in.m, maxInterned)
	assert.Equal(t, b, a)
	var none *interner
	assert.Equal(t, "x", none.value("x"))
}
