package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

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
	body, _ := objstate.Of(post).SaveBody()
	b, _ = json.Marshal(body)
	fmt.Println(string(b))
	// Output:
	// {"*":{"read":true},"role:Admins":{"write":true}}
	// 1
	// {"ACL":{"*":{"read":true},"role:Admins":{"write":true}}}
}
