package devnet

import (
	"context"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/internal/contracts"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestPoolPendingUsesTheInProcessRPC(t *testing.T) {
	c, err := Start(Config{})
	require.NoError(t, err)
	defer c.Close()
	require.NotNil(t, c.rpc)
	n, err := c.poolPending(ctxT(t))
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, c.RPCURL)
}

func TestDeployPresetsMintsToTheDevAccount(t *testing.T) {
	c, err := Start(Config{AutoMine: 10 * time.Millisecond})
	require.NoError(t, err)
	defer c.Close()
	ctx := ctxT(t)
	bal, err := c.Client.BalanceAt(ctx, c.DevAddr, nil)
	require.NoError(t, err)
	require.Equal(t, DefaultDevBalance.String(), bal.String())

	p, err := c.DeployPresets(ctx)
	require.NoError(t, err)
	call := func(name string, at common.Address, method string, args ...any) any {
		art, err := contracts.Load(name)
		require.NoError(t, err)
		data, err := art.ABI.Pack(method, args...)
		require.NoError(t, err)
		out, err := c.Client.CallContract(ctx, ethereum.CallMsg{To: &at, Data: data}, nil)
		require.NoError(t, err)
		v, err := art.ABI.Unpack(method, out)
		require.NoError(t, err)
		return v[0]
	}
	require.Equal(t, p.ERC20Minted.String(), call(contracts.ERC20, p.ERC20, "balanceOf", c.DevAddr).(*big.Int).String())
	require.Equal(t, "DEV", call(contracts.ERC20, p.ERC20, "symbol"))
	require.Len(t, p.ERC721Tokens, PresetNFTCount)
	for _, id := range p.ERC721Tokens {
		require.Equal(t, c.DevAddr, call(contracts.ERC721, p.ERC721, "ownerOf", id))
	}
	for id, amount := range p.ERC1155Minted {
		require.Equal(t, amount.String(), call(contracts.ERC1155, p.ERC1155, "balanceOf", c.DevAddr, big.NewInt(id)).(*big.Int).String())
	}
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close twice is fine")
}

func TestStartRefusesNonLoopbackHTTP(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "example.com:80", "127.0.0.1", "127.0.0.1:99999"} {
		_, err := Start(Config{HTTPAddr: addr})
		require.Error(t, err, addr)
	}
}
