package client

import "github.com/c13f5054/moralis-go/parse"

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
