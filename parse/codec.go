package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Encoder is implemented by values that know their own Parse wire form.
type Encoder interface {
	EncodeParse() (any, error)
}

// Encode turns a Go value into its wire form, ready for encoding/json: time.Time becomes a Date, an *Object a
// Pointer (it must have an id), slices and maps are walked. Other values are returned as they are, for
// encoding/json to handle.
func Encode(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		return x, nil
	case time.Time:
		return map[string]any{"__type": "Date", "iso": FormatDate(x)}, nil
	case *time.Time:
		if x == nil {
			return nil, nil
		}
		return Encode(*x)
	case *Object:
		return x.encodeRef()
	case interface{ ParseObject() *Object }: // a type that embeds an object (client.User, client.Role)
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, nil
		}
		return x.ParseObject().encodeRef()
	case Encoder:
		return x.EncodeParse()
	case Op:
		return x.encode()
	case *ACL:
		if x == nil {
			return nil, nil
		}
		if err := x.Err(); err != nil {
			return nil, err
		}
		out := map[string]any{}
		for k, p := range x.entries {
			e := map[string]any{}
			if p.Read {
				e["read"] = true
			}
			if p.Write {
				e["write"] = true
			}
			out[k] = e
		}
		return out, nil
	case Pointer:
		return map[string]any{"__type": "Pointer", "className": x.ClassName, "objectId": x.ObjectID}, nil
	case *Pointer:
		if x == nil {
			return nil, nil
		}
		return Encode(*x)
	case Relation:
		return x.wire(), nil
	case File:
		b, err := x.MarshalJSON()
		return rawMap(b, err)
	case *File:
		if x == nil {
			return nil, nil
		}
		return Encode(*x)
	case GeoPoint:
		if err := x.Validate(); err != nil {
			return nil, err
		}
		return map[string]any{"__type": "GeoPoint", "latitude": x.Latitude, "longitude": x.Longitude}, nil
	case Polygon:
		if err := x.Validate(); err != nil {
			return nil, err
		}
		return map[string]any{"__type": "Polygon", "coordinates": x.pairs()}, nil
	case Bytes:
		b, err := x.MarshalJSON()
		return rawMap(b, err)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ev, err := Encode(e)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ev, err := Encode(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = ev
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			ev, err := Encode(rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("parse: map keys must be strings, got %s", rv.Type().Key())
		}
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			ev, err := Encode(it.Value().Interface())
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = ev
		}
		return out, nil
	case reflect.Func, reflect.Chan, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return nil, fmt.Errorf("parse: cannot encode a value of type %T", v)
	}
	return v, nil
}

func rawMap(b []byte, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Decode turns a value decoded by encoding/json (maps, slices, float64s) into Go values: Date maps become
// time.Time, Pointers Pointer, nested objects *Object, files File, and so on. An unknown __type is kept as a map.
func Decode(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := x["__type"].(string); ok {
			if dv, ok := decodeTyped(t, x); ok {
				return dv
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Decode(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Decode(e)
		}
		return out
	}
	return v
}

func decodeTyped(t string, m map[string]any) (any, bool) {
	str := func(k string) string { s, _ := m[k].(string); return s }
	switch t {
	case "Date":
		d, err := ParseDate(str("iso"))
		if err != nil {
			return nil, false
		}
		return d, true
	case "Pointer":
		return Pointer{ClassName: str("className"), ObjectID: str("objectId")}, true
	case "Relation":
		return Relation{ClassName: str("className")}, true
	case "File":
		return File{Name: str("name"), URL: str("url"), Hash: str("hash"), IPFS: str("ipfs")}, true
	case "GeoPoint":
		lat, ok1 := toFloat(m["latitude"])
		lng, ok2 := toFloat(m["longitude"])
		if !ok1 || !ok2 {
			return nil, false
		}
		return GeoPoint{Latitude: lat, Longitude: lng}, true
	case "Polygon":
		coords, ok := m["coordinates"].([]any)
		if !ok {
			return nil, false
		}
		var p Polygon
		for _, c := range coords {
			pair, ok := c.([]any)
			if !ok || len(pair) != 2 {
				return nil, false
			}
			lat, ok1 := toFloat(pair[0])
			lng, ok2 := toFloat(pair[1])
			if !ok1 || !ok2 {
				return nil, false
			}
			p.Coordinates = append(p.Coordinates, GeoPoint{Latitude: lat, Longitude: lng})
		}
		return p, true
	case "Bytes":
		var b Bytes
		raw, err := json.Marshal(m)
		if err != nil || b.UnmarshalJSON(raw) != nil {
			return nil, false
		}
		return b, true
	case "Object":
		cn := str("className")
		o := NewObject(cn)
		if err := o.setFromServer(m); err != nil {
			return nil, false
		}
		return o, true
	}
	return nil, false
}

// ErrNotJSONObject is returned when a body that must be a JSON object is not one.
var ErrNotJSONObject = errors.New("parse: expected a JSON object")

// Unmarshal decodes one Parse JSON object into v: an *Object (whose class must be set), a map, or a struct of the
// caller's. For structs, Parse dates become strings that time.Time fields accept, and Pointer, File, GeoPoint,
// Polygon and Bytes fields decode from their wire form.
func Unmarshal(data []byte, v any) error {
	switch t := v.(type) {
	case *Object:
		return t.UnmarshalJSON(data)
	case **Object:
		o := NewObject("")
		if err := o.UnmarshalJSON(data); err != nil {
			return err
		}
		*t = o
		return nil
	case *map[string]any:
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m == nil {
			return ErrNotJSONObject
		}
		dm, ok := Decode(m).(map[string]any)
		if !ok {
			// A typed value (a Pointer, a Date...) at the top: keep its wire form as a plain map.
			dm = m
		}
		*t = dm
		return nil
	}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	flat, err := json.Marshal(flattenDates(raw))
	if err != nil {
		return err
	}
	return json.Unmarshal(flat, v)
}

// flattenDates replaces every {"__type":"Date","iso":...} with its iso string, so time.Time fields decode.
func flattenDates(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x["__type"] == "Date" {
			if s, ok := x["iso"].(string); ok {
				return s
			}
		}
		for k, e := range x {
			x[k] = flattenDates(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = flattenDates(e)
		}
		return x
	}
	return v
}
