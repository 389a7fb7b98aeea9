package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// fakeBackend answers like parse-server for the few routes the examples use. Every call arrives as a POST whose
// JSON body carries the real method in _method.
func fakeBackend() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/parse/login":
			fmt.Fprintf(w, `{"objectId":"u1","username":%q,"sessionToken":"r:abc"}`, body["username"])
		case r.URL.Path == "/parse/users/me" && body["_SessionToken"] == "r:abc":
			fmt.Fprint(w, `{"objectId":"u1","username":"alice"}`)
		case r.URL.Path == "/parse/logout":
			fmt.Fprint(w, `{}`)
		case strings.HasPrefix(r.URL.Path, "/parse/classes/GameScore"):
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"objectId":"Xy12Ab34Cd","createdAt":"2026-11-24T10:00:00.000Z","score":15}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"code":101,"error":"Object not found."}`)
		}
	}))
}

// Construction checks the configuration.
func ExampleNew() {
	_, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1337/parse"})
	fmt.Println(err)
	// Output: moralis: AppID is required
}

// A Client is a few services over one connection pool: Objects, Users, Sessions, Roles, Schemas, Files, Cloud
// and Config.
func ExampleClient() {
	srv := fakeBackend()
	defer srv.Close()
	ctx := context.Background()
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})
	if err != nil {
		panic(err)
	}

	o := parse.NewObject("GameScore")
	_ = o.Set("player", "alice")
	_ = o.Increment("score", 15)
	if err := c.Objects.Save(ctx, o); err != nil {
		panic(err)
	}
	fmt.Println(len(o.ID()), o.Int("score"), o.Dirty())

	_, err = c.Objects.Get(ctx, "Missing", "x")
	fmt.Println(err)
	// Output:
	// 10 15 false
	// moralis: GET classes/Missing/x: Object not found. (code 101)
}

// Users.LogIn returns the user and keeps nothing; a view made with WithSessionToken acts as that user. A
// CurrentUser keeps the signed-in user (in a FileStorage, across runs) outside the immutable client.
func ExampleCurrentUser() {
	srv := fakeBackend()
	defer srv.Close()
	ctx := context.Background()
	c, _ := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})

	cu, _ := client.NewCurrentUser(c, client.NewMemoryStorage()) // client.NewFileStorage(path) to stay signed in
	u, err := cu.LogIn(ctx, "alice", "secret")
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Username(), u.SessionToken())

	as, _ := cu.Client() // a view acting as the kept user
	me, _ := as.Users.Me(ctx)
	fmt.Println(me.Username())

	_ = cu.LogOut(ctx) // forgets the user, then revokes the session
	kept, _ := cu.Get()
	fmt.Println(kept == nil)
	// Output:
	// alice r:abc
	// alice
	// true
}
