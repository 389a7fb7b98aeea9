package web3api_test

// What goes on the wire, checked byte for byte against web3apitest's record of each request: the query string
// and the body exactly as the original client (moralis-v1 through axios) sent them (issue #23).

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

const (
	addrA = "0x057ec652a4f150f7ff94f089a38008f49a0df88e"
	addrB = "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2"
)

// sent returns the last request web3apitest accepted for endpoint.
func sent(t *testing.T, srv *web3apitest.Server, endpoint string) web3apitest.Request {
	t.Helper()
	r, ok := srv.LastRequest(endpoint)
	if !ok {
		t.Fatalf("no request reached %s", endpoint)
	}
	return r
}

func TestArraysGoWithBrackets(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	cases := []struct {
		endpoint string
		call     func() error
		query    string
	}{
		{"getNativeBalancesForAddresses", func() error {
			_, err := c.Account.GetNativeBalancesForAddresses(ctx, &web3api.GetNativeBalancesForAddressesParams{WalletAddresses: []string{addrA}})
			return err
		}, "wallet_addresses[]=" + addrA},
		{"getTokenBalances", func() error {
			_, err := c.Account.GetTokenBalances(ctx, &web3api.GetTokenBalancesParams{Address: addrA, TokenAddresses: []string{addrA, addrB}})
			return err
		}, "token_addresses[]=" + addrA + "&token_addresses[]=" + addrB},
		{"getTokenMetadata", func() error {
			_, err := c.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Chain: "eth", Addresses: []string{addrB}})
			return err
		}, "chain=eth&addresses[]=" + addrB},
		{"getTokenMetadataBySymbol", func() error {
			_, err := c.Token.GetTokenMetadataBySymbol(ctx, &web3api.GetTokenMetadataBySymbolParams{Symbols: []string{"LINK"}})
			return err
		}, "symbols[]=LINK"},
		{"getErc20Transfers", func() error {
			_, err := c.Token.GetErc20Transfers(ctx, &web3api.GetErc20TransfersParams{ContractAddresses: []string{addrA},
				ExcludeContracts: []string{addrB}, WalletAddresses: []string{addrA, addrB}, ExcludeWallets: []string{addrB}})
			return err
		}, "contract_addresses[]=" + addrA + "&exclude_contracts[]=" + addrB + "&wallet_addresses[]=" + addrA +
			"&wallet_addresses[]=" + addrB + "&exclude_wallets[]=" + addrB},
		{"searchNFTs", func() error {
			_, err := c.Token.SearchNFTs(ctx, &web3api.SearchNFTsParams{Q: "Pancake", Addresses: []string{addrA}})
			return err
		}, "q=Pancake&addresses[]=" + addrA},
		// An empty array sends nothing, as axios did.
		{"getNFTs", func() error {
			_, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: addrA, TokenAddresses: []string{}})
			return err
		}, ""},
	}
	for _, tc := range cases {
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.endpoint, err)
		}
		if got := sent(t, srv, tc.endpoint).RawQuery; got != tc.query {
			t.Errorf("%s: query\n %s\nwant\n %s", tc.endpoint, got, tc.query)
		}
	}
}

