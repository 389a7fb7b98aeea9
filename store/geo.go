package store

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// Geo constraints, evaluated as the PostgreSQL adapter of parse-server 9.10 runs them (buildWhereClause and find in
// PostgresStorageAdapter.js); doc.go ("Geo queries") states the semantics. A GeoPoint column there is a PostgreSQL
// point and a Polygon column a polygon, both of (x, y) = (longitude, latitude); $nearSphere and $centerSphere run
// ST_DistanceSphere(field, point) <= radians * 6371 * 1000, $box "point <@ box", $polygon "point <@ polygon" and
// $geoIntersects "polygon @> point".

const (
	// serverKmPerRadian is the earth radius, in km, parse-server turns $maxDistance and $centerSphere radians into
	// metres with.
	serverKmPerRadian = query.EarthRadiusKilometers
	// postgisRadius is the radius, in metres, of the sphere ST_DistanceSphere measures on: the mean radius
	// (2a+b)/3 of the WGS84 ellipsoid.
	postgisRadius = (2*wgs84A + wgs84B) / 3
	wgs84A        = 6378137.0
	wgs84B        = wgs84A - wgs84A/298.257223563
	// pgTolerance is the tolerance of PostgreSQL's geometric comparisons (EPSILON).
	pgTolerance = 1e-6
)

// geoPoint is a point in degrees.
type geoPoint struct{ lat, lon float64 }

// xy is a point of a planar PostgreSQL shape: x the longitude, y the latitude.
type xy struct{ x, y float64 }

func (p geoPoint) xy() xy { return xy{p.lon, p.lat} }

// compileGeo compiles one geo operator of the condition cond on key. Its SQL value is NULL where the field is
// missing or null. It returns a clause without a matcher for the operators that only qualify another
// ($maxDistance...).
func compileGeo(key, op string, cond map[string]any) (clause, error) {
	if strings.Contains(key, ".") {
		return clause{}, unsupported("%s on the dotted key %q", op, key)
	}
	var m matcher
	var err error
	switch op {
	case "$maxDistance", "$maxDistanceInRadians", "$maxDistanceInKilometers", "$maxDistanceInMiles":
		if _, ok := cond["$nearSphere"]; !ok {
			return clause{}, fmt.Errorf("store: %s on %q without $nearSphere (the server refuses it alone and ignores it otherwise)", op, key)
		}
		return clause{}, nil // read by $nearSphere, or ignored as the server does
	case "$nearSphere":
		center, none, err := nearPoint(key, norm(cond[op]))
		if err != nil {
			return clause{}, err
		}
		limit, limited, err := maxDistance(key, cond)
		if err != nil {
			return clause{}, err
		}
		if none { // a NULL point: the distance is NULL for every record
			return clause{match: func(*record) bool { return false }, unknown: func(*record) bool { return true }}, nil
		}
		m = withinDistance(key, center, limit, limited)
	case "$within":
		m, err = compileWithin(key, norm(cond[op]))
	case "$geoWithin":
		m, err = compileGeoWithin(key, norm(cond[op]))
	case "$geoIntersects":
		m, err = compileGeoIntersects(key, norm(cond[op]))
	default:
		return clause{}, unsupported("operator %s on %q", op, key)
	}
	if err != nil {
		return clause{}, err
	}
	return clause{match: m, unknown: func(r *record) bool {
		v, _ := lookup(r, key)
		return v == nil
	}}, nil
}

// nearPoint reads the point of a $nearSphere (normalised). The server hands its longitude and latitude to
// PostgreSQL unchecked: a value without both (an empty object, a string, an array, ...) is a NULL point, and the
// constraint matches nothing (none). A false value (null, false, 0, "") adds no constraint, which the server refuses.
func nearPoint(key string, v any) (p geoPoint, none bool, err error) {
	switch x := v.(type) {
	case nil:
		return p, false, fmt.Errorf("store: $nearSphere on %q needs a GeoPoint, got null", key)
	case bool:
		if !x {
			return p, false, fmt.Errorf("store: $nearSphere on %q needs a GeoPoint, got false", key)
		}
		return p, true, nil
	case float64:
		if x == 0 {
			return p, false, fmt.Errorf("store: $nearSphere on %q needs a GeoPoint, got 0", key)
		}
		return p, true, nil
	case string:
		if x == "" {
			return p, false, fmt.Errorf("store: $nearSphere on %q needs a GeoPoint, got an empty string", key)
		}
		return p, true, nil
	case map[string]any:
		lat, lon := x["latitude"], x["longitude"]
		if lat == nil || lon == nil {
			return p, true, nil
		}
		la, ok1 := lat.(float64)
		lo, ok2 := lon.(float64)
		if !ok1 || !ok2 {
			return p, false, unsupported("$nearSphere on %q: latitude and longitude must be numbers (the server converts or refuses %T and %T)", key, lat, lon)
		}
		p = geoPoint{la, lo}
		if err := p.validate(); err != nil {
			return p, false, unsupported("$nearSphere on %q: %v (PostGIS coerces it into range; the store does not)", key, err)
		}
		return p, false, nil
	}
	return p, true, nil // an array, a Date, a Pointer: no latitude or longitude
}

