package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// CallFunction runs the cloud function name with params (encoded with the Parse codecs, so time.Time, Pointer
// and the like are allowed) and decodes the answer's "result" into out (skipped when out is nil). A
// *map[string]any or *any out receives decoded Parse values (time.Time, Pointer, ...).
func (c *Client) CallFunction(ctx context.Context, name string, params map[string]any, out any) error {
	if name == "" {
		return errors.New("moralis: CallFunction needs a function name")
	}
	enc, err := parse.Encode(params)
	if err != nil {
		return fmt.Errorf("moralis: function %s: %w", name, err)
	}
	body, _ := enc.(map[string]any)
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := c.do(ctx, c.call(http.MethodPost, "functions/"+name, body), &resp); err != nil {
		return err
	}
	if out == nil || len(resp.Result) == 0 {
		return nil
	}
	switch o := out.(type) {
	case *any:
		var v any
		if err := json.Unmarshal(resp.Result, &v); err != nil {
			return fmt.Errorf("moralis: function %s: %w", name, err)
		}
		*o = parse.Decode(v)
		return nil
	}
	if err := parse.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("moralis: function %s: decoding the result: %w", name, err)
	}
	return nil
}

// StartJob starts the background job name with the master key and returns its job status id (the
// X-Parse-Job-Status-Id header), which identifies its _JobStatus row.
func (c *Client) StartJob(ctx context.Context, name string, params map[string]any) (string, error) {
	if name == "" {
		return "", errors.New("moralis: StartJob needs a job name")
	}
	if !c.HasMasterKey() {
		return "", fmt.Errorf("moralis: job %s: %w", name, ErrMasterKeyRequired)
	}
	enc, err := parse.Encode(params)
	if err != nil {
		return "", fmt.Errorf("moralis: job %s: %w", name, err)
	}
	body, _ := enc.(map[string]any)
	rc := c.call(http.MethodPost, "jobs/"+name, body)
	rc.UseMasterKey = true
	res, err := c.t.Do(ctx, rc)
	if err != nil {
		return "", err
	}
	return res.Header.Get("X-Parse-Job-Status-Id"), nil
}

// ServerTime calls the getServerTime cloud function and returns its dateTime.
func (c *Client) ServerTime(ctx context.Context) (time.Time, error) {
	var r struct {
		DateTime string `json:"dateTime"`
	}
	if err := c.Cloud.Call(ctx, "getServerTime", nil, &r); err != nil {
		return time.Time{}, err
	}
	t, err := parse.ParseDate(r.DateTime)
	if err != nil {
		return time.Time{}, fmt.Errorf("moralis: getServerTime answered an unreadable time %q", r.DateTime)
	}
	return t, nil
}

// ChainParams are the parameters of the cloud chain helpers. Chain defaults to "eth", Order to "desc".
type ChainParams struct {
	Chain        string
	Address      string
	Symbol       string
	TokenAddress string
	Order        string
}

func (p ChainParams) encode(withOrder bool, extra ...string) map[string]any {
	m := map[string]any{"chain": p.Chain, "address": p.Address}
	if p.Chain == "" {
		m["chain"] = DefaultChain
	}
	if withOrder {
		m["order"] = p.Order
		if p.Order == "" {
			m["order"] = DefaultOrder
		}
	}
	for _, k := range extra {
		switch k {
		case "symbol":
			if p.Symbol != "" {
				m["symbol"] = p.Symbol
			}
		case "tokenAddress":
			if p.TokenAddress != "" {
				m["tokenAddress"] = p.TokenAddress
			}
		}
	}
	return m
}

// GetAllERC20 calls the getAllERC20 cloud function (chain, address) and decodes its result into out.
func (c *Client) GetAllERC20(ctx context.Context, p ChainParams, out any) error {
	return c.Cloud.Call(ctx, "getAllERC20", p.encode(false), out)
}

// GetERC20 calls getERC20 (chain, address, symbol, tokenAddress).
func (c *Client) GetERC20(ctx context.Context, p ChainParams, out any) error {
	return c.Cloud.Call(ctx, "getERC20", p.encode(false, "symbol", "tokenAddress"), out)
}

// GetNFTsOld calls getNFTs_old (chain, address).
func (c *Client) GetNFTsOld(ctx context.Context, p ChainParams, out any) error {
	return c.Cloud.Call(ctx, "getNFTs_old", p.encode(false), out)
}

// GetNFTsCountOld calls getNFTsCount_old (chain, address).
func (c *Client) GetNFTsCountOld(ctx context.Context, p ChainParams, out any) error {
	return c.Cloud.Call(ctx, "getNFTsCount_old", p.encode(false), out)
}

// GetTransactions calls getTransactions (chain, address, order).
func (c *Client) GetTransactions(ctx context.Context, p ChainParams, out any) error {
	return c.Cloud.Call(ctx, "getTransactions", p.encode(true), out)
}

// GetTransactionsCount calls getTransactionsCount (chain, address).
func (c *Client) GetTransactionsCount(ctx context.Context, p ChainParams, out any) error {
	return c.Cloud.Call(ctx, "getTransactionsCount", p.encode(false), out)
}

// GetPluginSpecs calls getPluginSpecs and returns the plugin specifications as decoded JSON.
func (c *Client) GetPluginSpecs(ctx context.Context) ([]any, error) {
	var out []any
	if err := c.Cloud.Call(ctx, "getPluginSpecs", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
