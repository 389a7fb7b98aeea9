//go:build integration

package web3api_test

// The no-key path end to end: web3api client -> real parse-server (internal/devstack) -> server/cloud/web3.gen.js ->
// web3apitest (with a simulated chain) -> back. Needs the local stack with the current cloud code:
//
//	make up   # or: bash internal/devstack/up.sh (reinstalls the server package and restarts parse-server when it changed)
//	go test ./web3api/ -run Integration
//
// parse-server's cloud code calls WEB3API_URL with WEB3API_KEY (defaults http://127.0.0.1:18090 and
// web3apitest-key); this test listens there, so both processes must see the same values.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func TestIntegrationBackendFunctions(t *testing.T) {
	env := devstack.MustLoad(t)
	ctx := context.Background()

	// A simulated chain with one ether transfer.
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	sim := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))}})
	defer sim.Close()
	ec := sim.Client()
	chainID, _ := ec.ChainID(ctx)
	tx, _ := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 0, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(123456789)}), types.LatestSignerForChainID(chainID), key)
	if err := ec.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	sim.Commit()

	// The fake API where the cloud code expects it.
	base := envOr("WEB3API_URL", "http://127.0.0.1:18090")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	h := web3apitest.NewHandler(web3apitest.WithAPIKey(envOr("WEB3API_KEY", web3apitest.DefaultAPIKey)),
		web3apitest.WithChain(ec), web3apitest.WithReporter(func(m string) { t.Errorf("web3apitest: %s", m) }),
		web3apitest.WithItems("getTokenTransfers", 1000), web3apitest.WithItems("getNFTs", 250))
	ln, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatalf("cannot listen on %s for the cloud code's WEB3API_URL: %v", u.Host, err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	defer hs.Close()

	c, err := web3api.New(web3api.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	if err != nil {
		t.Fatal(err)
	}

	// Chain-backed answers through the backend.
	bal, err := c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: to.Hex()})
	if err != nil {
		t.Fatal(err)
	}
	if bal.Balance != "123456789" {
		t.Fatalf("balance %q", bal.Balance)
	}
	got, err := c.Native.GetTransaction(ctx, &web3api.GetTransactionParams{TransactionHash: tx.Hash().Hex()})
	if err != nil || got.FromAddress != strings.ToLower(from.Hex()) || got.Value != "123456789" {
		t.Fatalf("%+v %v", got, err)
	}
	// An endpoint without a chain parameter (the client's default chain is not forwarded).
	if _, err := c.Info.Web3ApiVersion(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if h.Count("getNativeBalance") != 1 || h.Count("getTransaction") != 1 || h.Count("web3ApiVersion") != 1 {
		t.Fatal("requests did not reach the fake API")
	}

	// Paging through the backend follows the cursor.
	n := 0
	for _, err := range c.Account.GetTokenTransfersIter(ctx, &web3api.GetTokenTransfersParams{Address: to.Hex(), Limit: new(100)}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1000 {
		t.Fatalf("walked %d", n)
	}

	// Errors: the API's message, and the rate-limit message, come back as the function's error.
	h.SetFailure("getBlock", 400, `{"message":"Invalid block number"}`)
	_, err = c.Native.GetBlock(ctx, &web3api.GetBlockParams{BlockNumberOrHash: "999"})
	var fe *web3api.FunctionError
	if !errors.As(err, &fe) || err.Error() != "Invalid block number" || fe.Code != 141 {
		t.Fatalf("got %v", err)
	}
	h.SetRateLimit("getBlock", "3", map[string]string{"x-rate-limit-used": "26"})
	_, err = c.Native.GetBlock(ctx, &web3api.GetBlockParams{BlockNumberOrHash: "1"})
	if err == nil || err.Error() != web3api.RateLimitMessage+`{"x-rate-limit-used":"26"}` {
		t.Fatalf("got %v", err)
	}

	// The cloud code checks path parameters itself, and the spec's older functions work.
	fn := func(name string, params map[string]any) (json.RawMessage, int) {
		params["_ApplicationId"] = env.AppID
		params["_JavaScriptKey"] = env.JavaScriptKey
		b, _ := json.Marshal(params)
		resp, err := http.Post(env.ServerURL+"/functions/"+name, "text/plain", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Result json.RawMessage `json:"result"`
			Error  string          `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&out)
		if out.Error != "" {
			return json.RawMessage(out.Error), resp.StatusCode
		}
		return out.Result, resp.StatusCode
	}
	if msg, status := fn("getNativeBalance", map[string]any{"chain": "eth"}); status != 400 || string(msg) != "required param address not provided" {
		t.Fatalf("%d %s", status, msg)
	}
	if res, status := fn("getNFTsCount_old", map[string]any{"address": to.Hex()}); status != 200 || string(res) != "250" {
		t.Fatalf("%d %s", status, res)
	}
	if res, status := fn("getAllERC20", map[string]any{"address": to.Hex()}); status != 200 || !strings.Contains(string(res), `"balance":"123456789"`) {
		t.Fatalf("%d %s", status, res)
	}
}

// listenFakeAPI serves h where the cloud code expects the chain-data API (WEB3API_URL) until the test ends.
func listenFakeAPI(t *testing.T, h http.Handler) {
	t.Helper()
	u, err := url.Parse(envOr("WEB3API_URL", "http://127.0.0.1:18090"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatalf("cannot listen on %s for the cloud code's WEB3API_URL: %v", u.Host, err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
}

// The no-key path forwards a call as the original client sent it to the API: the query string and body the fake
// API receives through parse-server's cloud code are the ones the client sends with an API key (arrays as
// name[]=v, extra parameters, explicit false and 0); it follows offset paging, and its errors read as the
// direct path's.
func TestIntegrationBackendForwardsAsTheAPIClient(t *testing.T) {
	env := devstack.MustLoad(t)
	ctx := context.Background()
	key := envOr("WEB3API_KEY", web3apitest.DefaultAPIKey)
	h := web3apitest.NewHandler(web3apitest.WithAPIKey(key),
		web3apitest.WithReporter(func(m string) { t.Errorf("web3apitest: %s", m) }))
	listenFakeAPI(t, h)
	direct, err := web3api.New(web3api.Config{APIKey: key, BaseURL: envOr("WEB3API_URL", "http://127.0.0.1:18090")})
	if err != nil {
		t.Fatal(err)
	}
	viaServer, err := web3api.New(web3api.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey})
	if err != nil {
		t.Fatal(err)
	}

	addr := "0x00000000000000000000000000000000000000aa"
	tokens := []string{"0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"}
	calls := []struct {
		endpoint string
		call     func(c *web3api.Client) error
	}{
		{"getTokenBalances", func(c *web3api.Client) error {
			_, err := c.Account.GetTokenBalances(ctx, &web3api.GetTokenBalancesParams{Address: addr, Chain: "eth",
				TokenAddresses: tokens, ToBlock: new(0),
				Extra: map[string]any{"providerUrl": "http://node.example/a b", "flag": false, "n": 0, "ids": []int{3, 1}}})
			return err
		}},
		{"getTokenMetadata", func(c *web3api.Client) error {
			_, err := c.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Chain: "bsc", Addresses: tokens[:1]})
			return err
		}},
		{"getMultipleTokenPrices", func(c *web3api.Client) error {
			_, err := c.Token.GetMultipleTokenPrices(ctx, &web3api.GetMultipleTokenPricesParams{Chain: "eth",
				Tokens: []web3api.TokenPriceRequest{{TokenAddress: tokens[0], Exchange: "uniswapv3"}, {TokenAddress: tokens[1], ToBlock: new(16314545)}}})
			return err
		}},
	}
	for _, tc := range calls {
		if err := tc.call(direct); err != nil {
			t.Fatalf("%s direct: %v", tc.endpoint, err)
		}
		want, _ := h.LastRequest(tc.endpoint)
		if err := tc.call(viaServer); err != nil {
			t.Fatalf("%s via the server: %v", tc.endpoint, err)
		}
		got, _ := h.LastRequest(tc.endpoint)
		if got.Method != want.Method || got.Path != want.Path || got.RawQuery != want.RawQuery || string(got.Body) != string(want.Body) {
			t.Errorf("%s: the server forwarded\n  %s %s?%s %s\nthe client sends\n  %s %s?%s %s", tc.endpoint,
				got.Method, got.Path, got.RawQuery, got.Body, want.Method, want.Path, want.RawQuery, want.Body)
		}
		if h.Count(tc.endpoint) != 2 {
			t.Fatalf("%s: %d requests", tc.endpoint, h.Count(tc.endpoint))
		}
	}
	if r, _ := h.LastRequest("getTokenBalances"); !strings.Contains(r.RawQuery, "token_addresses[]="+tokens[0]+"&token_addresses[]="+tokens[1]) {
		t.Fatalf("array not in the axios form: %s", r.RawQuery)
	}

	// A parameter that arrives already named "name[]" (as some clients send it) is an array too.
	b, _ := json.Marshal(map[string]any{"_ApplicationId": env.AppID, "_JavaScriptKey": env.JavaScriptKey,
		"chain": "eth", "addresses[]": tokens})
	resp, err := http.Post(env.ServerURL+"/functions/getTokenMetadata", "text/plain", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r, _ := h.LastRequest("getTokenMetadata"); resp.StatusCode != 200 || r.RawQuery != "chain=eth&addresses[]="+tokens[0]+"&addresses[]="+tokens[1] {
		t.Fatalf("%d %s", resp.StatusCode, r.RawQuery)
	}

	// Offset paging: the answers carry page, page_size and total but no cursor; the iterator asks for the next
	// page with an offset, which the cloud code forwards.
	h.SetItems("getNFTs", 250)
	h.SetOffsetPaging("getNFTs", true)
	before := h.Count("getNFTs")
	seen := map[string]bool{}
	for nft, err := range viaServer.Account.GetNFTsIter(ctx, &web3api.GetNFTsParams{Address: addr, Limit: new(100)}) {
		if err != nil {
			t.Fatal(err)
		}
		seen[nft.TokenID] = true
	}
	if len(seen) != 250 || h.Count("getNFTs")-before != 3 {
		t.Fatalf("walked %d distinct items in %d requests", len(seen), h.Count("getNFTs")-before)
	}
	if r, _ := h.LastRequest("getNFTs"); !strings.Contains(r.RawQuery, "offset=200") {
		t.Fatalf("last page asked for with %s", r.RawQuery)
	}
	// The cloud code's own walk (getNFTsCount_old) follows offsets too.
	var count int
	if err := json.Unmarshal(callFunction(t, env, "getNFTsCount_old", map[string]any{"address": addr}), &count); err != nil || count != 250 {
		t.Fatalf("getNFTsCount_old = %d (%v)", count, err)
	}

	// Errors read as on the direct path: the 429 text with the rate headers the answer carried, the status text
	// when the answer has no message.
	for _, setup := range []func(){
		func() {
			h.SetRateLimit("getTokenMetadata", "", map[string]string{"x-rate-limit-used": "26", "x-rate-limit-limit": "25"})
		},
		func() { h.SetFailure("getTokenMetadata", 400, `{"message":""}`) },
		func() { h.SetFailure("getTokenMetadata", 404, `{"message":"No such token"}`) },
	} {
		setup()
		_, derr := direct.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Addresses: tokens})
		_, serr := viaServer.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Addresses: tokens})
		var fe *web3api.FunctionError
		if derr == nil || !errors.As(serr, &fe) || serr.Error() != derr.Error() {
			t.Fatalf("via the server %q, direct %q", serr, derr)
		}
	}
	if _, err := viaServer.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Addresses: tokens}); err.Error() != "No such token" {
		t.Fatal(err)
	}
}

// callFunction POSTs a cloud function the way the original client did and returns its result (failing the test
// on an error answer).
func callFunction(t *testing.T, env devstack.Env, name string, params map[string]any) json.RawMessage {
	t.Helper()
	params["_ApplicationId"] = env.AppID
	params["_JavaScriptKey"] = env.JavaScriptKey
	b, _ := json.Marshal(params)
	resp, err := http.Post(env.ServerURL+"/functions/"+name, "text/plain", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error != "" {
		t.Fatalf("%s: %d %s %v", name, resp.StatusCode, out.Error, err)
	}
	return out.Result
}
