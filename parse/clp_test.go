package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonEq compares v's JSON with want, ignoring formatting and key order.
func jsonEq(t *testing.T, v any, want string) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(b))
}

func TestCLPWireForm(t *testing.T) {
	c := &CLP{}
	must := func(err error) {
		t.Helper()
		require.NoError(t, err)
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
	// addField was never set: it is left out, not sent as {}.
	jsonEq(t, c, `{
		"get":{"*":true},
		"find":{"requiresAuthentication":true},
		"count":{"requiresAuthentication":true},
		"create":{"role:Admins":true,"u1":true},
		"update":{"role:Admins":true,"pointerFields":["owner"]},
		"delete":{"role:Admins":true},
		"readUserFields":["owner"],
		"writeUserFields":["owner","editors"],
		"protectedFields":{"*":["email","phone"],"role:Admins":[]}}`)

	// Round trip through JSON.
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var back CLP
	require.NoError(t, json.Unmarshal(b, &back))
	jsonEq(t, &back, string(b))
	if !back.Get.Public || !back.Find.RequiresAuthentication || !slices.Equal(back.Create.Users, []string{"u1"}) ||
		!slices.Equal(back.Delete.Roles, []string{"Admins"}) || !back.AddField.Empty() || back.IsSet(CLPAddField) {
		t.Fatalf("decoded: %+v", back)
	}

	// Revoking removes the entry; a revoked operation stays set and is sent as {}.
	must(c.SetRoleAccess("role:Admins", false, CLPDelete))
	must(c.SetPublicAccess(false))
	if !c.Delete.Empty() || c.Get.Public || !c.IsSet(CLPDelete) || !c.IsSet(CLPAddField) {
		t.Fatalf("after revoking: %+v", c)
	}
	assert.Equal(t, map[string]any{}, c.Wire()[CLPAddField])
	if err := c.SetPublicAccess(true, "destroy"); !errors.Is(err, ErrUnknownCLPOperation) {
		t.Fatalf("unknown op err = %v", err)
	}
	if c.Get.Public {
		t.Fatal("a failed call changed the CLP")
	}
	if err := c.SetUserAccess("role:X", true); err == nil {
		t.Fatal("SetUserAccess accepted a role key")
	}
	if err := c.SetRoleAccess("role:", true); err == nil {
		t.Fatal("SetRoleAccess accepted an empty role name")
	}
}

// An operation the caller did not set is left out of the wire form; it is never sent as {}.
func TestCLPUnsetOperationsAreLeftOut(t *testing.T) {
	jsonEq(t, &CLP{}, `{}`)

	c := &CLP{}
	require.NoError(t, c.SetRequiresAuthentication(true, CLPFind))
	jsonEq(t, c, `{"find":{"requiresAuthentication":true}}`)
	for _, op := range CLPOperations() {
		assert.Equal(t, op == CLPFind, c.IsSet(op), op)
	}

	// A rule written straight into a field is sent once it grants something.
	c.Get.Public = true
	jsonEq(t, c, `{"find":{"requiresAuthentication":true},"get":{"*":true}}`)

	// Read from the server: every operation it sent is sent back, {} included; the others are not.
	var read CLP
	require.NoError(t, json.Unmarshal([]byte(`{"find":{"*":true},"count":{},"get":null}`), &read))
	jsonEq(t, &read, `{"find":{"*":true},"count":{}}`)
	jsonEq(t, read.Clone(), `{"find":{"*":true},"count":{}}`)

	var nilCLP *CLP
	assert.Equal(t, map[string]any{}, nilCLP.Wire())
	assert.False(t, nilCLP.IsSet(CLPGet))
	assert.Nil(t, nilCLP.Rule(CLPGet))
	assert.Error(t, nilCLP.SetPublicAccess(true))
	assert.False(t, c.IsSet("destroy"))
}

func TestCLPOperationsIsACopy(t *testing.T) {
	ops := CLPOperations()
	assert.Equal(t, []string{"get", "find", "count", "create", "update", "delete", "addField"}, ops)
	ops[0] = "changed"
	assert.Equal(t, CLPGet, CLPOperations()[0])
}

func TestCLPZeroAndPublic(t *testing.T) {
	jsonEq(t, NewPublicCLP(), `{"get":{"*":true},"find":{"*":true},"count":{"*":true},"create":{"*":true},
		"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}`)
	c := NewPublicCLP()
	d := c.Clone()
	require.NoError(t, d.SetRoleAccess("X", true, CLPGet))
	d.SetProtectedFields("*", "secret")
	if len(c.Get.Roles) != 0 || len(c.ProtectedFields["*"]) != 0 {
		t.Fatal("Clone shares state")
	}
}

func TestCLPFromServerAnswer(t *testing.T) {
	var c CLP
	err := json.Unmarshal([]byte(`{"find":{"*":true,"u9":false},"get":{"role:A":true,"role:B":true},"count":{},
		"create":{"pointerFields":["owner"]},"update":{},"delete":{},"addField":{},"protectedFields":{"*":[]},"ACL":{}}`), &c)
	require.NoError(t, err)
	if !c.Find.Public || len(c.Find.Users) != 0 || !slices.Equal(c.Get.Roles, []string{"A", "B"}) ||
		!slices.Equal(c.Create.PointerFields, []string{"owner"}) {
		t.Fatalf("decoded: %+v", c)
	}
	for _, bad := range []string{`{"get":5}`, `{"get":{"pointerFields":"x"}}`, `{"get":{"pointerFields":[1]}}`,
		`{"readUserFields":[1]}`, `{"writeUserFields":"x"}`, `{"protectedFields":[]}`, `{"protectedFields":{"*":"x"}}`, `[]`} {
		before := c.Clone()
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s: want an error", bad)
		}
		assert.Equal(t, before, &c, "%s: a failed decode changed the CLP", bad)
	}
}

