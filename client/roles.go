package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
)

// RoleClass is the backend's role class (REST route "roles").
const RoleClass = "_Role"

// Validation errors of roles (the original client's texts). They are returned before any request.
var (
	ErrRoleNameType    = errors.New("A role's name must be a String.")
	ErrRoleNameSaved   = errors.New("A role's name can only be set before it has been saved.")
	ErrRoleNameInvalid = errors.New("A role's name can be only contain alphanumeric characters, _, -, and spaces.")
	// ErrRoleACLRequired is returned when a new role has no ACL (the server would answer 111 "ACL is required.").
	ErrRoleACLRequired = errors.New("moralis: a role must have an ACL before it is saved (Role.SetACL)")
)

// Role is a backend role (class _Role): a name, set once before the first save; "users" and "roles" relations
// holding its member users and child roles (a child role's members share the role's access); and an ACL, which
// the server requires. Grant a role access in an ACL with SetRoleReadAccess / SetRoleWriteAccess.
//
// The embedded Object gives Get, Set, SetACL and the rest. Save a role with (*Client).SaveRole, which checks it
// first. Not safe for concurrent mutation.
type Role struct {
	*parse.Object
}

// NewRole returns an unsaved role with a name and an ACL. A bad name gives the role errors above.
func NewRole(name string, acl *parse.ACL) (*Role, error) {
	r := &Role{Object: parse.NewObject(RoleClass)}
	if err := r.SetName(name); err != nil {
		return nil, err
	}
	if acl != nil {
		r.SetACL(acl.Clone())
	}
	return r, nil
}

// RoleFromObject views an object of class _Role as a Role.
func RoleFromObject(o *parse.Object) *Role { return &Role{Object: o} }

// Name is the role's name.
func (r *Role) Name() string { return r.String("name") }

// SetName sets the name of a role not yet saved.
func (r *Role) SetName(name string) error { return r.SetNameAny(name) }

// SetNameAny is SetName for a name that arrives untyped (from JSON or a map): a non-string gives "A role's name
// must be a String.".
func (r *Role) SetNameAny(name any) error {
	if r.ID() != "" {
		if s, ok := name.(string); ok && s == r.Name() {
			return nil // unchanged
		}
		return ErrRoleNameSaved
	}
	if err := checkRoleName(false, name); err != nil {
		return err
	}
	r.Set("name", name)
	return nil
}

func checkRoleName(saved bool, name any) error {
	if saved {
		return ErrRoleNameSaved
	}
	s, ok := name.(string)
	if !ok {
		return ErrRoleNameType
	}
	if s == "" {
		return ErrRoleNameInvalid
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == ' ':
		default:
			return ErrRoleNameInvalid
		}
	}
	return nil
}

// ValidateSave checks the role before a save: a new role needs a valid name and an ACL; a saved role's name
// cannot change. SaveRole calls it; it returns the role errors above.
func (r *Role) ValidateSave() error {
	pendingName := slices.Contains(r.DirtyKeys(), "name")
	if r.ID() == "" || pendingName {
		if err := checkRoleName(r.ID() != "" && pendingName, r.Get("name")); err != nil {
			return err
		}
	}
	if r.ID() == "" && r.ACL() == nil {
		return ErrRoleACLRequired
	}
	return nil
}

func pointersOf(field string, items []Saver) ([]parse.Pointer, error) {
	ptrs := make([]parse.Pointer, 0, len(items))
	for _, it := range items {
		o := objectOf(it)
		if o == nil {
			return nil, fmt.Errorf("moralis: role %s: nil member", field)
		}
		if o.ID() == "" {
			return nil, fmt.Errorf("moralis: role %s: a %s must be saved before it joins a role", field, o.ClassName())
		}
		ptrs = append(ptrs, o.Pointer())
	}
	return ptrs, nil
}

