//go:build integration

package client_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// 64 goroutines share one client; each works through the view of one of 8 users, 5 rounds of 4 calls (1,280 calls,
// all 64 goroutines at once). Session tokens never mix: every users/me answers the view's own user, and each user's
// private objects are visible to that user only.
func TestStress64GoroutinesPerUserViews(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	const users = 8
	cls := fmt.Sprintf("Private%d", rand.Uint32())
	type account struct {
		id, token string
	}
	accts := make([]account, users)
	for i := range accts {
		// One installation id per simulated device, so logins do not end each other's sessions.
		dev := newClient(t, func(cfg *client.Config) { cfg.InstallationID = fmt.Sprintf("device-%d-%d", i, rand.Uint32()) })
		u := client.NewUser()
		u.SetUsername(fmt.Sprintf("stress%d_%d", rand.Uint32(), i))
		u.SetPassword("pw")
		require.NoError(t, dev.Users.SignUp(ctx, u))
		accts[i] = account{u.ID(), u.SessionToken()}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			a := accts[g%users]
			view := c.WithSessionToken(a.token)
			for k := 0; k < 5; k++ {
				me, err := view.Users.Me(ctx)
				if err != nil {
					errs <- err
					return
				}
				if me.ID() != a.id {
					errs <- fmt.Errorf("goroutine %d: users/me answered %s, want %s", g, me.ID(), a.id)
					return
				}
				o := parse.NewObject(cls)
				o.Set("owner", a.id)
				o.SetACL(parse.NewUserACL(a.id))
				if err := view.Objects.Save(ctx, o); err != nil {
					errs <- err
					return
				}
				// Another user's view cannot read it.
				other := accts[(g+1)%users]
				if _, err := c.WithSessionToken(other.token).Objects.Get(ctx, cls, o.ID()); err == nil {
					errs <- fmt.Errorf("user %s read user %s's private object", other.id, a.id)
					return
				}
				got, err := view.Objects.Get(ctx, cls, o.ID())
				if err != nil {
					errs <- err
					return
				}
				if got.String("owner") != a.id {
					errs <- fmt.Errorf("read back owner %q, want %q", got.String("owner"), a.id)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Empty(t, c.SessionToken(), "the shared client itself never takes a session")
}
