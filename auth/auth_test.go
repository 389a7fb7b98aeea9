package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/ed25519vec"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/signer"
)

// fakeParse is a scripted backend: each call is looked up by "METHOD path" and answered from a queue; an
// unexpected call fails the test loudly.
type fakeParse struct {
	t       *testing.T
	mu      sync.Mutex
	answers map[string][]fakeAnswer
	calls   []fakeCall
}

type fakeAnswer struct {
	status int
	body   string
}

type fakeCall struct {
	route string
	body  map[string]any
}

func newFakeParse(t *testing.T) (*fakeParse, *client.Client) {
	f := &fakeParse{t: t, answers: map[string][]fakeAnswer{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "testAppId", JavaScriptKey: "jsKey",
		InstallationID: "inst-1", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func (f *fakeParse) on(route string, status int, body string) {
	f.answers[route] = append(f.answers[route], fakeAnswer{status, body})
}

func (f *fakeParse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	method := r.Method
	if m, ok := body["_method"].(string); ok {
		method = m
	}
	route := method + " " + strings.TrimPrefix(r.URL.Path, "/parse/")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fakeCall{route, body})
	q := f.answers[route]
	if len(q) == 0 {
		f.t.Errorf("unexpected call %s %s", route, b)
		w.WriteHeader(500)
		return
	}
	f.answers[route] = q[1:]
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(q[0].status)
	_, _ = io.WriteString(w, q[0].body)
}

func (f *fakeParse) routes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.route)
	}
	return out
}

func TestSignInEthereumWire(t *testing.T) {
	f, c := newFakeParse(t)
	s, _ := signer.NewKeyFromHex(katEthKey)
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{"message":"Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z","ticket":"TicketId01SecretSecretSecretSecre","expiresAt":"2026-11-21T22:43:01.828Z"}}`)
	// The login is answered with 101: the spec's rule signs up instead (a second POST users).
	f.on("POST users", 404, `{"code":101,"error":"Invalid username/password."}`)
	f.on("POST users", 201, `{"objectId":"u1","createdAt":"2026-11-21T22:38:02.000Z","sessionToken":"r:abc","username":"x"}`)
	f.on("PUT users/u1", 200, `{"updatedAt":"2026-11-21T22:38:03.000Z","accounts":["`+katEthAddr+`"]}`)
	u, err := SignInEthereum(context.Background(), c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"POST functions/moralisAuthRequestMessage", "POST users", "POST users", "PUT users/u1"}
	if got := f.routes(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("calls %v, want %v", got, want)
	}
	for _, i := range []int{1, 2} {
		ad := f.calls[i].body["authData"].(map[string]any)[ProviderEth].(map[string]any)
		if ad["id"] != katEthAddr || ad["data"] != katEthMsg || ad["signature"] != katEthSig || ad["ticket"] != "TicketId01SecretSecretSecretSecre" {
			t.Fatalf("authData of call %d: %v", i, ad)
		}
	}
	save := f.calls[3].body
	if save["_SessionToken"] != "r:abc" || save["ethAddress"] != katEthAddr {
		t.Fatalf("save body %v", save)
	}
	if op := save["accounts"].(map[string]any); op["__op"] != "AddUnique" {
		t.Fatalf("accounts op %v", op)
	}
	acl := save["ACL"].(map[string]any)
	if len(acl) != 1 || acl["u1"] == nil {
		t.Fatalf("ACL %v", acl)
	}
	if u.ID() != "u1" || u.SessionToken() != "r:abc" || u.EthAddress() != katEthAddr {
		t.Fatalf("user %s %s %s", u.ID(), u.SessionToken(), u.EthAddress())
	}
}

func TestSignInSolanaWire(t *testing.T) {
	f, c := newFakeParse(t)
	seed58 := "BbMQkQYZspmkytduTWvXEtc4mMURjsekJDvty2WtKeSb"
	s, _ := signer.NewEd25519KeyFromBase58(seed58)
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{"message":"Hi\n\nId: testAppId:abcDEF12345678","ticket":"TicketId01SecretSecretSecretSecre","expiresAt":"2026-11-21T22:43:01.828Z"}}`)
	f.on("POST users", 200, `{"objectId":"u2","sessionToken":"r:sol","solAccounts":["`+ed25519vec.KATPub58+`"]}`)
	f.on("PUT users/u2", 200, `{"updatedAt":"2026-11-21T22:38:03.000Z"}`)
	u, err := SignInSolana(context.Background(), c, s, &Options{Message: "Hi"})
	if err != nil {
		t.Fatal(err)
	}
	if req := f.calls[0].body; req["chain"] != "solana" || req["address"] != ed25519vec.KATPub58 || req["text"] != "Hi" {
		t.Fatalf("message request %v", req)
	}
	ad := f.calls[1].body["authData"].(map[string]any)[ProviderSol].(map[string]any)
	if ad["id"] != ed25519vec.KATPub58 || ad["data"] != "Hi\n\nId: testAppId:abcDEF12345678" || ad["ticket"] != "TicketId01SecretSecretSecretSecre" {
		t.Fatalf("authData %v", ad)
	}
	if err := VerifySolSignature(ed25519vec.KATPub58, []byte(ad["data"].(string)), ad["signature"].(string)); err != nil {
		t.Fatalf("sent signature: %v", err)
	}
	save := f.calls[2].body
	if save["solAddress"] != ed25519vec.KATPub58 || save["ACL"].(map[string]any)["u2"] == nil {
		t.Fatalf("save %v", save)
	}
	if got := u.SolAccounts(); len(got) != 1 || got[0] != ed25519vec.KATPub58 {
		t.Fatalf("solAccounts %v", got)
	}
}

