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

	c, err := web3api.New(web3api.WithAPIKey(srv.APIKey), web3api.WithBaseURL(srv.URL))
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
	c, _ := web3api.New(web3api.WithAPIKey(srv.APIKey), web3api.WithBaseURL(srv.URL))

	n := 0
	for _, err := range c.Account.GetTokenTransfersIter(context.Background(), &web3api.GetTokenTransfersParams{
		Address: "0x057ec652a4f150f7ff94f089a38008f49a0df88e",
		Limit:   100,
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
	srv := web3apitest.NewServer(tb, web3apitest.WithRateLimit("getBlock", "2", nil))
	c, _ := web3api.New(web3api.WithAPIKey(srv.APIKey), web3api.WithBaseURL(srv.URL))

	_, err := c.Native.GetBlock(context.Background(), &web3api.GetBlockParams{BlockNumberOrHash: "1"})
	var rl *web3api.RateLimitError
	if errors.As(err, &rl) {
		fmt.Println("rate limited; retry after", rl.RetryAfter)
	}
	// Output: rate limited; retry after 2s
}

func ExampleNew_backend() {
	// Without an API key the calls go to the backend's cloud functions.
	_, err := web3api.New()
	fmt.Println(err)
	_, err = web3api.New(web3api.WithServer("http://127.0.0.1:1337/parse", "myAppId"))
	fmt.Println(err)
	// Output:
	// Web3Api.initialize failed: initialize with apiKey or serverUrl
	// <nil>
}
