package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/c13f5054/moralis-go/parse"
	"net/http"
	"slices"
	"testing"
)

func TestCLPWireForm(t *testing.T) {
	c := &CLP{}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.SetPublicAccess(true, CLPGet))
	must(c.SetRequiresAuthentication(true, CLPFind, CLPCount))
	must(c.SetRoleAccess("Admins", true, CLPCreate, CLPUpdate, CLPDelete))
	must(c.SetUserAccess("u1", true, CLPCreate))
	must(c.SetPointerFields(CLPUpdate, "owner"))
	c.ReadUserFields = []string{"owner"}
	c.WriteUserFields = []string{"owner", "editors"}
	c.SetProtectedFields("*", "email", "phone")
	c.SetProtectedFields("role:Admins")
	jsonEq(t, c, `{
		"get":{"*":true},
		"find":{"requiresAuthentication":true},
		"count":{"requiresAuthentication":true},
		"create":{"role:Admins":true,"u1":true},
		"update":{"role:Admins":true,"pointerFields":["owner"]},
		"delete":{"role:Admins":true},
		"addField":{},
		"readUserFields":["owner"],
		"writeUserFields":["owner","editors"],
		"protectedFields":{"*":["email","phone"],"role:Admins":[]}}`)

	// Round trip through JSON.
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back CLP
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, &back, string(b))
	if !back.Get.Public || !back.Find.RequiresAuthentication || !slices.Equal(back.Create.Users, []string{"u1"}) ||
		!slices.Equal(back.Delete.Roles, []string{"Admins"}) || !back.AddField.Empty() {
		t.Fatalf("decoded: %+v", back)
	}

	// Revoking removes the entry.
	must(c.SetRoleAccess("role:Admins", false, CLPDelete))
	must(c.SetPublicAccess(false))
	if !c.Delete.Empty() || c.Get.Public {
		t.Fatalf("after revoking: %+v", c)
	}
	if err := c.SetPublicAccess(true, "destroy"); !errors.Is(err, ErrUnknownCLPOperation) {
		t.Fatalf("unknown op err = %v", err)
	}
	if c.Get.Public {
		t.Fatal("a failed call changed the CLP")
	}
	if err := c.SetUserAccess("role:X", true); err == nil {
		t.Fatal("SetUserAccess accepted a role key")
	}
}

func TestCLPZeroAndPublic(t *testing.T) {
	jsonEq(t, &CLP{}, `{"get":{},"find":{},"count":{},"create":{},"update":{},"delete":{},"addField":{}}`)
	jsonEq(t, NewPublicCLP(), `{"get":{"*":true},"find":{"*":true},"count":{"*":true},"create":{"*":true},
		"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}`)
	c := NewPublicCLP()
	d := c.Clone()
	d.SetRoleAccess("X", true, CLPGet)
	d.SetProtectedFields("*", "secret")
	if len(c.Get.Roles) != 0 || len(c.ProtectedFields["*"]) != 0 {
		t.Fatal("Clone shares state")
	}
}

