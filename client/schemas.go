package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"

	"github.com/c13f5054/moralis-go/parse"
)

// Schema field types (Field.Type).
const (
	FieldString   = "String"
	FieldNumber   = "Number"
	FieldBoolean  = "Boolean"
	FieldDate     = "Date"
	FieldFile     = "File"
	FieldGeoPoint = "GeoPoint"
	FieldPolygon  = "Polygon"
	FieldArray    = "Array"
	FieldObject   = "Object"
	FieldPointer  = "Pointer"
	FieldRelation = "Relation"
	// FieldBytes and FieldACL are only read: the server reports them for its own columns.
	FieldBytes = "Bytes"
	FieldACL   = "ACL"
)

// FieldTypes are the types a schema field may be given.
var FieldTypes = []string{FieldString, FieldNumber, FieldBoolean, FieldDate, FieldFile, FieldGeoPoint, FieldPolygon,
	FieldArray, FieldObject, FieldPointer, FieldRelation}

// ErrSchemaNotFound matches (errors.Is) the error of a schema call on a class that does not exist. The error
// itself is a *SchemaNotFoundError, whose text is "Schema not found" and which also matches code 103
// (ErrInvalidClassName) and gives the server's *Error through errors.As.
var ErrSchemaNotFound = errors.New("Schema not found")

// SchemaNotFoundError is the error of a schema call on a class the server does not know (code 103 "Class X does
// not exist."). Its text is "Schema not found"; Err is the server's answer.
type SchemaNotFoundError struct {
	ClassName string
	Err       *parse.Error
}

// Error returns "Schema not found".
func (e *SchemaNotFoundError) Error() string { return ErrSchemaNotFound.Error() }

// Unwrap returns the server's error (code 103).
func (e *SchemaNotFoundError) Unwrap() error { return e.Err }

// Is matches ErrSchemaNotFound.
func (e *SchemaNotFoundError) Is(target error) bool { return target == ErrSchemaNotFound }

// Field is one field of a schema.
type Field struct {
	// Type is one of FieldTypes (or FieldBytes/FieldACL as read from the server).
	Type string
	// TargetClass is the class a Pointer or Relation points to.
	TargetClass string
	// Required makes the server refuse objects without the field.
	Required bool
	// DefaultValue is given to new objects without the field (nil: none). Go values are encoded like object
	// fields (time.Time becomes a Date, and so on).
	DefaultValue any
}

func (f Field) wire() (map[string]any, error) {
	m := map[string]any{"type": f.Type}
	if f.TargetClass != "" {
		m["targetClass"] = f.TargetClass
	}
	if f.Required {
		m["required"] = true
	}
	if f.DefaultValue != nil {
		dv, err := parse.Encode(f.DefaultValue)
		if err != nil {
			return nil, fmt.Errorf("default value: %w", err)
		}
		m["defaultValue"] = dv
	}
	return m, nil
}

// IndexKey is one key of an index: a field and its direction (1, -1) or kind ("text", ...).
type IndexKey struct {
	Field string
	Value any
}

// Index is an index: its keys, in order (order matters for compound indexes).
type Index []IndexKey

// MarshalJSON writes {"field":1,...} keeping the key order.
func (ix Index) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range ix {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k.Field)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(k.Value)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads {"field":1,...} keeping the key order.
func (ix *Index) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return errors.New("moralis: an index must be a JSON object")
	}
	var out Index
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return fmt.Errorf("moralis: invalid index: %w", err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("moralis: invalid index: %w", err)
		}
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v = int(i)
			} else if f, err := n.Float64(); err == nil {
				v = f
			}
		}
		out = append(out, IndexKey{Field: kt.(string), Value: v})
	}
	*ix = out
	return nil
}

// Schema is a class's schema: its fields, class-level permissions and indexes. Build a new one with NewSchema and
// the Add methods, then CreateSchema; or read one with (*Client).Schema, change it with the Add and Delete
// methods, then UpdateSchema, which sends only those changes.
//
// Builder methods return the schema for chaining; a mistake (bad field name, missing target class, a field added
// twice) is kept and returned by the call that would send it, before any request. A Schema is not safe for
// concurrent mutation.
type Schema struct {
	// ClassName is the class.
	ClassName string
	// Fields are the fields (the server's, after a read or a save; plus those added since).
	Fields map[string]Field
	// Indexes are the indexes by name.
	Indexes map[string]Index
	// CLP are the class-level permissions (nil: unset, the server keeps or defaults them).
	CLP *CLP

	addFields  []string // in order of addition
	delFields  []string
	addIndexes []string
	delIndexes []string
	clpSet     bool
	errs       []error
}

