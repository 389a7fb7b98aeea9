// Package wire holds the Parse JSON codecs that the client, query and store packages share: the typed values
// that travel as {"__type": ...} maps (Date, Pointer, Relation, File, GeoPoint, Polygon, Bytes, Object), the
// field operations ({"__op": ...}), the ACL, and Encode/Decode between Go values and their wire form.
//
// The client package re-exports these types under its own names (client.Object is wire.Object); users never
// import this package.
package parse

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// Relation is the placeholder the server sends for a relation field; query it with relatedTo.
type Relation struct {
	ClassName string `json:"className"`
}

// MarshalJSON writes {"__type":"Relation","className":...}.
func (r Relation) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"__type": "Relation", "className": r.ClassName})
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

// Errors of GeoPoint validation.
var (
	ErrGeoPointNotNumber = errors.New("GeoPoint latitude and longitude must be valid numbers")
	ErrLatitudeRange     = errors.New("GeoPoint latitude out of bounds: must be between -90.0 and 90.0")
	ErrLongitudeRange    = errors.New("GeoPoint longitude out of bounds: must be between -180.0 and 180.0")
)

// NewGeoPoint checks the coordinates: numbers, latitude in [-90, 90], longitude in [-180, 180].
func NewGeoPoint(lat, lng float64) (GeoPoint, error) {
	g := GeoPoint{Latitude: lat, Longitude: lng}
	return g, g.Validate()
}

// Validate reports whether the point's coordinates are in range.
func (g GeoPoint) Validate() error {
	if math.IsNaN(g.Latitude) || math.IsNaN(g.Longitude) || math.IsInf(g.Latitude, 0) || math.IsInf(g.Longitude, 0) {
		return ErrGeoPointNotNumber
	}
	if g.Latitude < -90 || g.Latitude > 90 {
		return ErrLatitudeRange
	}
	if g.Longitude < -180 || g.Longitude > 180 {
		return ErrLongitudeRange
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

// Polygon is a closed shape of at least three GeoPoints.
type Polygon struct {
	Coordinates []GeoPoint
}

// ErrPolygonTooSmall is returned for a polygon of fewer than three points.
var ErrPolygonTooSmall = errors.New("Polygon must have at least 3 GeoPoints or Points")

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

// UnmarshalJSON reads a Polygon.
func (p *Polygon) UnmarshalJSON(b []byte) error {
	var m struct {
		Coordinates [][]float64 `json:"coordinates"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse: invalid Polygon: %w", err)
	}
	p.Coordinates = p.Coordinates[:0]
	for _, c := range m.Coordinates {
		if len(c) != 2 {
			return errors.New("parse: invalid Polygon coordinate")
		}
		p.Coordinates = append(p.Coordinates, GeoPoint{Latitude: c[0], Longitude: c[1]})
	}
	return p.Validate()
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