func TestZeroAndFalseAreSentUnsetIsNot(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()

	if _, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: addrA, Limit: new(0), DisableTotal: new(false),
		NormalizeMetadata: new(false), MediaItems: new(false)}); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(t, srv, "getNFTs").RawQuery, "limit=0&disable_total=false&normalizeMetadata=false&media_items=false"; got != want {
		t.Errorf("getNFTs query %q, want %q", got, want)
	}
	if _, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: addrA}); err != nil {
		t.Fatal(err)
	}
	if got := sent(t, srv, "getNFTs").RawQuery; got != "" {
		t.Errorf("unset parameters were sent: %q", got)
	}

	if _, err := c.Native.GetContractEvents(ctx, &web3api.GetContractEventsParams{Address: addrA, Topic: "0x1", Offset: new(0),
		FromBlock: new(0), DisableTotal: new(true)}); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(t, srv, "getContractEvents").RawQuery, "from_block=0&topic=0x1&offset=0&disable_total=true"; got != want {
		t.Errorf("getContractEvents query %q, want %q", got, want)
	}

	if _, err := c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: addrA, ToBlock: new(0)}); err != nil {
		t.Fatal(err)
	}
	if got := sent(t, srv, "getNativeBalance").RawQuery; got != "to_block=0" {
		t.Errorf("getNativeBalance query %q", got)
	}

	// In a body too.
	if _, err := c.Token.GetMultipleNFTs(ctx, &web3api.GetMultipleNFTsParams{Tokens: []web3api.NFTTokenRef{{TokenAddress: addrA, TokenID: "1"}},
		NormalizeMetadata: new(false), MediaItems: new(false)}); err != nil {
		t.Fatal(err)
	}
	want := `{"tokens":[{"token_address":"` + addrA + `","token_id":"1"}],"normalizeMetadata":false,"media_items":false}`
	if got := string(sent(t, srv, "getMultipleNFTs").Body); got != want {
		t.Errorf("getMultipleNFTs body\n %s\nwant\n %s", got, want)
	}
	if _, err := c.Token.GetMultipleNFTs(ctx, &web3api.GetMultipleNFTsParams{Tokens: []web3api.NFTTokenRef{{TokenAddress: addrA, TokenID: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := string(sent(t, srv, "getMultipleNFTs").Body), `{"tokens":[{"token_address":"`+addrA+`","token_id":"1"}]}`; got != want {
		t.Errorf("getMultipleNFTs body %s, want %s", got, want)
	}
}

func TestExtraParametersGoThrough(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()

	if _, err := c.Native.GetDateToBlock(ctx, &web3api.GetDateToBlockParams{Date: "2021-09-29T13:09:15+00:00",
		Extra: map[string]any{"providerUrl": "https://node.example/rpc?x=1&y=2"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(t, srv, "getDateToBlock").RawQuery, "date=2021-09-29T13:09:15%2B00:00&providerUrl=https:%2F%2Fnode.example%2Frpc%3Fx%3D1%26y%3D2"; got != want {
		t.Errorf("getDateToBlock query\n %s\nwant\n %s", got, want)
	}

	if _, err := c.Token.GetMultipleTokenPrices(ctx, &web3api.GetMultipleTokenPricesParams{Tokens: []web3api.TokenPriceRequest{{TokenAddress: addrB}},
		Extra: map[string]any{"include": "percent_change"}}); err != nil {
		t.Fatal(err)
	}
	r := sent(t, srv, "getMultipleTokenPrices")
	if r.RawQuery != "include=percent_change" || string(r.Body) != `{"tokens":[{"token_address":"`+addrB+`"}]}` {
		t.Errorf("getMultipleTokenPrices query %q body %s", r.RawQuery, r.Body)
	}

	if _, err := c.Account.GetNFTsForContract(ctx, &web3api.GetNFTsForContractParams{Address: addrA, TokenAddress: addrB, Limit: new(10),
		Extra: map[string]any{"normalizeMetadata": true, "media_items": false, "tags": []string{"a b"}, "nil": nil, "empty": ""}}); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(t, srv, "getNFTsForContract").RawQuery, "limit=10&media_items=false&normalizeMetadata=true&tags[]=a+b"; got != want {
		t.Errorf("getNFTsForContract query %q, want %q", got, want)
	}

	// Through Call, any name the endpoint does not know is an extra parameter.
	if err := c.Call(ctx, "getBlock", web3api.Args{"block_number_or_hash": "5", "include": "internal_transactions", "subdomain": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := sent(t, srv, "getBlock").RawQuery; got != "include=internal_transactions&subdomain=x" {
		t.Errorf("getBlock query %q", got)
	}

	// Naming a parameter of the endpoint in Extra is refused before anything is sent.
	before := srv.Count("getNFTs")
	_, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: addrA, Extra: map[string]any{"limit": 5}})
	if err == nil || err.Error() != `web3api: getNFTs: extra parameter "limit" is a parameter of the endpoint; set its field instead` {
		t.Fatalf("got %v", err)
	}
	for _, err := range c.Account.GetNFTsIter(ctx, &web3api.GetNFTsParams{Address: addrA, Extra: map[string]any{"": 1}}) {
		if err == nil || err.Error() != "web3api: getNFTs: an extra parameter has an empty name" {
			t.Fatalf("got %v", err)
		}
	}
	if _, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: addrA, Extra: map[string]any{"f": func() {}}}); err == nil ||
		!strings.HasPrefix(err.Error(), "web3api: parameter f: json: unsupported type") {
		t.Fatalf("got %v", err)
	}
	if srv.Count("getNFTs") != before {
		t.Fatal("a refused call was sent")
	}
}

func TestBodiesAsTheAPIHasThem(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()

	// tokens[].to_block is a number; unset optional fields are left out.
	if _, err := c.Token.GetMultipleTokenPrices(ctx, &web3api.GetMultipleTokenPricesParams{Tokens: []web3api.TokenPriceRequest{
		{TokenAddress: addrA, Exchange: "uniswapv3", ToBlock: new(16000000)}, {TokenAddress: addrB, ToBlock: new(0)}, {TokenAddress: addrB}}}); err != nil {
		t.Fatal(err)
	}
	want := `{"tokens":[{"token_address":"` + addrA + `","exchange":"uniswapv3","to_block":16000000},{"token_address":"` + addrB +
		`","to_block":0},{"token_address":"` + addrB + `"}]}`
	if r := sent(t, srv, "getMultipleTokenPrices"); string(r.Body) != want || r.ContentType != "application/json" {
		t.Errorf("body\n %s (%s)\nwant\n %s", r.Body, r.ContentType, want)
	}

	// uploadFolder's content is any JSON value.
	if _, err := c.Storage.UploadFolder(ctx, &web3api.UploadFolderParams{Data: []web3api.IPFSFileInput{
		{Path: "meta/1.json", Content: map[string]any{"name": "<One & Only>", "edition": 1}}, {Path: "logo.png", Content: "aGVsbG8="}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := string(sent(t, srv, "uploadFolder").Body), `[{"path":"meta/1.json","content":{"edition":1,"name":"<One & Only>"}},{"path":"logo.png","content":"aGVsbG8="}]`; got != want {
		t.Errorf("uploadFolder body\n %s\nwant\n %s", got, want)
	}

	// A POST whose body parameter is absent sends {} as JSON.
	if _, err := c.Storage.UploadFolder(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if r := sent(t, srv, "uploadFolder"); string(r.Body) != "{}" || r.ContentType != "application/json" {
		t.Errorf("uploadFolder without data: body %q (%s)", r.Body, r.ContentType)
	}
	if _, err := c.Native.GetContractEvents(ctx, &web3api.GetContractEventsParams{Address: addrA, Topic: "0x1"}); err != nil {
		t.Fatal(err)
	}
	if r := sent(t, srv, "getContractEvents"); string(r.Body) != "{}" || r.ContentType != "application/json" {
		t.Errorf("getContractEvents without data: body %q (%s)", r.Body, r.ContentType)
	}

	// contract_type is left out when unset.
	if _, err := c.Utils.ReviewContracts(ctx, &web3api.ReviewContractsParams{Contracts: []web3api.ContractReview{
		{ContractAddress: addrA, Reason: "spam", ReportType: "spam"}, {ContractAddress: addrB, Reason: "ok", ReportType: "not_spam", ContractType: "NFT"}}}); err != nil {
		t.Fatal(err)
	}
	want = `{"contracts":[{"contract_address":"` + addrA + `","reason":"spam","report_type":"spam"},{"contract_address":"` + addrB +
		`","reason":"ok","report_type":"not_spam","contract_type":"NFT"}]}`
	if got := string(sent(t, srv, "reviewContracts").Body); got != want {
		t.Errorf("reviewContracts body\n %s\nwant\n %s", got, want)
	}

	// Body fields in reference order; a GET has no body and no Content-Type.
	abi := json.RawMessage(`[{"type":"function","name":"balanceOf","inputs":[{"name":"owner","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"}]`)
	if _, err := c.Native.RunContractFunction(ctx, &web3api.RunContractFunctionParams{Address: addrB, FunctionName: "balanceOf", ABI: abi,
		Params: map[string]any{"owner": addrA}}); err != nil {
		t.Fatal(err)
	}
	if got, want := string(sent(t, srv, "runContractFunction").Body), `{"abi":`+string(abi)+`,"params":{"owner":"`+addrA+`"}}`; got != want {
		t.Errorf("runContractFunction body\n %s\nwant\n %s", got, want)
	}
	if _, err := c.Info.Web3ApiVersion(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if r := sent(t, srv, "web3ApiVersion"); len(r.Body) != 0 || r.ContentType != "" {
		t.Errorf("GET sent body %q (%s)", r.Body, r.ContentType)
	}
}

// queryLog records the query string of every request made through it.
type queryLog struct {
	mu      sync.Mutex
	queries []string
}

func (l *queryLog) client() *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.queries = append(l.queries, r.URL.RawQuery)
		l.mu.Unlock()
		return http.DefaultTransport.RoundTrip(r)
	})}
}

func (l *queryLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.Join(l.queries, " | ")
	l.queries = nil
	return s
}

// An answer with page, page_size and total and no cursor is followed by offset, on endpoints that list no
// offset parameter too.
func TestOffsetPagingOnEveryPagedEndpoint(t *testing.T) {
	srv := web3apitest.NewServer(t, web3apitest.WithItems("getTransactions", 250), web3apitest.WithOffsetPaging("getTransactions"),
		web3apitest.WithItems("getErc20Transfers", 120), web3apitest.WithOffsetPaging("getErc20Transfers"))
	var log queryLog
	c := newClient(t, srv, func(cfg *web3api.Config) { cfg.HTTPClient = log.client() })
	ctx := context.Background()

	n := 0
	for _, err := range c.Account.GetTransactionsIter(ctx, &web3api.GetTransactionsParams{Address: addrA, Limit: new(100)}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if got, want := log.take(), "limit=100 | limit=100&offset=100 | limit=100&offset=200"; n != 250 || got != want {
		t.Errorf("%d items; queries\n %s\nwant\n %s", n, got, want)
	}

	n = 0
	// 120 = 3 x 40: the third page is the last, asked for by nothing more.
	for _, err := range c.Token.GetErc20TransfersIter(ctx, &web3api.GetErc20TransfersParams{Limit: new(40), WalletAddresses: []string{addrA}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if got, want := log.take(), "limit=40&wallet_addresses[]="+addrA+" | limit=40&wallet_addresses[]="+addrA+"&offset=40 | limit=40&wallet_addresses[]="+addrA+"&offset=80"; n != 120 || got != want {
		t.Errorf("%d items; queries\n %s\nwant\n %s", n, got, want)
	}
}

// Without a limit the next offset is (page+1) x 500; the walk ends when total <= page_size x (page+1), and an
// API that ignores the offset is caught instead of looped on.
func TestOffsetPagingRule(t *testing.T) {
	var offsets []string
	var mu sync.Mutex
	ignore := atomic.Bool{}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		off := r.URL.Query().Get("offset")
		mu.Lock()
		offsets = append(offsets, off)
		mu.Unlock()
		o, _ := strconv.Atoi(off)
		if ignore.Load() {
			o = 0
		}
		// The hosted API's pages: 500 items by default, total 1201.
		page, size, total := o/500, 500, 1201
		var items []map[string]any
		for i := o; i < min(o+size, total); i++ {
			items = append(items, map[string]any{"hash": strconv.Itoa(i)})
		}
		json.NewEncoder(w).Encode(map[string]any{"total": total, "page": page, "page_size": size, "result": items})
	}))
	defer api.Close()
	c, _ := web3api.New(web3api.Config{APIKey: "k", BaseURL: api.URL})
	seen := map[string]bool{}
	for tx, err := range c.Account.GetTransactionsIter(context.Background(), &web3api.GetTransactionsParams{Address: addrA}) {
		if err != nil {
			t.Fatal(err)
		}
		seen[tx.Hash] = true
	}
	if got := strings.Join(offsets, ","); len(seen) != 1201 || got != ",500,1000" {
		t.Fatalf("%d items, offsets %q", len(seen), got)
	}

	ignore.Store(true)
	offsets = nil
	var errs []error
	for _, err := range c.Account.GetTransactionsIter(context.Background(), &web3api.GetTransactionsParams{Address: addrA}) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], web3api.ErrPageRepeated) || strings.Join(offsets, ",") != ",500" {
		t.Fatalf("errors %v, offsets %q", errs, offsets)
	}
}

// The next offset comes from the limit asked for, not from the page_size answered (the original's next()).
func TestOffsetFromLimit(t *testing.T) {
	var log queryLog
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		// An API that reports a page_size of 100 whatever the limit.
		io.WriteString(w, `{"total":500,"page":`+strconv.Itoa(o/300)+`,"page_size":100,"result":[{"hash":"`+strconv.Itoa(o)+`"}]}`)
	}))
	defer api.Close()
	c, _ := web3api.New(web3api.Config{APIKey: "k", BaseURL: api.URL, HTTPClient: log.client()})
	for _, err := range c.Account.GetTransactionsIter(context.Background(), &web3api.GetTransactionsParams{Address: addrA, Limit: new(300)}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	// 500 > 100 x 1, 100 x 2, 100 x 3, 100 x 4; then page 4 (offset 1200): 500 <= 100 x 5.
	if got, want := log.take(), "limit=300 | limit=300&offset=300 | limit=300&offset=600 | limit=300&offset=900 | limit=300&offset=1200"; got != want {
		t.Fatalf("queries\n %s\nwant\n %s", got, want)
	}
}

// An answer without a page number, or whose page_size or total is absent, null or 0, or with no items, is the
// last: one request only.
func TestOffsetPagingNeedsPageFields(t *testing.T) {
	for _, body := range []string{
		`{"total":1000,"page_size":100,"result":[{"hash":"1"}]}`,
		`{"total":1000,"page":0,"result":[{"hash":"1"}]}`,
		`{"total":1000,"page":0,"page_size":0,"result":[{"hash":"1"}]}`,
		`{"total":null,"page":0,"page_size":100,"result":[{"hash":"1"}]}`,
		`{"total":0,"page":0,"page_size":100,"result":[{"hash":"1"}]}`,
		`{"page":0,"page_size":100,"result":[{"hash":"1"}]}`,
		`{"total":1000,"page":0,"page_size":100,"result":[]}`,
		`{"total":1000,"page":0,"page_size":100,"cursor":"","result":[{"hash":"1"}]}`,
	} {
		var requests atomic.Int32
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			io.WriteString(w, body)
		}))
		c, _ := web3api.New(web3api.Config{APIKey: "k", BaseURL: api.URL})
		for _, err := range c.Account.GetTransactionsIter(context.Background(), &web3api.GetTransactionsParams{Address: addrA}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		api.Close()
		if requests.Load() != 1 {
			t.Errorf("%s: %d requests", body, requests.Load())
		}
	}
}

