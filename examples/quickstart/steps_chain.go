package main

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/ethereum/go-ethereum/ethclient"
)

// chainConfig is the local chain of `make demo` (internal/devstack/chain.sh).
type chainConfig struct {
	RPCURL, DevKey, ERC20, Web3APIURL, APIKey string
}

func (c chainConfig) ok() bool {
	return c.RPCURL != "" && c.DevKey != "" && c.ERC20 != "" && c.Web3APIURL != "" && c.APIKey != ""
}

// transfers sends a native and an ERC-20 transfer from the dev account to a new address and waits for both.
func (d *demo) transfers(ctx context.Context) (string, error) {
	eth, err := ethclient.DialContext(ctx, d.chain.RPCURL)
	if err != nil {
		return "", err
	}
	defer eth.Close()
	dev, err := signer.NewKeyFromHex(d.chain.DevKey)
	if err != nil {
		return "", err
	}
	tc, err := transfer.New(eth, transfer.Config{Signer: dev, ReceiptPollInterval: 50 * time.Millisecond})
	if err != nil {
		return "", err
	}
	receiver, err := signer.GenerateKey()
	if err != nil {
		return "", err
	}
	d.receiver = strings.ToLower(receiver.Address().Hex())
	native, err := tc.Transfer(ctx, transfer.Params{Type: transfer.Native, Receiver: d.receiver, Amount: "1000000000000000000"}, &transfer.TxOptions{Wait: true})
	if err != nil {
		return "", err
	}
	token, err := tc.Transfer(ctx, transfer.Params{Type: transfer.ERC20, ContractAddress: d.chain.ERC20, Receiver: d.receiver, Amount: "250"}, &transfer.TxOptions{Wait: true})
	if err != nil {
		return "", err
	}
	bal, err := eth.BalanceAt(ctx, *native.Tx.To(), nil)
	if err != nil {
		return "", err
	}
	if bal.Cmp(big.NewInt(1e18)) != 0 {
		return "", fmt.Errorf("receiver holds %s wei after the transfer, want 1e18", bal)
	}
	return fmt.Sprintf("1 ETH to %s: tx %s in block %d (gas %d)\n250 tokens of %s: tx %s in block %d (%d log)",
		d.receiver, native.Hash().Hex(), native.Receipt.BlockNumber, native.Receipt.GasUsed,
		d.chain.ERC20, token.Hash().Hex(), token.Receipt.BlockNumber, len(token.Receipt.Logs)), nil
}

// readBack reads the receiver's balance, tokens and transfers through web3api from the chain-data server, which
// answers from the same local chain.
func (d *demo) readBack(ctx context.Context) (string, error) {
	if d.receiver == "" {
		return "", fmt.Errorf("no receiver (the transfer step must run first)")
	}
	w3, err := web3api.New(web3api.Config{APIKey: d.chain.APIKey, BaseURL: d.chain.Web3APIURL})
	if err != nil {
		return "", err
	}
	bal, err := w3.Account.GetNativeBalance(ctx, &web3api.GetNativeBalanceParams{Address: d.receiver, Chain: "0x539"})
	if err != nil {
		return "", err
	}
	if bal.Balance != "1000000000000000000" {
		return "", fmt.Errorf("web3api native balance %s, want 1000000000000000000", bal.Balance)
	}
	tokens, err := w3.Account.GetTokenBalances(ctx, &web3api.GetTokenBalancesParams{Address: d.receiver, Chain: "0x539"})
	if err != nil {
		return "", err
	}
	if len(tokens) != 1 || tokens[0].Balance != "250" {
		return "", fmt.Errorf("web3api token balances %+v, want one token with 250", tokens)
	}
	n := 0
	for tr, err := range w3.Account.GetTokenTransfersIter(ctx, &web3api.GetTokenTransfersParams{Address: d.receiver, Chain: "0x539"}) {
		if err != nil {
			return "", err
		}
		if !strings.EqualFold(tr.ToAddress, d.receiver) || tr.Value != "250" {
			return "", fmt.Errorf("unexpected transfer %+v", tr)
		}
		n++
	}
	if n != 1 {
		return "", fmt.Errorf("web3api listed %d token transfers, want 1", n)
	}
	return fmt.Sprintf("native balance %s wei; tokens: %s %s = %s; %d ERC-20 transfer listed", bal.Balance,
		tokens[0].Symbol, tokens[0].TokenAddress, tokens[0].Balance, n), nil
}