func TestCLPFromServerAnswer(t *testing.T) {
	var c CLP
	err := json.Unmarshal([]byte(`{"find":{"*":true,"u9":false},"get":{"role:A":true,"role:B":true},"count":{},
		"create":{"pointerFields":["owner"]},"update":{},"delete":{},"addField":{},"protectedFields":{"*":[]},"ACL":{}}`), &c)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Find.Public || len(c.Find.Users) != 0 || !slices.Equal(c.Get.Roles, []string{"A", "B"}) ||
		!slices.Equal(c.Create.PointerFields, []string{"owner"}) {
		t.Fatalf("decoded: %+v", c)
	}
	for _, bad := range []string{`{"get":5}`, `{"get":{"pointerFields":"x"}}`, `{"readUserFields":[1]}`, `{"protectedFields":[]}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

// The ACL wire form travels unchanged through a save.
func TestACLWireThroughSave(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 201, `{"objectId":"O1","createdAt":"2026-11-21T22:00:00.000Z"}` })
	c := srv.client(t, false)
	o := parse.NewObject("Doc")
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Admins", true)
	o.SetACL(acl)
	if err := c.Objects.Save(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	wantPath(t, r, http.MethodPost, "classes/Doc")
	jsonEq(t, r.Body["ACL"], `{"*":{"read":true},"role:Admins":{"write":true}}`)

	// And is read back from a server answer.
	o2 := parse.NewObject("Doc")
	if err := o2.UnmarshalJSON([]byte(`{"objectId":"O1","ACL":{"*":{"read":true},"role:Admins":{"write":true},"u1":{"read":true,"write":true}}}`)); err != nil {
		t.Fatal(err)
	}
	a := o2.ACL()
	if !a.PublicReadAccess() || a.PublicWriteAccess() || !a.RoleWriteAccess("Admins") || a.RoleReadAccess("Admins") ||
		!a.ReadAccess("u1") || !a.WriteAccess("u1") {
		t.Fatalf("decoded ACL: %v", a.Keys())
	}
}

func TestApplyDefaultACL(t *testing.T) {
	def := parse.NewACL()
	def.SetPublicReadAccess(true)
	own := parse.NewUserACL("u1")
	fresh := parse.NewObject("A")
	withACL := parse.NewObject("A")
	withACL.SetACL(own)
	saved := parse.NewObjectWithID("A", "X")
	u := NewUser()
	var nilRole *Role
	if n := ApplyDefaultACL(def, fresh, withACL, saved, u, nilRole, nil); n != 2 {
		t.Fatalf("changed %d objects, want 2", n)
	}
	if !fresh.ACL().PublicReadAccess() || withACL.ACL() != own || saved.ACL() != nil || !u.ACL().PublicReadAccess() {
		t.Fatal("wrong objects changed")
	}
	fresh.ACL().SetPublicWriteAccess(true)
	if def.PublicWriteAccess() || u.ACL().PublicWriteAccess() {
		t.Fatal("objects share the default ACL")
	}
	if ApplyDefaultACL(nil, parse.NewObject("A")) != 0 {
		t.Fatal("nil ACL applied")
	}
}

// ExampleApplyDefaultACL shows an ACL's wire form, given to new objects by ApplyDefaultACL.
func ExampleApplyDefaultACL() {
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Admins", true)
	b, _ := json.Marshal(acl)
	fmt.Println(string(b))

	post, draft := parse.NewObject("Post"), parse.NewObject("Post")
	draft.SetACL(parse.NewUserACL("authorId"))
	fmt.Println(ApplyDefaultACL(acl, post, draft))
	body, _ := post.SaveBody()
	b, _ = json.Marshal(body)
	fmt.Println(string(b))
	// Output:
	// {"*":{"read":true},"role:Admins":{"write":true}}
	// 1
	// {"ACL":{"*":{"read":true},"role:Admins":{"write":true}}}
}

// ExampleCLP builds class-level permissions: anyone signed in may read, only Admins may write, and e-mail
// addresses are hidden from everyone.
func ExampleCLP() {
	clp := &CLP{}
	clp.SetRequiresAuthentication(true, CLPGet, CLPFind, CLPCount)
	clp.SetRoleAccess("Admins", true, CLPCreate, CLPUpdate, CLPDelete, CLPAddField)
	clp.SetProtectedFields("*", "email")
	b, _ := json.Marshal(clp)
	fmt.Println(string(b))
	// Output:
	// {"addField":{"role:Admins":true},"count":{"requiresAuthentication":true},"create":{"role:Admins":true},"delete":{"role:Admins":true},"find":{"requiresAuthentication":true},"get":{"requiresAuthentication":true},"protectedFields":{"*":["email"]},"update":{"role:Admins":true}}
}
