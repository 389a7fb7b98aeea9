package web3api_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

// exampleTB lets examples start a web3apitest server; it panics on a request mismatch.
type exampleTB struct{ cleanups []func() }

func (e *exampleTB) Helper()                   {}
func (e *exampleTB) Errorf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (e *exampleTB) Cleanup(f func())          { e.cleanups = append(e.cleanups, f) }
func (e *exampleTB) done() {
	for _, f := range e.cleanups {
		f()
	}
}

var _ web3apitest.TB = (*exampleTB)(nil)

func Example() {
	tb := &exampleTB{}
	defer tb.done()
	srv := web3apitest.NewServer(tb) // stands in for https://deep-index.moralis.io/api/v2

	c, err := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	bal, err := c.Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{
		Address: "0x057ec652a4f150f7ff94f089a38008f49a0df88e",
		Chain:   "eth",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("balance (wei):", bal.Balance)
	// Output: balance (wei): 1234567890
}

func ExampleAccountService_GetTokenTransfersIter() {
	tb := &exampleTB{}
	defer tb.done()
	srv := web3apitest.NewServer(tb, web3apitest.WithItems("getTokenTransfers", 250))
	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})

	n := 0
	for _, err := range c.Account.GetTokenTransfersIter(context.Background(), &web3api.GetTokenTransfersParams{
		Address: "0x057ec652a4f150f7ff94f089a38008f49a0df88e",
		Limit:   new(100),
	}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Println(n, "transfers in", srv.Count("getTokenTransfers"), "pages")
	// Output: 250 transfers in 3 pages
}

func ExampleRateLimitError() {
	tb := &exampleTB{}
	defer tb.done()
	srv := web3apitest.NewServer(tb, web3apitest.WithRateLimit("getBlock", "2", map[string]string{"x-rate-limit-used": "26"}))
	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})

	_, err := c.Native.GetBlock(context.Background(), &web3api.GetBlockParams{BlockNumberOrHash: "1"})
	var rl *web3api.RateLimitError
	if errors.As(err, &rl) {
		fmt.Println("retry after", rl.RetryAfter)
		fmt.Println(err)
	}
	// Output:
	// retry after 2s
	// This Moralis Server is rate-limited because of the plan restrictions. See the details about the current rate and throttle limits: {"x-rate-limit-used":"26"}
}

func ExampleNew() {
	// Every setting is checked by New.
	for _, cfg := range []web3api.Config{
		{},
		{APIKey: "key", BaseURL: "ftp://example.com"},
		{ServerURL: "http://127.0.0.1:1337/parse"},
		{APIKey: "key", MaxAttempts: -1},
		{ServerURL: "http://127.0.0.1:1337/parse", AppID: "myAppId"}, // no key: through the backend
		{APIKey: "key"}, // the hosted API
	} {
		_, err := web3api.New(cfg)
		fmt.Println(err)
	}
	// Output:
	// Web3Api.initialize failed: initialize with apiKey or serverUrl
	// web3api: Config.BaseURL must be an absolute http:// or https:// URL, got "ftp://example.com"
	// web3api: Config.AppID is required with Config.ServerURL
	// web3api: Config.MaxAttempts must be 0 (the default, 5) or more, got -1
	// <nil>
	// <nil>
}

// Zero values are sent when set (numbers and booleans are pointers), arrays go as name[]=…, and parameters the
// reference does not list go through Extra.
func ExampleAccountService_GetNFTs() {
	tb := &exampleTB{}
	defer tb.done()
	srv := web3apitest.NewServer(tb)
	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})

	_, err := c.Account.GetNFTs(context.Background(), &web3api.GetNFTsParams{
		Address:        "0x057ec652a4f150f7ff94f089a38008f49a0df88e",
		DisableTotal:   new(false),
		TokenAddresses: []string{"0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2"},
		Extra:          map[string]any{"include_prices": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := srv.LastRequest("getNFTs")
	fmt.Println(r.RawQuery)
	// Output: disable_total=false&token_addresses[]=0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2&include_prices=true
}