func TestSignInCouldNotGetUser(t *testing.T) {
	f, c := newFakeParse(t)
	s, _ := signer.GenerateKey()
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{"message":"Moralis Authentication\n\nId: testAppId:abcDEF12345678","ticket":"TicketId01SecretSecretSecretSecre","expiresAt":"2026-11-21T22:43:01.828Z"}}`)
	f.on("POST users", 200, `{}`)
	_, err := SignInEthereum(context.Background(), c, s, nil)
	if !errors.Is(err, ErrCouldNotGetUser) || err.Error() != "Could not get user" {
		t.Fatalf("err %v", err)
	}
}

func TestSignInRefusedTwice(t *testing.T) {
	f, c := newFakeParse(t)
	s, _ := signer.GenerateKey()
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{"message":"Moralis Authentication\n\nId: testAppId:abcDEF12345678","ticket":"TicketId01SecretSecretSecretSecre","expiresAt":"2026-11-21T22:43:01.828Z"}}`)
	f.on("POST users", 404, `{"code":101,"error":"moralisEth: signature does not match address"}`)
	f.on("POST users", 404, `{"code":101,"error":"moralisEth: signature does not match address"}`)
	_, err := SignInEthereum(context.Background(), c, s, nil)
	if !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("err %v", err)
	}
}

type badSigner struct{ addr common.Address }

func (b badSigner) Address() common.Address { return b.addr }
func (b badSigner) SignMessage(context.Context, []byte) ([]byte, error) {
	return nil, nil
}

