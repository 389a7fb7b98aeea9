package parse

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	when := time.Date(2026, 11, 21, 22, 36, 39, 296_000_000, time.UTC)
	in := map[string]any{
		"date":  when,
		"ptr":   Pointer{ClassName: "Owner", ObjectID: "abc"},
		"rel":   Relation{ClassName: "Owner"},
		"file":  File{Name: "x.txt", URL: "http://h/x.txt", Hash: "h1", IPFS: "ipfs://q"},
		"geo":   GeoPoint{Latitude: 1.5, Longitude: -2.5},
		"poly":  Polygon{Coordinates: []GeoPoint{{0, 0}, {0, 1}, {1, 1}}},
		"bytes": Bytes("hi"),
		"arr":   []any{"a", 1.0, when},
		"obj":   map[string]any{"inner": when},
	}
	enc, err := Encode(in)
	require.NoError(t, err)
	b, err := json.Marshal(enc)
	require.NoError(t, err)
	var raw any
	require.NoError(t, json.Unmarshal(b, &raw))
	out := Decode(raw).(map[string]any)
	assert.True(t, when.Equal(out["date"].(time.Time)))
	assert.Equal(t, in["ptr"], out["ptr"])
	assert.Equal(t, in["rel"], out["rel"])
	assert.Equal(t, in["file"], out["file"])
	assert.Equal(t, in["geo"], out["geo"])
	assert.Equal(t, in["poly"], out["poly"])
	assert.Equal(t, in["bytes"], out["bytes"])
	assert.True(t, when.Equal(out["arr"].([]any)[2].(time.Time)))
	assert.True(t, when.Equal(out["obj"].(map[string]any)["inner"].(time.Time)))
	assert.Contains(t, string(b), `"iso":"2026-11-21T22:36:39.296Z"`)
}

func TestGeoPointValidation(t *testing.T) {
	for _, c := range []struct {
		lat, lng float64
		err      error
	}{
		{0, 0, nil}, {90, 180, nil}, {-90, -180, nil},
		{90.0001, 0, ErrLatitudeRange}, {-91, 0, ErrLatitudeRange},
		{0, 180.5, ErrLongitudeRange}, {0, -181, ErrLongitudeRange},
		{math.NaN(), 0, ErrGeoPointNotNumber}, {0, math.Inf(1), ErrLongitudeRange},
	} {
		_, err := NewGeoPoint(c.lat, c.lng)
		assert.ErrorIs(t, err, c.err, "%v,%v", c.lat, c.lng)
	}
	_, err := Encode(map[string]any{"g": GeoPoint{Latitude: 100}})
	assert.ErrorIs(t, err, ErrLatitudeRange)
	var g GeoPoint
	assert.Error(t, json.Unmarshal([]byte(`{"__type":"GeoPoint","latitude":"x","longitude":1}`), &g))
}

func TestOpsMergeAndEstimate(t *testing.T) {
	o := NewObject("T")
	o.Set("n", 1.0)
	o.Increment("n", 2)
	o.Increment("n", 3)
	assert.Equal(t, 6.0, o.Get("n"))
	body, err := o.saveBody()
	require.NoError(t, err)
	assert.Equal(t, 6.0, body["n"], "a value followed by an op is sent as the value")

	p := NewObjectWithID("T", "x")
	p.Increment("n", 2)
	p.Increment("n", 3)
	p.AddUnique("tags", "a")
	p.AddUnique("tags", "a", "b")
	p.Remove("gone", "z")
	p.Unset("old")
	body, err = p.saveBody()
	require.NoError(t, err)
	b, _ := json.Marshal(body)
	assert.JSONEq(t, `{"n":{"__op":"Increment","amount":5},"tags":{"__op":"AddUnique","objects":["a","b"]},"gone":{"__op":"Remove","objects":["z"]},"old":{"__op":"Delete"}}`, string(b))
}

func TestSaveBodyRejectsBadKeys(t *testing.T) {
	for _, k := range []string{"objectId", "createdAt", "$bad", "1x", "a-b", ""} {
		o := NewObject("T")
		o.Set(k, 1)
		_, err := o.saveBody()
		assert.Error(t, err, k)
	}
}

func TestApplySavedKeepsLaterChanges(t *testing.T) {
	o := NewObject("T")
	o.Set("a", 1.0)
	sent := o.pendingSnapshot()
	o.Set("b", 2.0) // changed while the save was in flight
	require.NoError(t, o.applySaved(map[string]any{"objectId": "id1", "createdAt": "2026-01-01T00:00:00.000Z"}, sent))
	assert.Equal(t, "id1", o.ID())
	assert.Equal(t, []string{"b"}, o.DirtyKeys())
}

