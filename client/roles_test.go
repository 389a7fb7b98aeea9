package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
)

func TestRoleNameValidationNeverSends(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 201, `{"objectId":"R1","createdAt":"2026-11-21T22:00:00.000Z"}` })
	c := srv.client(t, true)
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)

	for _, name := range []string{"bad name!", "", "ä", "a/b", "tab\t"} {
		if _, err := NewRole(name, acl); !errors.Is(err, ErrRoleNameInvalid) {
			t.Errorf("NewRole(%q) err = %v, want ErrRoleNameInvalid", name, err)
		}
	}
	if ErrRoleNameInvalid.Error() != "A role's name can be only contain alphanumeric characters, _, -, and spaces." ||
		ErrRoleNameType.Error() != "A role's name must be a String." ||
		ErrRoleNameSaved.Error() != "A role's name can only be set before it has been saved." {
		t.Fatal("role error texts differ from the spec")
	}
	for _, name := range []any{5, nil, 1.5, []any{"x"}, map[string]any{"a": 1}, true} {
		r := RoleFromObject(parse.NewObject(RoleClass))
		if err := r.SetNameAny(name); !errors.Is(err, ErrRoleNameType) {
			t.Errorf("SetNameAny(%v) err = %v, want ErrRoleNameType", name, err)
		}
		// A name that slipped in through Set (untyped) is caught by the save.
		r.Set("name", name)
		r.SetACL(acl)
		if err := c.Roles.Save(t.Context(), r); !errors.Is(err, ErrRoleNameType) {
			t.Errorf("SaveRole with name %v err = %v, want ErrRoleNameType", name, err)
		}
	}
	// Set through the embedded object with bad characters.
	r := RoleFromObject(parse.NewObject(RoleClass))
	r.Set("name", "no!")
	r.SetACL(acl)
	if err := c.Roles.Save(t.Context(), r); !errors.Is(err, ErrRoleNameInvalid) {
		t.Fatalf("err = %v, want ErrRoleNameInvalid", err)
	}
	// Missing ACL.
	r, err := NewRole("Good_name-1 x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Roles.Save(t.Context(), r); !errors.Is(err, ErrRoleACLRequired) {
		t.Fatalf("err = %v, want ErrRoleACLRequired", err)
	}
	// Name changed after the first save.
	saved := RoleFromObject(parse.NewObjectWithID(RoleClass, "R0"))
	objstate.Of(saved).MergeServer(map[string]any{"objectId": "R0", "name": "Old"})
	if err := saved.SetName("New"); !errors.Is(err, ErrRoleNameSaved) {
		t.Fatalf("SetName on a saved role: %v", err)
	}
	if err := saved.SetName("Old"); err != nil {
		t.Fatalf("setting the same name again: %v", err)
	}
	if err := saved.SetNameAny(7); !errors.Is(err, ErrRoleNameSaved) {
		t.Fatalf("SetNameAny on a saved role: %v", err)
	}
	saved.Set("name", "Sneaky")
	if err := c.Roles.Save(t.Context(), saved); !errors.Is(err, ErrRoleNameSaved) {
		t.Fatalf("SaveRole after renaming: %v", err)
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent, want 0", n)
	}
}

