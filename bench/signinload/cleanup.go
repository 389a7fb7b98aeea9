package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/signer"
)

// cleanUp deletes what the run left on the backend, with the master key: the users of its wallets, their sessions
// and the endpoint's records of them. Every run then starts from the backend it found: the session tables grow by
// about 7,000 rows a run otherwise, and a run measured the tables every earlier run had left (past PostgreSQL's
// memory after some dozens of runs: DEPLOY.md, "Sizing"). Only this run's wallets are touched, so a run beside
// other work on the stack (make test's bench smoke run) takes nothing of theirs.
func cleanUp(env devstack.Env, wallets []*signer.Key) error {
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		MasterKey: env.MasterKey})
	if err != nil {
		return err
	}
	c = c.WithMasterKey()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	addrs := make([]any, len(wallets))
	for i, w := range wallets {
		addrs[i] = strings.ToLower(w.Address().Hex())
	}
	var users, sessions, records int
	const chunk = 100
	for lo := 0; lo < len(addrs); lo += chunk {
		part := addrs[lo:min(lo+chunk, len(addrs))]
		us, err := findAll(ctx, c, query.New[*parse.Object](client.UserClass).ContainedIn("ethAddress", part))
		if err != nil {
			return fmt.Errorf("signinload: cleaning up: finding the run's users: %w", err)
		}
		ptrs := make([]any, len(us))
		for i, u := range us {
			ptrs[i] = parse.Pointer{ClassName: client.UserClass, ObjectID: u.ID()}
		}
		var ss []*parse.Object
		if len(ptrs) > 0 {
			if ss, err = findAll(ctx, c, query.New[*parse.Object]("_Session").ContainedIn("user", ptrs)); err != nil {
				return fmt.Errorf("signinload: cleaning up: finding the run's sessions: %w", err)
			}
		}
		rs, err := findAll(ctx, c, query.New[*parse.Object]("MoralisAuthSession").ContainedIn("address", part))
		if err != nil {
			return fmt.Errorf("signinload: cleaning up: finding the run's session records: %w", err)
		}
		for _, objs := range [][]*parse.Object{ss, rs, us} {
			if len(objs) > 0 {
				if err := c.Objects.DestroyAll(ctx, objs); err != nil {
					return fmt.Errorf("signinload: cleaning up: %w", err)
				}
			}
		}
		users, sessions, records = users+len(us), sessions+len(ss), records+len(rs)
	}
	fmt.Printf("signinload: cleaned up %d users, %d sessions and %d session records of the run's %d wallets\n",
		users, sessions, records, len(wallets))
	return nil
}

// findAll returns every object q matches (its objectId only), in pages of 1,000.
func findAll(ctx context.Context, c *client.Client, q *query.Query[*parse.Object]) ([]*parse.Object, error) {
	var all []*parse.Object
	for {
		page, err := q.Select("objectId").Ascending("objectId").Skip(len(all)).Limit(1000).Find(ctx, c)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < 1000 {
			return all, nil
		}
	}
}
