package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/c13f5054/moralis-go/parse"
	"slices"
	"sort"
	"strings"
)

// Class-level permission operations: the keys of a CLP's wire form that each hold one CLPRule.
const (
	CLPGet      = "get"
	CLPFind     = "find"
	CLPCount    = "count"
	CLPCreate   = "create"
	CLPUpdate   = "update"
	CLPDelete   = "delete"
	CLPAddField = "addField"
)

// CLPOperations lists the seven operations a CLP rules, in the server's order.
var CLPOperations = []string{CLPGet, CLPFind, CLPCount, CLPCreate, CLPUpdate, CLPDelete, CLPAddField}

// CLPRule says who may run one operation on a class. The zero value allows nobody but the master key.
//
// Its wire form is one map: {"*":true} for the public, {"<userId>":true} per user, {"role:Name":true} per role,
// {"requiresAuthentication":true} for any signed-in user, and {"pointerFields":["owner"]} for the users named by
// pointer fields of the object.
type CLPRule struct {
	// Public allows everyone ("*").
	Public bool
	// RequiresAuthentication allows any signed-in user.
	RequiresAuthentication bool
	// Users are the user ids allowed.
	Users []string
	// Roles are the role names allowed (without the "role:" prefix).
	Roles []string
	// PointerFields are fields pointing to _User (or arrays of such pointers): the users they name are allowed.
	PointerFields []string
}

// Empty reports whether the rule allows nobody (but the master key).
func (r CLPRule) Empty() bool {
	return !r.Public && !r.RequiresAuthentication && len(r.Users) == 0 && len(r.Roles) == 0 && len(r.PointerFields) == 0
}

func (r CLPRule) wire() map[string]any {
	m := map[string]any{}
	if r.Public {
		m["*"] = true
	}
	if r.RequiresAuthentication {
		m["requiresAuthentication"] = true
	}
	for _, u := range r.Users {
		m[u] = true
	}
	for _, role := range r.Roles {
		m["role:"+role] = true
	}
	if len(r.PointerFields) > 0 {
		m["pointerFields"] = slices.Clone(r.PointerFields)
	}
	return m
}

func ruleFromWire(op string, v any) (CLPRule, error) {
	var r CLPRule
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return r, nil
		}
		return r, fmt.Errorf("moralis: class-level permission %q is not a map", op)
	}
	for k, val := range m {
		switch {
		case k == "pointerFields":
			arr, ok := val.([]any)
			if !ok {
				return r, fmt.Errorf("moralis: class-level permission %s.pointerFields is not an array", op)
			}
			for _, f := range arr {
				s, ok := f.(string)
				if !ok {
					return r, fmt.Errorf("moralis: class-level permission %s.pointerFields holds a non-string", op)
				}
				r.PointerFields = append(r.PointerFields, s)
			}
		case val != true:
			// false entries (which some servers keep) grant nothing.
		case k == "*":
			r.Public = true
		case k == "requiresAuthentication":
			r.RequiresAuthentication = true
		case strings.HasPrefix(k, "role:"):
			r.Roles = append(r.Roles, strings.TrimPrefix(k, "role:"))
		default:
			r.Users = append(r.Users, k)
		}
	}
	sort.Strings(r.Users)
	sort.Strings(r.Roles)
	return r, nil
}

// CLP is a class's class-level permissions, read and written through the schema calls (Schema.CLP). Each
// operation has its own CLPRule; ReadUserFields and WriteUserFields name pointer fields whose users may read
// (get, find, count) or write (create, update, delete, addField) the object; ProtectedFields hides fields from a
// scope: "*" (everyone), a user id, "role:Name", "authenticated" or "userField:field".
//
// The zero value denies every operation to everyone but the master key; NewPublicCLP gives the server's
// default for new classes. A CLP is a plain value: not safe for concurrent mutation.
type CLP struct {
	// Get, Find, Count, Create, Update, Delete and AddField are the rules of the seven operations.
	Get, Find, Count, Create, Update, Delete, AddField CLPRule
	// ReadUserFields are pointer fields (to _User, or arrays of them) whose users may get, find and count.
	ReadUserFields []string
	// WriteUserFields are pointer fields whose users may update and delete (and create, add fields).
	WriteUserFields []string
	// ProtectedFields maps a scope to the fields hidden from it.
	ProtectedFields map[string][]string
}

