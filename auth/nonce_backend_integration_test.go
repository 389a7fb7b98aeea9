package auth_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func backendNonceStore(t *testing.T) (*auth.BackendNonceStore, *client.Client) {
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	s, err := auth.NewBackendNonceStore(c)
	require.NoError(t, err)
	return s, c
}

func TestBackendNonceStoreOneTimeAcrossInstances(t *testing.T) {
	ctx := context.Background()
	a, c := backendNonceStore(t)
	b, _ := backendNonceStore(t) // a second instance, sharing only the backend
	n, err := a.Issue(ctx, time.Minute)
	require.NoError(t, err)
	assert.Len(t, n.Value, 32)
	require.NoError(t, b.Consume(ctx, n.Value), "issued on one instance, consumed on the other")
	assert.ErrorIs(t, a.Consume(ctx, n.Value), auth.ErrNonceInvalid, "a replay is refused everywhere")
	assert.ErrorIs(t, b.Consume(ctx, n.Value), auth.ErrNonceInvalid)

	// A wrong secret is refused and does not burn the real nonce.
	n2, err := a.Issue(ctx, time.Minute)
	require.NoError(t, err)
	wrong := byte('x')
	if n2.Value[10] == wrong { // the secret's first character must really change
		wrong = 'y'
	}
	assert.ErrorIs(t, b.Consume(ctx, n2.Value[:10]+string(wrong)+n2.Value[11:]), auth.ErrNonceInvalid)
	require.NoError(t, b.Consume(ctx, n2.Value))

	// Expired.
	n3, err := a.Issue(ctx, time.Millisecond)
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	assert.ErrorIs(t, b.Consume(ctx, n3.Value), auth.ErrNonceInvalid)

	// Garbage never reaches the backend as anything but a refusal.
	for _, bad := range []string{"", "short", "../../classes/_User/xxxxxxxxxxxxxxxxxxxxxxxx", "0123456789012345678901234567890!"} {
		assert.ErrorIs(t, a.Consume(ctx, bad), auth.ErrNonceInvalid, bad)
	}
	// Nobody but the master key can read the nonces.
	anon, err := client.New(client.Config{ServerURL: c.ServerURL(), AppID: c.AppID(), JavaScriptKey: devstack.MustLoad(t).JavaScriptKey})
	require.NoError(t, err)
	n4, err := a.Issue(ctx, time.Minute)
	require.NoError(t, err)
	_, err = anon.Get(ctx, auth.DefaultNonceClass, n4.Value[:10])
	assert.ErrorIs(t, err, client.ErrObjectNotFound)
}

func TestBackendNonceStoreConcurrentConsumeHasOneWinner(t *testing.T) {
	ctx := context.Background()
	a, _ := backendNonceStore(t)
	b, _ := backendNonceStore(t)
	for round := 0; round < 20; round++ {
		n, err := a.Issue(ctx, time.Minute)
		require.NoError(t, err)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				s := a
				if i%2 == 1 {
					s = b
				}
				if s.Consume(ctx, n.Value) == nil {
					wins.Add(1)
				}
			}(i)
		}
		wg.Wait()
		require.Equal(t, int32(1), wins.Load(), "round %d: exactly one consumer wins", round)
	}
}
