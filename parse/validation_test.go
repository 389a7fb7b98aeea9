package parse

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantText checks that err is target (errors.Is) and that its text ends with want, the original client's text.
func wantText(t *testing.T, err error, target error, want string) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, target)
	msg := err.Error()
	assert.True(t, len(msg) >= len(want) && msg[len(msg)-len(want):] == want, "want %q at the end of %q", want, msg)
}

func TestACLRefusesEmptyUserAndRole(t *testing.T) {
	for name, c := range map[string]struct {
		set    func(a *ACL)
		target error
		text   string
	}{
		"SetReadAccess":      {func(a *ACL) { a.SetReadAccess("", true) }, ErrACLUserID, "userId must be a string."},
		"SetWriteAccess":     {func(a *ACL) { a.SetWriteAccess("", false) }, ErrACLUserID, "userId must be a string."},
		"SetRoleReadAccess":  {func(a *ACL) { a.SetRoleReadAccess("", true) }, ErrACLRoleName, "Role must have a name"},
		"SetRoleWriteAccess": {func(a *ACL) { a.SetRoleWriteAccess("", true) }, ErrACLRoleName, "Role must have a name"},
	} {
		t.Run(name, func(t *testing.T) {
			a := NewACL()
			a.SetPublicReadAccess(true)
			c.set(a)
			wantText(t, a.Err(), c.target, c.text)
			assert.Equal(t, []string{"*"}, a.Keys(), "nothing changed")
			_, err := json.Marshal(a)
			assert.ErrorIs(t, err, c.target, "encoding fails")
			_, err = Encode(a)
			assert.ErrorIs(t, err, c.target, "Encode fails")
			o := NewObject("Doc")
			o.SetACL(a)
			_, err = o.saveBody()
			assert.ErrorIs(t, err, c.target, "a save body with it fails")
			assert.ErrorIs(t, a.Clone().Err(), c.target, "a clone keeps the mistake")
		})
	}
	a := NewACL()
	a.SetRoleReadAccess("", true)
	a.SetReadAccess("", true)
	assert.ErrorIs(t, a.Err(), ErrACLRoleName, "the first mistake is kept")
	assert.ErrorIs(t, NewUserACL("").Err(), ErrACLUserID)
	assert.NoError(t, NewUserACL("u1").Err())
	var nilACL *ACL
	assert.NoError(t, nilACL.Err())
}

func TestACLFromJSONChecksPermissions(t *testing.T) {
	for in, want := range map[string]error{
		`{"u1":{"read":true,"admin":true}}`:   ErrACLPermissionType,
		`{"u1":{"READ":true}}`:                ErrACLPermissionType,
		`{"u1":"read"}`:                       ErrACLPermissionType,
		`{"u1":[true]}`:                       ErrACLPermissionType,
		`{"u1":{"read":"yes"}}`:               ErrACLPermissionValue,
		`{"u1":{"write":1}}`:                  ErrACLPermissionValue,
		`{"u1":{"read":null}}`:                ErrACLPermissionValue,
		`{"*":{"read":true},"u1":{"x":true}}`: ErrACLPermissionType,
	} {
		a := NewACL()
		a.SetPublicWriteAccess(true)
		err := json.Unmarshal([]byte(in), a)
		text := "Tried to create an ACL with an invalid permission type."
		if want == ErrACLPermissionValue {
			text = "Tried to create an ACL with an invalid permission value."
		}
		wantText(t, err, want, text)
		assert.True(t, a.PublicWriteAccess() && !a.PublicReadAccess(), "%s: a failed decode changed the ACL", in)

		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(in), &m))
		_, err = ACLFromMap(m)
		assert.ErrorIs(t, err, want, in)
		o := NewObject("Doc")
		assert.ErrorIs(t, o.UnmarshalJSON([]byte(`{"objectId":"x","ACL":`+in+`}`)), want, "object with ACL %s", in)
	}
	var a ACL
	require.NoError(t, json.Unmarshal([]byte(`{"*":{"read":true,"write":false},"u1":null,"role:A":{"write":true}}`), &a))
	assert.Equal(t, []string{"*", "role:A"}, a.Keys())
	assert.True(t, a.PublicReadAccess() && !a.PublicWriteAccess() && a.RoleWriteAccess("A"))
}

