//go:build integration

// Tests of the exactly-once guarantee where an answer goes missing: each performs a scenario that could double,
// lose or misreport a write, through a proxy in front of the real server that loses answers (forward, then drop
// the connection), answers 502 itself, or runs another writer between forwarding and answering.
package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/require"
)

func isCreate(path string, body []byte) bool {
	return strings.Contains(path, "/classes/") && !bytes.Contains(body, []byte(`"_method"`))
}

// a create whose ACL hides it from its creator; the first answer is lost.
func TestLostCreateAnswerOfAnObjectHiddenByItsACLIsInDoubtNotFailed(t *testing.T) {
	cls := fmt.Sprintf("RT1_%d", rand.Uint32())
	var hit atomic.Bool
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if isCreate(path, body) && !bytes.Contains(body, []byte(`"id":"x"`)) && hit.CompareAndSwap(false, true) {
			return reset, nil
		}
		return pass, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	o := parse.NewObject(cls)
	o.Set("n", 1)
	acl := parse.NewACL()
	acl.SetRoleReadAccess("Admins", true) // a write-only "inbox" object: the creator cannot read it
	acl.SetPublicWriteAccess(true)
	o.SetACL(acl)
	err := c.Objects.Save(context.Background(), o)
	rows := countAll(t, master, cls)
	t.Logf("Save err=%v inDoubt=%v rows stored=%d", err, errors.Is(err, parse.ErrWriteInDoubt), rows)
	if rows == 1 {
		require.True(t, err == nil || errors.Is(err, parse.ErrWriteInDoubt), "object stored but reported as a definite failure")
	}
}

func countAll(t *testing.T, master *client.Client, cls string) int {
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, master.WithMasterKey().Request(context.Background(), "GET", "classes/"+cls, map[string]any{"limit": 1000}, &resp))
	return len(resp.Results)
}

// the same new *Object twice in one SaveAll.
func TestSaveAllOfTheSameNewObjectTwiceStoresOneRow(t *testing.T) {
	cls := fmt.Sprintf("RT2_%d", rand.Uint32())
	c, _, master, _ := rtClients(t, &hookProxy{})
	o := parse.NewObject(cls)
	o.Set("n", 1)
	err := c.Objects.SaveAll(context.Background(), []*parse.Object{o, o})
	rows := countAll(t, master, cls)
	t.Logf("SaveAll err=%v id=%s rows stored=%d", err, o.ID(), rows)
	require.Equal(t, 1, rows, "one object saved, rows stored")
}

// the same existing *Object with an Increment twice in one SaveAll.
func TestSaveAllOfTheSameIncrementTwiceAppliesItOnce(t *testing.T) {
	cls := fmt.Sprintf("RT3_%d", rand.Uint32())
	c, _, master, _ := rtClients(t, &hookProxy{})
	ctx := context.Background()
	o := parse.NewObject(cls)
	o.Set("score", 0)
	require.NoError(t, c.Objects.Save(ctx, o))
	require.NoError(t, o.Increment("score", 1))
	err := c.Objects.SaveAll(ctx, []*parse.Object{o, o})
	got, gerr := master.Objects.Get(ctx, cls, o.ID())
	require.NoError(t, gerr)
	t.Logf("SaveAll err=%v local=%v server=%v", err, o.Get("score"), got.Get("score"))
	require.Equal(t, 1.0, got.Float("score"), "one Increment(1) stored")
}

// A Set-only update whose answer is lost while another writer increments the same field: the other writer's
// acknowledged change must survive, on a server with idempotency (the retry is refused as a duplicate: in doubt)
// and on one without (parse-server's default: the update is not resent: in doubt).
func TestLostSetAnswerNeverUndoesAnotherWriter(t *testing.T) {
	for _, serverIdem := range []bool{true, false} {
		t.Run(fmt.Sprintf("server idempotency %v", serverIdem), func(t *testing.T) {
			cls := fmt.Sprintf("RT4_%d", rand.Uint32())
			var other func()
			var armed atomic.Bool
			hp := &hookProxy{noIdem: !serverIdem, hook: func(n int, path string, body []byte) (act, func()) {
				if armed.Load() && bytes.Contains(body, []byte(`"_method":"PUT"`)) && armed.CompareAndSwap(true, false) {
					return reset, other // A's PUT applied; B increments; A's answer lost
				}
				return pass, nil
			}}
			c, direct, _, _ := rtClients(t, hp)
			ctx := context.Background()
			a := parse.NewObject(cls)
			a.Set("score", 0)
			require.NoError(t, c.Objects.Save(ctx, a))
			var bErr error
			var bSaw float64
			other = func() {
				b := parse.NewObjectWithID(cls, a.ID())
				b.Increment("score", 1)
				bErr = direct.Objects.Save(ctx, b)
				bSaw = b.Float("score")
			}
			a.Set("score", 10)
			armed.Store(true)
			aErr := c.Objects.Save(ctx, a)
			got, _ := direct.Objects.Get(ctx, cls, a.ID())
			t.Logf("A Set(10): err=%v; B Increment(1): err=%v, B saw %v; stored=%v", aErr, bErr, bSaw, got.Get("score"))
			require.Equal(t, 11.0, got.Float("score"), "B's increment, reported done and computed over A's 10, was lost")
			require.ErrorIs(t, aErr, parse.ErrWriteInDoubt)
		})
	}
}

