package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/signer"
)

// signin: n wallets sign in from the client against the backend, one after the other, as moralis-v1's
// authenticate does in a browser: the message (and its one-time ticket) from the backend's
// moralisAuthRequestMessage cloud function, a personal_sign signature, the login with the moralisEth authData,
// then the user saved with its address and an ACL of its own. Keys are made before the clock starts.
func init() {
	register("signin", "go", func(ctx context.Context, e env) (result, error) {
		c, err := newClient(e)
		if err != nil {
			return result{}, err
		}
		keys, err := signinKeys(e.n)
		if err != nil {
			return result{}, err
		}
		start := time.Now()
		ok := 0
		for _, k := range keys {
			u, err := auth.SignInEthereum(ctx, c, k, nil)
			if err != nil {
				return result{}, err
			}
			if u.SessionToken() != "" {
				ok++
			}
		}
		return result{MS: since(start), N: e.n, Check: ok}, nil
	})
	register("signin", "raw", func(ctx context.Context, e env) (result, error) {
		hc := newRawClient()
		keys, err := signinKeys(e.n)
		if err != nil {
			return result{}, err
		}
		keys2 := func(m map[string]any) map[string]any {
			m["_ApplicationId"], m["_JavaScriptKey"] = e.appID, e.jsKey
			return m
		}
		start := time.Now()
		ok := 0
		for _, k := range keys {
			addr := strings.ToLower(k.Address().Hex())
			var msg struct {
				Result struct {
					Message string `json:"message"`
					Ticket  string `json:"ticket"`
				} `json:"result"`
			}
			if err := rawPostJSON(ctx, hc, e.server+"/functions/"+auth.RequestMessageFunction, keys2(map[string]any{"chain": "evm", "address": addr}), &msg); err != nil {
				return result{}, err
			}
			sig, err := k.SignMessage(ctx, []byte(msg.Result.Message))
			if err != nil {
				return result{}, err
			}
			var user struct {
				ObjectID     string `json:"objectId"`
				SessionToken string `json:"sessionToken"`
			}
			authData := map[string]any{"moralisEth": map[string]any{"id": addr, "signature": fmt.Sprintf("0x%x", sig), "data": msg.Result.Message, "ticket": msg.Result.Ticket}}
			if err := rawPostJSON(ctx, hc, e.server+"/users", keys2(map[string]any{"authData": authData}), &user); err != nil {
				return result{}, err
			}
			save := keys2(map[string]any{"_method": "PUT", "_SessionToken": user.SessionToken, "ethAddress": addr,
				"accounts": map[string]any{"__op": "AddUnique", "objects": []string{addr}},
				"ACL":      map[string]any{user.ObjectID: map[string]any{"read": true, "write": true}}})
			if err := rawPostJSON(ctx, hc, e.server+"/users/"+user.ObjectID, save, nil); err != nil {
				return result{}, err
			}
			if user.SessionToken != "" {
				ok++
			}
		}
		return result{MS: since(start), N: e.n, Check: ok}, nil
	})
}

func signinKeys(n int) ([]*signer.Key, error) {
	keys := make([]*signer.Key, n)
	for i := range keys {
		k, err := signer.GenerateKey()
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}