func TestGeoPointRangeTexts(t *testing.T) {
	for _, c := range []struct {
		lat, lng float64
		target   error
		text     string
	}{
		{91, 0, ErrLatitudeRange, "GeoPoint latitude out of bounds: 91 > 90.0."},
		{-91, 0, ErrLatitudeRange, "GeoPoint latitude out of bounds: -91 < -90.0."},
		{90.5, 0, ErrLatitudeRange, "GeoPoint latitude out of bounds: 90.5 > 90.0."},
		{0, 181, ErrLongitudeRange, "GeoPoint longitude out of bounds: 181 > 180.0."},
		{0, -180.25, ErrLongitudeRange, "GeoPoint longitude out of bounds: -180.25 < -180.0."},
		{1e21, 0, ErrLatitudeRange, "GeoPoint latitude out of bounds: 1e+21 > 90.0."},
		{91, 500, ErrLatitudeRange, "GeoPoint latitude out of bounds: 91 > 90.0."}, // latitude is checked first
		{math.NaN(), 0, ErrGeoPointNotNumber, "GeoPoint latitude and longitude must be valid numbers"},
		{0, math.NaN(), ErrGeoPointNotNumber, "GeoPoint latitude and longitude must be valid numbers"},
		{math.NaN(), math.Inf(1), ErrGeoPointNotNumber, "GeoPoint latitude and longitude must be valid numbers"},
		// ±Infinity is a number out of range, with JavaScript's rendering (moralis-v1's texts).
		{math.Inf(1), 0, ErrLatitudeRange, "GeoPoint latitude out of bounds: Infinity > 90.0."},
		{math.Inf(-1), 0, ErrLatitudeRange, "GeoPoint latitude out of bounds: -Infinity < -90.0."},
		{0, math.Inf(1), ErrLongitudeRange, "GeoPoint longitude out of bounds: Infinity > 180.0."},
		{0, math.Inf(-1), ErrLongitudeRange, "GeoPoint longitude out of bounds: -Infinity < -180.0."},
		{math.Inf(1), math.Inf(1), ErrLatitudeRange, "GeoPoint latitude out of bounds: Infinity > 90.0."},
	} {
		_, err := NewGeoPoint(c.lat, c.lng)
		require.Error(t, err)
		assert.Equal(t, c.text, err.Error())
		assert.ErrorIs(t, err, c.target)
		other := ErrLongitudeRange
		if c.target == ErrLongitudeRange {
			other = ErrLatitudeRange
		}
		assert.False(t, errors.Is(err, other), "%v matches the other range error", err)
	}
	var g GeoPoint
	err := json.Unmarshal([]byte(`{"__type":"GeoPoint","latitude":-91,"longitude":0}`), &g)
	assert.EqualError(t, err, "GeoPoint latitude out of bounds: -91 < -90.0.")
	assert.Equal(t, "1.5e-7", jsNumber(1.5e-7))
	assert.Equal(t, "-1e+300", jsNumber(-1e300))
	assert.Equal(t, "0.000001", jsNumber(1e-6))
	assert.Equal(t, "123456789012345680000", jsNumber(123456789012345678901))
}