// DestroyAll: first /batch attempt answered 502 by a proxy (never reached the server); the caller may not
// delete the object (its ACL is public read-only), so the server answers 101 at the retry.
func TestDestroyAllNeverReportsAnUndeletedObjectDone(t *testing.T) {
	cls := fmt.Sprintf("RT5_%d", rand.Uint32())
	var armed atomic.Bool
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if armed.Load() && strings.HasSuffix(path, "/batch") && armed.CompareAndSwap(true, false) {
			return bad502, nil
		}
		return pass, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	ctx := context.Background()
	o := parse.NewObject(cls)
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	o.SetACL(acl)
	require.NoError(t, c.Objects.Save(ctx, o))
	armed.Store(true)
	err := c.Objects.DestroyAll(ctx, []*parse.Object{o})
	_, gerr := master.Objects.Get(ctx, cls, o.ID())
	t.Logf("DestroyAll err=%v; object still stored: %v", err, gerr == nil)
	require.False(t, err == nil && gerr == nil, "DestroyAll reported done, object still stored")
}

// Destroy whose answer is lost: the retry answers 101.
func TestLostDestroyAnswerIsNotADefiniteFailure(t *testing.T) {
	cls := fmt.Sprintf("RT6_%d", rand.Uint32())
	var armed atomic.Bool
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if armed.Load() && bytes.Contains(body, []byte(`"_method":"DELETE"`)) && armed.CompareAndSwap(true, false) {
			return reset, nil
		}
		return pass, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	ctx := context.Background()
	o := parse.NewObject(cls)
	require.NoError(t, c.Objects.Save(ctx, o))
	armed.Store(true)
	err := c.Objects.Destroy(ctx, o)
	_, gerr := master.Objects.Get(ctx, cls, o.ID())
	t.Logf("Destroy err=%v inDoubt=%v; deleted=%v", err, errors.Is(err, parse.ErrWriteInDoubt), gerr != nil)
	require.False(t, gerr != nil && err != nil && !errors.Is(err, parse.ErrWriteInDoubt), "applied delete reported as definite failure")
}

// a create left in doubt; the natural re-Save makes a second object.
func TestSavingAgainAfterAnInDoubtCreateMakesNoSecondObject(t *testing.T) {
	cls := fmt.Sprintf("RT7_%d", rand.Uint32())
	var faulty atomic.Bool
	faulty.Store(true)
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if !faulty.Load() {
			return pass, nil
		}
		if bytes.Contains(body, []byte(`"_method":"GET"`)) {
			return bad502, nil
		}
		return reset, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	ctx := context.Background()
	o := parse.NewObject(cls)
	o.Set("n", 1)
	err := c.Objects.Save(ctx, o)
	t.Logf("first Save: inDoubt=%v id=%q dirty=%v err=%v", errors.Is(err, parse.ErrWriteInDoubt), o.ID(), o.DirtyKeys(), err)
	faulty.Store(false)
	err2 := c.Objects.Save(ctx, o)
	rows := countAll(t, master, cls)
	t.Logf("second Save err=%v id=%s rows stored=%d", err2, o.ID(), rows)
	require.Equal(t, 1, rows)
}

