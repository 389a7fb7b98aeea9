package web3apitest_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

// TestChainTenThousandTransfers mints 10,000 times on a real simulated chain and walks the token's transfers
// with the cursor iterator: every transfer once, newest first, in 100 pages.
func TestChainTenThousandTransfers(t *testing.T) {
	const total, perBlock = 10000, 200
	env, addrs := newChainEnv(t, 1)
	A := addrs[0]
	erc20 := loadArtifact(t, "ERC20PresetMinterPauser")
	tok := env.deploy(A, erc20, "Many", "MNY")
	ctx := context.Background()
	start := time.Now()
	nonce, err := env.client.PendingNonceAt(ctx, A)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(env.chainID)
	var last common.Hash
	for i := range total {
		data, err := erc20.ABI.Pack("mint", common.BigToAddress(big.NewInt(int64(i%7+1))), big.NewInt(int64(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: env.chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9),
			GasFeeCap: big.NewInt(100e9), Gas: 260_000, To: &tok, Data: data}), signer, env.keys[A])
		if err != nil {
			t.Fatal(err)
		}
		if err := env.client.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
		nonce++
		last = tx.Hash()
		if (i+1)%perBlock == 0 {
			env.sim.Commit()
		}
	}
	env.sim.Commit()
	if rc, err := env.client.TransactionReceipt(ctx, last); err != nil || rc.Status != 1 {
		t.Fatalf("last mint: %v %v", rc, err)
	}
	t.Logf("10,000 mints mined in %s", time.Since(start).Round(time.Millisecond))

	srv := web3apitest.NewServer(t, web3apitest.WithChain(env.client))
	c, _ := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})
	start = time.Now()
	seen := map[string]bool{}
	prev := int64(total + 1)
	for tr, err := range c.Token.GetTokenAddressTransfersIter(ctx, &web3api.GetTokenAddressTransfersParams{Address: tok.Hex(), Limit: new(100)}) {
		if err != nil {
			t.Fatal(err)
		}
		v, _ := new(big.Int).SetString(tr.Value, 10)
		if v == nil || v.Int64() >= prev {
			t.Fatalf("transfer value %s after %d: not newest first", tr.Value, prev)
		}
		prev = v.Int64()
		key := tr.TransactionHash
		if seen[key] {
			t.Fatalf("transfer %s twice", key)
		}
		seen[key] = true
	}
	if len(seen) != total || prev != 1 {
		t.Fatalf("walked %d transfers, last value %d", len(seen), prev)
	}
	if got := srv.Count("getTokenAddressTransfers"); got != 100 {
		t.Fatalf("%d pages", got)
	}
	t.Logf("walked 10,000 transfers in 100 pages in %s", time.Since(start).Round(time.Millisecond))
}
