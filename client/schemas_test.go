package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/c13f5054/moralis-go/parse"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSchemaCallsNeedMasterKeyBeforeRequest(t *testing.T) {
	srv := newIDServer(t, nil)
	c := srv.client(t, false) // no master key configured
	ctx := t.Context()
	calls := map[string]func() error{
		"Schema":       func() error { _, err := c.Schemas.Get(ctx, "A"); return err },
		"Schemas":      func() error { _, err := c.Schemas.List(ctx); return err },
		"CreateSchema": func() error { return c.Schemas.Create(ctx, NewSchema("A").AddString("s")) },
		"UpdateSchema": func() error { return c.Schemas.Update(ctx, NewSchema("A").AddString("s")) },
		"DeleteSchema": func() error { return c.Schemas.Delete(ctx, "A") },
		"PurgeClass":   func() error { return c.Schemas.Purge(ctx, "A") },
		"DeleteFile":   func() error { return c.Files.Delete(ctx, &parse.File{Name: "x.txt"}) },
	}
	for name, f := range calls {
		if err := f(); !errors.Is(err, ErrMasterKeyRequired) {
			t.Errorf("%s: err = %v, want ErrMasterKeyRequired", name, err)
		}
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent, want 0", n)
	}
}

func TestCreateSchemaWire(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		return 200, `{"className":"Game","fields":{"objectId":{"type":"String"},"ACL":{"type":"ACL"},"title":{"type":"String","required":true},
			"score":{"type":"Number","defaultValue":0},"owner":{"type":"Pointer","targetClass":"_User"},
			"at":{"type":"Date","defaultValue":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"}}},
			"classLevelPermissions":{"get":{"*":true},"find":{"requiresAuthentication":true},"count":{},"create":{"role:Admins":true},"update":{},"delete":{},"addField":{},"protectedFields":{"*":[]}},
			"indexes":{"_id_":{"_id":1},"by_score":{"score":-1,"title":1}}}`
	})
	c := srv.client(t, true).WithSessionToken("r:someone")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clp := &CLP{}
	clp.SetPublicAccess(true, CLPGet)
	clp.SetRequiresAuthentication(true, CLPFind)
	clp.SetRoleAccess("Admins", true, CLPCreate)
	s := NewSchema("Game").
		AddString("title", FieldRequired()).
		AddNumber("score", FieldDefault(0)).
		AddBoolean("done", FieldDefault(false)).
		AddDate("at", FieldDefault(at)).
		AddFile("pic").
		AddGeoPoint("where").
		AddPolygon("area").
		AddArray("tags", FieldDefault([]string{"a"})).
		AddObject("meta").
		AddPointer("owner", "_User").
		AddRelation("fans", "_User").
		AddField("extra", FieldString).
		AddIndex("by_score", IndexKey{"score", -1}, IndexKey{"title", 1}).
		SetCLP(clp)
	if err := c.Schemas.Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	wantPath(t, r, http.MethodPost, "schemas/Game")
	if r.Body["_MasterKey"] != "mk1" || r.Body["_JavaScriptKey"] != nil || r.Body["_SessionToken"] != nil {
		t.Fatalf("keys: %v", r.Body)
	}
	jsonEq(t, r.Body["className"], `"Game"`)
	jsonEq(t, r.Body["fields"], `{
		"title":{"type":"String","required":true},
		"score":{"type":"Number","defaultValue":0},
		"done":{"type":"Boolean","defaultValue":false},
		"at":{"type":"Date","defaultValue":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"}},
		"pic":{"type":"File"},"where":{"type":"GeoPoint"},"area":{"type":"Polygon"},
		"tags":{"type":"Array","defaultValue":["a"]},"meta":{"type":"Object"},
		"owner":{"type":"Pointer","targetClass":"_User"},"fans":{"type":"Relation","targetClass":"_User"},
		"extra":{"type":"String"}}`)
	jsonEq(t, r.Body["classLevelPermissions"], `{"get":{"*":true},"find":{"requiresAuthentication":true},"count":{},
		"create":{"role:Admins":true},"update":{},"delete":{},"addField":{}}`)
	// Compound index keys keep their order on the wire.
	if !strings.Contains(string(r.Raw), `"by_score":{"score":-1,"title":1}`) {
		t.Fatalf("index order lost: %s", r.Raw)
	}
	// s now holds the server's answer.
	if s.Pending() || s.Fields["title"].Type != FieldString || !s.Fields["title"].Required ||
		s.Fields["owner"].TargetClass != "_User" || s.Fields["ACL"].Type != FieldACL {
		t.Fatalf("schema after create: %+v", s)
	}
	if d, ok := s.Fields["at"].DefaultValue.(time.Time); !ok || !d.Equal(at) {
		t.Fatalf("date default decoded as %#v", s.Fields["at"].DefaultValue)
	}
	if ix := s.Indexes["by_score"]; len(ix) != 2 || ix[0] != (IndexKey{"score", -1}) || ix[1] != (IndexKey{"title", 1}) {
		t.Fatalf("index: %#v", s.Indexes["by_score"])
	}
	if !s.CLP.Get.Public || !s.CLP.Find.RequiresAuthentication || s.CLP.Create.Roles[0] != "Admins" {
		t.Fatalf("CLP: %+v", s.CLP)
	}
}