// an installation created with Add; the first answer is lost.
func TestLostInstallationCreateAnswerAppliesItsOpsOnce(t *testing.T) {
	var hit atomic.Bool
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if strings.HasSuffix(path, "/installations") && !bytes.Contains(body, []byte(`"_method"`)) && !bytes.Contains(body, []byte(`"id":"x"`)) && hit.CompareAndSwap(false, true) {
			return reset, nil
		}
		return pass, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	ctx := context.Background()
	o := parse.NewObject("_Installation")
	o.Set("installationId", fmt.Sprintf("rt10-%d", rand.Uint32()))
	o.Set("deviceType", "ios")
	o.Add("channels", "news")
	o.Increment("badge", 1)
	err := c.Objects.Save(ctx, o)
	require.True(t, err == nil || errors.Is(err, parse.ErrWriteInDoubt), "%v", err)
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, master.WithMasterKey().Request(ctx, "GET", "installations", map[string]any{"where": map[string]any{"installationId": o.String("installationId")}}, &resp))
	require.Len(t, resp.Results, 1)
	t.Logf("Save err=%v; stored %v", err, resp.Results[0])
	require.Equal(t, 1.0, resp.Results[0]["badge"], "the Increment applied once")
	require.Equal(t, []any{"news"}, resp.Results[0]["channels"], "the Add applied once")
}

// SaveAll of creates hidden from their creator by ACL; the first create's answer is lost (a /batch's, with
// Config.ClientObjectIDs; a single create's at the default config).
func TestSaveAllOfCreatesHiddenByTheirACLIsInDoubtNotFailed(t *testing.T) {
	cls := fmt.Sprintf("RT1b_%d", rand.Uint32())
	var hit atomic.Bool
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if (strings.HasSuffix(path, "/batch") || isCreate(path, body) && !bytes.Contains(body, []byte(`"id":"x"`))) && hit.CompareAndSwap(false, true) {
			return reset, nil
		}
		return pass, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	var objs []*parse.Object
	for i := 0; i < 3; i++ {
		o := parse.NewObject(cls)
		acl := parse.NewACL()
		acl.SetRoleReadAccess("Admins", true)
		o.SetACL(acl)
		objs = append(objs, o)
	}
	err := c.Objects.SaveAll(context.Background(), objs)
	var be *client.BatchError
	errors.As(err, &be)
	t.Logf("SaveAll err=%v; rows stored=%d", err, countAll(t, master, cls))
	require.NotNil(t, be)
	require.Equal(t, be.Failed, be.InDoubt, "stored objects reported as definite failures")
}

// ctx cancelled during the back-off after a create's answer was lost.
func TestCancelDuringRetryIsInDoubtAndNilInputsAreErrors(t *testing.T) {
	cls := fmt.Sprintf("RTc_%d", rand.Uint32())
	ctx, cancel := context.WithCancel(context.Background())
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if isCreate(path, body) {
			return reset, cancel
		}
		return pass, nil
	}}
	c, _, master, _ := rtClients(t, hp)
	o := parse.NewObject(cls)
	err := c.Objects.Save(ctx, o)
	rows := countAll(t, master, cls)
	t.Logf("err=%v inDoubt=%v rows=%d", err, errors.Is(err, parse.ErrWriteInDoubt), rows)
	require.True(t, rows == 0 || err == nil || errors.Is(err, parse.ErrWriteInDoubt))
	var noCtx context.Context // a nil context must give an error, never a panic
	require.Error(t, c.Objects.Save(noCtx, parse.NewObject(cls)))
	require.Error(t, c.Objects.SaveAll(noCtx, []*parse.Object{parse.NewObject(cls)}))
	require.Error(t, c.Objects.DestroyAll(noCtx, []*parse.Object{parse.NewObjectWithID(cls, "x")}))
	require.Error(t, c.Objects.Destroy(noCtx, parse.NewObjectWithID(cls, "x")))
	_, uerr := c.Files.Upload(noCtx, "a.txt", []byte("x"), "text/plain", nil)
	require.Error(t, uerr)
	require.Error(t, c.Objects.SaveAll(context.Background(), []*parse.Object{nil, parse.NewObject("")}))
}

func TestLostUploadAnswerIsInDoubt(t *testing.T) {
	var hit atomic.Bool
	hp := &hookProxy{hook: func(n int, path string, body []byte) (act, func()) {
		if strings.Contains(path, "/files/") && hit.CompareAndSwap(false, true) {
			return reset, nil
		}
		return pass, nil
	}}
	c, _, _, _ := rtClients(t, hp)
	_, err := c.Files.Upload(context.Background(), "a.txt", []byte("hello"), "text/plain", nil)
	t.Logf("upload err=%v inDoubt=%v", err, errors.Is(err, parse.ErrWriteInDoubt))
	require.True(t, errors.Is(err, parse.ErrWriteInDoubt))
}
