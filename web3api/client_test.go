package web3api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

const secretKey = "sk-very-secret-123"

// newClient makes a client of srv without retries; edit, when set, changes the Config first.
func newClient(t *testing.T, srv *web3apitest.Server, edit ...func(*web3api.Config)) *web3api.Client {
	t.Helper()
	cfg := web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL, MaxAttempts: 1}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := web3api.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewNeedsKeyOrServer(t *testing.T) {
	_, err := web3api.New(web3api.Config{})
	if err == nil || err.Error() != "Web3Api.initialize failed: initialize with apiKey or serverUrl" {
		t.Fatalf("got %v", err)
	}
	var zero web3api.Client
	err = zero.Call(context.Background(), "getBlock", web3api.Args{"block_number_or_hash": "1"}, nil)
	if err == nil || err.Error() != "Web3Api not initialized, run Moralis.start() first" {
		t.Fatalf("got %v", err)
	}
}

func TestMissingParams(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	_, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{})
	if err == nil || err.Error() != "required param address not provided" {
		t.Fatalf("got %v", err)
	}
	_, err = c.DeFi.GetPairAddress(ctx, &web3api.GetPairAddressParams{Token0Address: "0x1"})
	if err == nil || err.Error() != "required param token1_address not provided" {
		t.Fatalf("got %v", err)
	}
	_, err = c.Native.RunContractFunction(ctx, &web3api.RunContractFunctionParams{Address: "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2", FunctionName: "name"})
	if err == nil || err.Error() != "param abi is required!" {
		t.Fatalf("got %v", err)
	}
	_, err = c.Token.GetMultipleTokenPrices(ctx, nil)
	if err == nil || err.Error() != "param tokens is required!" {
		t.Fatalf("got %v", err)
	}
	if n := srv.Count("getNFTs") + srv.Count("runContractFunction"); n != 0 {
		t.Fatalf("%d requests were sent for invalid calls", n)
	}
}

func TestDefaultAddress(t *testing.T) {
	srv := web3apitest.NewServer(t)
	var seen atomic.Value
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen.Store(r.URL.Path)
		return http.DefaultTransport.RoundTrip(r)
	})}
	user := ""
	c := newClient(t, srv, func(cfg *web3api.Config) {
		cfg.HTTPClient = hc
		cfg.DefaultAddress = func(context.Context) (string, error) {
			if user != "" {
				return user, nil
			}
			return "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", nil
		}
	})
	if _, err := c.Account.GetNativeBalance(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got != "/0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/balance" {
		t.Fatalf("path %v", got)
	}
	user = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	if _, err := c.Account.GetNativeBalance(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got != "/"+user+"/balance" {
		t.Fatalf("path %v", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRateLimit(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithAPIKey(secretKey))
	srv.SetRateLimit("getNativeBalance", "7", map[string]string{
		"x-rate-limit-limit": "25", "x-rate-limit-remaining-ttl": "1", "x-rate-limit-used": "26",
		"x-rate-limit-remaining-ip-ttl": "2", "x-rate-limit-ip-used": "30",
	})
	c := newClient(t, srv)
	_, err := c.Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{Address: "0x057ec652a4f150f7ff94f089a38008f49a0df88e"})
	var rl *web3api.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("got %T %v", err, err)
	}
	if rl.RetryAfter != 7*time.Second || rl.Headers["x-rate-limit-used"] != "26" {
		t.Fatalf("got %+v", rl)
	}
	msg := err.Error()
	want := `This Moralis Server is rate-limited because of the plan restrictions. See the details about the current rate and throttle limits: ` +
		`{"x-rate-limit-limit":"25","x-rate-limit-remaining-ttl":"1","x-rate-limit-used":"26","x-rate-limit-remaining-ip-ttl":"2","x-rate-limit-ip-used":"30"}`
	if msg != want {
		t.Errorf("message\n %s\nwant\n %s", msg, want)
	}
	if strings.Contains(msg, secretKey) {
		t.Fatal("key leaked into the error")
	}
	if srv.Count("getNativeBalance") != 1 {
		t.Fatalf("429 was retried: %d requests", srv.Count("getNativeBalance"))
	}
}

func TestErrorBodies(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithAPIKey(secretKey))
	c := newClient(t, srv)
	ctx := context.Background()
	p := &web3api.GetBlockParams{BlockNumberOrHash: "5"}

	srv.SetFailure("getBlock", 400, `{"message":"Invalid block number"}`)
	_, err := c.Native.GetBlock(ctx, p)
	var ae *web3api.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || err.Error() != "Invalid block number" {
		t.Fatalf("got %v", err)
	}

	// No message: the original's HTTP library's text.
	for _, body := range []string{`not json`, `{}`, `{"message":""}`, `{"message":null}`, `{"error":"x"}`, ``} {
		srv.SetFailure("getBlock", 404, body)
		_, err = c.Native.GetBlock(ctx, p)
		if !errors.As(err, &ae) || ae.Status != 404 || err.Error() != "Request failed with status code 404" {
			t.Fatalf("body %q: got %v", body, err)
		}
	}
	srv.SetFailure("getBlock", 502, `{"message":["bad","gateway"]}`)
	if _, err = c.Native.GetBlock(ctx, p); err == nil || err.Error() != `["bad","gateway"]` {
		t.Fatalf("got %v", err)
	}

	// No answer at all: the transport's message, without the key.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c2, _ := web3api.New(web3api.Config{APIKey: secretKey, BaseURL: dead.URL, MaxAttempts: 2})
	_, err = c2.Native.GetBlock(ctx, p)
	if !errors.As(err, &ae) || ae.Status != 0 || !strings.Contains(err.Error(), "attempt") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), secretKey) {
		t.Fatal("key leaked")
	}
}

