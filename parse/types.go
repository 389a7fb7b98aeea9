package parse

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// DateLayout is the ISO-8601 form Parse uses for dates: UTC with milliseconds.
const DateLayout = "2006-01-02T15:04:05.000Z"

// FormatDate renders t as Parse does (UTC, milliseconds).
func FormatDate(t time.Time) string { return t.UTC().Format(DateLayout) }

// ParseDate reads a Parse date string; it accepts any RFC 3339 time as well.
func ParseDate(s string) (time.Time, error) {
	if t, ok := parseFixedDate(s); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid date %q", s)
	}
	return t.UTC(), nil
}

// Pointer refers to an object of another class by id.
type Pointer struct {
	ClassName string `json:"className"`
	ObjectID  string `json:"objectId"`
}

// MarshalJSON writes {"__type":"Pointer","className":...,"objectId":...}.
func (p Pointer) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"__type": "Pointer", "className": p.ClassName, "objectId": p.ObjectID})
}

// UnmarshalJSON reads a Pointer, or an included object (__type Object), keeping only its class and id.
func (p *Pointer) UnmarshalJSON(b []byte) error {
	var m struct {
		Type      string `json:"__type"`
		ClassName string `json:"className"`
		ObjectID  string `json:"objectId"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse: invalid Pointer: %w", err)
	}
	if m.Type != "Pointer" && m.Type != "Object" {
		return fmt.Errorf("parse: expected a Pointer, got __type %q", m.Type)
	}
	p.ClassName, p.ObjectID = m.ClassName, m.ObjectID
	return nil
}

// Relation is a relation field: the objects of ClassName (the target class) held by the field Key of the object
// Parent. The server sends {"__type":"Relation","className":...} for a relation field, which decodes with only
// ClassName set; Object.Relation gives one with Parent and Key set too, ready for Query. Only ClassName travels
// on the wire. A Relation is a plain value, safe to copy and to share between goroutines.
type Relation struct {
	// ClassName is the target class ("" when not known yet: Query then lets the server find it).
	ClassName string `json:"className"`
	// Parent is the object whose field holds the relation (zero when unknown).
	Parent Pointer `json:"-"`
	// Key is the name of the relation field ("" when unknown).
	Key string `json:"-"`
}

// MarshalJSON writes {"__type":"Relation","className":...}; a relation with no known target writes className
// null, as the original client does.
func (r Relation) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.wire())
}

// wire is the relation's wire form: className null when the target is not known.
func (r Relation) wire() map[string]any {
	var cls any
	if r.ClassName != "" {
		cls = r.ClassName
	}
	return map[string]any{"__type": "Relation", "className": cls}
}

// File is a file stored by the backend. Hash and IPFS are kept when the server sends them.
type File struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
	Hash string `json:"hash,omitempty"`
	IPFS string `json:"ipfs,omitempty"`
}

// MarshalJSON writes {"__type":"File","name":...,"url":...}.
func (f File) MarshalJSON() ([]byte, error) {
	m := map[string]any{"__type": "File", "name": f.Name}
	if f.URL != "" {
		m["url"] = f.URL
	}
	if f.Hash != "" {
		m["hash"] = f.Hash
	}
	if f.IPFS != "" {
		m["ipfs"] = f.IPFS
	}
	return json.Marshal(m)
}

// GeoPoint is a latitude/longitude pair. Make one with NewGeoPoint to have it checked.
type GeoPoint struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// Errors of GeoPoint validation. ErrGeoPointNotNumber is returned as it is (for NaN); a point out of range gives
// the original client's text with the value, e.g. "GeoPoint latitude out of bounds: 91 > 90.0.", "GeoPoint
// longitude out of bounds: -181 < -180.0." or, for an infinite coordinate, "GeoPoint latitude out of bounds:
// Infinity > 90.0.", which errors.Is matches with ErrLatitudeRange or ErrLongitudeRange.
var (
	ErrGeoPointNotNumber = errors.New("GeoPoint latitude and longitude must be valid numbers")
	ErrLatitudeRange     = errors.New("GeoPoint latitude out of bounds")
	ErrLongitudeRange    = errors.New("GeoPoint longitude out of bounds")
)

// geoRangeError is a coordinate out of range: its text names the value and the bound it crossed.
type geoRangeError struct {
	kind  error // ErrLatitudeRange or ErrLongitudeRange
	value float64
	bound string // "> 90.0", "< -90.0", "> 180.0", "< -180.0"
}

func (e *geoRangeError) Error() string {
	return fmt.Sprintf("%s: %s %s.", e.kind.Error(), jsNumber(e.value), e.bound)
}

// Is matches the error's kind (ErrLatitudeRange or ErrLongitudeRange).
func (e *geoRangeError) Is(target error) bool { return target == e.kind }

// jsNumber renders f as JavaScript's String(f) does (91, -90.5, 1e+21, 1e-7, Infinity), so texts match the
// original's.
func jsNumber(f float64) string {
	if math.IsInf(f, 0) {
		if f > 0 {
			return "Infinity"
		}
		return "-Infinity"
	}
	if a := math.Abs(f); a != 0 && (a >= 1e21 || a < 1e-6) {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[:1]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + sign + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// NewGeoPoint checks the coordinates: numbers, latitude in [-90, 90], longitude in [-180, 180].
func NewGeoPoint(lat, lng float64) (GeoPoint, error) {
	g := GeoPoint{Latitude: lat, Longitude: lng}
	return g, g.Validate()
}

// Validate reports whether the point's coordinates are numbers and in range, with the original client's texts:
// ErrGeoPointNotNumber (NaN), or an error matching ErrLatitudeRange or ErrLongitudeRange (checked in that order;
// ±Infinity is out of range, as in the original: "GeoPoint latitude out of bounds: Infinity > 90.0.").
func (g GeoPoint) Validate() error {
	if math.IsNaN(g.Latitude) || math.IsNaN(g.Longitude) {
		return ErrGeoPointNotNumber
	}
	switch {
	case g.Latitude < -90:
		return &geoRangeError{ErrLatitudeRange, g.Latitude, "< -90.0"}
	case g.Latitude > 90:
		return &geoRangeError{ErrLatitudeRange, g.Latitude, "> 90.0"}
	case g.Longitude < -180:
		return &geoRangeError{ErrLongitudeRange, g.Longitude, "< -180.0"}
	case g.Longitude > 180:
		return &geoRangeError{ErrLongitudeRange, g.Longitude, "> 180.0"}
	}
	return nil
}

// MarshalJSON writes {"__type":"GeoPoint","latitude":...,"longitude":...}; an out-of-range point is an error.
func (g GeoPoint) MarshalJSON() ([]byte, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"__type": "GeoPoint", "latitude": g.Latitude, "longitude": g.Longitude})
}

// UnmarshalJSON reads a GeoPoint and checks it.
func (g *GeoPoint) UnmarshalJSON(b []byte) error {
	var m struct {
		Latitude  *float64 `json:"latitude"`
		Longitude *float64 `json:"longitude"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Latitude == nil || m.Longitude == nil {
		return ErrGeoPointNotNumber
	}
	g.Latitude, g.Longitude = *m.Latitude, *m.Longitude
	return g.Validate()
}

// Polygon is a closed shape of at least three GeoPoints. Its wire form lists [latitude, longitude] pairs, as the
// original's Parse.Polygon does (and as the server stores a Polygon field). Make one from GeoPoints or pairs with
// NewPolygon to have it checked. Note that a bare pair given to query.WithinPolygon is read the server's way,
// [longitude, latitude]; a Polygon given to it is sent as its GeoPoints, so its pairs keep their meaning.
type Polygon struct {
	Coordinates []GeoPoint
}

// Errors of Polygon validation, with the original client's texts.
var (
	// ErrPolygonTooSmall is returned for a polygon of fewer than three points.
	ErrPolygonTooSmall = errors.New("Polygon must have at least 3 GeoPoints or Points")
	// ErrCoordinatesNotArray is returned when a polygon's coordinates are not a list.
	ErrCoordinatesNotArray = errors.New("Coordinates must be an Array")
	// ErrCoordinatesNotPoints is returned when a member of a polygon's coordinates is neither a GeoPoint nor a
	// [latitude, longitude] pair.
	ErrCoordinatesNotPoints = errors.New("Coordinates must be an Array of GeoPoints or Points")
)

// NewPolygon makes a polygon from coords, checked as the original client checks one: a list ([]GeoPoint,
// [][2]float64, [][]float64, []any, or any other slice or array; a Polygon gives its own points) of at least
// three members, each a GeoPoint (or *GeoPoint, or its decoded wire form) or a [latitude, longitude] pair of
// numbers. The errors are ErrCoordinatesNotArray, ErrPolygonTooSmall, ErrCoordinatesNotPoints, and those of
// NewGeoPoint for a pair that is not two numbers in range. It never panics.
func NewPolygon(coords any) (Polygon, error) {
	switch x := coords.(type) {
	case Polygon:
		coords = x.Coordinates
	case *Polygon:
		if x == nil {
			return Polygon{}, ErrCoordinatesNotArray
		}
		coords = x.Coordinates
	}
	rv := reflect.ValueOf(coords)
	if !rv.IsValid() || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return Polygon{}, ErrCoordinatesNotArray
	}
	if rv.Len() < 3 {
		return Polygon{}, ErrPolygonTooSmall
	}
	p := Polygon{Coordinates: make([]GeoPoint, 0, rv.Len())}
	for i := range rv.Len() {
		g, err := polygonPoint(rv.Index(i).Interface())
		if err != nil {
			return Polygon{}, err
		}
		p.Coordinates = append(p.Coordinates, g)
	}
	return p, nil
}

