package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/c13f5054/moralis-go/client"
)

// fakeFilesBackend answers like the local stack's parse-server for JSON uploads (metadata, tags, IPFS), the
// metadata route, and the plugin functions.
func fakeFilesBackend() *httptest.Server {
	var metadata, tags map[string]any
	mux := http.NewServeMux()
	mux.HandleFunc("POST /parse/files/{name}", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Base64   string `json:"base64"`
			FileData struct {
				IPFS     bool           `json:"ipfs"`
				Metadata map[string]any `json:"metadata"`
				Tags     map[string]any `json:"tags"`
			} `json:"fileData"`
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		data, _ := base64.StdEncoding.DecodeString(body.Base64)
		metadata, tags = body.FileData.Metadata, body.FileData.Tags
		name := "0f1e_" + r.PathValue("name")
		ans := map[string]string{"name": name, "url": "http://" + r.Host + "/parse/files/myApp/" + name}
		if body.FileData.IPFS {
			sum := sha256.Sum256(data)
			cid := "b" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(append([]byte{1, 0x55, 0x12, 0x20}, sum[:]...)))
			ans["hash"], ans["ipfs"] = cid, "http://"+r.Host+"/ipfs/"+cid
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(ans)
	})
	mux.HandleFunc("GET /parse/files/myApp/metadata/{name}", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"metadata": metadata, "tags": tags})
	})
	mux.HandleFunc("POST /parse/functions/getPluginSpecs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"result":[{"name":"devstack","functions":["echo","refuse"]}]}`)
	})
	mux.HandleFunc("POST /parse/functions/devstack_echo", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"result":{"data":{"success":true,"result":{"data":{"greeting":"hi"},"triggers":[]}}}}`)
	})
	mux.HandleFunc("POST /parse/functions/devstack_refuse", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"result":{"data":{"success":false,"data":{"message":"refused"}}}}`)
	})
	return httptest.NewServer(mux)
}

// SaveIPFS stores a file content-addressed too: Hash is its CID, IPFS its gateway URL. Metadata and tags go with
// any upload and come back from Files.Info.
func ExampleFilesService_SaveIPFS() {
	srv := fakeFilesBackend()
	defer srv.Close()
	ctx := context.Background()
	c, _ := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})

	f, err := c.Files.SaveIPFS(ctx, "hello.txt", []byte("hello"), "", &client.UploadOptions{
		Metadata: map[string]string{"owner": "alice"},
		Tags:     map[string]string{"kind": "greeting"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Name)
	fmt.Println(f.Hash)
	fmt.Println(strings.TrimPrefix(f.IPFS, srv.URL))

	info, err := c.Files.Info(ctx, f)
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Metadata, info.Tags)
	// Output:
	// 0f1e_hello.txt
	// bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq
	// /ipfs/bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq
	// map[owner:alice] map[kind:greeting]
}

// Plugins are called as the original's Moralis.Plugins[plugin][function](params): the cloud function
// "{plugin}_{function}"; a failed call reads "Something went wrong" and the plugin's data.
func ExamplePlugins_Call() {
	srv := fakeFilesBackend()
	defer srv.Close()
	ctx := context.Background()
	c, _ := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})

	plugins, err := c.Cloud.Plugins(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(plugins.Specs())
	var res struct {
		Data map[string]string `json:"data"`
	}
	if err := plugins.Call(ctx, "devstack", "echo", map[string]any{"greeting": "hi"}, &res); err != nil {
		panic(err)
	}
	fmt.Println(res.Data["greeting"])
	fmt.Println(plugins.Call(ctx, "devstack", "refuse", nil, nil))
	fmt.Println(plugins.Call(ctx, "devstack", "missing", nil, nil))
	// Output:
	// [{devstack [echo refuse]}]
	// hi
	// Something went wrong
	// {
	//   "message": "refused"
	// }
	// moralis: no such plugin function: devstack.missing
}