// ExampleCLP builds class-level permissions: anyone signed in may read, only Admins may write, and e-mail
// addresses are hidden from everyone. Operations not set (here: none) are left out of the wire form.
func ExampleCLP() {
	clp := &CLP{}
	_ = clp.SetRequiresAuthentication(true, CLPGet, CLPFind, CLPCount)
	_ = clp.SetRoleAccess("Admins", true, CLPCreate, CLPUpdate, CLPDelete, CLPAddField)
	clp.SetProtectedFields("*", "email")
	b, _ := json.Marshal(clp)
	fmt.Println(string(b))
	// Output:
	// {"addField":{"role:Admins":true},"count":{"requiresAuthentication":true},"create":{"role:Admins":true},"delete":{"role:Admins":true},"find":{"requiresAuthentication":true},"get":{"requiresAuthentication":true},"protectedFields":{"*":["email"]},"update":{"role:Admins":true}}
}

// ExampleCLP_change changes one operation of a class's permissions and keeps the others: it starts from the
// permissions as the server sent them (the schema's CLP), since the server reads an operation left out as
// "master key only".
func ExampleCLP_change() {
	var current CLP // as read with the class's schema
	_ = json.Unmarshal([]byte(`{"get":{"*":true},"find":{"*":true},"count":{"*":true},"create":{"*":true},
		"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}`), &current)
	next := current.Clone()
	_ = next.SetPublicAccess(false, CLPAddField)
	b, _ := json.Marshal(next)
	fmt.Println(string(b))

	only := &CLP{}
	_ = only.SetRequiresAuthentication(true, CLPFind)
	b, _ = json.Marshal(only)
	fmt.Println(string(b))
	// Output:
	// {"addField":{},"count":{"*":true},"create":{"*":true},"delete":{"*":true},"find":{"*":true},"get":{"*":true},"protectedFields":{"*":[]},"update":{"*":true}}
	// {"find":{"requiresAuthentication":true}}
}