func TestSignInLocalErrors(t *testing.T) {
	f, c := newFakeParse(t)
	ctx := context.Background()
	if _, err := SignInEthereum(ctx, c, badSigner{}, nil); !errors.Is(err, ErrAddressNotFound) || err.Error() != "Address not found" {
		t.Fatalf("no address: %v", err)
	}
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{"message":"Moralis Authentication\n\nId: testAppId:abcDEF12345678","ticket":"TicketId01SecretSecretSecretSecre","expiresAt":"2026-11-21T22:43:01.828Z"}}`)
	if _, err := SignInEthereum(ctx, c, badSigner{addr: common.HexToAddress(katEthAddr)}, nil); !errors.Is(err, ErrDataNotSigned) || err.Error() != "Data not signed" {
		t.Fatalf("unsigned: %v", err)
	}
	if _, err := LogIn(ctx, c, SignedMessage{Chain: ChainEVM, Address: "0x12", Message: "m", Signature: "s"}, nil); !errors.Is(err, ErrMalformedAddress) {
		t.Fatalf("bad address: %v", err)
	}
	if _, err := LogIn(ctx, c, SignedMessage{Chain: "btc", Address: "x", Message: "m", Signature: "s"}, nil); err == nil {
		t.Fatal("unknown chain accepted")
	}
	if err := Unlink(ctx, c, nil, ChainEVM, katEthAddr, nil); !errors.Is(err, ErrCouldNotGetUser) {
		t.Fatalf("unlink without user: %v", err)
	}
	if got := f.routes(); len(got) != 1 {
		t.Fatalf("calls %v", got)
	}
}

func TestLinkUnlinkWire(t *testing.T) {
	f, c := newFakeParse(t)
	ctx := context.Background()
	u := client.UserFromObject(parse.NewObjectWithID(client.UserClass, "u1"))
	if err := objstate.Of(u).MergeServer(map[string]any{"objectId": "u1", "sessionToken": "r:abc", "accounts": []any{"0xaaaa000000000000000000000000000000000001"},
		"ethAddress": "0xaaaa000000000000000000000000000000000001",
		"authData":   map[string]any{ProviderEth: map[string]any{"id": "0xaaaa000000000000000000000000000000000001"}}}); err != nil {
		t.Fatal(err)
	}
	s, _ := signer.NewKeyFromHex(katEthKey)
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{"message":"Moralis Authentication\n\nId: testAppId:abcDEF12345678","ticket":"TicketId01SecretSecretSecretSecre","expiresAt":"2026-11-21T22:43:01.828Z"}}`)
	f.on("PUT users/u1", 200, `{"updatedAt":"2026-11-21T22:38:03.000Z"}`)
	f.on("POST classes/_EthAddress", 201, `{"objectId":"`+katEthAddr+`","createdAt":"2026-11-21T22:38:03.000Z"}`)
	f.on("PUT users/u1", 200, `{"updatedAt":"2026-11-21T22:38:04.000Z"}`)
	if err := LinkEthereum(ctx, c, u, s, nil); err != nil {
		t.Fatal(err)
	}
	if u.SessionToken() != "r:abc" || u.EthAddress() != katEthAddr {
		t.Fatalf("after link: token %q ethAddress %q", u.SessionToken(), u.EthAddress())
	}
	obj := f.calls[2].body
	if obj["objectId"] != katEthAddr || obj["_SessionToken"] != "r:abc" || obj["ACL"].(map[string]any)["u1"] == nil {
		t.Fatalf("address object %v", obj)
	}
	// Unlink the linked address: destroy the object, remove it, ethAddress = first remaining, unlink provider.
	f.on("DELETE classes/_EthAddress/"+katEthAddr, 200, `{}`)
	f.on("PUT users/u1", 200, `{"updatedAt":"2026-11-21T22:38:05.000Z"}`)
	f.on("PUT users/u1", 200, `{"updatedAt":"2026-11-21T22:38:06.000Z"}`)
	// Any case of the address is the same address.
	if err := UnlinkEthereum(ctx, c, u, strings.ToUpper(katEthAddr), nil); err != nil {
		t.Fatal(err)
	}
	n := len(f.calls)
	save, unlink := f.calls[n-2].body, f.calls[n-1].body
	if save["ethAddress"] != "0xaaaa000000000000000000000000000000000001" || save["accounts"].(map[string]any)["__op"] != "Remove" {
		t.Fatalf("unlink save %v", save)
	}
	if ad := unlink["authData"].(map[string]any); ad[ProviderEth] != nil {
		t.Fatalf("unlink body %v", unlink)
	}
	if _, ok := u.AuthData()[ProviderEth]; ok {
		t.Fatal("provider still in local authData")
	}
}

// An original Moralis server has no moralisAuthRequestMessage: the flow falls back to the original message (the
// server time) and sends no ticket.
func TestSignInLegacyServerFallsBackToServerTime(t *testing.T) {
	f, c := newFakeParse(t)
	s, _ := signer.NewKeyFromHex(katEthKey)
	f.on("POST functions/moralisAuthRequestMessage", 400, `{"code":141,"error":"Invalid function: \"moralisAuthRequestMessage\""}`)
	f.on("POST functions/getServerTime", 200, `{"result":{"dateTime":"2026-11-21T22:38:01.828Z"}}`)
	f.on("POST users", 201, `{"objectId":"u1","sessionToken":"r:abc"}`)
	f.on("PUT users/u1", 200, `{"updatedAt":"2026-11-21T22:38:03.000Z"}`)
	if _, err := SignInEthereum(context.Background(), c, s, nil); err != nil {
		t.Fatal(err)
	}
	ad := f.calls[2].body["authData"].(map[string]any)[ProviderEth].(map[string]any)
	if _, ok := ad["ticket"]; ok || ad["data"] != katEthMsg || ad["signature"] != katEthSig {
		t.Fatalf("authData %v", ad)
	}
}

// Any other failure of the message request is an error, not a fallback.
func TestRequestMessageErrors(t *testing.T) {
	f, c := newFakeParse(t)
	ctx := context.Background()
	f.on("POST functions/moralisAuthRequestMessage", 400, `{"code":142,"error":"Invalid address"}`)
	if _, err := RequestMessage(ctx, c, ChainEVM, katEthAddr, nil); err == nil || !strings.Contains(err.Error(), "Invalid address") {
		t.Fatalf("refusal: %v", err)
	}
	f.on("POST functions/moralisAuthRequestMessage", 200, `{"result":{}}`)
	if _, err := RequestMessage(ctx, c, ChainEVM, katEthAddr, nil); err == nil {
		t.Fatal("empty answer accepted")
	}
	if _, err := RequestMessage(ctx, c, ChainSolana, "11111111111111111111111111111111", nil); !errors.Is(err, ErrMalformedAddress) {
		t.Fatalf("small-order address: %v", err)
	}
	if got := f.routes(); len(got) != 2 {
		t.Fatalf("calls %v", got)
	}
}