// NewPublicCLP returns the permissions the server gives a class created without any: every operation public,
// no protected fields.
func NewPublicCLP() *CLP {
	c := &CLP{ProtectedFields: map[string][]string{"*": {}}}
	for _, op := range CLPOperations {
		c.Rule(op).Public = true
	}
	return c
}

// ErrUnknownCLPOperation is returned (wrapped) for an operation name that is not one of CLPOperations.
var ErrUnknownCLPOperation = errors.New("moralis: unknown class-level permission operation")

// Rule returns the rule of an operation (one of CLPOperations) for reading or changing it, or nil for an unknown
// operation.
func (c *CLP) Rule(op string) *CLPRule {
	switch op {
	case CLPGet:
		return &c.Get
	case CLPFind:
		return &c.Find
	case CLPCount:
		return &c.Count
	case CLPCreate:
		return &c.Create
	case CLPUpdate:
		return &c.Update
	case CLPDelete:
		return &c.Delete
	case CLPAddField:
		return &c.AddField
	}
	return nil
}

// each runs f on the rules of ops (all seven when ops is empty).
func (c *CLP) each(ops []string, f func(r *CLPRule)) error {
	if len(ops) == 0 {
		ops = CLPOperations
	}
	for _, op := range ops {
		if c.Rule(op) == nil {
			return fmt.Errorf("%w: %q", ErrUnknownCLPOperation, op)
		}
	}
	for _, op := range ops {
		f(c.Rule(op))
	}
	return nil
}

func setMember(list []string, v string, on bool) []string {
	i := slices.Index(list, v)
	switch {
	case on && i < 0:
		return append(list, v)
	case !on && i >= 0:
		return slices.Delete(list, i, i+1)
	}
	return list
}

// SetPublicAccess allows (or stops allowing) everyone to run ops (all seven when none are named).
func (c *CLP) SetPublicAccess(allowed bool, ops ...string) error {
	return c.each(ops, func(r *CLPRule) { r.Public = allowed })
}

// SetRequiresAuthentication allows (or stops allowing) any signed-in user to run ops.
func (c *CLP) SetRequiresAuthentication(allowed bool, ops ...string) error {
	return c.each(ops, func(r *CLPRule) { r.RequiresAuthentication = allowed })
}

// SetUserAccess allows (or stops allowing) one user, by id, to run ops.
func (c *CLP) SetUserAccess(userID string, allowed bool, ops ...string) error {
	if userID == "" || userID == "*" || strings.HasPrefix(userID, "role:") {
		return fmt.Errorf("moralis: SetUserAccess needs a user id, got %q", userID)
	}
	return c.each(ops, func(r *CLPRule) { r.Users = setMember(r.Users, userID, allowed) })
}

// SetRoleAccess allows (or stops allowing) the members of a role (its name, without "role:") to run ops.
func (c *CLP) SetRoleAccess(role string, allowed bool, ops ...string) error {
	if role == "" {
		return errors.New("moralis: SetRoleAccess needs a role name")
	}
	role = strings.TrimPrefix(role, "role:")
	return c.each(ops, func(r *CLPRule) { r.Roles = setMember(r.Roles, role, allowed) })
}

// SetPointerFields sets the pointer fields whose users may run op (replacing earlier ones; none clears them).
func (c *CLP) SetPointerFields(op string, fields ...string) error {
	return c.each([]string{op}, func(r *CLPRule) { r.PointerFields = slices.Clone(fields) })
}

// SetProtectedFields hides fields from a scope ("*", a user id, "role:Name", "authenticated" or
// "userField:field"); no fields clears the scope's list to empty.
func (c *CLP) SetProtectedFields(scope string, fields ...string) {
	if c.ProtectedFields == nil {
		c.ProtectedFields = map[string][]string{}
	}
	if fields == nil {
		fields = []string{}
	}
	c.ProtectedFields[scope] = slices.Clone(fields)
}

