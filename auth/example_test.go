package auth_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/signer"
)

func ExampleBuildMoralisMessage() {
	msg := auth.BuildMoralisMessage("", "myAppId", auth.FormatServerTime(time.Date(2026, 11, 21, 22, 38, 1, 828e6, time.UTC)))
	fmt.Printf("%q\n", msg)
	// Output: "Moralis Authentication\n\nId: myAppId:2026-11-21T22:38:01.828Z"
}

func ExampleVerifyEthSignature() {
	// A development key (Hardhat's #0: public knowledge, never use it for real funds).
	s, _ := signer.NewKeyFromHex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	msg := []byte("hello world")
	sig, _ := s.SignMessage(context.Background(), msg)
	sigHex := "0x" + hex.EncodeToString(sig)
	address := strings.ToLower(s.Address().Hex())
	fmt.Println(address)
	fmt.Println(auth.VerifyEthSignature(address, msg, sigHex))
	recovered, _ := auth.RecoverEthAddress(msg, sigHex)
	fmt.Println(recovered == address)
	fmt.Println(auth.VerifyEthSignature(address, []byte("hello world!"), sigHex))
	// Output:
	// 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266
	// <nil>
	// true
	// auth: signature does not match address
}

func ExampleVerifySolSignature() {
	s, _ := signer.NewEd25519KeyFromBase58("BbMQkQYZspmkytduTWvXEtc4mMURjsekJDvty2WtKeSb") // RFC 8032 test key 1
	fmt.Println(s.PublicKey())
	fmt.Println(auth.VerifySolSignature(s.PublicKey(), []byte("Moralis Authentication\n\nId: testAppId:abcDEF12345678"),
		"2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua"))
	// The address 111...1 is a small-order point: anyone could forge its signatures, so it is refused.
	fmt.Println(auth.VerifySolSignature("11111111111111111111111111111111", []byte("m"),
		"2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua"))
	// Output:
	// FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z
	// <nil>
	// auth: malformed address: public key is a point of small order
}

// Sign in from Go with a key (here a fresh one; signer.NewKeyFromKeystoreFile for a real account). The backend must
// be running: this example is compiled, not run.
func ExampleSignInEthereum() {
	ctx := context.Background()
	c, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1337/parse", AppID: "myAppId", JavaScriptKey: "js"})
	if err != nil {
		fmt.Println(err)
		return
	}
	key, err := signer.GenerateKey()
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := auth.SignInEthereum(ctx, c, key, &auth.Options{Message: "Sign in to the demo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(u.EthAddress() == strings.ToLower(key.Address().Hex()))
	// Link a Solana wallet to the same user, as that user.
	sol, _ := signer.GenerateEd25519Key()
	if err := auth.LinkSolana(ctx, c, u, sol, nil); err != nil {
		fmt.Println(err)
	}
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

// VerifyTypedData checks an eth_signTypedData_v4 signature. With a nil chain only EOAs are checked, without I/O;
// give it an *ethclient.Client to accept ERC-1271 and ERC-6492 smart-contract accounts too.
func ExampleVerifyTypedData() {
	td, _ := signer.ParseTypedData([]byte(`{
	  "types": {"Vote": [{"name": "proposal", "type": "uint256"}, {"name": "support", "type": "bool"}]},
	  "primaryType": "Vote",
	  "domain": {"name": "Governor", "chainId": 1},
	  "message": {"proposal": "42", "support": true}
	}`))
	// A development key (Hardhat's #0: public knowledge, never use it for real funds).
	k, _ := signer.NewKeyFromHex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	sig, _ := k.SignTypedData(context.Background(), td)
	sigHex := "0x" + hex.EncodeToString(sig)

	ctx := context.Background()
	fmt.Println(auth.VerifyTypedData(ctx, nil, k.Address().Hex(), td, sigHex))
	td.Message["support"] = false // another vote: the signature does not cover it
	fmt.Println(auth.VerifyTypedData(ctx, nil, k.Address().Hex(), td, sigHex))
	// Output:
	// <nil>
	// auth: signature does not match address
}