func TestPolygonFromJSONTexts(t *testing.T) {
	for in, want := range map[string]error{
		`{"__type":"Polygon","coordinates":"x"}`:                     ErrCoordinatesNotArray,
		`{"__type":"Polygon","coordinates":{"a":1}}`:                 ErrCoordinatesNotArray,
		`{"__type":"Polygon"}`:                                       ErrCoordinatesNotArray,
		`{"__type":"Polygon","coordinates":[[0,0],[1,1]]}`:           ErrPolygonTooSmall,
		`{"__type":"Polygon","coordinates":[[0,0],[1,1],[1]]}`:       ErrCoordinatesNotPoints,
		`{"__type":"Polygon","coordinates":[[0,0],[1,1],[1,2,3]]}`:   ErrCoordinatesNotPoints,
		`{"__type":"Polygon","coordinates":[[0,0],[1,1],"x"]}`:       ErrCoordinatesNotPoints,
		`{"__type":"Polygon","coordinates":[[0,0],[1,1],["a","b"]]}`: ErrGeoPointNotNumber,
		`{"__type":"Polygon","coordinates":[[0,0],[1,1],[91,0]]}`:    ErrLatitudeRange,
	} {
		p := Polygon{Coordinates: []GeoPoint{{1, 1}}}
		err := json.Unmarshal([]byte(in), &p)
		assert.ErrorIs(t, err, want, in)
		assert.Equal(t, []GeoPoint{{1, 1}}, p.Coordinates, "%s: a failed decode changed the polygon", in)
	}
	var p Polygon
	require.NoError(t, json.Unmarshal([]byte(`{"__type":"Polygon","coordinates":[[0,0],[0,1],[1,1]]}`), &p))
	assert.Equal(t, []GeoPoint{{0, 0}, {0, 1}, {1, 1}}, p.Coordinates)
	assert.EqualError(t, json.Unmarshal([]byte(`{"coordinates":5}`), &p), "Coordinates must be an Array")
	assert.EqualError(t, json.Unmarshal([]byte(`{"coordinates":[[0,0],[0,1],true]}`), &p),
		"Coordinates must be an Array of GeoPoints or Points")
	assert.EqualError(t, json.Unmarshal([]byte(`{"coordinates":[]}`), &p), "Polygon must have at least 3 GeoPoints or Points")
}

func TestNewPolygonAcceptsPointsAndPairs(t *testing.T) {
	want := []GeoPoint{{1, 2}, {3, 4}, {5, 6}}
	gp := GeoPoint{Latitude: 5, Longitude: 6}
	for name, in := range map[string]any{
		"GeoPoints":    []GeoPoint{{1, 2}, {3, 4}, {5, 6}},
		"[][2]float64": [][2]float64{{1, 2}, {3, 4}, {5, 6}},
		"[][]float64":  [][]float64{{1, 2}, {3, 4}, {5, 6}},
		"[][2]int":     [][2]int{{1, 2}, {3, 4}, {5, 6}},
		"[]any mixed":  []any{[]any{1.0, 2.0}, GeoPoint{3, 4}, &gp},
		"wire maps": []any{map[string]any{"__type": "GeoPoint", "latitude": 1.0, "longitude": 2.0},
			[]any{3.0, 4.0}, []float64{5, 6}},
		"array":   [3][2]float64{{1, 2}, {3, 4}, {5, 6}},
		"Polygon": Polygon{Coordinates: want},
	} {
		p, err := NewPolygon(in)
		require.NoError(t, err, name)
		assert.Equal(t, want, p.Coordinates, name)
	}
	var nilPoint *GeoPoint
	var nilPoly *Polygon
	for in, want := range map[any]error{
		"x": ErrCoordinatesNotArray, 5: ErrCoordinatesNotArray, nilPoly: ErrCoordinatesNotArray,
	} {
		_, err := NewPolygon(in)
		assert.ErrorIs(t, err, want, "%v", in)
	}
	for name, c := range map[string]struct {
		in   any
		want error
	}{
		"nil":       {nil, ErrCoordinatesNotArray},
		"two":       {[][2]float64{{1, 2}, {3, 4}}, ErrPolygonTooSmall},
		"nil point": {[]any{nilPoint, gp, gp}, ErrCoordinatesNotPoints},
		"bad map":   {[]any{map[string]any{"latitude": 1}, gp, gp}, ErrCoordinatesNotPoints},
		"triple":    {[][]float64{{1, 2, 3}, {1, 2}, {1, 2}}, ErrCoordinatesNotPoints},
		"range":     {[][2]float64{{0, 0}, {0, 181}, {1, 1}}, ErrLongitudeRange},
		"bad point": {[]GeoPoint{{0, 0}, {95, 0}, {1, 1}}, ErrLatitudeRange},
	} {
		_, err := NewPolygon(c.in)
		assert.ErrorIs(t, err, c.want, name)
	}
	_, err := NewPolygon([][2]float64{{0, 0}, {0, 181}, {1, 1}})
	assert.EqualError(t, err, "GeoPoint longitude out of bounds: 181 > 180.0.")
}
