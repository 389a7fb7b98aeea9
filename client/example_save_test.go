package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// echoBackend answers creates in /batch and alone, and prints what each call sends.
func echoBackend() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		path := strings.TrimPrefix(r.URL.Path, "/parse/")
		created := `{"createdAt":"2026-11-24T10:00:00.000Z"}`
		switch {
		case path == "batch":
			var out []string
			for _, q := range body["requests"].([]any) {
				sub := q.(map[string]any)
				fmt.Println("batch:", sub["method"], strings.TrimPrefix(sub["path"].(string), "/parse/"))
				out = append(out, `{"success":`+created+`}`)
			}
			fmt.Fprint(w, "["+strings.Join(out, ",")+"]")
		default:
			_, hasID := body["objectId"]
			line := fmt.Sprint("POST ", path, " objectId sent: ", hasID)
			if a, ok := body["author"].(map[string]any); ok {
				line += fmt.Sprint(" author: ", a["className"], " context: ", body["_context"])
			}
			fmt.Println(line)
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"objectId":"id%d","createdAt":"2026-11-24T10:00:00.000Z"}`, len(path))
		}
	}))
}

// Save saves the unsaved objects a new object points to first (here an author and, before it, the author's
// avatar); the post goes last, with a pointer to its author. At the default config each create goes without an
// objectId (the server chooses it, and cloud code sees a create), with a request id. The call context travels
// as _context, for cloud code's request.context.
func ExampleObjectsService_Save_nested() {
	srv := echoBackend()
	defer srv.Close()
	c, _ := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})

	avatar := parse.NewObject("Image")
	author := parse.NewObject("Author")
	author.Set("avatar", avatar)
	post := parse.NewObject("Post")
	post.Set("author", author)
	ctx := client.WithCallContext(context.Background(), map[string]any{"source": "example"})
	if err := c.Objects.Save(ctx, post); err != nil {
		panic(err)
	}
	fmt.Println(avatar.ID() != "", author.ID() != "", post.ID() != "")

	a, b := parse.NewObject("Node"), parse.NewObject("Node")
	a.Set("next", b)
	b.Set("next", a)
	fmt.Println(c.Objects.Save(ctx, a))
	// Output:
	// POST classes/Image objectId sent: false
	// POST classes/Author objectId sent: false
	// POST classes/Post objectId sent: false author: Author context: map[source:example]
	// true true true
	// Tried to save a batch with a cycle.
}

// FetchAll refuses a list that mixes classes before any request, with the original's text and code 103.
func ExampleObjectsService_FetchAll() {
	c, _ := client.New(client.Config{ServerURL: "http://127.0.0.1:1/parse", AppID: "myApp"})
	err := c.Objects.FetchAll(context.Background(), []*parse.Object{
		parse.NewObjectWithID("Post", "p1"), parse.NewObjectWithID("Author", "a1"),
	}, nil)
	fmt.Println(err)
	// Output: moralis: fetch all: All objects should be of the same class (code 103)
}