// maxDistance reads the $maxDistance of a $nearSphere as a limit in metres, as the server computes it
// ($maxDistance × 6371 × 1000 in JavaScript: null is 0). limited is false without $maxDistance.
func maxDistance(key string, cond map[string]any) (limit float64, limited bool, err error) {
	raw, ok := cond["$maxDistance"]
	if !ok {
		return 0, false, nil
	}
	d, err := radians(raw)
	if err != nil {
		return 0, false, unsupported("$maxDistance on %q: %v", key, err)
	}
	return d * serverKmPerRadian * 1000, true, nil
}

// radians reads a distance in radians: a number, or null (0 in JavaScript arithmetic).
func radians(v any) (float64, error) {
	switch x := norm(v).(type) {
	case nil:
		return 0, nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("need a number, got %T (the server converts it as JavaScript does)", v)
}

// withinDistance matches a GeoPoint at most limit metres (ST_DistanceSphere) from center; any GeoPoint when not
// limited.
func withinDistance(key string, center geoPoint, limit float64, limited bool) matcher {
	return func(r *record) bool {
		v, _ := lookup(r, key)
		p, ok := storedPoint(v)
		if !ok {
			return false
		}
		// Without a limit the server compares with NaN, which PostgreSQL orders above every number.
		return !limited || sphereDistance(p, center) <= limit
	}
}

// compileWithin compiles $within {$box: [southwest, northeast]}: the box, normalised, edges included.
func compileWithin(key string, v any) (matcher, error) {
	w, ok := v.(map[string]any)
	if !ok || w["$box"] == nil {
		return nil, fmt.Errorf("store: bad $within value on %q: need {$box: [southwest, northeast]} (the server refuses it too)", key)
	}
	for k := range w {
		if k != "$box" {
			return nil, unsupported("$within %s on %q", k, key)
		}
	}
	box, ok := w["$box"].([]any)
	if !ok || len(box) < 2 {
		return nil, fmt.Errorf("store: bad $within value on %q: $box needs two GeoPoints, southwest and northeast", key)
	}
	if len(box) > 2 {
		return nil, unsupported("$box on %q with %d points (the server reads the first two)", key, len(box))
	}
	var corners [2]xy
	for i, c := range box {
		m, _ := c.(map[string]any)
		var lat, lon any
		if m != nil {
			lat, lon = m["latitude"], m["longitude"]
		}
		la, ok1 := lat.(float64)
		lo, ok2 := lon.(float64)
		if !ok1 || !ok2 {
			if _, s1 := lat.(string); s1 {
				return nil, unsupported("$box on %q: a coordinate in a string", key)
			}
			if _, s2 := lon.(string); s2 {
				return nil, unsupported("$box on %q: a coordinate in a string", key)
			}
			return nil, fmt.Errorf("store: bad $within value on %q: $box corner %d needs a numeric latitude and longitude", key, i+1)
		}
		corners[i] = xy{lo, la}
	}
	lo := xy{math.Min(corners[0].x, corners[1].x), math.Min(corners[0].y, corners[1].y)}
	hi := xy{math.Max(corners[0].x, corners[1].x), math.Max(corners[0].y, corners[1].y)}
	return func(r *record) bool {
		v, _ := lookup(r, key)
		p, ok := storedPoint(v)
		if !ok {
			return false
		}
		return p.lon >= lo.x && p.lon <= hi.x && p.lat >= lo.y && p.lat <= hi.y
	}, nil
}

// compileGeoWithin compiles $geoWithin with $polygon, $centerSphere or both (both must hold).
func compileGeoWithin(key string, v any) (matcher, error) {
	w, ok := v.(map[string]any)
	if !ok || (w["$polygon"] == nil && w["$centerSphere"] == nil) {
		return nil, fmt.Errorf("store: bad $geoWithin value on %q: need $polygon or $centerSphere (the server refuses it too)", key)
	}
	var ms []matcher
	for _, k := range slices.Sorted(maps.Keys(w)) {
		switch k {
		case "$polygon":
			if w[k] == nil {
				continue
			}
			poly, err := queryPolygon(key, w[k])
			if err != nil {
				return nil, err
			}
			ms = append(ms, func(r *record) bool {
				v, _ := lookup(r, key)
				p, ok := storedPoint(v)
				return ok && inPolygon(poly, p.xy())
			})
		case "$centerSphere":
			if w[k] == nil {
				continue
			}
			center, limit, err := centerSphere(key, w[k])
			if err != nil {
				return nil, err
			}
			ms = append(ms, withinDistance(key, center, limit, true))
		default:
			return nil, unsupported("$geoWithin %s on %q", k, key)
		}
	}
	if len(ms) == 1 {
		return ms[0], nil
	}
	return func(r *record) bool { return ms[0](r) && ms[1](r) }, nil
}

// queryPolygon reads the $polygon of a $geoWithin: a Polygon, or a list of GeoPoints and [longitude, latitude]
// pairs, with at least three entries, as the server checks it.
func queryPolygon(key string, v any) ([]xy, error) {
	var list []any
	switch x := v.(type) {
	case []any:
		if len(x) < 3 {
			return nil, fmt.Errorf("store: bad $geoWithin value on %q: $polygon should contain at least 3 GeoPoints", key)
		}
		list = x
	case map[string]any:
		if x["__type"] != "Polygon" {
			return nil, fmt.Errorf("store: bad $geoWithin value on %q: $polygon should be a Polygon or an array of GeoPoints", key)
		}
		coords, ok := x["coordinates"].([]any)
		if !ok || len(coords) < 3 {
			return nil, fmt.Errorf("store: bad $geoWithin value on %q: Polygon.coordinates should contain at least 3 lon/lat pairs", key)
		}
		list = coords
	default:
		return nil, fmt.Errorf("store: bad $geoWithin value on %q: $polygon should be a Polygon or an array of GeoPoints, got %T", key, v)
	}
	poly := make([]xy, len(list))
	for i, e := range list {
		p, err := pairOrGeoPoint(e)
		if err != nil {
			return nil, fmt.Errorf("store: bad $geoWithin value on %q: $polygon point %d: %w", key, i+1, err)
		}
		poly[i] = p.xy()
	}
	return poly, nil
}

// pairOrGeoPoint reads a [longitude, latitude] pair or a GeoPoint, checked as Parse.GeoPoint checks it.
func pairOrGeoPoint(v any) (geoPoint, error) {
	var p geoPoint
	switch x := v.(type) {
	case []any:
		if len(x) != 2 {
			return p, fmt.Errorf("need a [longitude, latitude] pair or a GeoPoint, got %d numbers", len(x))
		}
		lon, ok1 := x[0].(float64)
		lat, ok2 := x[1].(float64)
		if !ok1 || !ok2 {
			return p, errGeoNotNumber
		}
		p = geoPoint{lat, lon}
	case map[string]any:
		if x["__type"] != "GeoPoint" {
			return p, errors.New("need a [longitude, latitude] pair or a GeoPoint")
		}
		lat, ok1 := x["latitude"].(float64)
		lon, ok2 := x["longitude"].(float64)
		if !ok1 || !ok2 {
			return p, errGeoNotNumber
		}
		p = geoPoint{lat, lon}
	default:
		return p, fmt.Errorf("need a [longitude, latitude] pair or a GeoPoint, got %T", v)
	}
	return p, p.validate()
}

var errGeoNotNumber = parse.ErrGeoPointNotNumber

// validate is Parse.GeoPoint's check of a point the server reads (the SDK's own GeoPoint check).
func (p geoPoint) validate() error {
	return parse.GeoPoint{Latitude: p.lat, Longitude: p.lon}.Validate()
}

// centerSphere reads [point, radians] and returns the centre and the limit in metres, as the server computes it.
func centerSphere(key string, v any) (geoPoint, float64, error) {
	list, ok := v.([]any)
	if !ok || len(list) < 2 {
		return geoPoint{}, 0, fmt.Errorf("store: bad $geoWithin value on %q: $centerSphere should be an array of a GeoPoint and a distance", key)
	}
	if len(list) > 2 {
		return geoPoint{}, 0, unsupported("$centerSphere on %q with %d entries (the server reads the first two)", key, len(list))
	}
	center, err := pairOrGeoPoint(list[0])
	if err != nil {
		return geoPoint{}, 0, fmt.Errorf("store: bad $geoWithin value on %q: $centerSphere geo point invalid: %w", key, err)
	}
	d, err := radians(list[1])
	if err != nil {
		return geoPoint{}, 0, unsupported("$centerSphere distance on %q: %v", key, err)
	}
	if d < 0 {
		return geoPoint{}, 0, fmt.Errorf("store: bad $geoWithin value on %q: $centerSphere distance invalid: %v < 0", key, d)
	}
	return center, d * serverKmPerRadian * 1000, nil
}

// compileGeoIntersects compiles $geoIntersects {$point}: the Polygon field contains the point or has it on its
// boundary.
func compileGeoIntersects(key string, v any) (matcher, error) {
	w, ok := v.(map[string]any)
	if !ok || w["$point"] == nil {
		return nil, fmt.Errorf("store: bad $geoIntersects value on %q: need {$point: GeoPoint} (the server refuses it too)", key)
	}
	for k := range w {
		if k != "$point" {
			return nil, unsupported("$geoIntersects %s on %q", k, key)
		}
	}
	pm, ok := w["$point"].(map[string]any)
	if !ok || pm["__type"] != "GeoPoint" {
		return nil, fmt.Errorf("store: bad $geoIntersects value on %q: $point should be a GeoPoint", key)
	}
	lat, ok1 := pm["latitude"].(float64)
	lon, ok2 := pm["longitude"].(float64)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("store: bad $geoIntersects value on %q: %w", key, errGeoNotNumber)
	}
	pt := geoPoint{lat, lon}
	if err := pt.validate(); err != nil {
		return nil, fmt.Errorf("store: bad $geoIntersects value on %q: %w", key, err)
	}
	var scratch []xy // a matcher serves one query, in one goroutine
	return func(r *record) bool {
		v, _ := lookup(r, key)
		var ok bool
		scratch, ok = storedPolygon(v, scratch[:0])
		return ok && inPolygon(scratch, pt.xy())
	}, nil
}

