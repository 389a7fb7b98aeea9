package auth_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
)

func ExampleBuildMoralisMessage() {
	msg := auth.BuildMoralisMessage("", "myAppId", auth.FormatServerTime(time.Date(2026, 11, 21, 22, 38, 1, 828e6, time.UTC)))
	fmt.Printf("%q\n", msg)
	// Output: "Moralis Authentication\n\nId: myAppId:2026-11-21T22:38:01.828Z"
}

func ExampleVerifyEthSignature() {
	// A development key (never use it for real funds).
	s, _ := auth.NewPrivateKeySigner("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	msg := []byte("hello world")
	sig, _ := s.SignMessage(context.Background(), msg)
	sigHex := "0x" + hex.EncodeToString(sig)
	fmt.Println(s.Address())
	fmt.Println(auth.VerifyEthSignature(s.Address(), msg, sigHex))
	addr, _ := auth.RecoverEthAddress(msg, sigHex)
	fmt.Println(addr == s.Address())
	// Output:
	// 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266
	// <nil>
	// true
}

func ExampleVerifySolSignature() {
	s, _ := auth.NewSolSignerFromBase58("BbMQkQYZspmkytduTWvXEtc4mMURjsekJDvty2WtKeSb") // RFC 8032 test key 1
	fmt.Println(s.PublicKey())
	fmt.Println(auth.VerifySolSignature(s.PublicKey(), []byte("Moralis Authentication\n\nId: testAppId:abcDEF12345678"),
		"2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua"))
	// Output:
	// FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z
	// <nil>
}

func ExampleSIWEMessage() {
	iat := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	m := &auth.SIWEMessage{Domain: "app.example", Address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
		Statement: "Sign in to the demo", URI: "https://app.example", ChainID: 1, Nonce: "Ab3dEf6hIj9k",
		IssuedAt: iat, ExpirationTime: iat.Add(5 * time.Minute)}
	text := m.String()
	fmt.Println(text)
	p, err := auth.ParseSIWE(text)
	fmt.Println(err, p.Nonce)
	fmt.Println(p.Verify(auth.SIWEVerifyOptions{Domain: "app.example", ChainID: 1, Now: iat.Add(time.Minute)}))
	fmt.Println(p.Verify(auth.SIWEVerifyOptions{Domain: "evil.example", Now: iat.Add(time.Minute)}))
	// Output:
	// app.example wants you to sign in with your Ethereum account:
	// 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
	//
	// Sign in to the demo
	//
	// URI: https://app.example
	// Version: 1
	// Chain ID: 1
	// Nonce: Ab3dEf6hIj9k
	// Issued At: 2026-11-22T00:00:00.000Z
	// Expiration Time: 2026-11-22T00:05:00.000Z
	// <nil> Ab3dEf6hIj9k
	// <nil>
	// auth: SIWE message is for another domain
}

func ExampleMemoryNonceStore() {
	ctx := context.Background()
	store := auth.NewMemoryNonceStore(nil)
	n, _ := store.Issue(ctx, time.Minute)
	issued := auth.NonceBinding{Chain: auth.ChainSolana, Address: "FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z",
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
	// auth: nonce was issued for another message, address or chain
	// <nil>
	// auth: nonce unknown, used or expired
}

// noBackend refuses everything; the example below never reaches it.
type noBackend struct{ auth.Backend }

func ExampleNewHandler() {
	h, err := auth.NewHandler(auth.HandlerOptions{
		Backend:        noBackend{},
		AppID:          "myAppId",
		Domain:         "app.example",
		AllowedOrigins: []string{"https://app.example"},
		Now:            func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		panic(err)
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
