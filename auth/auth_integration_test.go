//go:build integration

package auth

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/stacktest"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/mr-tron/base58"

	"github.com/c13f5054/moralis-go/signer"
)

// checkOwnACL asserts, through the master key, that the stored user's ACL grants read and write to the user
// alone.
func checkOwnACL(t *testing.T, ctx context.Context, mc *client.Client, id string) {
	t.Helper()
	o, err := mc.Objects.Get(ctx, client.UserClass, id)
	if err != nil {
		t.Fatal(err)
	}
	acl := o.ACL()
	if acl == nil || !acl.ReadAccess(id) || !acl.WriteAccess(id) || acl.PublicReadAccess() {
		t.Fatalf("ACL of %s is not the user's alone: %+v", id, o.Get("ACL"))
	}
}

func TestIntegrationEthereumSignIn(t *testing.T) {
	c, _, env := stacktest.Client(t)
	ctx := stacktest.Ctx(t)
	s, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	u, err := SignInEthereum(ctx, c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID() == "" || !strings.HasPrefix(u.SessionToken(), "r:") {
		t.Fatalf("user %q token %q", u.ID(), u.SessionToken())
	}
	// What the server stored (read back through users/me with the new session).
	me, err := c.WithSessionToken(u.SessionToken()).Users.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me.EthAddress() != ethAddr(s) || !slices.Equal(me.Accounts(), []string{ethAddr(s)}) {
		t.Fatalf("stored ethAddress %q accounts %v", me.EthAddress(), me.Accounts())
	}
	ad, _ := me.AuthData()[ProviderEth].(map[string]any)
	if ad["id"] != ethAddr(s) {
		t.Fatalf("authData %v", me.AuthData())
	}
	checkOwnACL(t, ctx, stacktest.Master(t, env), u.ID())

	// Signing in again (a new message, a new signature) finds the same user; accounts stays one entry.
	u2, err := SignInEthereum(ctx, c, s, &Options{Message: "Welcome back"})
	if err != nil {
		t.Fatal(err)
	}
	if u2.ID() != u.ID() {
		t.Fatalf("second sign-in made user %s, want %s", u2.ID(), u.ID())
	}
	me = stacktest.Me(t, ctx, c, u2.SessionToken())
	if !slices.Equal(me.Accounts(), []string{ethAddr(s)}) {
		t.Fatalf("accounts after second sign-in %v", me.Accounts())
	}
}

// The backend's own adapter agrees with our verification: it accepts our v=27/28 and v=0/1 signatures, and
// refuses (code 101) a signature by another key, even after the 101 → sign-up retry.
func TestIntegrationEthereumAdapterAgrees(t *testing.T) {
	c, _, _ := stacktest.Client(t)
	ctx := stacktest.Ctx(t)
	s, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	rm, err := RequestMessage(ctx, c, ChainEVM, ethAddr(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := rm.Message
	if !strings.HasPrefix(msg, "Moralis Authentication\n\nId: "+c.AppID()+":") || len(rm.Ticket) != 32 ||
		!strings.HasSuffix(msg, ":"+rm.Ticket[10:]) {
		t.Fatalf("message %q ticket %q", msg, rm.Ticket)
	}
	sig, _ := s.SignMessage(ctx, []byte(msg))
	sig[64] -= 27
	mixed, _ := ChecksumEthAddress(ethAddr(s))
	u, err := LogIn(ctx, c, SignedMessage{Chain: ChainEVM, Address: mixed, Message: msg, Signature: "0x" + hex.EncodeToString(sig), Ticket: rm.Ticket}, nil)
	if err != nil {
		t.Fatalf("v=0/1 signature: %v", err)
	}
	if u.EthAddress() != ethAddr(s) {
		t.Fatalf("address not lower-cased: %s", u.EthAddress())
	}
	rm, err = RequestMessage(ctx, c, ChainEVM, ethAddr(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg = rm.Message
	osig, _ := other.SignMessage(ctx, []byte(msg))
	_, err = LogIn(ctx, c, SignedMessage{Chain: ChainEVM, Address: ethAddr(s), Message: msg, Signature: "0x" + hex.EncodeToString(osig), Ticket: rm.Ticket}, nil)
	var ce *parse.Error
	if !errors.As(err, &ce) || ce.Code != 101 || !strings.Contains(ce.Message, "signature does not match") {
		t.Fatalf("other key: %v", err)
	}
	if strings.Contains(err.Error(), hex.EncodeToString(osig)) {
		t.Fatal("error holds the signature")
	}
}

func TestIntegrationSolanaSignIn(t *testing.T) {
	c, _, env := stacktest.Client(t)
	ctx := stacktest.Ctx(t)
	s, _ := signer.GenerateEd25519Key()
	u, err := SignInSolana(ctx, c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	me, err := c.WithSessionToken(u.SessionToken()).Users.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me.SolAddress() != s.PublicKey() || !slices.Equal(me.SolAccounts(), []string{s.PublicKey()}) {
		t.Fatalf("solAddress %q solAccounts %v", me.SolAddress(), me.SolAccounts())
	}
	checkOwnACL(t, ctx, stacktest.Master(t, env), u.ID())
	u2, err := SignInSolana(ctx, c, s, nil)
	if err != nil || u2.ID() != u.ID() {
		t.Fatalf("second sign-in: %v %s", err, u2.ID())
	}
	raw := stacktest.Me(t, ctx, c, u2.SessionToken())
	if got := raw.Strings("solAccounts"); !slices.Equal(got, []string{s.PublicKey()}) {
		t.Fatalf("stored solAccounts %v (must stay de-duplicated)", got)
	}
	// The adapter refuses a tampered message.
	rm, err := RequestMessage(ctx, c, ChainSolana, s.PublicKey(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := s.SignMessage(ctx, []byte(rm.Message))
	_, err = LogIn(ctx, c, SignedMessage{Chain: ChainSolana, Address: s.PublicKey(), Message: rm.Message + "!", Signature: base58.Encode(sig), Ticket: rm.Ticket}, nil)
	if !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("tampered: %v", err)
	}
}

// linkUnlink runs link and unlink of a second Ethereum address and two Solana addresses for one user of the stack.
func linkUnlink(t *testing.T, opts *Options) (*client.Client, *client.User, []string) {
	c, _, _ := stacktest.Client(t)
	return linkUnlinkWith(t, c, opts)
}

// linkUnlinkWith is linkUnlink through client c.
func linkUnlinkWith(t *testing.T, c *client.Client, opts *Options) (*client.Client, *client.User, []string) {
	ctx := stacktest.Ctx(t)
	main, _ := signer.GenerateKey()
	u, err := SignInEthereum(ctx, c, main, opts)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := signer.GenerateKey()
	if err := LinkEthereum(ctx, c, u, second, opts); err != nil {
		t.Fatalf("link ethereum: %v", err)
	}
	me := stacktest.Me(t, ctx, c, u.SessionToken())
	// Arrays changed with AddUnique come back from PostgreSQL in no particular order: compare as sets.
	if !stacktest.SameSet(me.Accounts(), ethAddr(main), ethAddr(second)) || me.EthAddress() != ethAddr(second) {
		t.Fatalf("after link: accounts %v ethAddress %s", me.Accounts(), me.EthAddress())
	}
	if ad, _ := me.AuthData()[ProviderEth].(map[string]any); ad["id"] != ethAddr(second) {
		t.Fatalf("provider not linked to the new address: %v", me.AuthData())
	}
	sol1, _ := signer.GenerateEd25519Key()
	sol2, _ := signer.GenerateEd25519Key()
	for _, s := range []*signer.Ed25519Key{sol1, sol2, sol1} {
		if err := LinkSolana(ctx, c, u, s, opts); err != nil {
			t.Fatalf("link solana: %v", err)
		}
	}
	me = stacktest.Me(t, ctx, c, u.SessionToken())
	if got := me.Strings("solAccounts"); len(got) != 2 || !stacktest.SameSet(got, sol1.PublicKey(), sol2.PublicKey()) || me.SolAddress() != sol1.PublicKey() {
		t.Fatalf("after solana links: %v %s", got, me.SolAddress())
	}
	// Unlink sol2: solAddress is the first (only) remaining one; the provider holds sol1 (linked last) and stays.
	if err := UnlinkSolana(ctx, c, u, sol2.PublicKey(), opts); err != nil {
		t.Fatalf("unlink solana: %v", err)
	}
	me = stacktest.Me(t, ctx, c, u.SessionToken())
	if !slices.Equal(me.Strings("solAccounts"), []string{sol1.PublicKey()}) || me.String("solAddress") != sol1.PublicKey() {
		t.Fatalf("after solana unlink: %v %q", me.Strings("solAccounts"), me.String("solAddress"))
	}
	if ad, _ := me.AuthData()[ProviderSol].(map[string]any); ad["id"] != sol1.PublicKey() {
		t.Fatalf("provider of the remaining address dropped: %v", me.AuthData())
	}
	// Unlink sol1: nothing remains, solAddress is unset and the provider goes.
	if err := UnlinkSolana(ctx, c, u, sol1.PublicKey(), opts); err != nil {
		t.Fatal(err)
	}
	me = stacktest.Me(t, ctx, c, u.SessionToken())
	if len(me.Strings("solAccounts")) != 0 || me.String("solAddress") != "" {
		t.Fatalf("after last solana unlink: %v %q", me.Strings("solAccounts"), me.String("solAddress"))
	}
	if _, ok := me.AuthData()[ProviderSol]; ok {
		t.Fatalf("moralisSol still linked: %v", me.AuthData())
	}
	// Unlink the second Ethereum address: the provider held it, so it goes; ethAddress is the first remaining.
	if err := UnlinkEthereum(ctx, c, u, strings.ToUpper(ethAddr(second)[:2])+ethAddr(second)[2:], opts); err != nil {
		t.Fatalf("unlink ethereum: %v", err)
	}
	me = stacktest.Me(t, ctx, c, u.SessionToken())
	if !slices.Equal(me.Accounts(), []string{ethAddr(main)}) || me.EthAddress() != ethAddr(main) {
		t.Fatalf("after ethereum unlink: %v %s", me.Accounts(), me.EthAddress())
	}
	if _, ok := me.AuthData()[ProviderEth]; ok {
		t.Fatalf("moralisEth still linked: %v", me.AuthData())
	}
	return c, u, []string{ethAddr(second), sol1.PublicKey(), sol2.PublicKey()}
}

func TestIntegrationLinkUnlink(t *testing.T) {
	linkUnlink(t, &Options{NoAddressObjects: true})
}

// TestIntegrationAddressObjects needs a server that can create _EthAddress / _SolAddress objects with the address
// as objectId (parse-server: allowCustomObjectId, and those class names allowed).
func TestIntegrationAddressObjects(t *testing.T) {
	c, _, env := stacktest.Client(t)
	ctx := stacktest.Ctx(t)
	s, _ := signer.GenerateKey()
	u, err := SignInEthereum(ctx, c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := signer.GenerateKey()
	if err := LinkEthereum(ctx, c, u, s2, nil); err != nil {
		t.Fatalf("link with address objects: %v\n(the server must accept objects of class %s with the address as "+
			"objectId: parse-server needs allowCustomObjectId: true, and %s/%s registered as classes; see the auth report)",
			err, DefaultEthAddressClass, DefaultEthAddressClass, DefaultSolAddressClass)
	}
	mc := stacktest.Master(t, env)
	o, err := mc.Objects.Get(ctx, DefaultEthAddressClass, ethAddr(s2))
	if err != nil {
		t.Fatalf("address object: %v", err)
	}
	if o.ID() != ethAddr(s2) {
		t.Fatalf("object id %s", o.ID())
	}
	sol, _ := signer.GenerateEd25519Key()
	if err := LinkSolana(ctx, c, u, sol, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Objects.Get(ctx, DefaultSolAddressClass, sol.PublicKey()); err != nil {
		t.Fatalf("solana address object: %v", err)
	}
	if err := UnlinkSolana(ctx, c, u, sol.PublicKey(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Objects.Get(ctx, DefaultSolAddressClass, sol.PublicKey()); !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("solana address object not destroyed: %v", err)
	}
	if err := UnlinkEthereum(ctx, c, u, ethAddr(s2), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Objects.Get(ctx, DefaultEthAddressClass, ethAddr(s2)); !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("eth address object not destroyed: %v", err)
	}
}

// Link and Unlink with the default options work on any server: where the server has the address classes (the stack,
// as a Moralis server) they make and destroy the address objects, where it refuses them (a stock parse-server:
// the oldest-line run of make test points this test at one) they go on without them.
func TestIntegrationLinkWithDefaultOptions(t *testing.T) {
	linkUnlink(t, nil)
}

// A parse-server without allowCustomObjectId (a stock server's default) refuses the address objects' chosen ids
// (105): Link and Unlink with the default options go on without them.
func TestIntegrationLinkWithoutCustomObjectIds(t *testing.T) {
	x := stacktest.StartExtra(t, "no-custom-ids", stacktest.ExtraOptions{Env: map[string]string{"DEVSTACK_ALLOW_CUSTOM_OBJECT_ID": "0", "DEVSTACK_LIVEQUERY": "0"}})
	_, cfg, _ := stacktest.Client(t)
	cfg.ServerURL = x.ServerURL
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mc := stacktest.Master(t, x.Env)
	if err := mc.Request(stacktest.Ctx(t), http.MethodPost, "classes/"+DefaultEthAddressClass, map[string]any{"objectId": "0x" + strings.Repeat("1", 40)}, nil); !addressObjectsUnsupported(err) {
		t.Fatalf("the server should refuse a chosen objectId: %v", err)
	}
	linkUnlinkWith(t, c, nil)
}
