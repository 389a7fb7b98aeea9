package store_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// Pin objects and run a query against them, offline.
func Example() {
	ctx := context.Background()
	s := store.NewMemory(nil) // store.Open("app.db", &store.Options{AppID: "myApp"}) keeps it on disk
	defer s.Close()

	for i, name := range []string{"Ann", "Bob", "Cid"} {
		o := client.NewObject("GameScore")
		o.Set("playerName", name)
		o.Set("score", (i+1)*10)
		if err := s.Pin(ctx, o); err != nil { // unsaved objects get a local id
			fmt.Println(err)
			return
		}
	}
	best, err := query.New[*client.Object]("GameScore").GreaterThan("score", 15).Descending("score").Find(ctx, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range best {
		fmt.Println(o.String("playerName"), o.Get("score"))
	}
	// Output:
	// Cid 30
	// Bob 20
}

// Named pins keep groups of objects apart; FromPin queries one group.
func ExampleStore_PinWithName() {
	ctx := context.Background()
	s := store.NewMemory(nil)
	defer s.Close()

	fav := client.NewObjectWithID("Song", "s1")
	fav.Set("title", "Blue")
	other := client.NewObjectWithID("Song", "s2")
	other.Set("title", "Red")
	_ = s.PinWithName(ctx, "favourites", fav)
	_ = s.Pin(ctx, other)

	favs, _ := query.New[*client.Object]("Song").Find(ctx, s.FromPin("favourites"))
	all, _ := query.New[*client.Object]("Song").Count(ctx, s)
	fmt.Println(len(favs), favs[0].String("title"), all)
	fmt.Println(store.PinKey("favourites"), store.ObjectKey("Song", "s1"))
	// Output:
	// 1 Blue 2
	// Parse_LDS_PIN_favourites Parse_LDS_Song_s1
}

// Operators the store cannot evaluate are errors, never silently ignored.
func ExampleStore_RunQuery_unsupported() {
	s := store.NewMemory(nil)
	defer s.Close()
	gp, _ := client.NewGeoPoint(52.5, 13.4)
	_, err := query.New[*client.Object]("Place").Near("location", gp).Find(context.Background(), s)
	fmt.Println(errors.Is(err, store.ErrUnsupportedQuery))
	fmt.Println(err)
	// Output:
	// true
	// store: unsupported query: operator $nearSphere on "location"
}

// A store that was never opened, or was closed, is not enabled.
func ExampleErrNotEnabled() {
	var s *store.Store
	err := s.Pin(context.Background(), client.NewObjectWithID("A", "a"))
	fmt.Println(errors.Is(err, store.ErrNotEnabled))
	fmt.Println(err)
	// Output:
	// true
	// store: PinWithName: Parse.enableLocalDatastore() must be called first
}