func TestUpdateSchemaSendsOnlyChanges(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		if r.Body["_method"] == "GET" {
			return 200, `{"className":"Game","fields":{"objectId":{"type":"String"},"title":{"type":"String"},"old":{"type":"Number"},"loc":{"type":"GeoPoint"}},"indexes":{"old_idx":{"old":1}}}`
		}
		return 200, `{"className":"Game","fields":{"objectId":{"type":"String"},"title":{"type":"String"},"extra":{"type":"Date"}}}`
	})
	c := srv.client(t, true)
	s, err := c.Schemas.Get(t.Context(), "Game")
	if err != nil {
		t.Fatal(err)
	}
	if s.Pending() || len(s.Fields) != 4 {
		t.Fatalf("read schema: %+v", s)
	}
	// Nothing changed: no request.
	if err := c.Schemas.Update(t.Context(), s); err != nil || srv.count() != 1 {
		t.Fatalf("empty update: err %v, %d requests", err, srv.count())
	}
	// A second GeoPoint is refused before any request.
	bad := *s
	bad.Fields = map[string]Field{"loc": {Type: FieldGeoPoint}}
	if err := c.Schemas.Update(t.Context(), bad.AddGeoPoint("loc2")); err == nil || srv.count() != 1 {
		t.Fatalf("second GeoPoint: err %v", err)
	}
	s.AddDate("extra").DeleteField("old").DeleteIndex("old_idx").AddIndex("t", IndexKey{"title", 1})
	if err := c.Schemas.Update(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantPath(t, reqs[1], http.MethodPut, "schemas/Game")
	jsonEq(t, reqs[1].Body["fields"], `{"extra":{"type":"Date"},"old":{"__op":"Delete"}}`)
	jsonEq(t, reqs[1].Body["indexes"], `{"old_idx":{"__op":"Delete"},"t":{"title":1}}`)
	if _, has := reqs[1].Body["className"]; has {
		t.Fatal("an update sent className")
	}
	if _, has := reqs[1].Body["classLevelPermissions"]; has {
		t.Fatal("an update sent permissions it did not change")
	}
	if s.Pending() || s.Fields["extra"].Type != FieldDate {
		t.Fatalf("after update: %+v", s)
	}
}

func TestSchemaNotFound(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		return 400, `{"code":103,"error":"Class Nope does not exist."}`
	})
	c := srv.client(t, true)
	_, err := c.Schemas.Get(t.Context(), "Nope")
	if err == nil || err.Error() != "Schema not found" {
		t.Fatalf("err = %v, want \"Schema not found\"", err)
	}
	if !errors.Is(err, ErrSchemaNotFound) || !errors.Is(err, parse.ErrInvalidClassName) {
		t.Fatalf("errors.Is fails: %v", err)
	}
	var perr *parse.Error
	if !errors.As(err, &perr) || perr.Code != 103 || perr.Status != 400 {
		t.Fatalf("errors.As: %+v", perr)
	}
	var snf *SchemaNotFoundError
	if !errors.As(err, &snf) || snf.ClassName != "Nope" {
		t.Fatalf("SchemaNotFoundError: %+v", snf)
	}
	for name, f := range map[string]func() error{
		"UpdateSchema": func() error { return c.Schemas.Update(t.Context(), NewSchema("Nope").AddString("x")) },
		"DeleteSchema": func() error { return c.Schemas.Delete(t.Context(), "Nope") },
	} {
		if err := f(); !errors.Is(err, ErrSchemaNotFound) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestSchemaOtherCode103IsNotNotFound(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		return 400, `{"code":103,"error":"Class Game already exists."}`
	})
	err := srv.client(t, true).Schemas.Create(t.Context(), NewSchema("Game").AddString("x"))
	if errors.Is(err, ErrSchemaNotFound) || !errors.Is(err, parse.ErrInvalidClassName) {
		t.Fatalf("err = %v", err)
	}
}

