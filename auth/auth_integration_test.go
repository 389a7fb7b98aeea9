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
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/google/uuid"
	"github.com/mr-tron/base58"
)

func stackClient(t *testing.T) (*client.Client, client.Config, devstack.Env) {
	t.Helper()
	env := devstack.MustLoad(t)
	// The master key is configured (an endpoint's ClientBackend issues sign-in tickets with it) but only sent by
	// WithMasterKey views.
	cfg := client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey,
		MasterKey: env.MasterKey, InstallationID: uuid.NewString()}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg, env
}

func masterClient(t *testing.T, env devstack.Env) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, MasterKey: env.MasterKey,
		InstallationID: uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithMasterKey()
}

func sameSet(got []string, want ...string) bool {
	a := slices.Clone(got)
	b := slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func mustMe(t *testing.T, ctx context.Context, c *client.Client, tok string) *client.User {
	t.Helper()
	u, err := c.WithSessionToken(tok).Users.Me(ctx)
	if err != nil {
		t.Fatalf("users/me: %v", err)
	}
	return u
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

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
	c, _, env := stackClient(t)
	ctx := ctxT(t)
	s, err := GenerateEthSigner()
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
	if me.EthAddress() != s.Address() || !slices.Equal(me.Accounts(), []string{s.Address()}) {
		t.Fatalf("stored ethAddress %q accounts %v", me.EthAddress(), me.Accounts())
	}
	ad, _ := me.AuthData()[ProviderEth].(map[string]any)
	if ad["id"] != s.Address() {
		t.Fatalf("authData %v", me.AuthData())
	}
	checkOwnACL(t, ctx, masterClient(t, env), u.ID())

	// Signing in again (a new message, a new signature) finds the same user; accounts stays one entry.
	u2, err := SignInEthereum(ctx, c, s, &Options{Message: "Welcome back"})
	if err != nil {
		t.Fatal(err)
	}
	if u2.ID() != u.ID() {
		t.Fatalf("second sign-in made user %s, want %s", u2.ID(), u.ID())
	}
	me = mustMe(t, ctx, c, u2.SessionToken())
	if !slices.Equal(me.Accounts(), []string{s.Address()}) {
		t.Fatalf("accounts after second sign-in %v", me.Accounts())
	}
}

// The backend's own adapter agrees with our verification: it accepts our v=27/28 and v=0/1 signatures, and
// refuses (code 101) a signature by another key, even after the 101 → sign-up retry.
func TestIntegrationEthereumAdapterAgrees(t *testing.T) {
	c, _, _ := stackClient(t)
	ctx := ctxT(t)
	s, _ := GenerateEthSigner()
	other, _ := GenerateEthSigner()
	rm, err := RequestMessage(ctx, c, ChainEVM, s.Address(), nil)
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
	mixed, _ := ChecksumEthAddress(s.Address())
	u, err := LogIn(ctx, c, SignedMessage{Chain: ChainEVM, Address: mixed, Message: msg, Signature: "0x" + hex.EncodeToString(sig), Ticket: rm.Ticket}, nil)
	if err != nil {
		t.Fatalf("v=0/1 signature: %v", err)
	}
	if u.EthAddress() != s.Address() {
		t.Fatalf("address not lower-cased: %s", u.EthAddress())
	}
	rm, err = RequestMessage(ctx, c, ChainEVM, s.Address(), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg = rm.Message
	osig, _ := other.SignMessage(ctx, []byte(msg))
	_, err = LogIn(ctx, c, SignedMessage{Chain: ChainEVM, Address: s.Address(), Message: msg, Signature: "0x" + hex.EncodeToString(osig), Ticket: rm.Ticket}, nil)
	var ce *parse.Error
	if !errors.As(err, &ce) || ce.Code != 101 || !strings.Contains(ce.Message, "signature does not match") {
		t.Fatalf("other key: %v", err)
	}
	if strings.Contains(err.Error(), hex.EncodeToString(osig)) {
		t.Fatal("error holds the signature")
	}
}

func TestIntegrationSolanaSignIn(t *testing.T) {
	c, _, env := stackClient(t)
	ctx := ctxT(t)
	s, _ := GenerateSolSigner()
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
	checkOwnACL(t, ctx, masterClient(t, env), u.ID())
	u2, err := SignInSolana(ctx, c, s, nil)
	if err != nil || u2.ID() != u.ID() {
		t.Fatalf("second sign-in: %v %s", err, u2.ID())
	}
	raw := mustMe(t, ctx, c, u2.SessionToken())
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

// linkUnlink runs link and unlink of a second Ethereum address and two Solana addresses for one user.
func linkUnlink(t *testing.T, opts *Options) (*client.Client, *client.User, []string) {
	c, _, _ := stackClient(t)
	ctx := ctxT(t)
	main, _ := GenerateEthSigner()
	u, err := SignInEthereum(ctx, c, main, opts)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := GenerateEthSigner()
	if err := LinkEthereum(ctx, c, u, second, opts); err != nil {
		t.Fatalf("link ethereum: %v", err)
	}
	me := mustMe(t, ctx, c, u.SessionToken())
	// Arrays changed with AddUnique come back from PostgreSQL in no particular order: compare as sets.
	if !sameSet(me.Accounts(), main.Address(), second.Address()) || me.EthAddress() != second.Address() {
		t.Fatalf("after link: accounts %v ethAddress %s", me.Accounts(), me.EthAddress())
	}
	if ad, _ := me.AuthData()[ProviderEth].(map[string]any); ad["id"] != second.Address() {
		t.Fatalf("provider not linked to the new address: %v", me.AuthData())
	}
	sol1, _ := GenerateSolSigner()
	sol2, _ := GenerateSolSigner()
	for _, s := range []*Ed25519Signer{sol1, sol2, sol1} {
		if err := LinkSolana(ctx, c, u, s, opts); err != nil {
			t.Fatalf("link solana: %v", err)
		}
	}
	me = mustMe(t, ctx, c, u.SessionToken())
	if got := me.Strings("solAccounts"); len(got) != 2 || !sameSet(got, sol1.PublicKey(), sol2.PublicKey()) || me.SolAddress() != sol1.PublicKey() {
		t.Fatalf("after solana links: %v %s", got, me.SolAddress())
	}
	// Unlink sol2: solAddress is the first (only) remaining one; the provider holds sol1 (linked last) and stays.
	if err := UnlinkSolana(ctx, c, u, sol2.PublicKey(), opts); err != nil {
		t.Fatalf("unlink solana: %v", err)
	}
	me = mustMe(t, ctx, c, u.SessionToken())
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
	me = mustMe(t, ctx, c, u.SessionToken())
	if len(me.Strings("solAccounts")) != 0 || me.String("solAddress") != "" {
		t.Fatalf("after last solana unlink: %v %q", me.Strings("solAccounts"), me.String("solAddress"))
	}
	if _, ok := me.AuthData()[ProviderSol]; ok {
		t.Fatalf("moralisSol still linked: %v", me.AuthData())
	}
	// Unlink the second Ethereum address: the provider held it, so it goes; ethAddress is the first remaining.
	if err := UnlinkEthereum(ctx, c, u, strings.ToUpper(second.Address()[:2])+second.Address()[2:], opts); err != nil {
		t.Fatalf("unlink ethereum: %v", err)
	}
	me = mustMe(t, ctx, c, u.SessionToken())
	if !slices.Equal(me.Accounts(), []string{main.Address()}) || me.EthAddress() != main.Address() {
		t.Fatalf("after ethereum unlink: %v %s", me.Accounts(), me.EthAddress())
	}
	if _, ok := me.AuthData()[ProviderEth]; ok {
		t.Fatalf("moralisEth still linked: %v", me.AuthData())
	}
	return c, u, []string{second.Address(), sol1.PublicKey(), sol2.PublicKey()}
}

func TestIntegrationLinkUnlink(t *testing.T) {
	linkUnlink(t, &Options{NoAddressObjects: true})
}

// TestIntegrationAddressObjects needs a server that can create _EthAddress / _SolAddress objects with the address
// as objectId (parse-server: allowCustomObjectId, and those class names allowed).
func TestIntegrationAddressObjects(t *testing.T) {
	c, _, env := stackClient(t)
	ctx := ctxT(t)
	s, _ := GenerateEthSigner()
	u, err := SignInEthereum(ctx, c, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := GenerateEthSigner()
	if err := LinkEthereum(ctx, c, u, s2, nil); err != nil {
		t.Fatalf("link with address objects: %v\n(the server must accept objects of class %s with the address as "+
			"objectId: parse-server needs allowCustomObjectId: true, and %s/%s registered as classes; see the auth report)",
			err, DefaultEthAddressClass, DefaultEthAddressClass, DefaultSolAddressClass)
	}
	mc := masterClient(t, env)
	o, err := mc.Objects.Get(ctx, DefaultEthAddressClass, s2.Address())
	if err != nil {
		t.Fatalf("address object: %v", err)
	}
	if o.ID() != s2.Address() {
		t.Fatalf("object id %s", o.ID())
	}
	sol, _ := GenerateSolSigner()
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
	if err := UnlinkEthereum(ctx, c, u, s2.Address(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Objects.Get(ctx, DefaultEthAddressClass, s2.Address()); !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("eth address object not destroyed: %v", err)
	}
}

// TestIntegrationHandler runs the endpoint over the real backend: the whole browser flow works, and every
// refusal is a 4xx that never reaches the backend.
func TestIntegrationHandler(t *testing.T) {
	_, cfg, _ := stackClient(t)
	be, err := NewClientBackend(cfg, &Options{NoAddressObjects: true})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	s, _ := GenerateEthSigner()
	msg, _ := e.getMessage("evm", s.Address())
	a := e.postJSON("/signin", body("evm", s.Address(), msg, ethSign(t, s, msg)), nil)
	if a.status != 200 {
		t.Fatalf("signin: %d %s", a.status, a.raw)
	}
	tok := sessionOf(a)
	user, _ := a.body["user"].(map[string]any)
	if !strings.HasPrefix(tok, "r:") || user["ethAddress"] != s.Address() || user["objectId"] == "" {
		t.Fatalf("signin answer %s", a.raw)
	}
	if strings.Contains(a.raw, "authData") || strings.Contains(a.raw, cfg.JavaScriptKey) || strings.Contains(a.raw, "signature") {
		t.Fatalf("answer leaks: %s", a.raw)
	}
	cookie := map[string]string{"Cookie": DefaultCookieName + "=" + tok}
	if a := e.do(http.MethodGet, "/me", "", "", cookie); a.status != 200 || a.body["user"].(map[string]any)["objectId"] != user["objectId"] {
		t.Fatalf("me: %d %s", a.status, a.raw)
	}
	sol, _ := GenerateSolSigner()
	m2, _ := e.getMessage("solana", sol.PublicKey())
	if a := e.postJSON("/link", body("solana", sol.PublicKey(), m2, solSign(t, sol, m2)), cookie); a.status != 200 ||
		a.body["user"].(map[string]any)["solAddress"] != sol.PublicKey() {
		t.Fatalf("link: %d %s", a.status, a.raw)
	}
	if a := e.postJSON("/unlink", map[string]string{"chain": "solana", "address": sol.PublicKey()}, cookie); a.status != 200 ||
		len(a.body["user"].(map[string]any)["solAccounts"].([]any)) != 0 {
		t.Fatalf("unlink: %d %s", a.status, a.raw)
	}
	// Solana sign-in through the endpoint.
	sol2, _ := GenerateSolSigner()
	m3, _ := e.getMessage("solana", sol2.PublicKey())
	if a := e.postJSON("/signin", body("solana", sol2.PublicKey(), m3, solSign(t, sol2, m3)), nil); a.status != 200 {
		t.Fatalf("solana signin: %d %s", a.status, a.raw)
	}
	if a := e.do(http.MethodPost, "/signout", "", "", cookie); a.status != 200 {
		t.Fatalf("signout: %d %s", a.status, a.raw)
	}
	if a := e.do(http.MethodGet, "/me", "", "", cookie); a.status != 401 || a.body["code"] != float64(209) {
		t.Fatalf("me after signout: %d %s", a.status, a.raw)
	}
	runRefusals(t, e)
}

// Two browsers of one user keep both sessions (each sign-in has its own installation id).
func TestIntegrationHandlerTwoSessions(t *testing.T) {
	_, cfg, _ := stackClient(t)
	be, err := NewClientBackend(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, nil)
	s, _ := GenerateEthSigner()
	var toks []string
	for i := 0; i < 2; i++ {
		msg, _ := e.getMessage("evm", s.Address())
		a := e.postJSON("/signin", body("evm", s.Address(), msg, ethSign(t, s, msg)), nil)
		if a.status != 200 {
			t.Fatalf("signin %d: %d %s", i, a.status, a.raw)
		}
		toks = append(toks, sessionOf(a))
	}
	for i, tok := range toks {
		if a := e.do(http.MethodGet, "/me", "", "", map[string]string{"Authorization": "Bearer " + tok}); a.status != 200 {
			t.Fatalf("session %d lost: %d %s", i, a.status, a.raw)
		}
	}
}

// A burst past the rate limit is refused with 429 over the real backend, without reaching it; a request within
// the limit does reach it.
func TestIntegrationHandlerRateLimit(t *testing.T) {
	_, cfg, _ := stackClient(t)
	be, err := NewClientBackend(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvBackend(t, be, cfg.AppID, func(o *HandlerOptions) { o.RateLimit = RateLimit{Burst: 3, Every: time.Hour} })
	s, _ := GenerateEthSigner()
	msg, _ := e.getMessage("evm", s.Address())
	signed := body("evm", s.Address(), msg, ethSign(t, s, msg))
	if a := e.postJSON("/signin", signed, nil); a.status != 200 {
		t.Fatalf("within the limit: %d %s", a.status, a.raw)
	}
	if a := e.do(http.MethodGet, "/message?chain=evm&address="+s.Address(), "", "", nil); a.status != 200 {
		t.Fatalf("third request: %d", a.status)
	}
	before := e.cb.n.Load()
	for i := 0; i < 5; i++ {
		a := e.postJSON("/signin", signed, nil)
		if a.status != 429 || a.body["code"] != float64(CodeRequestLimit) {
			t.Fatalf("burst %d: %d %s", i, a.status, a.raw)
		}
	}
	if e.cb.n.Load() != before {
		t.Fatal("a rate-limited request reached the backend")
	}
}
