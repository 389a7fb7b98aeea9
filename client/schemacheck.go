package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/internal/settle"
	"github.com/c13f5054/moralis-go/parse"
)

// schemaRefusal finds the first create or update among ws whose body the class schema refuses as parse-server's
// own check does outside a transaction (a field of the wrong type: code 111, "schema mismatch for C.f; expected X
// but got Y"; a malformed typed value: code 111, "This is not a valid T"), and returns its index in ws and that
// refusal; -1 and nil when none is found or the schemas cannot be read. With the master key the client reads the
// schemas itself (GET schemas/<class>); otherwise it asks the backend's moralisGoCheckWrites (moralis-go-server,
// feature txMark).
func (c *Client) schemaRefusal(ctx context.Context, ws []*write) (int, error) {
	var idx []int
	for k, w := range ws {
		if w.kind != settle.Delete && len(w.body) > 0 {
			idx = append(idx, k)
		}
	}
	if len(idx) == 0 {
		return -1, nil
	}
	if c.HasMasterKey() {
		return c.schemaRefusalByMaster(ctx, ws, idx)
	}
	if !c.hasFeature(ctx, featureTxMark) {
		return -1, nil
	}
	reqs := make([]map[string]any, len(idx))
	for j, k := range idx {
		it := ws[k].item()
		reqs[j] = map[string]any{"method": it.method, "path": it.path, "body": it.body}
	}
	rc := rest.Call{Method: http.MethodPost, Path: "functions/" + checkWritesFunction, Params: map[string]any{"requests": reqs}}
	rc.Replay, rc.NoIdempotency = httpx.ReplayAlways, true // it reads the schema only
	var out struct {
		Result struct {
			Index *int   `json:"index"`
			Code  int    `json:"code"`
			Error string `json:"error"`
		} `json:"result"`
	}
	if err := c.do(ctx, rc, &out); err != nil || out.Result.Index == nil || *out.Result.Index < 0 || *out.Result.Index >= len(idx) {
		return -1, nil
	}
	k := idx[*out.Result.Index]
	it := ws[k].item()
	return k, &parse.Error{Code: parse.Code(out.Result.Code), Message: out.Result.Error, Op: it.method + " " + it.path}
}

// schemaRefusalByMaster is schemaRefusal reading the class schemas with the master key.
func (c *Client) schemaRefusalByMaster(ctx context.Context, ws []*write, idx []int) (int, error) {
	schemas := map[string]map[string]schemaType{}
	for _, k := range idx {
		cls := ws[k].o.ClassName()
		if _, done := schemas[cls]; done {
			continue
		}
		var a struct {
			Fields map[string]schemaType `json:"fields"`
		}
		rc := c.call(http.MethodGet, "schemas/"+cls, nil)
		rc.UseMasterKey, rc.SessionToken = true, ""
		if err := c.do(ctx, rc, &a); err != nil {
			a.Fields = nil // a class without a schema, or an unreadable one: nothing to check against
		}
		schemas[cls] = a.Fields
	}
	for _, k := range idx {
		w := ws[k]
		if msg := checkFields(w.o.ClassName(), schemas[w.o.ClassName()], w.body); msg != "" {
			it := w.item()
			return k, &parse.Error{Code: parse.CodeIncorrectType, Message: msg, Op: it.method + " " + it.path}
		}
	}
	return -1, nil
}

// schemaType is a field's type as schemas and parse-server's checks name it: a type, and the target class of a
// Pointer or Relation.
type schemaType struct {
	Type        string `json:"type"`
	TargetClass string `json:"targetClass,omitempty"`
}

// String is parse-server's typeToString: "Pointer<_User>", "Number".
func (t schemaType) String() string {
	if t.TargetClass != "" {
		return t.Type + "<" + t.TargetClass + ">"
	}
	return t.Type
}

// checkFields returns parse-server's refusal text for the first field of body (in name order) whose value does
// not fit the field's type in fields, or "" when every field fits (fields the schema does not have are added by
// the server, not refused; ACL is not a schema field).
func checkFields(className string, fields map[string]schemaType, body map[string]any) string {
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "ACL" || strings.Contains(k, ".") {
			continue
		}
		got, ok, err := wireType(body[k])
		if err != nil {
			return err.Error()
		}
		want, known := fields[k]
		if !ok || !known {
			continue
		}
		if want.Type == "map" {
			want.Type = "Object"
		}
		if want != got {
			return fmt.Sprintf("schema mismatch for %s.%s; expected %s but got %s", className, k, want, got)
		}
	}
	return ""
}

// wireType is the type parse-server gives a value of a save body (its getType): false when the value gives none
// (null, a Delete op); an error, with parse-server's text, for a typed value it cannot read.
func wireType(v any) (schemaType, bool, error) {
	switch x := v.(type) {
	case nil:
		return schemaType{}, false, nil
	case bool:
		return schemaType{Type: "Boolean"}, true, nil
	case string:
		return schemaType{Type: "String"}, true, nil
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return schemaType{Type: "Number"}, true, nil
	case map[string]any:
		return objectType(x)
	}
	if k := reflect.ValueOf(v).Kind(); k == reflect.Slice || k == reflect.Array {
		return schemaType{Type: "Array"}, true, nil
	}
	return schemaType{Type: "Object"}, true, nil
}

// objectType is parse-server's getObjectType of a JSON object: a typed value (__type), an operation (__op), or an
// Object.
func objectType(m map[string]any) (schemaType, bool, error) {
	if t, ok := m["__type"].(string); ok {
		has := func(k string) bool { v, ok := m[k]; return ok && v != nil && v != "" }
		switch {
		case (t == "Pointer" || t == "Relation") && has("className"):
			cls, _ := m["className"].(string)
			return schemaType{Type: t, TargetClass: cls}, true, nil
		case t == "File" && has("name"), t == "Date" && has("iso"), t == "Bytes" && has("base64"), t == "Polygon" && has("coordinates"):
			return schemaType{Type: t}, true, nil
		case t == "GeoPoint" && m["latitude"] != nil && m["longitude"] != nil:
			return schemaType{Type: t}, true, nil
		}
		return schemaType{}, false, errors.New("This is not a valid " + t)
	}
	switch m["__op"] {
	case nil:
		return schemaType{Type: "Object"}, true, nil
	case "Increment":
		return schemaType{Type: "Number"}, true, nil
	case "Delete":
		return schemaType{}, false, nil
	case "Add", "AddUnique", "Remove":
		return schemaType{Type: "Array"}, true, nil
	case "AddRelation", "RemoveRelation":
		if objs := reflect.ValueOf(m["objects"]); (objs.Kind() == reflect.Slice) && objs.Len() > 0 {
			if first, ok := objs.Index(0).Interface().(map[string]any); ok {
				cls, _ := first["className"].(string)
				return schemaType{Type: "Relation", TargetClass: cls}, true, nil
			}
		}
	case "Batch":
		if ops := reflect.ValueOf(m["ops"]); ops.Kind() == reflect.Slice && ops.Len() > 0 {
			return wireType(ops.Index(0).Interface())
		}
	}
	return schemaType{}, false, nil
}