// NewSchema returns an empty schema for className, to build and create.
func NewSchema(className string) *Schema {
	return &Schema{ClassName: className, Fields: map[string]Field{}, Indexes: map[string]Index{}}
}

// FieldOption sets an option of a field being added.
type FieldOption func(*Field)

// FieldRequired makes the field required.
func FieldRequired() FieldOption { return func(f *Field) { f.Required = true } }

// FieldDefault gives the field a default value.
func FieldDefault(v any) FieldOption { return func(f *Field) { f.DefaultValue = v } }

func (s *Schema) fail(format string, args ...any) *Schema {
	s.errs = append(s.errs, fmt.Errorf("moralis: schema %s: "+format, append([]any{s.ClassName}, args...)...))
	return s
}

// AddField adds a field of any of FieldTypes. Pointer and Relation fields need a target class: use AddPointer
// and AddRelation.
func (s *Schema) AddField(name, fieldType string, opts ...FieldOption) *Schema {
	if fieldType == FieldPointer || fieldType == FieldRelation {
		return s.fail("a %s field needs a target class: use Add%s", fieldType, fieldType)
	}
	return s.addField(name, Field{Type: fieldType}, opts)
}

func (s *Schema) addField(name string, f Field, opts []FieldOption) *Schema {
	if s.Fields == nil {
		s.Fields = map[string]Field{}
	}
	switch {
	case name == "":
		return s.fail("a field needs a name")
	case !parse.ValidKey(name):
		return s.fail("invalid field name %q: letters, digits and underscores, starting with a letter", name)
	case !slices.Contains(FieldTypes, f.Type):
		return s.fail("field %s: %q is not a valid type", name, f.Type)
	case slices.Contains(s.addFields, name):
		return s.fail("field %s is added twice", name)
	}
	if _, exists := s.Fields[name]; exists && !slices.Contains(s.delFields, name) {
		return s.fail("field %s already exists", name)
	}
	if f.Type == FieldGeoPoint {
		for n, other := range s.Fields {
			if other.Type == FieldGeoPoint && !slices.Contains(s.delFields, n) {
				return s.fail("a class can only have one GeoPoint field (%s already is one)", n)
			}
		}
	}
	for _, o := range opts {
		o(&f)
	}
	if f.Type == FieldRelation && (f.Required || f.DefaultValue != nil) {
		return s.fail("field %s: a Relation field cannot be required or have a default value", name)
	}
	if f.DefaultValue != nil {
		if _, err := parse.Encode(f.DefaultValue); err != nil {
			return s.fail("field %s: default value: %v", name, err)
		}
	}
	s.Fields[name] = f
	s.addFields = append(s.addFields, name)
	return s
}

// AddString adds a String field.
func (s *Schema) AddString(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldString}, opts)
}

// AddNumber adds a Number field.
func (s *Schema) AddNumber(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldNumber}, opts)
}

// AddBoolean adds a Boolean field.
func (s *Schema) AddBoolean(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldBoolean}, opts)
}

// AddDate adds a Date field.
func (s *Schema) AddDate(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldDate}, opts)
}

// AddFile adds a File field.
func (s *Schema) AddFile(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldFile}, opts)
}

// AddGeoPoint adds a GeoPoint field (a class has at most one).
func (s *Schema) AddGeoPoint(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldGeoPoint}, opts)
}

// AddPolygon adds a Polygon field.
func (s *Schema) AddPolygon(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldPolygon}, opts)
}

// AddArray adds an Array field.
func (s *Schema) AddArray(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldArray}, opts)
}

// AddObject adds an Object (JSON map) field.
func (s *Schema) AddObject(name string, opts ...FieldOption) *Schema {
	return s.addField(name, Field{Type: FieldObject}, opts)
}

// AddPointer adds a Pointer field to targetClass.
func (s *Schema) AddPointer(name, targetClass string, opts ...FieldOption) *Schema {
	if targetClass == "" {
		return s.fail("pointer field %s needs a target class", name)
	}
	return s.addField(name, Field{Type: FieldPointer, TargetClass: targetClass}, opts)
}

// AddRelation adds a Relation field to targetClass.
func (s *Schema) AddRelation(name, targetClass string) *Schema {
	if targetClass == "" {
		return s.fail("relation field %s needs a target class", name)
	}
	return s.addField(name, Field{Type: FieldRelation, TargetClass: targetClass}, nil)
}

// DeleteField removes a field (sent by UpdateSchema as {"__op":"Delete"}).
func (s *Schema) DeleteField(name string) *Schema {
	if name == "" {
		return s.fail("DeleteField needs a field name")
	}
	if i := slices.Index(s.addFields, name); i >= 0 {
		s.addFields = slices.Delete(s.addFields, i, i+1)
		delete(s.Fields, name)
		return s
	}
	if !slices.Contains(s.delFields, name) {
		s.delFields = append(s.delFields, name)
	}
	delete(s.Fields, name)
	return s
}

