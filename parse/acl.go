package parse

import (
	"encoding/json"
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

// ACL is an access control list: read and write per user id, per role ("role:Name") and for the public ("*").
// Its wire form is {"*":{"read":true},"role:Admins":{"write":true}}. The zero value is an empty list (no access
// for anyone but the master key). An ACL is not safe for concurrent mutation.
type ACL struct {
	entries map[string]Permission
}

// NewACL returns an empty ACL.
func NewACL() *ACL { return &ACL{entries: map[string]Permission{}} }

// NewUserACL returns an ACL granting read and write to one user only.
func NewUserACL(userID string) *ACL {
	a := NewACL()
	a.SetReadAccess(userID, true)
	a.SetWriteAccess(userID, true)
	return a
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

// SetReadAccess grants or revokes read access for a user id.
func (a *ACL) SetReadAccess(userID string, ok bool) { a.set(userID, &ok, nil) }

// SetWriteAccess grants or revokes write access for a user id.
func (a *ACL) SetWriteAccess(userID string, ok bool) { a.set(userID, nil, &ok) }

// SetRoleReadAccess grants or revokes read access for a role name.
func (a *ACL) SetRoleReadAccess(role string, ok bool) { a.set("role:"+role, &ok, nil) }

// SetRoleWriteAccess grants or revokes write access for a role name.
func (a *ACL) SetRoleWriteAccess(role string, ok bool) { a.set("role:"+role, nil, &ok) }

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

// Clone returns an independent copy.
func (a *ACL) Clone() *ACL {
	c := NewACL()
	if a != nil {
		for k, v := range a.entries {
			c.entries[k] = v
		}
	}
	return c
}

// MarshalJSON writes the wire form.
func (a *ACL) MarshalJSON() ([]byte, error) {
	if a == nil || a.entries == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(a.entries)
}

// UnmarshalJSON reads the wire form.
func (a *ACL) UnmarshalJSON(b []byte) error {
	var m map[string]Permission
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("parse: invalid ACL: %w", err)
	}
	if m == nil {
		m = map[string]Permission{}
	}
	a.entries = m
	return nil
}

// ACLFromMap reads an ACL from its decoded wire form.
func ACLFromMap(m map[string]any) (*ACL, error) {
	a := NewACL()
	for k, v := range m {
		pm, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("parse: invalid ACL entry %q", k)
		}
		var p Permission
		if r, ok := pm["read"].(bool); ok {
			p.Read = r
		}
		if w, ok := pm["write"].(bool); ok {
			p.Write = w
		}
		if p.Read || p.Write {
			a.entries[k] = p
		}
	}
	return a, nil
}
