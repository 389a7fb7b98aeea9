//go:build integration

package web3api_test

// The no-key path end to end: web3api client -> real parse-server (internal/devstack) -> cloud/web3.js ->
// web3apitest (with a simulated chain) -> back. Needs the local stack with the current cloud code:
//
//	make up   # or: bash internal/devstack/up.sh (restarts parse-server when cloud code changed)
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
	if err == nil || !strings.Contains(err.Error(), "x-rate-limit-used: 26") || !strings.Contains(err.Error(), "retry after 3") {
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
