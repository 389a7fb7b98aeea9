package client

import (
	"context"
	"errors"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/require"
)

// DestroyAll: "object not found" after a retried call is in doubt (an earlier attempt may have deleted it), a
// first "object not found" is a refusal: write.settle decides both, as it does for Destroy.
func TestDeleteNotFoundIsInDoubtOnlyAfterARetry(t *testing.T) {
	m := &memServer{serverIDs: true}
	c, _ := memClient(t, m)
	ctx := context.Background()
	o := parse.NewObjectWithID("Thing", "nothere")
	err := c.Objects.DestroyAll(ctx, []*parse.Object{o})
	require.ErrorIs(t, err, parse.ErrObjectNotFound)
	require.NotErrorIs(t, err, parse.ErrWriteInDoubt)
	w := deleteWrite(o)
	ierr, _ := w.settle(nil, &parse.Error{Code: parse.CodeObjectNotFound, Message: "Object not found.", MaybeAppliedBefore: true})
	require.ErrorIs(t, ierr, parse.ErrWriteInDoubt)
	require.True(t, errors.Is(c.Objects.Destroy(ctx, o), parse.ErrObjectNotFound))
}
