package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mr-tron/base58"
)

func init() {
	// seed makes sure the class holds at least n rows (raw batches of 50, 4 in flight).
	register("seed", "raw", func(ctx context.Context, e env) (result, error) {
		hc := &http.Client{}
		var cnt struct {
			Count int `json:"count"`
		}
		body, _ := json.Marshal(map[string]any{"_method": "GET", "limit": 0, "count": 1, "_ApplicationId": e.appID, "_JavaScriptKey": e.jsKey})
		if err := rawPost(ctx, hc, e.server+"/classes/"+e.class, body, &cnt); err != nil {
			return result{}, err
		}
		missing := e.n - cnt.Count
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		var firstErr error
		var mu sync.Mutex
		for from := 0; from < missing; from += 50 {
			to := min(from+50, missing)
			wg.Add(1)
			sem <- struct{}{}
			go func(from, to int) {
				defer wg.Done()
				defer func() { <-sem }()
				reqs := make([]map[string]any, 0, 50)
				for i := from; i < to; i++ {
					reqs = append(reqs, map[string]any{"method": "POST", "path": mountPath(e.server) + "/classes/" + e.class,
						"body": map[string]any{"n": cnt.Count + i, "name": fmt.Sprintf("row%06d", cnt.Count+i), "tag": []string{"a", "b", "c"}[i%3]}})
				}
				b, _ := json.Marshal(map[string]any{"requests": reqs, "_ApplicationId": e.appID, "_JavaScriptKey": e.jsKey})
				if err := rawPost(ctx, hc, e.server+"/batch", b, nil); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}(from, to)
		}
		wg.Wait()
		return result{N: max(missing, 0)}, firstErr
	})
	// fixture writes n Ethereum and n Solana signatures to the file named by -class, for the verify workloads.
	register("fixture", "go", func(ctx context.Context, e env) (result, error) {
		type sig struct {
			Address   string `json:"address"`
			Message   string `json:"message"`
			Signature string `json:"signature"`
		}
		out := struct {
			Eth []sig `json:"eth"`
			Sol []sig `json:"sol"`
		}{}
		for i := 0; i < e.n; i++ {
			msg := fmt.Sprintf("Moralis Authentication\n\nId: bench:%d", i)
			key, err := crypto.GenerateKey()
			if err != nil {
				return result{}, err
			}
			s, err := crypto.Sign(accounts.TextHash([]byte(msg)), key)
			if err != nil {
				return result{}, err
			}
			s[64] += 27
			out.Eth = append(out.Eth, sig{Address: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()), Message: msg, Signature: "0x" + fmt.Sprintf("%x", s)})
			pub, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return result{}, err
			}
			out.Sol = append(out.Sol, sig{Address: base58.Encode(pub), Message: msg, Signature: base58.Encode(ed25519.Sign(priv, []byte(msg)))})
		}
		b, err := json.Marshal(out)
		if err != nil {
			return result{}, err
		}
		return result{N: e.n, Check: e.n}, os.WriteFile(e.class, b, 0o644)
	})
}
