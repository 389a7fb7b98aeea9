//go:build integration

package client_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// triggerSeen is one TriggerLog row: what a beforeSave or afterSave trigger of the local stack saw
// (internal/devstack/app/cloud/triggers.js).
type triggerSeen struct {
	Phase       string `json:"phase"`
	ClassName   string `json:"cls"`
	Label       string `json:"label"`
	IsNew       bool   `json:"isNew"`
	Existed     bool   `json:"existed"`
	HasOriginal bool   `json:"hasOriginal"`
	ObjectID    string `json:"seenId"`
}

// triggerLog reads what the triggers recorded for run, by label and phase.
func triggerLog(t *testing.T, master *client.Client, run string) map[string][]triggerSeen {
	t.Helper()
	var resp struct {
		Results []triggerSeen `json:"results"`
	}
	require.NoError(t, master.Request(context.Background(), "GET", "classes/TriggerLog",
		map[string]any{"where": map[string]any{"run": run}, "limit": 1000, "order": "createdAt"}, &resp))
	out := map[string][]triggerSeen{}
	for _, s := range resp.Results {
		out[s.Label] = append(out[s.Label], s)
	}
	return out
}

// At the default config, cloud code sees every create the SDK makes as a create, as it does for moralis-v1's
// requests: in beforeSave request.object.isNew() is true, existed() false, request.original unset and
// request.object.id empty; in afterSave existed() is false and request.original unset. Save, SaveAll of 3, a
// deep save of a parent and its new child, and SignUp. An update is seen as an update (the contrast).
func TestTriggersSeeCreatesAsCreatesAtDefaults(t *testing.T) {
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	require.NoError(t, err)
	master, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	master = master.WithMasterKey()
	ctx := context.Background()
	run := fmt.Sprintf("run%d", rand.Uint64())
	probe := func(label string) *parse.Object {
		o := parse.NewObject("TriggerProbe")
		require.NoError(t, o.Set("triggerRun", run))
		require.NoError(t, o.Set("label", label))
		return o
	}

	one := probe("save")
	require.NoError(t, c.Objects.Save(ctx, one))
	all := []*parse.Object{probe("saveall0"), probe("saveall1"), probe("saveall2")}
	require.NoError(t, c.Objects.SaveAll(ctx, all))
	child := probe("child")
	parent := probe("parent")
	require.NoError(t, parent.Set("child", child))
	require.NoError(t, c.Objects.Save(ctx, parent))
	// SignUp is not probed here: the stack keeps no trigger on _User (a beforeSave there changes parse-server's
	// answer to AddUnique, see triggers.js); SignUp sends no objectId in any mode (TestDefaultCreatesCarryNoObjectID
	// covers the request).
	require.NoError(t, one.Set("label", "update"))
	require.NoError(t, c.Objects.Save(ctx, one))

	seen := triggerLog(t, master, run)
	ids := map[string]string{"save": "", "saveall0": all[0].ID(), "saveall1": all[1].ID(), "saveall2": all[2].ID(),
		"child": child.ID(), "parent": parent.ID()}
	labels := make([]string, 0, len(ids))
	for l := range ids {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, label := range labels {
		calls := seen[label]
		require.Len(t, calls, 2, "%s: one beforeSave and one afterSave", label)
		for _, s := range calls {
			assert.False(t, s.Existed, "%s %s: existed() is false for a create", label, s.Phase)
			assert.False(t, s.HasOriginal, "%s %s: no request.original for a create", label, s.Phase)
			switch s.Phase {
			case "beforeSave":
				assert.True(t, s.IsNew, "%s beforeSave: isNew() is true for a create", label)
				assert.Empty(t, s.ObjectID, "%s beforeSave: request.object.id is unset for a create", label)
			case "afterSave":
				assert.NotEmpty(t, s.ObjectID, "%s afterSave: the id the server chose", label)
			default:
				t.Errorf("%s: unexpected phase %q", label, s.Phase)
			}
		}
	}
	assert.Equal(t, parent.ID(), seenID(seen["parent"], "afterSave"))
	// The contrast: an update of the first object is seen as an update.
	upd := seen["update"]
	require.Len(t, upd, 2)
	for _, s := range upd {
		assert.False(t, s.IsNew, "update %s", s.Phase)
		assert.True(t, s.Existed, "update %s", s.Phase)
		assert.True(t, s.HasOriginal, "update %s", s.Phase)
		assert.Equal(t, one.ID(), s.ObjectID)
	}
}

func seenID(calls []triggerSeen, phase string) string {
	for _, s := range calls {
		if s.Phase == phase {
			return s.ObjectID
		}
	}
	return ""
}