// storedPoint reads a stored (normalised) GeoPoint; ok is false for anything else.
func storedPoint(v any) (geoPoint, bool) {
	m, ok := v.(map[string]any)
	if !ok || m["__type"] != "GeoPoint" {
		return geoPoint{}, false
	}
	lat, ok1 := m["latitude"].(float64)
	lon, ok2 := m["longitude"].(float64)
	return geoPoint{lat, lon}, ok1 && ok2
}

// storedPolygon appends the points of a stored (normalised) Polygon, whose coordinates are [latitude, longitude]
// pairs, to buf; ok is false for anything else.
func storedPolygon(v any, buf []xy) ([]xy, bool) {
	m, ok := v.(map[string]any)
	if !ok || m["__type"] != "Polygon" {
		return buf, false
	}
	coords, ok := m["coordinates"].([]any)
	if !ok {
		return buf, false
	}
	for _, c := range coords {
		pair, ok := c.([]any)
		if !ok || len(pair) != 2 {
			return buf, false
		}
		lat, ok1 := pair[0].(float64)
		lon, ok2 := pair[1].(float64)
		if !ok1 || !ok2 {
			return buf, false
		}
		buf = append(buf, xy{lon, lat})
	}
	return buf, true
}

// sphereDistance is ST_DistanceSphere between a and b: the great-circle angle (in the atan2 form, which keeps
// its precision for near and for antipodal points) times PostGIS's radius, rounded to 1e-8 m as PostGIS rounds.
func sphereDistance(a, b geoPoint) float64 {
	lat1, lat2 := math.Pi*a.lat/180, math.Pi*b.lat/180
	dLon := math.Pi*b.lon/180 - math.Pi*a.lon/180
	sin1, cos1 := math.Sin(lat1), math.Cos(lat1)
	sin2, cos2 := math.Sin(lat2), math.Cos(lat2)
	sinD, cosD := math.Sin(dLon), math.Cos(dLon)
	east := cos2 * sinD
	north := cos1*sin2 - sin1*cos2*cosD
	angle := math.Atan2(math.Sqrt(east*east+north*north), sin1*sin2+cos1*cos2*cosD)
	return math.Round(angle*postgisRadius*1e8) / 1e8
}

