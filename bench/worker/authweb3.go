package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

type fixture struct {
	Eth []struct{ Address, Message, Signature string } `json:"eth"`
	Sol []struct{ Address, Message, Signature string } `json:"sol"`
}

func loadFixture(path string) (fixture, error) {
	var fx fixture
	b, err := os.ReadFile(path)
	if err != nil {
		return fx, err
	}
	return fx, json.Unmarshal(b, &fx)
}

func init() {
	register("verify-eth", "go", func(ctx context.Context, e env) (result, error) {
		fx, err := loadFixture(e.fixture)
		if err != nil {
			return result{}, err
		}
		start := time.Now()
		ok := 0
		for i := 0; i < e.n; i++ {
			v := fx.Eth[i%len(fx.Eth)]
			if auth.VerifyEthSignature(v.Address, []byte(v.Message), v.Signature) == nil {
				ok++
			}
		}
		return result{MS: since(start), N: e.n, Check: ok}, nil
	})
	register("verify-sol", "go", func(ctx context.Context, e env) (result, error) {
		fx, err := loadFixture(e.fixture)
		if err != nil {
			return result{}, err
		}
		start := time.Now()
		ok := 0
		for i := 0; i < e.n; i++ {
			v := fx.Sol[i%len(fx.Sol)]
			if auth.VerifySolSignature(v.Address, []byte(v.Message), v.Signature) == nil {
				ok++
			}
		}
		return result{MS: since(start), N: e.n, Check: ok}, nil
	})
	// signin-endpoint: n wallet sign-ins through the Go endpoint over the real backend (message, sign, verify,
	// login).
	register("signin-endpoint", "go", func(ctx context.Context, e env) (result, error) {
		// The master key issues the one-time ticket each sign-in hands the backend (auth.IssueTicket).
		backend, err := authserver.NewClientBackend(authserver.BackendConfig{Client: client.Config{ServerURL: e.server, AppID: e.appID,
			JavaScriptKey: e.jsKey, MasterKey: e.master}})
		if err != nil {
			return result{}, err
		}
		// One load generator on one address: the per-client limits (on by default) would only measure themselves.
		h, err := authserver.NewHandler(backend, authserver.Config{AppID: e.appID, Domain: "127.0.0.1", URI: "http://127.0.0.1/", ChainID: 1,
			RateLimit: authserver.NoRateLimit, SignInRateLimit: authserver.NoRateLimit, NoncesPerClient: -1})
		if err != nil {
			return result{}, err
		}
		srv := httptest.NewServer(h)
		defer srv.Close()
		signers := make([]*signer.Key, e.n)
		for i := range signers {
			if signers[i], err = signer.GenerateKey(); err != nil {
				return result{}, err
			}
		}
		hc := &http.Client{}
		start := time.Now()
		ok := 0
		for _, s := range signers {
			resp, err := hc.Get(srv.URL + "/message?chain=evm&address=" + url.QueryEscape(strings.ToLower(s.Address().Hex())))
			if err != nil {
				return result{}, err
			}
			var m struct{ Message string }
			err = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if err != nil {
				return result{}, err
			}
			sig, err := s.SignMessage(ctx, []byte(m.Message))
			if err != nil {
				return result{}, err
			}
			body, _ := json.Marshal(map[string]string{"chain": "evm", "address": strings.ToLower(s.Address().Hex()), "message": m.Message, "signature": fmt.Sprintf("0x%x", sig)})
			resp, err = hc.Post(srv.URL+"/signin", "application/json", bytes.NewReader(body))
			if err != nil {
				return result{}, err
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return result{}, fmt.Errorf("signin answered %d", resp.StatusCode)
			}
			ok++
		}
		return result{MS: since(start), N: e.n, Check: ok}, nil
	})
	web3 := func(raw bool) func(ctx context.Context, e env) (result, error) {
		return func(ctx context.Context, e env) (result, error) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return result{}, err
			}
			h := web3apitest.NewHandler(web3apitest.WithAPIKey("bench-key"), web3apitest.WithItems("getTransactions", e.n))
			srv := &http.Server{Handler: h}
			go srv.Serve(ln)
			defer srv.Close()
			base := "http://" + ln.Addr().String()
			addr := "0x057ec652a4f150f7ff94f089a38008f49a0df88e"
			start := time.Now()
			count := 0
			if raw {
				hc := &http.Client{}
				cursor := ""
				for {
					u := base + "/" + addr + "?chain=eth&limit=100"
					if cursor != "" {
						u += "&cursor=" + url.QueryEscape(cursor)
					}
					req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
					req.Header.Set("x-api-key", "bench-key")
					resp, err := hc.Do(req)
					if err != nil {
						return result{}, err
					}
					var page struct {
						Result []json.RawMessage `json:"result"`
						Cursor string            `json:"cursor"`
					}
					err = json.NewDecoder(resp.Body).Decode(&page)
					resp.Body.Close()
					if err != nil {
						return result{}, err
					}
					count += len(page.Result)
					if page.Cursor == "" || len(page.Result) == 0 {
						break
					}
					cursor = page.Cursor
				}
			} else {
				c, err := web3api.New(web3api.Config{APIKey: "bench-key", BaseURL: base})
				if err != nil {
					return result{}, err
				}
				for _, err := range c.Account.GetTransactionsIter(ctx, &web3api.GetTransactionsParams{Address: addr, Chain: "eth", Limit: new(100)}) {
					if err != nil {
						return result{}, err
					}
					count++
				}
			}
			return result{MS: since(start), N: count, Check: count}, nil
		}
	}
	register("web3-paging", "go", web3(false))
	register("web3-paging", "raw", web3(true))
}
