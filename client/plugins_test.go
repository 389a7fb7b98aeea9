package client

import (
	"errors"
	"reflect"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

// pluginServer answers getPluginSpecs with one plugin "fiat" (functions buy and sell) and its functions in the
// Moralis v1 plugin form.
func pluginServer(t *testing.T) *idServer {
	return newIDServer(t, func(r idReq) (int, string) {
		switch r.Path {
		case "functions/getPluginSpecs":
			return 200, `{"result":[{"name":"fiat","functions":["buy","sell"]}]}`
		case "functions/fiat_buy":
			return 200, `{"result":{"data":{"success":true,"result":{"data":{"amount":12,"when":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"}},"triggers":[{"name":"openUrl","url":"https://example.com/buy"}]}}}}`
		case "functions/fiat_sell":
			return 200, `{"result":{"data":{"success":false,"data":{"reason":"closed","code":7}}}}`
		}
		return 400, `{"code":141,"error":"Invalid function: \"` + r.Path + `\""}`
	})
}

func TestPluginSpecsAndCall(t *testing.T) {
	srv := pluginServer(t)
	c := srv.client(t, false).WithSessionToken("r:u")
	p, err := c.Cloud.Plugins(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []PluginSpec{{Name: "fiat", Functions: []string{"buy", "sell"}}}
	if !reflect.DeepEqual(p.Specs(), want) {
		t.Fatalf("specs %+v", p.Specs())
	}
	specs := p.Specs()
	specs[0].Functions[0] = "changed"
	if !p.Has("fiat", "buy") || p.Specs()[0].Functions[0] != "buy" {
		t.Fatal("Specs gave away the internal slice")
	}
	if p.Has("fiat", "rent") || p.Has("other", "buy") {
		t.Fatal("Has reports unlisted functions")
	}

	// fiat.buy is the cloud function fiat_buy with the params and the view's session token; out gets the result.
	var res struct {
		Data struct {
			Amount int    `json:"amount"`
			When   string `json:"when"`
		} `json:"data"`
		Triggers []map[string]any `json:"triggers"`
	}
	if err := p.Call(t.Context(), "fiat", "buy", map[string]any{"coin": "ETH"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Data.Amount != 12 || res.Data.When != "2026-01-02T03:04:05.000Z" || len(res.Triggers) != 1 || res.Triggers[0]["name"] != "openUrl" {
		t.Fatalf("result %+v", res)
	}
	reqs := srv.requests()
	last := reqs[len(reqs)-1]
	if last.Path != "functions/fiat_buy" || last.Body["coin"] != "ETH" || last.Body["_SessionToken"] != "r:u" {
		t.Fatalf("request %s %s", last.Path, last.Raw)
	}
	var anyOut any
	if err := p.Call(t.Context(), "fiat", "buy", nil, &anyOut); err != nil {
		t.Fatal(err)
	}
	if _, isTime := anyOut.(map[string]any)["data"].(map[string]any)["when"].(interface{ IsZero() bool }); !isTime {
		t.Fatalf("*any gets decoded Parse values: %#v", anyOut)
	}

	// A failed plugin call: the original's text, the data kept.
	err = p.Call(t.Context(), "fiat", "sell", nil, nil)
	var pe *PluginError
	if !errors.As(err, &pe) || pe.Plugin != "fiat" || pe.Function != "sell" {
		t.Fatalf("err %v", err)
	}
	if got := err.Error(); got != "Something went wrong\n{\n  \"reason\": \"closed\",\n  \"code\": 7\n}" {
		t.Fatalf("text %q", got)
	}
	if got := (&PluginError{}).Error(); got != "Something went wrong\nundefined" {
		t.Fatalf("no data: %q", got)
	}

	// Unlisted plugins and functions fail before any request.
	n := srv.count()
	for _, pf := range [][2]string{{"fiat", "rent"}, {"other", "buy"}, {"", ""}} {
		if err := p.Call(t.Context(), pf[0], pf[1], nil, nil); !errors.Is(err, ErrUnknownPlugin) {
			t.Fatalf("%v: %v", pf, err)
		}
	}
	if srv.count() != n {
		t.Fatal("an unlisted plugin function was called")
	}
}

func TestPluginCallBadAnswers(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		switch r.Path {
		case "functions/getPluginSpecs":
			return 200, `{"result":[{"name":"p","functions":["plain","nothing","down"]}]}`
		case "functions/p_plain":
			return 200, `{"result":{"success":true}}`
		case "functions/p_nothing":
			return 200, `{}`
		}
		return 400, `{"code":141,"error":"plugin server unreachable"}`
	})
	p, err := srv.client(t, false).Cloud.Plugins(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"plain", "nothing"} {
		if err := p.Call(t.Context(), "p", fn, nil, nil); !errors.Is(err, parse.ErrInvalidJSON) {
			t.Fatalf("%s: %v", fn, err)
		}
	}
	if err := p.Call(t.Context(), "p", "down", nil, nil); !errors.Is(err, parse.ErrScriptFailed) {
		t.Fatalf("down: %v", err)
	}
}

func TestPluginSpecsNone(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 200, `{"result":null}` })
	specs, err := srv.client(t, false).Cloud.PluginSpecs(t.Context())
	if err != nil || specs == nil || len(specs) != 0 {
		t.Fatalf("%v %v", specs, err)
	}
	srv2 := newIDServer(t, func(idReq) (int, string) { return 400, `{"code":141,"error":"Invalid function"}` })
	if _, err := srv2.client(t, false).Cloud.Plugins(t.Context()); !errors.Is(err, parse.ErrScriptFailed) {
		t.Fatalf("err %v", err)
	}
}