// inPolygon is PostgreSQL's "point <@ polygon" for a closed polygon (the last point joins the first): true on
// the boundary (within PostgreSQL's tolerance) and inside by the non-zero winding rule, so that the middle of a
// self-crossing star is inside.
func inPolygon(poly []xy, p xy) bool {
	if len(poly) == 0 {
		return false
	}
	winding := 0
	prev := poly[len(poly)-1]
	for _, cur := range poly {
		// The edge prev -> cur, relative to p.
		ax, ay := prev.x-p.x, prev.y-p.y
		bx, by := cur.x-p.x, cur.y-p.y
		prev = cur
		cross := ax*by - ay*bx // > 0: p is left of the edge
		if math.Abs(cross) <= pgTolerance && spans(ax, bx) && spans(ay, by) {
			return true // on the edge
		}
		switch {
		case ay <= 0 && by > 0 && cross > 0: // upwards, p on the left
			winding++
		case ay > 0 && by <= 0 && cross < 0: // downwards, p on the right
			winding--
		}
	}
	return winding != 0
}

// spans reports whether 0 lies between a and b, within PostgreSQL's tolerance.
func spans(a, b float64) bool {
	return math.Min(a, b) <= pgTolerance && math.Max(a, b) >= -pgTolerance
}

// nearKey is a top-level $nearSphere, which orders the results.
type nearKey struct {
	key    string
	center geoPoint
}