func TestRoleSaveWire(t *testing.T) {
	var step int
	srv := newIDServer(t, func(r idReq) (int, string) {
		step++
		if step == 1 {
			return 201, `{"objectId":"R1","createdAt":"2026-11-21T22:00:00.000Z"}`
		}
		return 200, `{"updatedAt":"2026-11-21T22:01:00.000Z"}`
	})
	c := srv.client(t, false).WithSessionToken("r:admin")
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Admins", true)
	role, err := NewRole("Moderators", acl)
	if err != nil {
		t.Fatal(err)
	}
	u1 := UserFromObject(parse.NewObjectWithID(UserClass, "U1"))
	u2 := parse.NewObjectWithID(UserClass, "U2")
	child := RoleFromObject(parse.NewObjectWithID(RoleClass, "C1"))
	if err := role.AddUsers(u1, u2); err != nil {
		t.Fatal(err)
	}
	if err := role.AddChildRoles(child); err != nil {
		t.Fatal(err)
	}
	if err := c.Roles.Save(t.Context(), role); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantPath(t, reqs[0], http.MethodPost, "roles")
	if reqs[0].Body["_SessionToken"] != "r:admin" {
		t.Fatalf("no session token: %v", reqs[0].Body)
	}
	jsonEq(t, map[string]any{"name": reqs[0].Body["name"], "ACL": reqs[0].Body["ACL"], "users": reqs[0].Body["users"], "roles": reqs[0].Body["roles"]}, `{
		"name":"Moderators",
		"ACL":{"*":{"read":true},"role:Admins":{"write":true}},
		"users":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"U1"},{"__type":"Pointer","className":"_User","objectId":"U2"}]},
		"roles":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_Role","objectId":"C1"}]}}`)
	if role.ID() != "R1" || role.Name() != "Moderators" || len(role.DirtyKeys()) != 0 {
		t.Fatalf("after save: id %q name %q dirty %v", role.ID(), role.Name(), role.DirtyKeys())
	}

	// Removing a user sends only that change, as a PUT on roles/R1.
	if err := role.RemoveUsers(u2); err != nil {
		t.Fatal(err)
	}
	if err := c.Roles.Save(t.Context(), role); err != nil {
		t.Fatal(err)
	}
	reqs = srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantPath(t, reqs[1], http.MethodPut, "roles/R1")
	if _, has := reqs[1].Body["name"]; has {
		t.Fatalf("the update resent the name: %v", reqs[1].Body)
	}
	jsonEq(t, reqs[1].Body["users"], `{"__op":"RemoveRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"U2"}]}`)
}

func TestRoleMembersMustBeSavedAndTyped(t *testing.T) {
	role, _ := NewRole("R", parse.NewACL())
	if err := role.AddUsers(NewUser()); err == nil {
		t.Fatal("an unsaved user joined a role")
	}
	if err := role.AddUsers(parse.NewObjectWithID("Game", "G1")); err == nil {
		t.Fatal("a Game object joined the users relation")
	}
	if err := role.AddChildRoles(nil); err == nil {
		t.Fatal("a nil child role was accepted")
	}
	var nilUser *User
	if err := role.RemoveUsers(nilUser); err == nil {
		t.Fatal("a nil *User was accepted")
	}
	if len(role.DirtyKeys()) != 2 { // name and ACL only
		t.Fatalf("failed member changes were recorded: %v", role.DirtyKeys())
	}
}

func TestUserRolesWire(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) {
		return 200, `{"results":[{"objectId":"R1","name":"Admins","ACL":{"*":{"read":true}},"users":{"__type":"Relation","className":"_User"},"roles":{"__type":"Relation","className":"_Role"}}]}`
	})
	c := srv.client(t, false).WithSessionToken("r:u")
	roles, err := c.Roles.ForUser(t.Context(), UserFromObject(parse.NewObjectWithID(UserClass, "U1")))
	if err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	wantPath(t, r, http.MethodGet, "roles")
	jsonEq(t, r.Body["where"], `{"users":{"__type":"Pointer","className":"_User","objectId":"U1"}}`)
	if len(roles) != 1 || roles[0].Name() != "Admins" || roles[0].ID() != "R1" || !roles[0].ACL().PublicReadAccess() {
		t.Fatalf("roles: %+v", roles)
	}
	if rel, ok := roles[0].Get("users").(parse.Relation); !ok || rel.ClassName != UserClass {
		t.Fatalf("users relation: %#v", roles[0].Get("users"))
	}
	if _, err := c.Roles.ForUser(t.Context(), NewUser()); err == nil {
		t.Fatal("UserRoles of an unsaved user: want an error")
	}
	if _, err := c.Roles.Parents(t.Context(), nil); err == nil {
		t.Fatal("ParentRoles(nil): want an error")
	}
	if srv.count() != 1 {
		t.Fatalf("bad calls were sent: %d", srv.count())
	}
}

