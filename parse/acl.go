package parse

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// PublicKey is the ACL entry that stands for everyone.
const PublicKey = "*"

// Permission is the access one ACL entry grants.
type Permission struct {
	Read  bool `json:"read,omitempty"`
	Write bool `json:"write,omitempty"`
}

// Errors of ACL validation, with the original client's texts.
var (
	// ErrACLUserID is kept by an ACL given an empty user id (an unsaved user's, say).
	ErrACLUserID = errors.New("userId must be a string.")
	// ErrACLRoleName is kept by an ACL given an empty role name.
	ErrACLRoleName = errors.New("Role must have a name")
	// ErrACLPermissionType is returned when an ACL read from JSON has an entry other than "read" and "write".
	ErrACLPermissionType = errors.New("Tried to create an ACL with an invalid permission type.")
	// ErrACLPermissionValue is returned when an ACL read from JSON has a "read" or "write" that is not a boolean.
	ErrACLPermissionValue = errors.New("Tried to create an ACL with an invalid permission value.")
)

// ACL is an access control list: read and write per user id, per role ("role:Name") and for the public ("*").
// Its wire form is {"*":{"read":true},"role:Admins":{"write":true}}. The zero value is an empty list (no access
// for anyone but the master key). An ACL is not safe for concurrent mutation.
//
// A setter given an empty user id or role name changes nothing and never panics: the ACL keeps the first such
// mistake (ErrACLUserID, ErrACLRoleName), Err returns it, and encoding the ACL fails with it, so a save never
// sends an ACL that silently lost a grant.
type ACL struct {
	entries map[string]Permission
	err     error
}

// NewACL returns an empty ACL.
func NewACL() *ACL { return &ACL{entries: map[string]Permission{}} }

// NewUserACL returns an ACL granting read and write to one user only. An empty userID gives an ACL that keeps
// ErrACLUserID (see ACL).
func NewUserACL(userID string) *ACL {
	a := NewACL()
	a.SetReadAccess(userID, true)
	a.SetWriteAccess(userID, true)
	return a
}

// Err returns the first mistake a setter refused (wrapping ErrACLUserID or ErrACLRoleName), or nil.
func (a *ACL) Err() error {
	if a == nil {
		return nil
	}
	return a.err
}

// refuse records a setter's mistake (the first one is kept).
func (a *ACL) refuse(call string, err error) {
	if a.err == nil {
		a.err = fmt.Errorf("parse: ACL.%s: %w", call, err)
	}
}

func (a *ACL) setUser(call, userID string, read, write *bool) {
	if userID == "" {
		a.refuse(call, ErrACLUserID)
		return
	}
	a.set(userID, read, write)
}

func (a *ACL) setRole(call, role string, read, write *bool) {
	if role == "" {
		a.refuse(call, ErrACLRoleName)
		return
	}
	a.set("role:"+role, read, write)
}

func (a *ACL) set(key string, read *bool, write *bool) {
	if a.entries == nil {
		a.entries = map[string]Permission{}
	}
	p := a.entries[key]
	if read != nil {
		p.Read = *read
	}
	if write != nil {
		p.Write = *write
	}
	if !p.Read && !p.Write {
		delete(a.entries, key)
		return
	}
	a.entries[key] = p
}

// SetReadAccess grants or revokes read access for a user id (an empty id is refused: see ACL).
func (a *ACL) SetReadAccess(userID string, ok bool) { a.setUser("SetReadAccess", userID, &ok, nil) }

// SetWriteAccess grants or revokes write access for a user id (an empty id is refused: see ACL).
func (a *ACL) SetWriteAccess(userID string, ok bool) { a.setUser("SetWriteAccess", userID, nil, &ok) }

// SetRoleReadAccess grants or revokes read access for a role name (an empty name is refused: see ACL).
func (a *ACL) SetRoleReadAccess(role string, ok bool) { a.setRole("SetRoleReadAccess", role, &ok, nil) }