// polygonPoint reads one member of a polygon's coordinates: a GeoPoint or a [latitude, longitude] pair.
func polygonPoint(v any) (GeoPoint, error) {
	switch x := v.(type) {
	case GeoPoint:
		return x, x.Validate()
	case *GeoPoint:
		if x == nil {
			return GeoPoint{}, ErrCoordinatesNotPoints
		}
		return *x, x.Validate()
	case map[string]any:
		g, ok := Decode(x).(GeoPoint)
		if !ok {
			return GeoPoint{}, ErrCoordinatesNotPoints
		}
		return g, g.Validate()
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array || rv.Len() != 2 {
		return GeoPoint{}, ErrCoordinatesNotPoints
	}
	lat, ok1 := toFloat(rv.Index(0).Interface())
	lng, ok2 := toFloat(rv.Index(1).Interface())
	if !ok1 || !ok2 {
		return GeoPoint{}, ErrGeoPointNotNumber
	}
	return NewGeoPoint(lat, lng)
}

// Validate checks the polygon's size and each point.
func (p Polygon) Validate() error {
	if len(p.Coordinates) < 3 {
		return ErrPolygonTooSmall
	}
	for _, g := range p.Coordinates {
		if err := g.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON writes {"__type":"Polygon","coordinates":[[lat,lng],...]}.
func (p Polygon) MarshalJSON() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"__type": "Polygon", "coordinates": p.pairs()})
}