// AddIndex adds an index. Each key maps a field to 1, -1 or an index kind; keys are kept in order.
func (s *Schema) AddIndex(name string, keys ...IndexKey) *Schema {
	if s.Indexes == nil {
		s.Indexes = map[string]Index{}
	}
	switch {
	case name == "":
		return s.fail("an index needs a name")
	case len(keys) == 0:
		return s.fail("index %s needs at least one key", name)
	case slices.Contains(s.addIndexes, name):
		return s.fail("index %s is added twice", name)
	}
	for _, k := range keys {
		if k.Field == "" {
			return s.fail("index %s has a key without a field", name)
		}
	}
	s.Indexes[name] = slices.Clone(Index(keys))
	s.addIndexes = append(s.addIndexes, name)
	return s
}

// DeleteIndex removes an index.
func (s *Schema) DeleteIndex(name string) *Schema {
	if name == "" {
		return s.fail("DeleteIndex needs an index name")
	}
	if i := slices.Index(s.addIndexes, name); i >= 0 {
		s.addIndexes = slices.Delete(s.addIndexes, i, i+1)
		delete(s.Indexes, name)
		return s
	}
	if !slices.Contains(s.delIndexes, name) {
		s.delIndexes = append(s.delIndexes, name)
	}
	delete(s.Indexes, name)
	return s
}

// SetCLP sets the class-level permissions (sent by the next create or update). The CLP is copied.
func (s *Schema) SetCLP(c *CLP) *Schema {
	if c == nil {
		return s.fail("SetCLP needs permissions (NewPublicCLP gives the default)")
	}
	s.CLP = c.Clone()
	s.clpSet = true
	return s
}

// Err returns the mistakes made while building, joined, or nil.
func (s *Schema) Err() error { return errors.Join(s.errs...) }

// Body returns the wire body CreateSchema (create true) or UpdateSchema sends: className (on create), the added
// fields and {"__op":"Delete"} for deleted ones, the same for indexes, and classLevelPermissions when set.
func (s *Schema) Body(create bool) (map[string]any, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	if !validClassName(s.ClassName) {
		return nil, fmt.Errorf("moralis: invalid class name %q", s.ClassName)
	}
	body := map[string]any{}
	if create {
		body["className"] = s.ClassName
	}
	fields := map[string]any{}
	for _, n := range s.addFields {
		fw, err := s.Fields[n].wire()
		if err != nil {
			return nil, fmt.Errorf("moralis: schema %s: field %s: %w", s.ClassName, n, err)
		}
		fields[n] = fw
	}
	for _, n := range s.delFields {
		if create {
			return nil, fmt.Errorf("moralis: schema %s: cannot delete field %s of a class being created", s.ClassName, n)
		}
		fields[n] = map[string]any{"__op": "Delete"}
	}
	if len(fields) > 0 || create {
		body["fields"] = fields
	}
	idx := map[string]any{}
	for _, n := range s.addIndexes {
		idx[n] = s.Indexes[n]
	}
	for _, n := range s.delIndexes {
		if create {
			return nil, fmt.Errorf("moralis: schema %s: cannot delete index %s of a class being created", s.ClassName, n)
		}
		idx[n] = map[string]any{"__op": "Delete"}
	}
	if len(idx) > 0 {
		body["indexes"] = idx
	}
	if s.clpSet && s.CLP != nil {
		body["classLevelPermissions"] = s.CLP.Wire()
	}
	return body, nil
}

// Pending reports whether the schema has changes not yet sent.
func (s *Schema) Pending() bool {
	return len(s.addFields)+len(s.delFields)+len(s.addIndexes)+len(s.delIndexes) > 0 || s.clpSet
}

// FieldNames lists the field names, sorted.
func (s *Schema) FieldNames() []string {
	names := slices.Collect(maps.Keys(s.Fields))
	sort.Strings(names)
	return names
}

type schemaAnswer struct {
	ClassName             string                     `json:"className"`
	Fields                map[string]json.RawMessage `json:"fields"`
	ClassLevelPermissions map[string]any             `json:"classLevelPermissions"`
	Indexes               map[string]Index           `json:"indexes"`
}