func TestAddressObjectsUnsupportedIsTheServersRefusalOfTheClassOrTheID(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&parse.Error{Code: parse.CodeInvalidClassName, Message: "Invalid classname: _EthAddress"}, true},
		{&parse.Error{Code: parse.CodeInvalidKeyName, Message: "objectId is an invalid field name."}, true},
		{&parse.Error{Code: parse.CodeInvalidJSON, Message: "schema class name does not revalidate"}, true},
		{fmt.Errorf("auth: creating: %w", &parse.Error{Code: parse.CodeInvalidKeyName}), true},
		{&parse.Error{Code: parse.CodeInvalidJSON, Message: "invalid JSON"}, false},
		{&parse.Error{Code: parse.CodeDuplicateValue}, false},
		{&parse.Error{Code: parse.CodeObjectNotFound}, false},
		{errors.New("connection refused"), false},
		{nil, false},
	} {
		if got := addressObjectsUnsupported(c.err); got != c.want {
			t.Errorf("addressObjectsUnsupported(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// A stock backend is named, not guessed at: without moralisAuthRequestMessage and getServerTime the direct sign-in
// (Ethereum and Solana alike) fails with a *BackendMissingError naming getServerTime and where to get it; without
// the wallet's auth adapter (parse-server's 252), naming the adapter. Both keep the backend's answer for errors.As.
func TestSignInNamesTheMissingPiece(t *testing.T) {
	ctx := context.Background()
	eth, _ := signer.NewKeyFromHex(katEthKey)
	sol, _ := signer.GenerateEd25519Key()
	for _, c := range []struct {
		name    string
		script  func(f *fakeParse)
		sign    func(c *client.Client) error
		piece   string
		message string
	}{
		{"no getServerTime, Ethereum", func(f *fakeParse) {
			f.on("POST functions/moralisAuthRequestMessage", 400, `{"code":141,"error":"Invalid function: \"moralisAuthRequestMessage\""}`)
			f.on("POST functions/getServerTime", 400, `{"code":141,"error":"Invalid function: \"getServerTime\""}`)
		}, func(c *client.Client) error { _, err := SignInEthereum(ctx, c, eth, nil); return err },
			"getServerTime cloud function",
			"auth: the backend has no getServerTime cloud function: mount moralis-go's server package (server/README.md)"},
		{"no getServerTime, Solana", func(f *fakeParse) {
			f.on("POST functions/moralisAuthRequestMessage", 400, `{"code":141,"error":"Invalid function: \"moralisAuthRequestMessage\""}`)
			f.on("POST functions/getServerTime", 400, `{"code":141,"error":"Invalid function: \"getServerTime\""}`)
		}, func(c *client.Client) error { _, err := SignInSolana(ctx, c, sol, nil); return err },
			"getServerTime cloud function", ""},
		{"no adapter", func(f *fakeParse) {
			f.on("POST functions/moralisAuthRequestMessage", 400, `{"code":141,"error":"Invalid function: \"moralisAuthRequestMessage\""}`)
			f.on("POST functions/getServerTime", 200, `{"result":{"dateTime":"2026-11-21T22:38:01.828Z"}}`)
			f.on("POST users", 400, `{"code":252,"error":"This authentication method is unsupported."}`)
		}, func(c *client.Client) error { _, err := SignInEthereum(ctx, c, eth, nil); return err },
			"moralisEth auth adapter",
			"auth: the backend has no moralisEth auth adapter: mount moralis-go's server package (server/README.md)"},
	} {
		f, cl := newFakeParse(t)
		c.script(f)
		err := c.sign(cl)
		var me *BackendMissingError
		var pe *parse.Error
		if !errors.Is(err, ErrBackendMissing) || !errors.As(err, &me) || me.Piece != c.piece || !errors.As(err, &pe) {
			t.Fatalf("%s: err %v; want a BackendMissingError for %q wrapping the backend's answer", c.name, err, c.piece)
		}
		if c.message != "" && err.Error() != c.message {
			t.Fatalf("%s: %q; want %q", c.name, err.Error(), c.message)
		}
	}
	// Another refusal of the function is not a missing piece.
	f, cl := newFakeParse(t)
	f.on("POST functions/moralisAuthRequestMessage", 400, `{"code":141,"error":"Invalid function: \"moralisAuthRequestMessage\""}`)
	f.on("POST functions/getServerTime", 400, `{"code":141,"error":"getServerTime failed"}`)
	if _, err := SignInEthereum(ctx, cl, eth, nil); err == nil || errors.Is(err, ErrBackendMissing) {
		t.Fatalf("a failing getServerTime: %v; want a plain error", err)
	}
}