func (p Polygon) pairs() [][2]float64 {
	out := make([][2]float64, len(p.Coordinates))
	for i, g := range p.Coordinates {
		out[i] = [2]float64{g.Latitude, g.Longitude}
	}
	return out
}

// UnmarshalJSON reads {"__type":"Polygon","coordinates":[[lat,lng],...]}, checked as NewPolygon checks it
// ("Coordinates must be an Array", "Coordinates must be an Array of GeoPoints or Points", ...); on an error the
// polygon is left as it was.
func (p *Polygon) UnmarshalJSON(b []byte) error {
	var m struct {
		Coordinates any `json:"coordinates"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse: invalid Polygon: %w", err)
	}
	out, err := NewPolygon(m.Coordinates)
	if err != nil {
		return err
	}
	*p = out
	return nil
}

// Bytes is binary data sent as base64.
type Bytes []byte

// MarshalJSON writes {"__type":"Bytes","base64":...}.
func (b Bytes) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"__type": "Bytes", "base64": base64.StdEncoding.EncodeToString(b)})
}

// UnmarshalJSON reads {"__type":"Bytes","base64":...}.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	var m struct {
		B64 string `json:"base64"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("parse: invalid Bytes: %w", err)
	}
	d, err := base64.StdEncoding.DecodeString(m.B64)
	if err != nil {
		return fmt.Errorf("parse: invalid Bytes: %w", err)
	}
	*b = d
	return nil
}

// parseFixedDate reads exactly "2006-01-02T15:04:05.000Z" without time.Parse: every object carries two such dates,
// and reading them is a hot path when iterating large classes.
func parseFixedDate(s string) (time.Time, bool) {
	if len(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return time.Time{}, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	se, ok6 := num(17, 19)
	ms, ok7 := num(20, 23)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, ms*int(time.Millisecond), time.UTC)
	if t.Day() != d { // e.g. February 30th: time.Date would normalise it
		return time.Time{}, false
	}
	return t, true
}