// SetRoleWriteAccess grants or revokes write access for a role name (an empty name is refused: see ACL).
func (a *ACL) SetRoleWriteAccess(role string, ok bool) {
	a.setRole("SetRoleWriteAccess", role, nil, &ok)
}

// SetPublicReadAccess grants or revokes read access for everyone.
func (a *ACL) SetPublicReadAccess(ok bool) { a.set(PublicKey, &ok, nil) }

// SetPublicWriteAccess grants or revokes write access for everyone.
func (a *ACL) SetPublicWriteAccess(ok bool) { a.set(PublicKey, nil, &ok) }

// ReadAccess reports whether a user id has read access.
func (a *ACL) ReadAccess(userID string) bool { return a != nil && a.entries[userID].Read }

// WriteAccess reports whether a user id has write access.
func (a *ACL) WriteAccess(userID string) bool { return a != nil && a.entries[userID].Write }

// RoleReadAccess reports whether a role has read access.
func (a *ACL) RoleReadAccess(role string) bool { return a.ReadAccess("role:" + role) }

// RoleWriteAccess reports whether a role has write access.
func (a *ACL) RoleWriteAccess(role string) bool { return a.WriteAccess("role:" + role) }

// PublicReadAccess reports whether everyone may read.
func (a *ACL) PublicReadAccess() bool { return a.ReadAccess(PublicKey) }

// PublicWriteAccess reports whether everyone may write.
func (a *ACL) PublicWriteAccess() bool { return a.WriteAccess(PublicKey) }

// Keys lists the entries (user ids, "role:Name", "*"), sorted.
func (a *ACL) Keys() []string {
	if a == nil {
		return nil
	}
	keys := make([]string, 0, len(a.entries))
	for k := range a.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Clone returns an independent copy (a kept mistake included).
func (a *ACL) Clone() *ACL {
	c := NewACL()
	if a != nil {
		for k, v := range a.entries {
			c.entries[k] = v
		}
		c.err = a.err
	}
	return c
}

// MarshalJSON writes the wire form, or fails with the mistake a setter kept (Err).
func (a *ACL) MarshalJSON() ([]byte, error) {
	if err := a.Err(); err != nil {
		return nil, err
	}
	if a == nil || a.entries == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(a.entries)
}

// UnmarshalJSON reads the wire form, checked as ACLFromMap checks it; on an error the ACL is left as it was.
func (a *ACL) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse: invalid ACL: %w", err)
	}
	out, err := ACLFromMap(m)
	if err != nil {
		return err
	}
	*a = *out
	return nil
}

// ACLFromMap reads an ACL from its decoded wire form. Each entry must be an object (or null, read as no access)
// whose members are only "read" and "write" (else ErrACLPermissionType), each a boolean (else
// ErrACLPermissionValue), as the original client requires. Entries that grant nothing are dropped.
func ACLFromMap(m map[string]any) (*ACL, error) {
	a := NewACL()
	for _, k := range sortedKeys(m) {
		var p Permission
		switch pm := m[k].(type) {
		case nil:
		case map[string]any:
			for _, name := range sortedKeys(pm) {
				if name != "read" && name != "write" {
					return nil, fmt.Errorf("parse: ACL entry %q: %w", k, ErrACLPermissionType)
				}
				allowed, ok := pm[name].(bool)
				if !ok {
					return nil, fmt.Errorf("parse: ACL entry %q: %w", k, ErrACLPermissionValue)
				}
				if name == "read" {
					p.Read = allowed
				} else {
					p.Write = allowed
				}
			}
		default:
			return nil, fmt.Errorf("parse: ACL entry %q: %w", k, ErrACLPermissionType)
		}
		if p.Read || p.Write {
			a.entries[k] = p
		}
	}
	return a, nil
}

// sortedKeys returns m's keys in order, so the first of several mistakes is always the same one.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
