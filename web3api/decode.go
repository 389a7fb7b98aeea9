package web3api

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// decode unmarshals an answer into out. The API documents some numeric values as strings and sends some
// string values as numbers; when the plain decoding fails only because a JSON number met a Go string, the
// numbers bound for strings are turned into their decimal text and decoding is retried. Numbers are never
// passed through float64.
func decode(b []byte, out any) error {
	err := json.Unmarshal(b, out)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || te.Value != "number" || te.Type.Kind() != reflect.String {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if d.Decode(&tree) != nil {
		return err
	}
	fixed, merr := json.Marshal(numbersToStrings(tree, reflect.TypeOf(out)))
	if merr != nil {
		return err
	}
	return json.Unmarshal(fixed, out)
}

func numbersToStrings(v any, t reflect.Type) any {
	for t != nil && (t.Kind() == reflect.Pointer) {
		t = t.Elem()
	}
	if t == nil {
		return v
	}
	switch x := v.(type) {
	case json.Number:
		if t.Kind() == reflect.String && t != reflect.TypeOf(json.Number("")) {
			return x.String()
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i := range x {
				x[i] = numbersToStrings(x[i], t.Elem())
			}
		}
	case map[string]any:
		switch t.Kind() {
		case reflect.Map:
			for k := range x {
				x[k] = numbersToStrings(x[k], t.Elem())
			}
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "" {
					name = f.Name
				}
				if fv, ok := x[name]; ok {
					x[name] = numbersToStrings(fv, f.Type)
				}
			}
		}
	}
	return v
}
