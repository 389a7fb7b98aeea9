//go:build integration

package authserver_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func backendNonceStore(t *testing.T) (*authserver.BackendNonceStore, *client.Client) {
	env := devstack.MustLoad(t)
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	require.NoError(t, err)
	s, err := authserver.NewBackendNonceStore(c)
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
	bn := bindNonce(t, a, n.Value)
	require.NoError(t, b.Consume(ctx, n.Value, bn), "issued on one instance, consumed on the other")
	assert.ErrorIs(t, a.Consume(ctx, n.Value, bn), authserver.ErrNonceInvalid, "a replay is refused everywhere")
	assert.ErrorIs(t, b.Consume(ctx, n.Value, bn), authserver.ErrNonceInvalid)

	// A wrong secret is refused and does not burn the real nonce.
	n2, err := a.Issue(ctx, time.Minute)
	require.NoError(t, err)
	wrong := byte('x')
	if n2.Value[10] == wrong { // the secret's first character must really change
		wrong = 'y'
	}
	bn2 := bindNonce(t, a, n2.Value)
	assert.ErrorIs(t, b.Consume(ctx, n2.Value[:10]+string(wrong)+n2.Value[11:], bn2), authserver.ErrNonceInvalid)
	// Another text, address or chain than the one it was issued with: refused, and the nonce is kept.
	for _, other := range []authserver.NonceBinding{
		{Chain: bn2.Chain, Address: bn2.Address, Message: bn2.Message + "\nResources:\n- https://evil.example"},
		{Chain: bn2.Chain, Address: "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf", Message: bn2.Message},
		{Chain: auth.ChainSolana, Address: bn2.Address, Message: bn2.Message},
	} {
		assert.ErrorIs(t, b.Consume(ctx, n2.Value, other), authserver.ErrNonceMismatch)
	}
	require.NoError(t, b.Consume(ctx, n2.Value, bn2))

	// Issued but never bound: never accepted.
	n5, err := a.Issue(ctx, time.Minute)
	require.NoError(t, err)
	assert.ErrorIs(t, b.Consume(ctx, n5.Value, authserver.NonceBinding{Chain: auth.ChainEVM}), authserver.ErrNonceInvalid)

	// Expired.
	n3, err := a.Issue(ctx, time.Millisecond)
	require.NoError(t, err)
	bn3 := bindNonce(t, a, n3.Value)
	time.Sleep(20 * time.Millisecond)
	assert.ErrorIs(t, b.Consume(ctx, n3.Value, bn3), authserver.ErrNonceInvalid)

	// Garbage never reaches the backend as anything but a refusal.
	for _, bad := range []string{"", "short", "../../classes/_User/xxxxxxxxxxxxxxxxxxxxxxxx", "0123456789012345678901234567890!"} {
		assert.ErrorIs(t, a.Consume(ctx, bad, bn), authserver.ErrNonceInvalid, bad)
	}
	// Nobody but the master key can read the nonces.
	anon, err := client.New(client.Config{ServerURL: c.ServerURL(), AppID: c.AppID(), JavaScriptKey: devstack.MustLoad(t).JavaScriptKey})
	require.NoError(t, err)
	n4, err := a.Issue(ctx, time.Minute)
	require.NoError(t, err)
	_, err = anon.Objects.Get(ctx, authserver.DefaultNonceClass, n4.Value[:10])
	assert.ErrorIs(t, err, parse.ErrOperationForbidden, "class-level permissions: master key only")
	// Nor create one (a forged nonce).
	forged := parse.NewObject(authserver.DefaultNonceClass)
	forged.Set("secret", "forgedforgedforgedforg")
	assert.ErrorIs(t, anon.Objects.Save(ctx, forged), parse.ErrOperationForbidden)
}

func TestBackendNonceStoreConcurrentConsumeHasOneWinner(t *testing.T) {
	ctx := context.Background()
	a, _ := backendNonceStore(t)
	b, _ := backendNonceStore(t)
	for round := 0; round < 20; round++ {
		n, err := a.Issue(ctx, time.Minute)
		require.NoError(t, err)
		bn := bindNonce(t, a, n.Value)
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
				if s.Consume(ctx, n.Value, bn) == nil {
					wins.Add(1)
				}
			}(i)
		}
		wg.Wait()
		require.Equal(t, int32(1), wins.Load(), "round %d: exactly one consumer wins", round)
	}
}

// bindNonce binds nonce, as the handler does, to an EVM message for a fixed address and returns the binding.
func bindNonce(t *testing.T, s *authserver.BackendNonceStore, nonce string) authserver.NonceBinding {
	t.Helper()
	b := authserver.NonceBinding{Chain: auth.ChainEVM, Address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
		Message: auth.BuildMoralisMessage("", "app", nonce)}
	require.NoError(t, s.Bind(context.Background(), nonce, b))
	return b
}
