package settle

import (
	"errors"
	"fmt"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

// The rule, case by case: each row is an answer to one kind of write and the verdict every save path and the
// store's queue act on.
func TestVerdicts(t *testing.T) {
	var (
		doubt     = &parse.Error{Code: parse.CodeConnectionFailed, Message: "XMLHttpRequest failed", InDoubt: true}
		refused   = &parse.Error{Code: parse.CodeValidationError, Message: "refused by a trigger", Status: 400}
		dupID     = &parse.Error{Code: parse.CodeDuplicateValue, Message: "A duplicate value", Status: 400}
		dupIDRetr = &parse.Error{Code: parse.CodeDuplicateValue, Message: "A duplicate value", Status: 400, MaybeAppliedBefore: true}
		dupReq    = &parse.Error{Code: parse.CodeDuplicateRequest, Message: "Duplicate request", Status: 400}
		gone      = &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Status: 404}
		goneRetr  = &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Status: 404, MaybeAppliedBefore: true}
		status502 = &parse.Error{Code: parse.CodeInvalidJSON, Message: "bad gateway", Status: 502}
	)
	create := Write{Kind: Create}
	chosen := Write{Kind: Create, ChosenID: true}
	resent := Write{Kind: Create, ChosenID: true, Earlier: true}
	queuedCreate := Write{Kind: Create, ChosenID: true, Earlier: true, Queued: true}
	update := Write{Kind: Update}
	queuedUpdate := Write{Kind: Update, Earlier: true, Queued: true}
	del := Write{Kind: Delete}
	queuedDel := Write{Kind: Delete, Earlier: true, Queued: true}
	for _, tc := range []struct {
		w    Write
		err  error
		want Verdict
	}{
		{create, nil, Applied},
		{create, doubt, InDoubt},
		{create, refused, Refused},
		{create, dupID, Refused},
		{chosen, doubt, ReadBack},
		{chosen, refused, Refused},
		{chosen, dupID, Refused},
		{chosen, dupIDRetr, ReadBack},
		{resent, refused, ReadBack},
		{resent, dupID, ReadBack},
		{queuedCreate, status502, SendAgain},
		{queuedCreate, doubt, SendAgain},
		{queuedCreate, dupReq, ReadBack},
		{queuedCreate, dupID, ReadBack},
		{queuedCreate, refused, ReadBack},
		{update, nil, Applied},
		{update, doubt, InDoubt},
		{update, refused, Refused},
		{update, dupReq, Refused},
		{queuedUpdate, dupReq, Applied},
		{queuedUpdate, status502, Refused},
		{del, gone, Refused},
		{del, goneRetr, InDoubt},
		{del, doubt, InDoubt},
		{queuedDel, gone, Applied},
		{create, fmt.Errorf("wrapped: %w", doubt), InDoubt},
	} {
		if got := Of(tc.w, tc.err); got != tc.want {
			t.Errorf("Of(%+v, %v) = %v, want %v", tc.w, tc.err, got, tc.want)
		}
	}
}

// After a read back of a create with a chosen id: found is applied; not found sends it again only when the answer
// left the id free; a refusal of a create that was sent before stays in doubt (the object may be stored where its
// reader cannot see it), a first refusal is a refusal.
func TestAfterReadBack(t *testing.T) {
	notFound := &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", Status: 404}
	readFailed := &parse.Error{Code: parse.CodeConnectionFailed, Message: "XMLHttpRequest failed"}
	doubt := &parse.Error{Code: parse.CodeConnectionFailed, InDoubt: true}
	dupReq := &parse.Error{Code: parse.CodeDuplicateRequest, Status: 400}
	dupID := &parse.Error{Code: parse.CodeDuplicateValue, Status: 400}
	refused := &parse.Error{Code: parse.CodeValidationError, Status: 400}
	first := Write{Kind: Create, ChosenID: true}
	again := Write{Kind: Create, ChosenID: true, Earlier: true}
	for _, tc := range []struct {
		w         Write
		err, rerr error
		want      Verdict
	}{
		{first, doubt, nil, Applied},
		{first, doubt, readFailed, InDoubt},
		{first, doubt, notFound, SendAgain},
		{again, dupReq, notFound, SendAgain},
		{again, dupID, notFound, InDoubt},
		{first, dupID, notFound, InDoubt},
		{again, refused, notFound, InDoubt},
		{first, refused, notFound, Refused},
		{first, errors.New("plain"), notFound, Refused},
	} {
		if got := AfterReadBack(tc.w, tc.err, tc.rerr); got != tc.want {
			t.Errorf("AfterReadBack(%+v, %v, %v) = %v, want %v", tc.w, tc.err, tc.rerr, got, tc.want)
		}
	}
}