func TestRoleUsersAndChildRolesWire(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		if r.Path == "users" {
			return 200, `{"results":[{"objectId":"U1","username":"ann"}]}`
		}
		return 200, `{"results":[{"objectId":"C1","name":"Kids"}]}`
	})
	c := srv.client(t, false)
	role := RoleFromObject(parse.NewObjectWithID(RoleClass, "R1"))
	users, err := c.Roles.Users(t.Context(), role)
	if err != nil {
		t.Fatal(err)
	}
	kids, err := c.Roles.Children(t.Context(), role)
	if err != nil {
		t.Fatal(err)
	}
	parents, err := c.Roles.Parents(t.Context(), role)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantPath(t, reqs[0], http.MethodGet, "users")
	jsonEq(t, reqs[0].Body["where"], `{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"R1"},"key":"users"}}`)
	wantPath(t, reqs[1], http.MethodGet, "roles")
	jsonEq(t, reqs[1].Body["where"], `{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"R1"},"key":"roles"}}`)
	jsonEq(t, reqs[2].Body["where"], `{"roles":{"__type":"Pointer","className":"_Role","objectId":"R1"}}`)
	if len(users) != 1 || users[0].Username() != "ann" || len(kids) != 1 || kids[0].Name() != "Kids" || len(parents) != 1 {
		t.Fatalf("users %v kids %v parents %v", users, kids, parents)
	}
}

func TestRoleByName(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 200, `{"results":[]}` })
	c := srv.client(t, false)
	_, err := c.Roles.ByName(t.Context(), "Nobody")
	if !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("err = %v, want ErrObjectNotFound", err)
	}
	jsonEq(t, srv.only(t).Body["where"], `{"name":"Nobody"}`)
	if _, err := c.Roles.ByName(t.Context(), "bad!"); !errors.Is(err, ErrRoleNameInvalid) {
		t.Fatalf("err = %v", err)
	}
	if srv.count() != 1 {
		t.Fatal("an invalid name was sent")
	}
}

// ExampleNewRole builds a role whose members may write what the public may read, and prints the body its first
// save sends.
func ExampleNewRole() {
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Admins", true)
	role, err := NewRole("Moderators", acl)
	if err != nil {
		fmt.Println(err)
		return
	}
	alice := parse.NewObjectWithID(UserClass, "aliceId")
	if err := role.AddUsers(alice); err != nil {
		fmt.Println(err)
		return
	}
	body, _ := objstate.Of(role).SaveBody()
	b, _ := json.Marshal(body)
	fmt.Println(string(b))

	_, err = NewRole("bad name!", acl)
	fmt.Println(err)
	// Output:
	// {"ACL":{"*":{"read":true},"role:Admins":{"write":true}},"name":"Moderators","users":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"aliceId"}]}}
	// A role's name can be only contain alphanumeric characters, _, -, and spaces.
}

func TestAllUserRolesWalksParentsAndStopsOnCycles(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		w, _ := json.Marshal(r.Body["where"])
		switch string(w) {
		case `{"users":{"__type":"Pointer","className":"_User","objectId":"U1"}}`:
			return 200, `{"results":[{"objectId":"RB","name":"Bravo"}]}`
		case `{"roles":{"$in":[{"__type":"Pointer","className":"_Role","objectId":"RB"}]}}`:
			return 200, `{"results":[{"objectId":"RA","name":"Alpha"},{"objectId":"RC","name":"Charlie"}]}`
		case `{"roles":{"$in":[{"__type":"Pointer","className":"_Role","objectId":"RA"},{"__type":"Pointer","className":"_Role","objectId":"RC"}]}}`:
			return 200, `{"results":[{"objectId":"RB","name":"Bravo"}]}` // a cycle back to Bravo
		}
		return 400, `{"code":102,"error":"unexpected query ` + string(w) + `"}`
	})
	roles, err := srv.client(t, false).Roles.AllForUser(t.Context(), parse.NewObjectWithID(UserClass, "U1"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range roles {
		names = append(names, r.Name())
	}
	if fmt.Sprint(names) != "[Alpha Bravo Charlie]" {
		t.Fatalf("roles %v", names)
	}
	if n := srv.count(); n != 3 {
		t.Fatalf("%d queries, want 3 (user, two levels; the cycle adds nothing new)", n)
	}
}