func TestSchemaBuilderMistakesNeverSend(t *testing.T) {
	srv := newIDServer(t, nil)
	c := srv.client(t, true)
	bad := map[string]*Schema{
		"pointer without target":   NewSchema("A").AddPointer("p", ""),
		"relation without target":  NewSchema("A").AddRelation("r", ""),
		"pointer through AddField": NewSchema("A").AddField("p", FieldPointer),
		"unknown type":             NewSchema("A").AddField("x", "Money"),
		"bad field name":           NewSchema("A").AddString("1x"),
		"empty field name":         NewSchema("A").AddString(""),
		"field added twice":        NewSchema("A").AddString("x").AddNumber("x"),
		"two GeoPoints":            NewSchema("A").AddGeoPoint("a").AddGeoPoint("b"),
		"required relation":        NewSchema("A").addField("r", Field{Type: FieldRelation, TargetClass: "B"}, []FieldOption{FieldRequired()}),
		"bad default":              NewSchema("A").AddObject("o", FieldDefault(map[string]any{"f": func() {}})),
		"bad class name":           NewSchema("1A").AddString("x"),
		"index without keys":       NewSchema("A").AddIndex("i"),
		"index key without field":  NewSchema("A").AddIndex("i", IndexKey{Value: 1}),
		"delete field on create":   NewSchema("A").DeleteField("x"),
		"nil CLP":                  NewSchema("A").SetCLP(nil),
		"empty index name":         NewSchema("A").AddIndex("", IndexKey{"a", 1}),
		"delete index on create":   NewSchema("A").DeleteIndex("i"),
		"DeleteField without name": NewSchema("A").DeleteField(""),
	}
	for name, s := range bad {
		if err := c.Schemas.Create(t.Context(), s); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if err := c.Schemas.Create(t.Context(), nil); err == nil {
		t.Error("nil schema accepted")
	}
	for _, f := range []func() error{
		func() error { _, err := c.Schemas.Get(t.Context(), ""); return err },
		func() error { return c.Schemas.Purge(t.Context(), "a-b") },
		func() error { return c.Schemas.Delete(t.Context(), "") },
	} {
		if f() == nil {
			t.Error("bad class name accepted")
		}
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent, want 0", n)
	}
	// Adding then deleting a field in the same change set cancels out.
	s := NewSchema("A").AddString("x").DeleteField("x").AddNumber("n")
	body, err := s.Body(true)
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, body, `{"className":"A","fields":{"n":{"type":"Number"}}}`)
}

func TestSchemasDeleteAndPurgeWire(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		if r.Path == "schemas" {
			return 200, `{"results":[{"className":"_User","fields":{"username":{"type":"String"}}},{"className":"A","fields":{}}]}`
		}
		return 200, `{}`
	})
	c := srv.client(t, true)
	all, err := c.Schemas.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ClassName != "A" || all[1].Fields["username"].Type != FieldString {
		t.Fatalf("schemas: %+v", all)
	}
	if err := c.Schemas.Purge(t.Context(), "A"); err != nil {
		t.Fatal(err)
	}
	if err := c.Schemas.Delete(t.Context(), "A"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	wantPath(t, reqs[0], http.MethodGet, "schemas")
	wantPath(t, reqs[1], http.MethodDelete, "purge/A")
	wantPath(t, reqs[2], http.MethodDelete, "schemas/A")
	for _, r := range reqs {
		if r.Body["_MasterKey"] != "mk1" {
			t.Fatalf("%s without the master key", r.Path)
		}
	}
}

func TestIndexJSONKeepsOrder(t *testing.T) {
	var ix Index
	if err := json.Unmarshal([]byte(`{"z":1,"a":-1,"m":"text","f":1.5}`), &ix); err != nil {
		t.Fatal(err)
	}
	want := Index{{"z", 1}, {"a", -1}, {"m", "text"}, {"f", 1.5}}
	if fmt.Sprint(ix) != fmt.Sprint(want) {
		t.Fatalf("got %v", ix)
	}
	b, _ := json.Marshal(ix)
	if string(b) != `{"z":1,"a":-1,"m":"text","f":1.5}` {
		t.Fatalf("marshal: %s", b)
	}
	if err := json.Unmarshal([]byte(`[1]`), &ix); err == nil {
		t.Fatal("an array was read as an index")
	}
}

// ExampleNewSchema builds a class with typed fields, a required field with a default, a pointer, a relation, an
// index and permissions, and prints the body CreateSchema sends.
func ExampleNewSchema() {
	clp := NewPublicCLP()
	clp.SetPublicAccess(false, CLPCreate, CLPUpdate, CLPDelete, CLPAddField)
	clp.SetRoleAccess("Editors", true, CLPCreate, CLPUpdate, CLPDelete)
	s := NewSchema("Article").
		AddString("title", FieldRequired()).
		AddNumber("views", FieldDefault(0)).
		AddPointer("author", "_User").
		AddRelation("likes", "_User").
		AddIndex("by_views", IndexKey{"views", -1}).
		SetCLP(clp)
	body, err := s.Body(true)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.MarshalIndent(body, "", " ")
	fmt.Println(string(b))
	// Output:
	// {
	//  "classLevelPermissions": {
	//   "addField": {},
	//   "count": {
	//    "*": true
	//   },
	//   "create": {
	//    "role:Editors": true
	//   },
	//   "delete": {
	//    "role:Editors": true
	//   },
	//   "find": {
	//    "*": true
	//   },
	//   "get": {
	//    "*": true
	//   },
	//   "protectedFields": {
	//    "*": []
	//   },
	//   "update": {
	//    "role:Editors": true
	//   }
	//  },
	//  "className": "Article",
	//  "fields": {
	//   "author": {
	//    "targetClass": "_User",
	//    "type": "Pointer"
	//   },
	//   "likes": {
	//    "targetClass": "_User",
	//    "type": "Relation"
	//   },
	//   "title": {
	//    "required": true,
	//    "type": "String"
	//   },
	//   "views": {
	//    "defaultValue": 0,
	//    "type": "Number"
	//   }
	//  },
	//  "indexes": {
	//   "by_views": {
	//    "views": -1
	//   }
	//  }
	// }
}