// objectOf returns the object behind s, or nil for a nil Saver, a nil *User, *Role or *Object.
func objectOf(s Saver) *parse.Object {
	switch v := s.(type) {
	case nil:
		return nil
	case *parse.Object:
		return v
	case *User:
		if v == nil {
			return nil
		}
		return v.Object
	case *Role:
		if v == nil {
			return nil
		}
		return v.Object
	case *Session:
		if v == nil {
			return nil
		}
		return v.Object
	}
	return s.ParseObject()
}

func (r *Role) relationOp(field, class string, add bool, items []Saver) error {
	ptrs, err := pointersOf(field, items)
	if err != nil {
		return err
	}
	for _, p := range ptrs {
		if p.ClassName != class {
			return fmt.Errorf("moralis: role %s holds %s objects, not %s", field, class, p.ClassName)
		}
	}
	if len(ptrs) == 0 {
		return nil
	}
	if add {
		r.AddRelation(field, ptrs...)
	} else {
		r.RemoveRelation(field, ptrs...)
	}
	return nil
}

// AddUsers records saved users (a *User or an *Object of class _User) joining the role; the next save sends it.
func (r *Role) AddUsers(users ...Saver) error { return r.relationOp("users", UserClass, true, users) }

// RemoveUsers records saved users leaving the role.
func (r *Role) RemoveUsers(users ...Saver) error {
	return r.relationOp("users", UserClass, false, users)
}

// AddChildRoles records saved roles becoming children of this one: their members get this role's access.
func (r *Role) AddChildRoles(roles ...*Role) error {
	return r.relationOp("roles", RoleClass, true, rolesAsSavers(roles))
}

// RemoveChildRoles records child roles leaving this one.
func (r *Role) RemoveChildRoles(roles ...*Role) error {
	return r.relationOp("roles", RoleClass, false, rolesAsSavers(roles))
}

func rolesAsSavers(roles []*Role) []Saver {
	out := make([]Saver, len(roles))
	for i, r := range roles {
		if r != nil {
			out[i] = r
		}
	}
	return out
}

// SaveRole checks the role (ValidateSave) and saves it: POST roles for a new role, PUT roles/{id} with only the
// changes otherwise. Validation errors come before any request.
func (c *Client) SaveRole(ctx context.Context, r *Role) error {
	if r == nil || r.Object == nil {
		return errors.New("moralis: SaveRole needs a role")
	}
	if err := r.ValidateSave(); err != nil {
		return err
	}
	return c.Objects.Save(ctx, r)
}

