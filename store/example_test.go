package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// Pin objects and run a query against them, offline.
func Example() {
	ctx := context.Background()
	s := store.NewMemory(nil) // store.Open("app.db", &store.Options{AppID: "myApp"}) keeps it on disk
	defer s.Close()

	for i, name := range []string{"Ann", "Bob", "Cid"} {
		o := parse.NewObject("GameScore")
		o.Set("playerName", name)
		o.Set("score", (i+1)*10)
		if err := s.Pin(ctx, o); err != nil { // unsaved objects get a local id
			fmt.Println(err)
			return
		}
	}
	best, err := query.New[*parse.Object]("GameScore").GreaterThan("score", 15).Descending("score").Find(ctx, s)
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

	fav := parse.NewObjectWithID("Song", "s1")
	fav.Set("title", "Blue")
	other := parse.NewObjectWithID("Song", "s2")
	other.Set("title", "Red")
	_ = s.PinWithName(ctx, "favourites", fav)
	_ = s.Pin(ctx, other)

	favs, _ := query.New[*parse.Object]("Song").Find(ctx, s.FromPin("favourites"))
	all, _ := query.New[*parse.Object]("Song").Count(ctx, s)
	fmt.Println(len(favs), favs[0].String("title"), all)
	fmt.Println(store.PinKey("favourites"), store.ObjectKey("Song", "s1"))
	// Output:
	// 1 Blue 2
	// Parse_LDS_PIN_favourites Parse_LDS_Song_s1
}

// Geo queries run locally as on the server: Near orders nearest first; WithinKilometers with sorted true limits the
// distance too.
func ExampleStore_RunQuery_near() {
	ctx := context.Background()
	s := store.NewMemory(nil)
	defer s.Close()
	for _, c := range []struct {
		name     string
		lat, lng float64
	}{{"Berlin", 52.52, 13.405}, {"Paris", 48.8566, 2.3522}, {"Vienna", 48.2082, 16.3738}, {"Tokyo", 35.6762, 139.6503}} {
		gp, err := parse.NewGeoPoint(c.lat, c.lng)
		if err != nil {
			fmt.Println(err)
			return
		}
		o := parse.NewObject("City")
		o.Set("name", c.name)
		o.Set("location", gp)
		if err := s.Pin(ctx, o); err != nil {
			fmt.Println(err)
			return
		}
	}
	munich, _ := parse.NewGeoPoint(48.1351, 11.582)
	show := func(q *query.Query[*parse.Object]) {
		cities, err := q.Find(ctx, s)
		if err != nil {
			fmt.Println(err)
			return
		}
		names := make([]string, len(cities))
		for i, c := range cities {
			names[i] = c.String("name")
		}
		fmt.Println(strings.Join(names, " "))
	}
	show(query.New[*parse.Object]("City").Near("location", munich))
	show(query.New[*parse.Object]("City").WithinKilometers("location", munich, 700, true))
	// Output:
	// Vienna Berlin Paris Tokyo
	// Vienna Berlin Paris
}

// Operators the store cannot evaluate are errors, never silently ignored.
func ExampleStore_RunQuery_unsupported() {
	s := store.NewMemory(nil)
	defer s.Close()
	_, err := query.New[*parse.Object]("Place").FullText("description", "castle").Find(context.Background(), s)
	fmt.Println(errors.Is(err, store.ErrUnsupportedQuery))
	fmt.Println(err)
	// Output:
	// true
	// store: unsupported query: operator $text on "description"
}

// A store that was never opened, or was closed, is not enabled.
func ExampleErrNotEnabled() {
	var s *store.Store
	err := s.Pin(context.Background(), parse.NewObjectWithID("A", "a"))
	fmt.Println(errors.Is(err, store.ErrNotEnabled))
	fmt.Println(err)
	// Output:
	// true
	// store: PinWithName: Parse.enableLocalDatastore() must be called first
}
