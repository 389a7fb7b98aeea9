package web3api

import (
	"context"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/web3api/internal/ref"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

// Every array parameter of every endpoint goes as name[]=v, also with one element (issue #23), and the test
// server, which refuses name=v for an array, accepts the request.
func TestEveryArrayParameterHasBrackets(t *testing.T) {
	srv := web3apitest.NewServer(t)
	c, err := New(Config{APIKey: srv.APIKey, BaseURL: srv.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	const v = "0x057ec652a4f150f7ff94f089a38008f49a0df88e"
	n := 0
	for _, ep := range ref.Endpoints() {
		for _, p := range ep.Params {
			if p.Type != "array" {
				continue
			}
			n++
			args := Args{p.Name: []string{v}}
			for _, q := range ep.Params {
				if !q.Required || q.Name == p.Name {
					continue
				}
				switch {
				case q.Type == "array":
					args[q.Name] = []string{v}
				case q.In == "path":
					args[q.Name] = v
				default:
					args[q.Name] = "Pancake"
				}
			}
			if err := c.Call(context.Background(), ep.Name, args, nil); err != nil {
				t.Errorf("%s %s: %v", ep.Name, p.Name, err)
				continue
			}
			r, _ := srv.LastRequest(ep.Name)
			if !strings.Contains("&"+r.RawQuery+"&", "&"+p.Name+"[]="+v+"&") || strings.Contains("&"+r.RawQuery, "&"+p.Name+"=") {
				t.Errorf("%s: %s sent as %q", ep.Name, p.Name, r.RawQuery)
			}
		}
	}
	if n == 0 {
		t.Fatal("no array parameter in the reference")
	}
}
