package authserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/query/live"
)

// The whole server: the backend's REST client, the endpoint under /auth/, a live-query stream behind the same
// policy, and the hardened server. Nothing here touches the network until ListenAndServe.
func Example() {
	be, err := authserver.NewClientBackend(authserver.BackendConfig{
		Client: client.Config{ServerURL: "http://127.0.0.1:1337/parse", AppID: "myAppId", JavaScriptKey: "js",
			MasterKey: "mk"}, // the master key issues the backend's one-time sign-in tickets, and nothing else
		Flow: auth.Options{NoAddressObjects: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := authserver.NewHandler(be, authserver.Config{AppID: "myAppId", Domain: "app.example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/", http.StripPrefix("/auth", h))
	// Live queries for the signed-in user (the React hooks' useLiveQuery): query/live's bridge, served through the
	// endpoint's pipeline (rate limits, the confirmed session, the stream caps, one error writer).
	bridge, err := live.NewSSEBridge(live.SSEConfig{Dial: func(ctx context.Context, token string) (*live.Client, error) {
		return live.Dial(ctx, live.Config{URL: "ws://127.0.0.1:1337/parse", AppID: "myAppId", SessionToken: token})
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux.Handle("/auth/live", http.StripPrefix("/auth", h.Live(bridge)))
	// Behind a balancer that sends the PROXY protocol (HAProxy's send-proxy-v2) from 10.0.0.5, the connection caps and
	// every limit count the client the balancer names: ServerConfig{ProxyProtocol: []netip.Prefix{
	// netip.MustParsePrefix("10.0.0.5/32")}}.
	srv, err := authserver.NewServer(mux, authserver.ServerConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.Addr = "127.0.0.1:8080"
	fmt.Println(srv.ReadHeaderTimeout, srv.MaxHeaderBytes)
	// _ = srv.ListenAndServe()

	// Configuration is checked when a type is made.
	_, err = authserver.NewHandler(be, authserver.Config{AppID: "myAppId", Domain: "app.example", NonceTTL: -time.Minute})
	fmt.Println(err)
	_, err = authserver.NewServer(mux, authserver.ServerConfig{ReadTimeout: -1})
	fmt.Println(err)
	// Output:
	// 10s 32768
	// authserver: Config.NonceTTL must not be negative
	// authserver: ServerConfig.ReadTimeout must not be negative
}

// noBackend refuses everything; the example below never reaches it.
type noBackend struct{ authserver.Backend }

func ExampleNewHandler() {
	h, err := authserver.NewHandler(noBackend{}, authserver.Config{
		AppID:          "myAppId",
		Domain:         "app.example",
		AllowedOrigins: []string{"https://app.example"},
		Now:            func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/auth/", http.StripPrefix("/auth", h))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/auth/me", nil))
	fmt.Print(rec.Code, " ", rec.Body.String())

	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/auth/message?chain=evm&address=0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", nil))
	var m struct{ Message, Nonce, ExpiresAt string }
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	fmt.Println(rec.Code, m.ExpiresAt)
	fmt.Println(strings.Replace(m.Message, m.Nonce, "<nonce>", 1))
	// Output:
	// 401 {"code":209,"error":"Invalid session token"}
	// 200 2026-11-22T00:05:00.000Z
	// app.example wants you to sign in with your Ethereum account:
	// 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
	//
	// Moralis Authentication
	//
	// URI: https://app.example
	// Version: 1
	// Chain ID: 1
	// Nonce: <nonce>
	// Issued At: 2026-11-22T00:00:00.000Z
	// Expiration Time: 2026-11-22T00:05:00.000Z
}

func ExampleMemoryNonceStore() {
	ctx := context.Background()
	store := authserver.NewMemoryNonceStore(nil)
	n, _ := store.Issue(ctx, time.Minute)
	issued := authserver.NonceBinding{Chain: auth.ChainSolana, Address: "FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z",
		Message: auth.BuildMoralisMessage("", "myApp", n.Value)}
	_ = store.Bind(ctx, n.Value, issued) // what the nonce was handed out with
	fmt.Println(len(n.Value))
	edited := issued
	edited.Message = auth.BuildMoralisMessage("Send all funds", "myApp", n.Value)
	fmt.Println(store.Consume(ctx, n.Value, edited)) // another text: refused, nonce kept
	fmt.Println(store.Consume(ctx, n.Value, issued))
	fmt.Println(store.Consume(ctx, n.Value, issued)) // one time only
	// Output:
	// 22
	// authserver: nonce was issued for another message, address or chain
	// <nil>
	// authserver: nonce unknown, used or expired
}

// Request bodies are read strictly: field names match exactly and once, values are strings.
func ExampleDecodeRequest() {
	for _, body := range []string{
		`{"chain":"solana","address":"FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z"}`,
		`{"chain":"evm","Chain":"solana"}`,
		`{"chain":"evm","chain":"solana"}`,
		`{"chain":1}`,
	} {
		r, err := authserver.DecodeRequest([]byte(body))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%+v\n", *r)
	}
	// Output:
	// {Chain:solana Address:FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z Message: Signature:}
	// Unknown field "Chain"
	// Duplicate field "chain"
	// Invalid type for field "chain"
}

// At start-up, ask the backend what it offers: here a stock parse-server (every cloud function answers 141
// "Invalid function", getServerTime included, and nothing is deduplicated). The endpoint keeps working at the
// guarantee such a backend allows, and the report (and the one line logged) says what is missing and what it costs.
func ExampleClientBackend_CheckBackend() {
	stock := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fn := strings.TrimPrefix(r.URL.Path, "/parse/functions/")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"code":141,"error":"Invalid function: \"%s\""}`, fn)
	}))
	defer stock.Close()
	be, err := authserver.NewClientBackend(authserver.BackendConfig{
		Client: client.Config{ServerURL: stock.URL + "/parse", AppID: "myAppId", MasterKey: "mk"},
		Logger: slog.New(slog.DiscardHandler), // your logger: it gets the one line
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := be.CheckBackend(context.Background())
	if err != nil {
		fmt.Println(err) // the backend could not be asked: it is asked again before the first sign-in
		return
	}
	fmt.Println(r.Package == "", r.SignInFunction, r.RecordFunction, r.ServerTime, r.Idempotency)
	for _, m := range r.Missing {
		fmt.Println("-", m[:strings.Index(m, ":")])
	}
	// Output:
	// true false false false false
	// - no moralis-go server package (moralisGoServerInfo is not on the backend
	// - no moralisGoRecordSession
	// - no moralisGoSignIn
	// - no getServerTime
	// - no idempotency (idempotencyOptions)
}
