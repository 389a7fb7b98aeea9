package web3apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

// Handler serves the fake API outside tests too; mismatches go to the reporter.
func ExampleNewHandler() {
	h := web3apitest.NewHandler(web3apitest.WithAPIKey("dev"), web3apitest.WithReporter(func(m string) { fmt.Println("mismatch:", m) }))
	srv := httptest.NewServer(h)
	defer srv.Close()

	c, _ := web3api.New(web3api.Config{APIKey: "dev", BaseURL: srv.URL})
	v, err := c.Info.Web3ApiVersion(context.Background(), nil)
	fmt.Println(v.Version, err)

	req, _ := http.NewRequest("GET", srv.URL+"/dateToBlock", nil)
	req.Header.Set("x-api-key", "dev")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 1.0.0 <nil>
	// mismatch: GET /dateToBlock (getDateToBlock): required query parameter "date" missing
	// 400
}
