package parse_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/c13f5054/moralis-go/parse"
)

// Field changes are kept until a save; two changes of one field merge as the Parse JS SDK merges them, and the
// fields show the values after the changes.
func ExampleObject() {
	o := parse.NewObject("GameScore")
	_ = o.Set("player", "alice")
	_ = o.Increment("score", 10)
	_ = o.Increment("score", 5) // merged with the first: one Increment of 15
	err := o.Add("tags", "fast")
	fmt.Println(err)
	err = o.Remove("tags", "slow") // Parse cannot merge Remove after Add: refused, nothing changes
	fmt.Println(errors.Is(err, parse.ErrCannotMerge))

	fmt.Println(o.DirtyKeys(), o.Int("score"), o.Strings("tags"))
	// Output:
	// <nil>
	// true
	// [player score tags] 15 [fast]
}

// Every backend error is a *parse.Error: errors.Is matches it by code, errors.As gives its details.
func ExampleError() {
	var err error = fmt.Errorf("loading the score: %w",
		&parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Status: 404, Op: "GET classes/GameScore/xyz"})

	fmt.Println(errors.Is(err, parse.ErrObjectNotFound))
	var perr *parse.Error
	if errors.As(err, &perr) {
		fmt.Println(perr.Code == parse.CodeObjectNotFound, perr.Status, perr.Op)
	}
	// Output:
	// true
	// true 404 GET classes/GameScore/xyz
}

// An ACL lists who may read and write an object; without entries only the master key may.
func ExampleACL() {
	acl := parse.NewUserACL("user123")
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Moderators", true)
	b, _ := json.Marshal(acl)
	fmt.Println(string(b))
	fmt.Println(acl.WriteAccess("user123"), acl.PublicReadAccess(), acl.PublicWriteAccess())
	// Output:
	// {"*":{"read":true},"role:Moderators":{"write":true},"user123":{"read":true,"write":true}}
	// true true false
}
