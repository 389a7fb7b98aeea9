package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/internal/devchain/devnet"
)

func TestHelpAndValidation(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, &out, &errb))
	require.Contains(t, errb.String(), "Usage: transfer")

	errb.Reset()
	require.Equal(t, 2, run(context.Background(), []string{"-type", "erc721", "-token-id", "x", "-rpc", "http://127.0.0.1:1"}, &out, &errb))
	require.Equal(t, "transfer: erc721: contractAddress is required; receiver is required; Invalid token Id\n", errb.String())

	errb.Reset()
	require.Equal(t, 2, run(context.Background(), []string{"-type", "erc999", "-rpc", "http://127.0.0.1:1"}, &out, &errb))
	require.Equal(t, "transfer: erc999: Unsupported type\n", errb.String())

	errb.Reset()
	t.Setenv("MORALIS_PRIVATE_KEY", "")
	t.Setenv("MORALIS_DEV_KEY", "")
	require.Equal(t, 2, run(context.Background(), []string{"-to", "0x00000000000000000000000000000000000beef3", "-amount", "1", "-rpc", "http://127.0.0.1:1"}, &out, &errb))
	require.Equal(t, "transfer: Sender address not found\n", errb.String())
}

func TestSendsEveryKindAgainstDevChain(t *testing.T) {
	chain, err := devnet.Start(devnet.Config{HTTPAddr: "127.0.0.1:0", AutoMine: 20 * time.Millisecond})
	require.NoError(t, err)
	defer chain.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := chain.DeployPresets(ctx)
	require.NoError(t, err)
	t.Setenv("MORALIS_ERC20", p.ERC20.Hex())
	t.Setenv("MORALIS_ERC721", p.ERC721.Hex())
	t.Setenv("MORALIS_ERC1155", p.ERC1155.Hex())
	t.Setenv("MORALIS_RPC_URL", chain.RPCURL)
	t.Setenv("MORALIS_DEV_KEY", "0x"+hex.EncodeToString(crypto.FromECDSA(chain.DevKey)))
	t.Setenv("MORALIS_PRIVATE_KEY", "")
	to := "0x00000000000000000000000000000000000bEEF4"

	var out, errb bytes.Buffer
	code := run(ctx, []string{"-all", "-to", to, "-chain", "1337"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	for _, kind := range []string{"native", "erc20", "erc721", "erc1155"} {
		require.Contains(t, out.String(), "# "+kind+" transaction (sent=true)")
		require.Contains(t, out.String(), "# "+kind+" receipt")
	}
	require.Equal(t, 4, strings.Count(out.String(), `"status": "0x1"`))
	bal, err := chain.Client.BalanceAt(ctx, common.HexToAddress(to), nil)
	require.NoError(t, err)
	require.Equal(t, "1000000000000000", bal.String())

	// Keystore signer and dry run: nothing is sent.
	k := &keystore.Key{Id: uuid.New(), Address: chain.DevAddr, PrivateKey: chain.DevKey}
	kj, err := keystore.EncryptKey(k, "pw", keystore.LightScryptN, keystore.LightScryptP)
	require.NoError(t, err)
	kf := filepath.Join(t.TempDir(), "key.json")
	require.NoError(t, os.WriteFile(kf, kj, 0o600))
	out.Reset()
	code = run(ctx, []string{"-keyfile", kf, "-password", "pw", "-to", to, "-amount", "5", "-dry-run"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "# native transaction (sent=false)")
	bal2, err := chain.Client.BalanceAt(ctx, common.HexToAddress(to), nil)
	require.NoError(t, err)
	require.Equal(t, bal, bal2)

	// Wrong chain is refused.
	errb.Reset()
	require.Equal(t, 1, run(ctx, []string{"-to", to, "-amount", "5", "-chain", "eth"}, &out, &errb))
	require.Contains(t, errb.String(), "node is on chain 1337, expected chain 1")
}
