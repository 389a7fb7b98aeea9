package store_test

import (
	"context"
	"errors"
	"log"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/store"
)

// Writes made offline are queued in the store's file and replayed, exactly once, when the server answers.
func ExampleQueue() {
	ctx := context.Background()
	st, err := store.Open("app.db", store.Config{AppID: "myAppId"})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	q, err := store.NewQueue(st, store.QueueConfig{})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(client.Config{ServerURL: "https://example.com/parse", AppID: "myAppId", JavaScriptKey: "jsKey"})
	if err != nil {
		log.Fatal(err)
	}

	score := parse.NewObject("GameScore")
	_ = score.Set("score", 1337)
	if err := q.SaveEventually(ctx, score); err != nil { // durable now; score.ID() is set
		log.Fatal(err)
	}
	_ = score.Increment("score", 1)
	if err := q.SaveEventually(ctx, score); err != nil { // an update, replayed after the create
		log.Fatal(err)
	}

	states, cancel := q.Subscribe()
	defer cancel()
	go func() {
		for s := range states {
			if s.Paused == store.PausedSession {
				log.Printf("%d writes wait for a new sign-in", s.Len) // then q.Resume(ctx) with the new session's client
			}
		}
	}()
	if err := q.Run(ctx, c); err != nil && !errors.Is(err, context.Canceled) {
		log.Print(err)
	}
}