// nearOrder returns the top-level $nearSphere constraints of a (compiled, so valid) where map, by key. Those inside
// $or, $and and $nor do not order, as on the server.
func nearOrder(where map[string]any) []nearKey {
	var out []nearKey
	for k, v := range where {
		cond, ok := v.(map[string]any)
		if !ok || strings.HasPrefix(k, "$") {
			continue
		}
		raw, ok := cond["$nearSphere"]
		if !ok || !isCondition(cond) {
			continue
		}
		if center, none, err := nearPoint(k, norm(raw)); err == nil && !none {
			out = append(out, nearKey{k, center})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// sortByDistance orders the records nearest first, as the server's ORDER BY ST_DistanceSphere(...) ASC (one key
// per top-level $nearSphere). Every record matched, so each has its points. Ties keep the store's order.
func sortByDistance(recs []*record, near []nearKey) {
	type row struct {
		r *record
		d []float64
	}
	rows := make([]row, len(recs))
	flat := make([]float64, len(recs)*len(near))
	for i, r := range recs {
		d := flat[i*len(near) : (i+1)*len(near) : (i+1)*len(near)]
		for j, n := range near {
			v, _ := lookup(r, n.key)
			p, _ := storedPoint(v)
			d[j] = sphereDistance(p, n.center)
		}
		rows[i] = row{r, d}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for k := range near {
			if a, b := rows[i].d[k], rows[j].d[k]; a != b {
				return a < b
			}
		}
		return false
	})
	for i := range rows {
		recs[i] = rows[i].r
	}
}

// checkGeoValues fails when a geo constraint of where meets a value it cannot read: PostgreSQL fails to cast such
// a column to a point (or a polygon), so the server answers with an error too. It costs nothing for a where map
// without geo constraints.
func checkGeoValues(where map[string]any, recs []*record) error {
	checks := geoFields(where, nil)
	if len(checks) == 0 {
		return nil
	}
	for _, r := range recs {
		for _, c := range checks {
			v, _ := lookup(r, c.key)
			if v == nil {
				continue
			}
			if c.polygon {
				if _, ok := storedPolygon(v, nil); !ok {
					return fmt.Errorf("store: $geoIntersects on %q needs Polygon values, but %s holds %s (the server fails too)", c.key, r.key(), describe(v))
				}
				continue
			}
			if _, ok := storedPoint(v); ok {
				continue
			}
			if m, ok := v.(map[string]any); ok && m["__type"] == "Polygon" {
				return unsupported("%s on the Polygon field %q (the server measures from the polygon)", c.op, c.key)
			}
			return fmt.Errorf("store: %s on %q needs GeoPoint values, but %s holds %s (the server fails too)", c.op, c.key, r.key(), describe(v))
		}
	}
	return nil
}

type geoField struct {
	key, op string
	polygon bool // $geoIntersects reads a Polygon; the others a GeoPoint
}

// geoFields collects the fields read by the geo constraints of where, through $or, $and and $nor.
func geoFields(where map[string]any, out []geoField) []geoField {
	for k, v := range where {
		switch k {
		case "$or", "$and", "$nor":
			list, _ := v.([]any)
			for _, e := range list {
				if w, ok := e.(map[string]any); ok {
					out = geoFields(w, out)
				}
			}
			continue
		}
		cond, ok := v.(map[string]any)
		if !ok || !isCondition(cond) {
			continue
		}
		for op := range cond {
			switch op {
			case "$nearSphere", "$within", "$geoWithin":
				out = append(out, geoField{k, op, false})
			case "$geoIntersects":
				out = append(out, geoField{k, op, true})
			}
		}
	}
	return out
}

// describe names the kind of a normalised value for an error.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case time.Time:
		return "a Date"
	case ref:
		return "a Pointer"
	case []any:
		return "an array"
	case map[string]any:
		if t, ok := x["__type"].(string); ok {
			return "a " + t
		}
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