func (a *schemaAnswer) schema() (*Schema, error) {
	s := NewSchema(a.ClassName)
	for name, raw := range a.Fields {
		var f struct {
			Type         string `json:"type"`
			TargetClass  string `json:"targetClass"`
			Required     bool   `json:"required"`
			DefaultValue any    `json:"defaultValue"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("moralis: schema %s: field %s: %w", a.ClassName, name, err)
		}
		s.Fields[name] = Field{Type: f.Type, TargetClass: f.TargetClass, Required: f.Required, DefaultValue: parse.Decode(f.DefaultValue)}
	}
	if a.ClassLevelPermissions != nil {
		c, err := CLPFromWire(a.ClassLevelPermissions)
		if err != nil {
			return nil, err
		}
		s.CLP = c
	}
	for n, ix := range a.Indexes {
		s.Indexes[n] = ix
	}
	return s, nil
}

// reset replaces s with the server's answer and forgets the sent changes.
func (s *Schema) reset(from *Schema) {
	*s = *from
}

func (c *Client) schemaCall(ctx context.Context, method, path, className string, body map[string]any, out any) error {
	if !c.HasMasterKey() {
		return fmt.Errorf("moralis: %s %s: %w", method, path, ErrMasterKeyRequired)
	}
	rc := c.call(method, path, body)
	rc.UseMasterKey = true
	rc.SessionToken = ""
	err := c.do(ctx, rc, out)
	var perr *parse.Error
	if className != "" && errors.As(err, &perr) && perr.Code == parse.ErrInvalidClassName.Code && perr.Message == "Class "+className+" does not exist." {
		return &SchemaNotFoundError{ClassName: className, Err: perr}
	}
	return err
}

func checkClassName(className string) error {
	if !validClassName(className) {
		return fmt.Errorf("moralis: invalid class name %q", className)
	}
	return nil
}

// Schema reads a class's schema (master key). A class that does not exist gives a *SchemaNotFoundError
// ("Schema not found", code 103).
func (c *Client) Schema(ctx context.Context, className string) (*Schema, error) {
	if err := checkClassName(className); err != nil {
		return nil, err
	}
	var a schemaAnswer
	if err := c.schemaCall(ctx, http.MethodGet, "schemas/"+className, className, nil, &a); err != nil {
		return nil, err
	}
	return a.schema()
}

// Schemas reads every class's schema (master key), sorted by class name.
func (c *Client) Schemas(ctx context.Context) ([]*Schema, error) {
	var resp struct {
		Results []schemaAnswer `json:"results"`
	}
	if err := c.schemaCall(ctx, http.MethodGet, "schemas", "", nil, &resp); err != nil {
		return nil, err
	}
	out := make([]*Schema, 0, len(resp.Results))
	for i := range resp.Results {
		s, err := resp.Results[i].schema()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClassName < out[j].ClassName })
	return out, nil
}

// CreateSchema creates the class of s with its fields, indexes and permissions (master key), and replaces s's
// contents with the server's answer (which adds the default fields objectId, createdAt, updatedAt and ACL).
func (c *Client) CreateSchema(ctx context.Context, s *Schema) error {
	if s == nil {
		return errors.New("moralis: CreateSchema needs a schema")
	}
	body, err := s.Body(true)
	if err != nil {
		return err
	}
	var a schemaAnswer
	if err := c.schemaCall(ctx, http.MethodPost, "schemas/"+s.ClassName, "", body, &a); err != nil {
		return err
	}
	ns, err := a.schema()
	if err != nil {
		return err
	}
	s.reset(ns)
	return nil
}

// UpdateSchema sends s's changes (added and deleted fields and indexes, permissions) to the server (master key)
// and replaces s's contents with the answer. A schema without changes is a no-op.
func (c *Client) UpdateSchema(ctx context.Context, s *Schema) error {
	if s == nil {
		return errors.New("moralis: UpdateSchema needs a schema")
	}
	body, err := s.Body(false)
	if err != nil {
		return err
	}
	if !s.Pending() {
		return nil
	}
	var a schemaAnswer
	if err := c.schemaCall(ctx, http.MethodPut, "schemas/"+s.ClassName, s.ClassName, body, &a); err != nil {
		return err
	}
	ns, err := a.schema()
	if err != nil {
		return err
	}
	s.reset(ns)
	return nil
}

// DeleteSchema drops an empty class (master key). A class that still has objects gives the server's error 255;
// PurgeClass empties it first. The server answers success for a class that does not exist.
func (c *Client) DeleteSchema(ctx context.Context, className string) error {
	if err := checkClassName(className); err != nil {
		return err
	}
	return c.schemaCall(ctx, http.MethodDelete, "schemas/"+className, className, nil, nil)
}

// PurgeClass deletes every object of a class, keeping its schema (master key; DELETE purge/{className}). The
// server answers success for a class that does not exist.
func (c *Client) PurgeClass(ctx context.Context, className string) error {
	if err := checkClassName(className); err != nil {
		return err
	}
	return c.schemaCall(ctx, http.MethodDelete, "purge/"+className, "", nil, nil)
}

// validClassName: letters, digits and underscores, starting with a letter or "_" (the server's own classes).
func validClassName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