func TestObjectJSONRoundTrip(t *testing.T) {
	o := NewObject("T")
	require.NoError(t, o.UnmarshalJSON([]byte(`{"objectId":"x","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-02T00:00:00.000Z","ACL":{"*":{"read":true}},"owner":{"__type":"Object","className":"Owner","objectId":"o1","name":"n"}}`)))
	assert.Equal(t, "x", o.ID())
	assert.True(t, o.ACL().PublicReadAccess())
	inc := o.Get("owner").(*Object)
	assert.Equal(t, "Owner", inc.ClassName())
	assert.Equal(t, "n", inc.String("name"))
	b, err := o.MarshalJSON()
	require.NoError(t, err)
	p := NewObject("")
	require.NoError(t, p.UnmarshalJSON(b))
	assert.Equal(t, "T", p.ClassName())
	assert.Equal(t, o.UpdatedAt(), p.UpdatedAt())
}

type myScore struct {
	ObjectID string    `json:"objectId"`
	Score    int       `json:"score"`
	At       time.Time `json:"at"`
	Owner    Pointer   `json:"owner"`
	Where    GeoPoint  `json:"where"`
	File     File      `json:"file"`
}

func TestUnmarshalIntoStruct(t *testing.T) {
	var s myScore
	require.NoError(t, Unmarshal([]byte(`{"objectId":"x","score":7,"at":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"},"owner":{"__type":"Pointer","className":"O","objectId":"o"},"where":{"__type":"GeoPoint","latitude":1,"longitude":2},"file":{"__type":"File","name":"n","url":"u"}}`), &s))
	assert.Equal(t, 7, s.Score)
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), s.At.UTC())
	assert.Equal(t, Pointer{ClassName: "O", ObjectID: "o"}, s.Owner)
	assert.Equal(t, GeoPoint{1, 2}, s.Where)
	assert.Equal(t, "u", s.File.URL)
}

func FuzzObjectUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"objectId":"x","createdAt":"2026-01-01T00:00:00.000Z","n":1}`,
		`{"a":{"__type":"Date","iso":"bad"}}`,
		`{"ACL":{"*":{"read":true}},"p":{"__type":"Pointer"}}`,
		`{"poly":{"__type":"Polygon","coordinates":[[1,2],[3]]}}`,
		`{"b":{"__type":"Bytes","base64":"!!"}}`,
		`{"o":{"__type":"Object","className":"X","objectId":"y","createdAt":7}}`,
		`[1,2]`, `null`, `{"ACL":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o := NewObject("T")
		if err := o.UnmarshalJSON(b); err != nil {
			return
		}
		// Whatever decoded must encode again.
		if _, err := o.MarshalJSON(); err != nil {
			// Out-of-range geo points are refused on encode, which is an error, not a panic.
			return
		}
		var s myScore
		_ = Unmarshal(b, &s)
	})
}

func TestUnmarshalTypedTopLevelIntoMap(t *testing.T) {
	var m map[string]any
	require.NoError(t, Unmarshal([]byte(`{"__type":"Pointer","className":"A","objectId":"b"}`), &m))
	assert.Equal(t, "Pointer", m["__type"])
}

func TestParseDateFastPathAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{"2026-11-21T22:36:39.296Z", "2000-02-29T00:00:00.000Z", "1999-12-31T23:59:59.999Z"} {
		want, err := time.Parse(DateLayout, s)
		require.NoError(t, err)
		got, err := ParseDate(s)
		require.NoError(t, err)
		assert.True(t, want.Equal(got), s)
	}
	for _, s := range []string{"2026-02-30T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "20x6-01-01T00:00:00.000Z", "bad"} {
		_, err := ParseDate(s)
		assert.Error(t, err, s)
	}
	// Other RFC 3339 forms still parse.
	got, err := ParseDate("2026-01-02T03:04:05+02:00")
	require.NoError(t, err)
	assert.Equal(t, 1, got.Hour())
}

func FuzzParseDate(f *testing.F) {
	f.Add("2026-11-21T22:36:39.296Z")
	f.Add("2026-02-30T00:00:00.000Z")
	// time.Parse is lenient with the layout (one-digit hours, a comma before the fraction): such inputs may be
	// refused, but a date ParseDate reads must be the one time.Parse reads, and a date in the server's exact form
	// must be read.
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDate(s)
		if want, werr := time.Parse(DateLayout, s); werr == nil {
			if err == nil && !got.Equal(want) {
				t.Fatalf("%q: fast path %v, time.Parse %v", s, got, want)
			}
			if err != nil && want.Format(DateLayout) == s {
				t.Fatalf("%q: refused (%v), time.Parse %v", s, err, want)
			}
		}
	})
}
