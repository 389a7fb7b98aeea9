package web3apitest_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/c13f5054/moralis-go/web3api"
	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

type artifact struct {
	ABI      abi.ABI
	Bytecode []byte
}

func loadArtifact(t *testing.T, name string) artifact {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode string          `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(a.ABI)))
	if err != nil {
		t.Fatal(err)
	}
	return artifact{ABI: parsed, Bytecode: common.FromHex(a.Bytecode)}
}

type chainEnv struct {
	t       *testing.T
	sim     *simulated.Backend
	client  simulated.Client
	chainID *big.Int
	keys    map[common.Address]*ecdsa.PrivateKey
}

func newChainEnv(t *testing.T, n int) (*chainEnv, []common.Address) {
	env := &chainEnv{t: t, keys: map[common.Address]*ecdsa.PrivateKey{}}
	alloc := types.GenesisAlloc{}
	var addrs []common.Address
	for range n {
		k, _ := crypto.GenerateKey()
		a := crypto.PubkeyToAddress(k.PublicKey)
		env.keys[a] = k
		addrs = append(addrs, a)
		alloc[a] = types.Account{Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))}
	}
	env.sim = simulated.NewBackend(alloc)
	t.Cleanup(func() { env.sim.Close() })
	env.client = env.sim.Client()
	id, err := env.client.ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	env.chainID = id
	return env, addrs
}

// send signs and mines one transaction and returns its receipt; it fails the test unless it succeeded.
func (e *chainEnv) send(from common.Address, to *common.Address, value *big.Int, data []byte) *types.Receipt {
	e.t.Helper()
	ctx := context.Background()
	nonce, err := e.client.PendingNonceAt(ctx, from)
	if err != nil {
		e.t.Fatal(err)
	}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: e.chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(100e9), Gas: 8_000_000, To: to, Value: value, Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(e.chainID), e.keys[from])
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.client.SendTransaction(ctx, signed); err != nil {
		e.t.Fatal(err)
	}
	e.sim.Commit()
	rc, err := e.client.TransactionReceipt(ctx, signed.Hash())
	if err != nil {
		e.t.Fatal(err)
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		e.t.Fatalf("transaction %s failed", signed.Hash())
	}
	return rc
}

func (e *chainEnv) deploy(from common.Address, a artifact, args ...any) common.Address {
	e.t.Helper()
	ctor, err := a.ABI.Pack("", args...)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.send(from, nil, nil, append(append([]byte{}, a.Bytecode...), ctor...)).ContractAddress
}

func (e *chainEnv) call(from common.Address, to common.Address, a artifact, method string, args ...any) *types.Receipt {
	e.t.Helper()
	data, err := a.ABI.Pack(method, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.send(from, &to, nil, data)
}

func eth(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

func lowerHex(a common.Address) string { return strings.ToLower(a.Hex()) }

// TestChainBackedEndpoints runs real transactions on a simulated chain (an ERC-20, an ERC-721 and an ERC-1155
// from the OpenZeppelin 4.9.6 presets, and a plain ether transfer) and checks that the chain-backed endpoints
// answer what the chain says.
func TestChainBackedEndpoints(t *testing.T) {
	env, addrs := newChainEnv(t, 3)
	A, B, C := addrs[0], addrs[1], addrs[2]
	erc20 := loadArtifact(t, "ERC20PresetMinterPauser")
	erc721 := loadArtifact(t, "ERC721PresetMinterPauserAutoId")
	erc1155 := loadArtifact(t, "ERC1155PresetMinterPauser")

	tok := env.deploy(A, erc20, "Test Token", "TT")
	env.call(A, tok, erc20, "mint", A, eth(1000))
	xfer := env.call(A, tok, erc20, "transfer", B, eth(250))
	env.call(A, tok, erc20, "approve", B, big.NewInt(42))
	native := env.send(A, &C, eth(1), nil)

	nft := env.deploy(A, erc721, "Nifty", "NFY", "ipfs://base/")
	env.call(A, nft, erc721, "mint", A) // id 0
	env.call(A, nft, erc721, "mint", A) // id 1
	env.call(A, nft, erc721, "transferFrom", A, B, big.NewInt(0))
	multi := env.deploy(A, erc1155, "ipfs://multi/{id}.json")
	env.call(A, multi, erc1155, "mint", A, big.NewInt(7), big.NewInt(10), []byte{})
	env.call(A, multi, erc1155, "safeTransferFrom", A, B, big.NewInt(7), big.NewInt(3), []byte{})
	env.call(A, multi, erc1155, "mintBatch", C, []*big.Int{big.NewInt(8), big.NewInt(9)}, []*big.Int{big.NewInt(1), big.NewInt(2)}, []byte{})

	srv := web3apitest.NewServer(t, web3apitest.WithChain(env.client))
	c, err := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("block", func(t *testing.T) {
		blk, err := c.Native.GetBlock(ctx, &web3api.GetBlockParams{BlockNumberOrHash: native.BlockNumber.String()})
		if err != nil {
			t.Fatal(err)
		}
		if blk.Hash != native.BlockHash.Hex() || blk.Number != native.BlockNumber.String() {
			t.Fatalf("block %s %s, want %s", blk.Hash, blk.Number, native.BlockHash.Hex())
		}
		if len(blk.Transactions) != 1 || blk.Transactions[0].Hash != native.TxHash.Hex() || blk.Transactions[0].Value != eth(1).String() {
			t.Fatalf("transactions %+v", blk.Transactions)
		}
		byHash, err := c.Native.GetBlock(ctx, &web3api.GetBlockParams{BlockNumberOrHash: native.BlockHash.Hex()})
		if err != nil || byHash.Number != blk.Number {
			t.Fatalf("by hash: %v %v", byHash, err)
		}
		srv.CheckDecoded(t, "getBlock", byHash)
	})

	t.Run("dateToBlock", func(t *testing.T) {
		hd, _ := env.client.HeaderByNumber(ctx, xfer.BlockNumber)
		d, err := c.Native.GetDateToBlock(ctx, &web3api.GetDateToBlockParams{Date: time.Unix(int64(hd.Time), 0).UTC().Format(time.RFC3339)})
		if err != nil {
			t.Fatal(err)
		}
		// Simulated blocks may share a second; the answer is the last block at or before that time.
		got, _ := new(big.Int).SetString(d.Block.String(), 10)
		gotHd, _ := env.client.HeaderByNumber(ctx, got)
		if got.Cmp(xfer.BlockNumber) < 0 || gotHd.Time != hd.Time {
			t.Fatalf("block %s for time %d", d.Block, hd.Time)
		}
	})

	t.Run("transaction", func(t *testing.T) {
		tx, err := c.Native.GetTransaction(ctx, &web3api.GetTransactionParams{TransactionHash: xfer.TxHash.Hex()})
		if err != nil {
			t.Fatal(err)
		}
		if tx.FromAddress != lowerHex(A) || tx.ToAddress != lowerHex(tok) || tx.ReceiptStatus != "1" ||
			tx.ReceiptGasUsed != big.NewInt(int64(xfer.GasUsed)).String() || len(tx.Logs) != 1 {
			t.Fatalf("tx %+v", tx)
		}
		if tx.Logs[0].Topic2 != common.BytesToHash(B.Bytes()).Hex() {
			t.Fatalf("log %+v", tx.Logs[0])
		}
	})

	t.Run("nativeBalance", func(t *testing.T) {
		want, _ := env.client.BalanceAt(ctx, A, nil)
		bal, err := c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: A.Hex()})
		if err != nil || bal.Balance != want.String() {
			t.Fatalf("%v %v want %s", bal, err, want)
		}
		bal, err = c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: C.Hex()})
		if err != nil || bal.Balance != eth(101).String() {
			t.Fatalf("%v %v", bal, err)
		}
	})

	t.Run("logs", func(t *testing.T) {
		var topics []string
		for l, err := range c.Native.GetLogsByAddressIter(ctx, &web3api.GetLogsByAddressParams{Address: tok.Hex(), Limit: new(2)}) {
			if err != nil {
				t.Fatal(err)
			}
			topics = append(topics, l.Topic0)
		}
		transfer := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)")).Hex()
		approval := crypto.Keccak256Hash([]byte("Approval(address,address,uint256)")).Hex()
		roleGranted := crypto.Keccak256Hash([]byte("RoleGranted(bytes32,address,address)")).Hex()
		// Newest first: approve, transfer, mint, then the constructor's three RoleGranted events.
		want := []string{approval, transfer, transfer, roleGranted, roleGranted, roleGranted}
		if strings.Join(topics, ",") != strings.Join(want, ",") {
			t.Fatalf("topics %v", topics)
		}
	})

	t.Run("runContractFunction", func(t *testing.T) {
		abiJSON := json.RawMessage(`[{"type":"function","name":"balanceOf","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"}]`)
		res, err := c.Native.RunContractFunction(ctx, &web3api.RunContractFunctionParams{Address: tok.Hex(),
			FunctionName: "balanceOf", ABI: abiJSON, Params: map[string]any{"account": B.Hex()}})
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if json.Unmarshal(res, &s) != nil || s != eth(250).String() {
			t.Fatalf("got %s", res)
		}
	})

	t.Run("erc20", func(t *testing.T) {
		md, err := c.Token.GetTokenMetadata(ctx, &web3api.GetTokenMetadataParams{Addresses: []string{tok.Hex()}})
		if err != nil || len(md) != 1 || md[0].Name != "Test Token" || md[0].Symbol != "TT" || md[0].Decimals != "18" {
			t.Fatalf("%+v %v", md, err)
		}
		al, err := c.Token.GetTokenAllowance(ctx, &web3api.GetTokenAllowanceParams{Address: tok.Hex(), OwnerAddress: A.Hex(), SpenderAddress: B.Hex()})
		if err != nil || al.Allowance != "42" {
			t.Fatalf("%+v %v", al, err)
		}
		for addr, want := range map[common.Address]*big.Int{A: eth(750), B: eth(250)} {
			bals, err := c.Account.GetTokenBalances(ctx, &web3api.GetTokenBalancesParams{Address: addr.Hex()})
			if err != nil || len(bals) != 1 || bals[0].Balance != want.String() || bals[0].TokenAddress != lowerHex(tok) || bals[0].Symbol != "TT" {
				t.Fatalf("%s: %+v %v", addr, bals, err)
			}
		}
		trs, err := c.Account.GetTokenTransfers(ctx, &web3api.GetTokenTransfersParams{Address: B.Hex()})
		if err != nil || len(trs.Result) != 1 || trs.Result[0].Value != eth(250).String() || trs.Result[0].TransactionHash != xfer.TxHash.Hex() {
			t.Fatalf("%+v %v", trs, err)
		}
		all, err := c.Token.GetTokenAddressTransfers(ctx, &web3api.GetTokenAddressTransfersParams{Address: tok.Hex()})
		if err != nil || len(all.Result) != 2 || all.Result[1].FromAddress != lowerHex(common.Address{}) {
			t.Fatalf("%+v %v", all, err)
		}
	})

	t.Run("nfts", func(t *testing.T) {
		owned := func(a common.Address) map[string]string {
			res, err := c.Account.GetNFTs(ctx, &web3api.GetNFTsParams{Address: a.Hex()})
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]string{}
			for _, n := range res.Result {
				m[n.TokenAddress+"/"+n.TokenID] = n.Amount + " " + n.ContractType + " " + n.TokenURI
			}
			return m
		}
		gotA, gotB := owned(A), owned(B)
		wantA := map[string]string{lowerHex(nft) + "/1": "1 ERC721 ipfs://base/1", lowerHex(multi) + "/7": "7 ERC1155 ipfs://multi/{id}.json"}
		wantB := map[string]string{lowerHex(nft) + "/0": "1 ERC721 ipfs://base/0", lowerHex(multi) + "/7": "3 ERC1155 ipfs://multi/{id}.json"}
		if !equalMaps(gotA, wantA) || !equalMaps(gotB, wantB) {
			t.Fatalf("A %v\nB %v", gotA, gotB)
		}
		owners, err := c.Token.GetNFTOwners(ctx, &web3api.GetNFTOwnersParams{Address: nft.Hex()})
		if err != nil || len(owners.Result) != 2 {
			t.Fatalf("%+v %v", owners, err)
		}
		md, err := c.Token.GetTokenIdMetadata(ctx, &web3api.GetTokenIdMetadataParams{Address: nft.Hex(), TokenID: "0"})
		if err != nil || md.OwnerOf != lowerHex(B) || md.TokenURI != "ipfs://base/0" || md.Name != "Nifty" || md.MinterAddress != lowerHex(A) {
			t.Fatalf("%+v %v", md, err)
		}
		tr, err := c.Token.GetContractNFTTransfers(ctx, &web3api.GetContractNFTTransfersParams{Address: nft.Hex()})
		if err != nil || len(tr.Result) != 3 || tr.Result[0].ToAddress != lowerHex(B) || tr.Result[0].TokenID != "0" {
			t.Fatalf("%+v %v", tr, err)
		}
		wt, err := c.Account.GetNFTTransfers(ctx, &web3api.GetNFTTransfersParams{Address: B.Hex()})
		if err != nil || len(wt.Result) != 2 || wt.Result[0].ContractType != "ERC1155" || wt.Result[0].Amount != "3" || wt.Result[0].Operator != lowerHex(A) {
			t.Fatalf("%+v %v", wt, err)
		}
		gotC := owned(C)
		wantC := map[string]string{lowerHex(multi) + "/8": "1 ERC1155 ipfs://multi/{id}.json", lowerHex(multi) + "/9": "2 ERC1155 ipfs://multi/{id}.json"}
		if !equalMaps(gotC, wantC) {
			t.Fatalf("C %v", gotC)
		}
		batch, err := c.Account.GetNFTTransfers(ctx, &web3api.GetNFTTransfersParams{Address: C.Hex(), Direction: "to"})
		if err != nil || len(batch.Result) != 2 || batch.Result[0].TransactionType != "Batch" {
			t.Fatalf("%+v %v", batch, err)
		}
		forContract, err := c.Account.GetNFTsForContract(ctx, &web3api.GetNFTsForContractParams{Address: A.Hex(), TokenAddress: nft.Hex()})
		if err != nil || len(forContract.Result) != 1 || forContract.Result[0].TokenID != "1" {
			t.Fatalf("%+v %v", forContract, err)
		}
		idOwners, err := c.Token.GetTokenIdOwners(ctx, &web3api.GetTokenIdOwnersParams{Address: multi.Hex(), TokenID: "7"})
		if err != nil || len(idOwners.Result) != 2 {
			t.Fatalf("%+v %v", idOwners, err)
		}
		ids, err := c.Token.GetAllTokenIds(ctx, &web3api.GetAllTokenIdsParams{Address: nft.Hex(), Format: "hex"})
		if err != nil || len(ids.Result) != 2 || ids.Result[0].TokenID[:2] != "0x" {
			t.Fatalf("%+v %v", ids, err)
		}
		idTransfers, err := c.Token.GetWalletTokenIdTransfers(ctx, &web3api.GetWalletTokenIdTransfersParams{Address: nft.Hex(), TokenID: "0"})
		if err != nil || len(idTransfers.Result) != 2 {
			t.Fatalf("%+v %v", idTransfers, err)
		}
		cm, err := c.Token.GetNFTMetadata(ctx, &web3api.GetNFTMetadataParams{Address: nft.Hex()})
		if err != nil || cm.Name != "Nifty" || cm.Symbol != "NFY" || cm.ContractType != "ERC721" {
			t.Fatalf("%+v %v", cm, err)
		}
	})

	t.Run("badInput", func(t *testing.T) {
		_, err := c.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: "not-an-address"})
		var ae *web3api.APIError
		if err == nil || !strings.Contains(err.Error(), "must be an address") {
			t.Fatalf("got %v", err)
		}
		_ = ae
		_, err = c.Native.GetTransaction(ctx, &web3api.GetTransactionParams{TransactionHash: hexutil.Encode(make([]byte, 32))})
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("got %v", err)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