// findClass runs a find on a class's route (roles, users, sessions, classes/X) and decodes the results.
func (c *Client) findClass(ctx context.Context, className string, where map[string]any, extra map[string]any) ([]*parse.Object, error) {
	params := map[string]any{}
	for k, v := range extra {
		params[k] = v
	}
	if where != nil {
		enc, err := parse.Encode(where)
		if err != nil {
			return nil, err
		}
		params["where"] = enc
	}
	var resp struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := c.do(ctx, c.call(http.MethodGet, classPath(className), params), &resp); err != nil {
		return nil, err
	}
	out := make([]*parse.Object, 0, len(resp.Results))
	for _, raw := range resp.Results {
		o := parse.NewObject(className)
		if err := o.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("moralis: reading a %s: %w", className, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func rolesOf(objs []*parse.Object) []*Role {
	out := make([]*Role, len(objs))
	for i, o := range objs {
		out[i] = RoleFromObject(o)
	}
	return out
}

// GetRole loads a role by id.
func (c *Client) GetRole(ctx context.Context, id string) (*Role, error) {
	if id == "" {
		return nil, errors.New("moralis: GetRole needs an id")
	}
	o := parse.NewObjectWithID(RoleClass, id)
	if err := c.Objects.Fetch(ctx, o); err != nil {
		return nil, err
	}
	return RoleFromObject(o), nil
}

// RoleByName finds the role of a name; none readable gives ErrObjectNotFound.
func (c *Client) RoleByName(ctx context.Context, name string) (*Role, error) {
	if err := checkRoleName(false, name); err != nil {
		return nil, err
	}
	objs, err := c.findClass(ctx, RoleClass, map[string]any{"name": name}, map[string]any{"limit": 1})
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return nil, &parse.Error{Code: parse.ErrObjectNotFound.Code, Message: "no role named " + name, Op: "GET roles"}
	}
	return RoleFromObject(objs[0]), nil
}

// UserRoles lists the roles a user belongs to directly: a find on roles where users holds the user (limit 1000,
// the roles the view may read).
//
// Parse Server does not expand nested roles in such a query: a user who is a member of role A, which is a child
// of role B, is listed in A only, although the server grants the user B's access too. AllUserRoles gives the
// whole set.
func (c *Client) UserRoles(ctx context.Context, user Saver) ([]*Role, error) {
	ptrs, err := pointersOf("users", []Saver{user})
	if err != nil {
		return nil, err
	}
	objs, err := c.findClass(ctx, RoleClass, map[string]any{"users": ptrs[0]}, map[string]any{"limit": 1000, "order": "name"})
	if err != nil {
		return nil, err
	}
	return rolesOf(objs), nil
}

// MaxRoleDepth bounds how many levels of parent roles AllUserRoles follows.
const MaxRoleDepth = 20

// AllUserRoles lists every role whose access a user has: the roles it belongs to directly (UserRoles) and,
// level by level, the roles that have any of those as a child, the way the server resolves role access. It makes
// one query per level (at most MaxRoleDepth levels), sees only the roles the view may read, and tolerates cycles.
// The result is sorted by name.
func (c *Client) AllUserRoles(ctx context.Context, user Saver) ([]*Role, error) {
	frontier, err := c.Roles.ForUser(ctx, user)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var all []*Role
	for depth := 0; len(frontier) > 0 && depth < MaxRoleDepth; depth++ {
		ptrs := make([]any, 0, len(frontier))
		for _, r := range frontier {
			if !seen[r.ID()] {
				seen[r.ID()] = true
				all = append(all, r)
				ptrs = append(ptrs, r.Pointer())
			}
		}
		if len(ptrs) == 0 {
			break
		}
		objs, err := c.findClass(ctx, RoleClass, map[string]any{"roles": map[string]any{"$in": ptrs}}, map[string]any{"limit": 1000})
		if err != nil {
			return nil, err
		}
		frontier = rolesOf(objs)
	}
	slices.SortFunc(all, func(a, b *Role) int { return strings.Compare(a.Name(), b.Name()) })
	return all, nil
}

// ParentRoles lists the roles that have role as a child (whose access role's members share), directly.
func (c *Client) ParentRoles(ctx context.Context, role *Role) ([]*Role, error) {
	ptrs, err := pointersOf("roles", []Saver{role})
	if err != nil {
		return nil, err
	}
	objs, err := c.findClass(ctx, RoleClass, map[string]any{"roles": ptrs[0]}, map[string]any{"limit": 1000, "order": "name"})
	if err != nil {
		return nil, err
	}
	return rolesOf(objs), nil
}

// RoleUsers lists a role's direct member users (a $relatedTo query on its users relation, limit 1000).
func (c *Client) RoleUsers(ctx context.Context, role *Role) ([]*User, error) {
	objs, err := c.relatedTo(ctx, UserClass, role, "users")
	if err != nil {
		return nil, err
	}
	out := make([]*User, len(objs))
	for i, o := range objs {
		out[i] = UserFromObject(o)
	}
	return out, nil
}

// ChildRoles lists a role's direct child roles.
func (c *Client) ChildRoles(ctx context.Context, role *Role) ([]*Role, error) {
	objs, err := c.relatedTo(ctx, RoleClass, role, "roles")
	if err != nil {
		return nil, err
	}
	return rolesOf(objs), nil
}

func (c *Client) relatedTo(ctx context.Context, className string, role *Role, key string) ([]*parse.Object, error) {
	ptrs, err := pointersOf(key, []Saver{role})
	if err != nil {
		return nil, err
	}
	where := map[string]any{"$relatedTo": map[string]any{"object": ptrs[0], "key": key}}
	return c.findClass(ctx, className, where, map[string]any{"limit": 1000})
}
