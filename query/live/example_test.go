package live_test

import (
	"context"
	"fmt"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/query/live"
)

// Watching a query: the Runner (the client view of the same user) lets the subscription load a snapshot and
// catch up after a reconnect. This example needs a running server, so it is compiled but not run.
func Example() {
	ctx := context.Background()
	c, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1337/parse", AppID: "app", JavaScriptKey: "js"})
	if err != nil {
		panic(err)
	}
	lc, err := live.Dial(ctx, live.Config{URL: "ws://127.0.0.1:1337/parse", AppID: "app", JavaScriptKey: "js", Runner: c})
	if err != nil {
		panic(err)
	}
	defer lc.Close()
	sub, err := lc.Subscribe(ctx, "Message", map[string]any{"room": "lobby"}, nil)
	if err != nil {
		panic(err)
	}
	for ev := range sub.Events() {
		switch ev.Kind {
		case live.Error:
			fmt.Println("error:", ev.Err)
		case live.Update:
			fmt.Println("update", ev.Object.ID(), "was", ev.Original.Get("text"), "now", ev.Object.Get("text"))
		default:
			fmt.Println(ev.Kind, ev.Object.ID(), "catch-up:", ev.CatchUp)
		}
	}
}
