package web3apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

// recorder is a TB that records Errorf calls instead of failing.
type recorder struct {
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(f, a...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.errs
	r.errs = nil
	return e
}

func TestServerRejectsMismatches(t *testing.T) {
	rec := &recorder{}
	srv := web3apitest.NewServer(rec)
	defer func() {
		for _, f := range rec.cleanups {
			f()
		}
	}()
	cases := []struct {
		method, path, key, body string
		status                  int
		want                    string
	}{
		{"GET", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/balance", "wrong", "", 401, "x-api-key"},
		{"GET", "/erc20/metadata?addresses=0x1", "", "", 400, `array parameter "addresses" sent as addresses=…`},
		{"GET", "/erc20/metadata?addresses%5B%5D=0x1&chain[]=eth", "", "", 400, `parameter "chain" is not an array`},
		{"GET", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/nft?limit=1&limit=2", "", "", 400, `parameter "limit" sent 2 times`},
		{"GET", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/balance", "", `{}`, 400, "a body was sent to an endpoint that takes none"},
		{"POST", "/erc20/prices", "", "", 400, "no body"},
		{"POST", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/events?topic=0x1", "", "", 400, "no body"},
		{"POST", "/erc20/prices", "", `{"tokens":[{"token_address":"0x1","to_block":"12"}]}`, 400, `tokens[0].to_block must be a number`},
		{"POST", "/contracts-review", "", `{"contracts":[{"contract_address":"0x1","reason":"r","report_type":"spam","contract_type":""}]}`, 400, `contracts[0].contract_type must be ERC20 or NFT`},
		{"POST", "/ipfs/uploadFolder", "", `[{"path":"a"}]`, 400, `body[0].content missing`},
		{"GET", "/dateToBlock?chain=eth", "", "", 400, `required query parameter "date" missing`},
		{"GET", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/nft?limit=ten", "", "", 400, `"limit" must be a number`},
		{"POST", "/block/12", "", "", 400, "wrong method"},
		{"GET", "/no/such/thing/here/at/all", "", "", 400, "no such endpoint"},
		{"POST", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/function?function_name=x", "", `{"params":{}}`, 400, `required body field "abi" missing`},
		{"POST", "/erc20/prices", "", `{"tokens":[],"extra":1}`, 400, `unknown body field "extra"`},
	}
	for _, tc := range cases {
		key := tc.key
		if key == "" {
			key = srv.APIKey
		}
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("x-api-key", key)
		if tc.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		errs := rec.take()
		if resp.StatusCode != tc.status || len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
			t.Errorf("%s %s: status %d body %s, reported %q", tc.method, tc.path, resp.StatusCode, b, errs)
		}
	}
	// A body needs Content-Type application/json.
	req, _ := http.NewRequest("POST", srv.URL+"/erc20/prices", strings.NewReader(`{"tokens":[]}`))
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if errs := rec.take(); resp.StatusCode != 400 || len(errs) != 1 || !strings.Contains(errs[0], `Content-Type "text/plain"`) {
		t.Fatalf("text/plain body: status %d, reported %q", resp.StatusCode, errs)
	}
	// A valid request is not reported (parameters the reference does not list are accepted, and recorded as
	// sent); /api/v2 prefix is accepted.
	const query = "chain=eth&addresses[]=0x1&addresses[]=0x2&providerUrl=http://x"
	req, _ = http.NewRequest("GET", srv.URL+"/api/v2/erc20/metadata?"+query, nil)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if errs := rec.take(); resp.StatusCode != 200 || len(errs) != 0 {
		t.Fatalf("valid request: status %d, reported %q", resp.StatusCode, errs)
	}
	if r, ok := srv.LastRequest("getTokenMetadata"); !ok || r.RawQuery != query || r.Method != "GET" || r.Path != "/erc20/metadata" {
		t.Fatalf("recorded %+v", r)
	}
	if _, ok := srv.LastRequest("getBlock"); ok {
		t.Fatal("a request recorded for an endpoint never called")
	}
}

// In the older paged form there is no cursor, and offset (accepted on every endpoint) picks the page.
func TestOffsetPaging(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithItems("getTransactions", 250), web3apitest.WithOffsetPaging("getTransactions"))
	get := func(q string) map[string]any {
		req, _ := http.NewRequest("GET", srv.URL+"/0x1?"+q, nil)
		req.Header.Set("x-api-key", srv.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", q, resp.StatusCode, err)
		}
		return m
	}
	m := get("limit=100&offset=200")
	if _, has := m["cursor"]; has || m["page"] != 2.0 || m["total"] != 250.0 || len(m["result"].([]any)) != 50 {
		t.Fatalf("page: %v", m)
	}
	srv.SetOffsetPaging("getTransactions", false)
	if m := get("limit=100"); m["cursor"] == "" || m["cursor"] == nil {
		t.Fatalf("cursor form: %v", m["cursor"])
	}
}

func TestServerMatchesMostSpecificPath(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})
	ctx := context.Background()
	a := "0x057ec652a4f150f7ff94f089a38008f49a0df88e"
	if _, err := c.Token.GetContractNFTTransfers(ctx, &web3api.GetContractNFTTransfersParams{Address: a}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Token.GetTokenIdMetadata(ctx, &web3api.GetTokenIdMetadataParams{Address: a, TokenID: "5"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve.ResolveENSDomain(ctx, &web3api.ResolveENSDomainParams{Domain: "vitalik.eth"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"getContractNFTTransfers": 1, "getTokenIdMetadata": 1, "resolveENSDomain": 1, "resolveDomain": 0} {
		if got := srv.Count(name); got != want {
			t.Errorf("%s: %d requests, want %d", name, got, want)
		}
	}
}

func TestSyntheticPagingAnyEndpoint(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithItems("getNFTOwners", 250))
	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})
	ids := map[string]bool{}
	for o, err := range c.Token.GetNFTOwnersIter(context.Background(), &web3api.GetNFTOwnersParams{Address: "0x1"}) {
		if err != nil {
			t.Fatal(err)
		}
		ids[o.TokenID] = true
	}
	if len(ids) != 250 || srv.Count("getNFTOwners") != 3 {
		t.Fatalf("%d ids in %d pages", len(ids), srv.Count("getNFTOwners"))
	}
}