func TestIterWalksTenThousand(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithItems("getTokenTransfers", 10000))
	c := newClient(t, srv)
	p := &web3api.GetTokenTransfersParams{Address: "0x057ec652a4f150f7ff94f089a38008f49a0df88e", Limit: new(100)}
	seen := map[string]bool{}
	for tr, err := range c.Account.GetTokenTransfersIter(context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[tr.TransactionHash] {
			t.Fatalf("item %s twice", tr.TransactionHash)
		}
		seen[tr.TransactionHash] = true
	}
	if len(seen) != 10000 {
		t.Fatalf("walked %d items", len(seen))
	}
	if got := srv.Count("getTokenTransfers"); got != 100 {
		t.Fatalf("%d pages fetched, want 100", got)
	}
	if p.Cursor != "" || *p.Limit != 100 || p.Extra != nil {
		t.Fatalf("caller's params changed: %+v", p)
	}
}

func TestIterStopsEarlyAndOnContext(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithItems("getNFTTransfers", 1000))
	c := newClient(t, srv)
	p := &web3api.GetNFTTransfersParams{Address: "0x057ec652a4f150f7ff94f089a38008f49a0df88e", Limit: new(10)}
	n := 0
	for range c.Account.GetNFTTransfersIter(context.Background(), p) {
		n++
		if n == 25 {
			break
		}
	}
	if srv.Count("getNFTTransfers") != 3 {
		t.Fatalf("%d pages for 25 items", srv.Count("getNFTTransfers"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n = 0
	for _, err := range c.Account.GetNFTTransfersIter(ctx, p) {
		if err != nil {
			last = err
			break
		}
		n++
		if n == 15 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("got %v after %d items", last, n)
	}
}

func TestIterRefusesRepeatedCursor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"cursor":"same","result":[{"transaction_hash":"0x1"}]}`)
	}))
	defer srv.Close()
	c, _ := web3api.New(web3api.Config{APIKey: "k", BaseURL: srv.URL})
	var errs []error
	n := 0
	for _, err := range c.Account.GetTokenTransfersIter(context.Background(), &web3api.GetTokenTransfersParams{Address: "0x1"}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if len(errs) != 1 || !errors.Is(errs[0], web3api.ErrCursorRepeated) || n != 2 {
		t.Fatalf("errs %v after %d items", errs, n)
	}
}

func TestIterOffsetPaging(t *testing.T) {
	var offsets []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		off := r.URL.Query().Get("offset")
		offsets = append(offsets, off)
		page := map[string]string{"": "0", "2": "1", "4": "2"}[off]
		json.NewEncoder(w).Encode(map[string]any{"total": 5, "page": json.Number(page), "page_size": 2,
			"result": []map[string]any{{"transaction_hash": "0x" + off}}})
	}))
	defer srv.Close()
	c, _ := web3api.New(web3api.Config{APIKey: "k", BaseURL: srv.URL})
	n := 0
	for _, err := range c.Native.GetContractEventsIter(context.Background(), &web3api.GetContractEventsParams{
		Address: "0x1", Topic: "0x2", Limit: new(2), Data: map[string]any{"name": "Transfer"}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if strings.Join(offsets, ",") != ",2,4" || n != 3 {
		t.Fatalf("offsets %q, %d items", offsets, n)
	}
}

func TestBackendFunctions(t *testing.T) {
	var got map[string]any
	var ctype, path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, ctype = r.URL.Path, r.Header.Get("Content-Type")
		b, _ := io.ReadAll(r.Body)
		got = nil
		json.Unmarshal(b, &got)
		if got["address"] == "0xbad" {
			w.WriteHeader(400)
			io.WriteString(w, `{"code":141,"error":"Invalid address"}`)
			return
		}
		io.WriteString(w, `{"result":{"balance":"1234567890123456789012"}}`)
	}))
	defer srv.Close()
	c, err := web3api.New(web3api.Config{ServerURL: srv.URL + "/parse", AppID: "app1", JavaScriptKey: "js1",
		SessionToken: func(context.Context) string { return "r:tok" }, InstallationID: "inst-1"})
	if err != nil {
		t.Fatal(err)
	}
	bal, err := c.Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{Address: "0xabc", ToBlock: new(7)})
	if err != nil {
		t.Fatal(err)
	}
	if bal.Balance != "1234567890123456789012" {
		t.Fatalf("balance %q", bal.Balance)
	}
	if path != "/parse/functions/getNativeBalance" || ctype != "text/plain" {
		t.Fatalf("path %q content type %q", path, ctype)
	}
	want := map[string]any{"address": "0xabc", "to_block": float64(7), "chain": "eth", "_ApplicationId": "app1",
		"_JavaScriptKey": "js1", "_SessionToken": "r:tok", "_ClientVersion": "go1.5.5", "_InstallationId": "inst-1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("body %s = %v, want %v", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("body has extra fields: %v", got)
	}
	// Per-user copy.
	if _, err := c.WithSessionToken("r:other").Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{Address: "0xabc", Chain: "polygon"}); err != nil {
		t.Fatal(err)
	}
	if got["_SessionToken"] != "r:other" || got["chain"] != "polygon" {
		t.Fatalf("body %v", got)
	}
	_, err = c.Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{Address: "0xbad"})
	var fe *web3api.FunctionError
	if !errors.As(err, &fe) || err.Error() != "Invalid address" || fe.Code != 141 {
		t.Fatalf("got %v", err)
	}
	// Missing path parameters are caught before the backend is asked.
	if _, err := c.Native.GetBlock(context.Background(), nil); err == nil || err.Error() != "required param block_number_or_hash not provided" {
		t.Fatalf("got %v", err)
	}
}

func TestFetchKeys(t *testing.T) {
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != web3api.KeysPath || r.Header.Get(web3api.SecretHeader) != "s3cret" {
			w.WriteHeader(401)
			return
		}
		io.WriteString(w, `{"result":{"web3ApiKey":"wk","speedyNodeApiKey":"sk"}}`)
	}))
	defer admin.Close()
	ctx := context.Background()
	k, err := web3api.FetchKeys(ctx, "s3cret", &web3api.KeysOptions{AdminURL: admin.URL})
	if err != nil || k.Web3APIKey != "wk" || k.SpeedyNodeKey != "sk" {
		t.Fatalf("%+v %v", k, err)
	}
	_, err = web3api.FetchKeys(ctx, "wrong", &web3api.KeysOptions{AdminURL: admin.URL})
	if err == nil || err.Error() != "Could not fetch keys with moralisSecret" {
		t.Fatalf("got %v", err)
	}
}

func TestRawAndCall(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	var v map[string]any
	if err := c.Raw(context.Background(), "get", "/web3/version", url.Values{}, nil, &v); err != nil {
		t.Fatal(err)
	}
	if v["version"] == nil {
		t.Fatalf("got %v", v)
	}
	var blk web3api.Block
	if err := c.Call(context.Background(), "getBlock", web3api.Args{"block_number_or_hash": "12386788", "chain": "eth"}, &blk); err != nil {
		t.Fatal(err)
	}
	if blk.Hash == "" || len(blk.Transactions) == 0 {
		t.Fatalf("block %+v", blk)
	}
	if err := c.Call(context.Background(), "noSuch", nil, nil); err == nil {
		t.Fatal("unknown endpoint accepted")
	}
	if n := len(web3api.Endpoints()); n != 56 {
		t.Fatalf("%d endpoints", n)
	}
}

func TestNumbersWhereStringsAreDocumented(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"cursor":"","result":[{"block_number":12526958,"value":650000000000000000000000,"transaction_hash":"0x1"}],"total":1}`)
	}))
	defer srv.Close()
	c, _ := web3api.New(web3api.Config{APIKey: "k", BaseURL: srv.URL})
	res, err := c.Account.GetTransactions(context.Background(), &web3api.GetTransactionsParams{Address: "0x1"})
	if err != nil {
		t.Fatal(err)
	}
	if tx := res.Result[0]; tx.BlockNumber != "12526958" || tx.Value != "650000000000000000000000" || res.Total != 1 {
		t.Fatalf("%+v", res)
	}
}
