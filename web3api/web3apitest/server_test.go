package web3apitest_test

import (
	"context"
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
		{"GET", "/0x057ec652a4f150f7ff94f089a38008f49a0df88e/balance?colour=red", "", "", 400, `unknown query parameter "colour"`},
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
	// A valid request is not reported; /api/v2 prefix is accepted.
	req, _ := http.NewRequest("GET", srv.URL+"/api/v2/erc20/metadata?chain=eth&addresses=0x1&addresses=0x2", nil)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || len(rec.take()) != 0 {
		t.Fatalf("valid request: status %d", resp.StatusCode)
	}
}

func TestServerMatchesMostSpecificPath(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c, _ := web3api.New(web3api.WithAPIKey(srv.APIKey), web3api.WithBaseURL(srv.URL))
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
	c, _ := web3api.New(web3api.WithAPIKey(srv.APIKey), web3api.WithBaseURL(srv.URL))
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