// Clone returns an independent copy.
func (c *CLP) Clone() *CLP {
	if c == nil {
		return nil
	}
	out := &CLP{ReadUserFields: slices.Clone(c.ReadUserFields), WriteUserFields: slices.Clone(c.WriteUserFields)}
	for _, op := range CLPOperations {
		r := *c.Rule(op)
		r.Users, r.Roles, r.PointerFields = slices.Clone(r.Users), slices.Clone(r.Roles), slices.Clone(r.PointerFields)
		*out.Rule(op) = r
	}
	if c.ProtectedFields != nil {
		out.ProtectedFields = make(map[string][]string, len(c.ProtectedFields))
		for k, v := range c.ProtectedFields {
			out.ProtectedFields[k] = slices.Clone(v)
		}
	}
	return out
}

// Wire returns the CLP's wire form (the "classLevelPermissions" of a schema), e.g.
// {"get":{"*":true},"find":{"requiresAuthentication":true},"create":{"role:Admins":true},...}. Every operation
// is present (an empty map denies it); readUserFields, writeUserFields and protectedFields only when set.
func (c *CLP) Wire() map[string]any {
	m := make(map[string]any, 10)
	for _, op := range CLPOperations {
		m[op] = c.Rule(op).wire()
	}
	if c.ReadUserFields != nil {
		m["readUserFields"] = slices.Clone(c.ReadUserFields)
	}
	if c.WriteUserFields != nil {
		m["writeUserFields"] = slices.Clone(c.WriteUserFields)
	}
	if c.ProtectedFields != nil {
		pf := make(map[string]any, len(c.ProtectedFields))
		for k, v := range c.ProtectedFields {
			if v == nil {
				v = []string{}
			}
			pf[k] = slices.Clone(v)
		}
		m["protectedFields"] = pf
	}
	return m
}

// MarshalJSON writes the wire form (see Wire).
func (c *CLP) MarshalJSON() ([]byte, error) { return json.Marshal(c.Wire()) }

// UnmarshalJSON reads the wire form.
func (c *CLP) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("moralis: invalid class-level permissions: %w", err)
	}
	out, err := CLPFromWire(m)
	if err != nil {
		return err
	}
	*c = *out
	return nil
}

// CLPFromWire reads a CLP from its decoded wire form. Unknown keys are ignored.
func CLPFromWire(m map[string]any) (*CLP, error) {
	c := &CLP{}
	for _, op := range CLPOperations {
		r, err := ruleFromWire(op, m[op])
		if err != nil {
			return nil, err
		}
		*c.Rule(op) = r
	}
	strs := func(key string, v any) ([]string, error) {
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("moralis: class-level permission %s is not an array", key)
		}
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("moralis: class-level permission %s holds a non-string", key)
			}
			out = append(out, s)
		}
		return out, nil
	}
	var err error
	if v, ok := m["readUserFields"]; ok && v != nil {
		if c.ReadUserFields, err = strs("readUserFields", v); err != nil {
			return nil, err
		}
	}
	if v, ok := m["writeUserFields"]; ok && v != nil {
		if c.WriteUserFields, err = strs("writeUserFields", v); err != nil {
			return nil, err
		}
	}
	if v, ok := m["protectedFields"]; ok && v != nil {
		pm, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("moralis: class-level permission protectedFields is not a map")
		}
		c.ProtectedFields = make(map[string][]string, len(pm))
		for scope, fv := range pm {
			if c.ProtectedFields[scope], err = strs("protectedFields."+scope, fv); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// ApplyDefaultACL gives every new object (no id yet) that has no ACL its own copy of acl, and returns how many
// objects it changed. Call it before Save or SaveAll to give new objects a default ACL; objects with an ACL, or
// already saved, are left alone. A nil acl changes nothing.
func ApplyDefaultACL(acl *parse.ACL, objs ...Saver) int {
	if acl == nil {
		return 0
	}
	n := 0
	for _, s := range objs {
		o := objectOf(s)
		if o == nil || o.ID() != "" || o.ACL() != nil {
			continue
		}
		o.SetACL(acl.Clone())
		n++
	}
	return n
}