func TestErrorTextsAsTheOriginal(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	p := &web3api.GetBlockParams{BlockNumberOrHash: "1"}
	const rl = "This Moralis Server is rate-limited because of the plan restrictions. See the details about the current rate and throttle limits: "
	for _, tc := range []struct {
		headers map[string]string
		want    string
	}{
		{nil, rl + "{}"},
		{map[string]string{"x-rate-limit-ip-used": "3", "x-rate-limit-limit": "25"}, rl + `{"x-rate-limit-limit":"25","x-rate-limit-ip-used":"3"}`},
		{map[string]string{"x-rate-limit-used": `say "hi"\now`}, rl + `{"x-rate-limit-used":"say \"hi\"\\now"}`},
	} {
		srv.SetRateLimit("getBlock", "", tc.headers)
		if _, err := c.Native.GetBlock(ctx, p); err == nil || err.Error() != tc.want {
			t.Errorf("got\n %v\nwant\n %s", err, tc.want)
		}
	}
	srv.SetFailure("getBlock", 503, `<html>busy</html>`)
	if _, err := c.Native.GetBlock(ctx, p); err == nil || err.Error() != "Request failed with status code 503" {
		t.Errorf("got %v", err)
	}
}

// The no-key fallback: a function error without an "error" field reads as the HTTP library's text.
func TestFunctionErrorTexts(t *testing.T) {
	var status atomic.Int32
	var body atomic.Value
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(int(status.Load()))
		io.WriteString(w, body.Load().(string))
	}))
	defer backend.Close()
	c, err := web3api.New(web3api.Config{ServerURL: backend.URL, AppID: "app", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"code":141,"error":"Invalid address"}`, "Invalid address"},
		{400, `{"code":141,"message":"not the error field"}`, "Request failed with status code 400"},
		{502, `Bad Gateway`, "Request failed with status code 502"},
		{404, `{"error":""}`, "Request failed with status code 404"},
		{429, `{"error":"Too many requests"}`, "Too many requests"},
	} {
		status.Store(int32(tc.status))
		body.Store(tc.body)
		_, err := c.Account.GetNativeBalance(context.Background(), &web3api.GetNativeBalanceParams{Address: addrA})
		var fe *web3api.FunctionError
		if !errors.As(err, &fe) || err.Error() != tc.want || fe.Status != tc.status || fe.Function != "getNativeBalance" {
			t.Errorf("%d %s: got %v", tc.status, tc.body, err)
		}
	}
}

func TestDefaultAddressHook(t *testing.T) {
	srv := web3apitest.NewServer(t)
	var asked atomic.Int32
	user := atomic.Value{}
	user.Store(addrA)
	var hookErr atomic.Value
	c := newClient(t, srv, func(cfg *web3api.Config) {
		cfg.DefaultAddress = func(ctx context.Context) (string, error) {
			asked.Add(1)
			if e, _ := hookErr.Load().(error); e != nil {
				return "", e
			}
			return user.Load().(string), nil
		}
	})
	ctx := context.Background()

	// An endpoint with an address parameter left empty takes the hook's address.
	if _, err := c.Account.GetNativeBalance(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if r := sent(t, srv, "getNativeBalance"); r.Path != "/"+addrA+"/balance" || asked.Load() != 1 {
		t.Fatalf("path %s, asked %d", r.Path, asked.Load())
	}
	// A given address wins and the hook is not asked.
	if _, err := c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: addrB}); err != nil {
		t.Fatal(err)
	}
	if r := sent(t, srv, "getNativeBalance"); r.Path != "/"+addrB+"/balance" || asked.Load() != 1 {
		t.Fatalf("path %s, asked %d", r.Path, asked.Load())
	}
	// An endpoint without an address parameter never gets one.
	if _, err := c.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Addresses: []string{addrB}}); err != nil {
		t.Fatal(err)
	}
	if r := sent(t, srv, "getTokenMetadata"); r.RawQuery != "addresses[]="+addrB || asked.Load() != 1 {
		t.Fatalf("query %s, asked %d", r.RawQuery, asked.Load())
	}
	// No current user: the address stays missing.
	user.Store("")
	if _, err := c.Account.GetNativeBalance(ctx, nil); err == nil || err.Error() != "required param address not provided" {
		t.Fatalf("got %v", err)
	}
	// The hook's error fails the call before anything is sent.
	before := srv.Count("getNativeBalance")
	hookErr.Store(errors.New("no session"))
	_, err := c.Account.GetNativeBalance(ctx, nil)
	if err == nil || err.Error() != "web3api: getNativeBalance: default address: no session" || srv.Count("getNativeBalance") != before {
		t.Fatalf("got %v", err)
	}
}

// The no-key fallback sends the hook's session token (none when it answers ""), the default address, explicit
// zeros and extra parameters.
func TestSessionTokenHookAndBackendParams(t *testing.T) {
	var mu sync.Mutex
	var got map[string]any
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		got = m
		mu.Unlock()
		io.WriteString(w, `{"result":{"balance":"1"}}`)
	}))
	defer backend.Close()
	tok := atomic.Value{}
	tok.Store("r:user1")
	c, err := web3api.New(web3api.Config{ServerURL: backend.URL, AppID: "app",
		SessionToken:   func(context.Context) string { return tok.Load().(string) },
		DefaultAddress: func(context.Context) (string, error) { return addrA, nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	last := func() map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	if _, err := c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{ToBlock: new(0), Extra: map[string]any{"providerUrl": "u"}}); err != nil {
		t.Fatal(err)
	}
	b := last()
	for k, v := range map[string]any{"_SessionToken": "r:user1", "address": addrA, "to_block": 0.0, "providerUrl": "u", "chain": "eth", "_ApplicationId": "app"} {
		if b[k] != v {
			t.Errorf("%s = %v, want %v", k, b[k], v)
		}
	}
	tok.Store("")
	if _, err := c.Account.GetNativeBalance(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, has := last()["_SessionToken"]; has {
		t.Fatal("an empty session token was sent")
	}
	// WithSessionToken overrides the hook in a copy.
	if _, err := c.WithSessionToken("r:fixed").Account.GetNativeBalance(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if last()["_SessionToken"] != "r:fixed" {
		t.Fatalf("body %v", last())
	}
}

func TestNewValidatesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		cfg  web3api.Config
		want string
	}{
		{web3api.Config{ServerURL: "http://127.0.0.1:1337/parse"}, "web3api: Config.AppID is required with Config.ServerURL"},
		{web3api.Config{ServerURL: "ftp://x", AppID: "a"}, `web3api: Config.ServerURL must be an absolute http:// or https:// URL, got "ftp://x"`},
		{web3api.Config{ServerURL: "127.0.0.1:1337/parse", AppID: "a"}, "web3api: Config.ServerURL is not a valid absolute http:// or https:// URL"},
		{web3api.Config{ServerURL: "http://u:secret@host name/parse", AppID: "a"}, "web3api: Config.ServerURL is not a valid absolute http:// or https:// URL"},
		{web3api.Config{APIKey: "k", BaseURL: "https://user:pw@example.com/api"}, ""},
		{web3api.Config{APIKey: "k", BaseURL: "https://example.com/api?x=1"}, `web3api: Config.BaseURL must not have a query or a fragment, got "https://example.com/api?x=1"`},
		{web3api.Config{APIKey: "k", BaseURL: "//example.com"}, `web3api: Config.BaseURL must be an absolute http:// or https:// URL, got "//example.com"`},
		{web3api.Config{APIKey: "k", BaseURL: "ftp://user:pw@example.com"}, `web3api: Config.BaseURL must be an absolute http:// or https:// URL, got "ftp://user:xxxxx@example.com"`},
		{web3api.Config{APIKey: "k\r\nX-Evil: 1"}, "web3api: Config.APIKey holds characters that cannot be sent in an HTTP header"},
		{web3api.Config{APIKey: "k", MaxAttempts: -2}, "web3api: Config.MaxAttempts must be 0 (the default, 5) or more, got -2"},
		{web3api.Config{APIKey: "k", ServerURL: "http://x"}, "web3api: Config.AppID is required with Config.ServerURL"},
	} {
		_, err := web3api.New(tc.cfg)
		if (err == nil) != (tc.want == "") || (err != nil && err.Error() != tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// New copies the Config: changing it afterwards changes nothing.
func TestNewCopiesConfig(t *testing.T) {
	srv := web3apitest.NewServer(t)
	cfg := web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL + "/"}
	c, err := web3api.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL, cfg.APIKey = "http://127.0.0.1:1", "other"
	if _, err := c.Info.Web3ApiVersion(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if srv.Count("web3ApiVersion") != 1 {
		t.Fatal("the request did not reach the server given to New")
	}
}

// A Client that New did not make refuses every call with ErrNotInitialized, copies included; nothing panics.
func TestUninitializedClients(t *testing.T) {
	ctx := context.Background()
	var zero web3api.Client
	var nilClient *web3api.Client
	for _, c := range []*web3api.Client{&zero, zero.WithSessionToken("t"), nilClient.WithSessionToken("t")} {
		if _, err := c.Info.Web3ApiVersion(ctx, nil); !errors.Is(err, web3api.ErrNotInitialized) {
			t.Errorf("got %v", err)
		}
		if err := c.Call(ctx, "web3ApiVersion", nil, nil); !errors.Is(err, web3api.ErrNotInitialized) {
			t.Errorf("got %v", err)
		}
		for _, err := range c.Account.GetNFTsIter(ctx, &web3api.GetNFTsParams{Address: addrA}) {
			if !errors.Is(err, web3api.ErrNotInitialized) {
				t.Errorf("got %v", err)
			}
		}
	}
	if err := nilClient.Call(ctx, "web3ApiVersion", nil, nil); !errors.Is(err, web3api.ErrNotInitialized) {
		t.Errorf("got %v", err)
	}
}
