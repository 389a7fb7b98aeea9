package moralis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	moralis "github.com/c13f5054/moralis-go"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// Start makes the backend client, the chain-data client and the current-user keeper from one Config. A
// chain-data call that leaves the address empty uses the signed-in user's ethAddress, and (without an API key)
// goes through the backend's cloud functions with the user's session token.
func ExampleStart() {
	// A stand-in for the backend: it shows what a chain-data call through it carries.
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		fmt.Println(r.URL.Path, body["address"], body["_SessionToken"], body["chain"])
		fmt.Fprint(w, `{"result":{"balance":"1000"}}`)
	}))
	defer backend.Close()
	ctx := context.Background()

	app, err := moralis.Start(ctx, moralis.Config{
		ServerURL: backend.URL + "/parse",
		AppID:     "myApp",
		Storage:   client.NewMemoryStorage(), // client.NewFileStorage(path) stays signed in between runs
	})
	if err != nil {
		panic(err)
	}
	// After a sign-in (auth.SignInEthereum, app.User.LogIn, ...), keep the user.
	u := client.UserFromObject(parse.NewObjectWithID(client.UserClass, "u1"))
	_ = u.ParseObject().UnmarshalJSON([]byte(`{"sessionToken":"r:abc","ethAddress":"0xabc0000000000000000000000000000000000def"}`))
	if err := app.User.Set(u); err != nil {
		panic(err)
	}

	bal, err := app.Web3API.Account.GetNativeBalance(ctx, nil) // no address: the user's
	if err != nil {
		panic(err)
	}
	fmt.Println("balance:", bal.Balance)
	// Output:
	// /parse/functions/getNativeBalance 0xabc0000000000000000000000000000000000def r:abc eth
	// balance: 1000
}

// Start refuses a Config without a server URL or an app id, with the original's texts.
func ExampleStart_config() {
	_, err := moralis.Start(context.Background(), moralis.Config{AppID: "myApp"})
	fmt.Println(err)
	// Output: Moralis.start failed: serverUrl is required
}
