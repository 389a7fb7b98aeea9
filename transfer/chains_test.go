package transfer_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/transfer"
)

func TestResolveChainID(t *testing.T) {
	cases := map[any]uint64{
		"eth": 1, "0x1": 1, 1: 1, "1": 1, "ETH": 1, "mainnet": 1,
		"ropsten": 3, "0x3": 3, "rinkeby": 4, "goerli": 5, "kovan": 42, "0x2a": 42,
		"polygon": 137, "matic": 137, "0x89": 137, "mumbai": 80001, "0x13881": 80001,
		"bsc": 56, "0x38": 56, "bsc testnet": 97, "BSC  Testnet": 97, "0x61": 97,
		"avalanche": 43114, "0xa86a": 43114, "avalanche testnet": 43113, "0xa869": 43113,
		"fantom": 250, "0xfa": 250, "0x539": 1337, uint64(31337): 31337, big.NewInt(10): 10,
	}
	for in, want := range cases {
		got, err := transfer.ResolveChainID(in)
		require.NoError(t, err, "%v", in)
		require.Equal(t, want, got, "%v", in)
	}
	for _, bad := range []any{"nochain", "0xzz", 0, -1, "", 1.5, (*big.Int)(nil)} {
		_, err := transfer.ResolveChainID(bad)
		require.Error(t, err, "%v", bad)
	}
}

func TestNodeURL(t *testing.T) {
	want := map[uint64]string{
		1: "eth/mainnet", 3: "eth/ropsten", 4: "eth/rinkeby", 5: "eth/goerli", 42: "eth/kovan",
		137: "polygon/mainnet", 80001: "polygon/mumbai", 56: "bsc/mainnet", 97: "bsc/testnet",
		43114: "avalanche/mainnet", 43113: "avalanche/testnet", 250: "fantom/mainnet",
	}
	require.Equal(t, []uint64{1, 3, 4, 5, 42, 56, 97, 137, 250, 43113, 43114, 80001}, transfer.HostedChainIDs())
	for id, path := range want {
		u, err := transfer.NodeURL(id, "KEY", "")
		require.NoError(t, err)
		require.Equal(t, "https://speedy-nodes-nyc.moralis.io/KEY/"+path, u)
	}
	u, err := transfer.NodeURL("bsc testnet", "abc", "")
	require.NoError(t, err)
	require.Equal(t, "https://speedy-nodes-nyc.moralis.io/abc/bsc/testnet", u)

	u, err = transfer.NodeURL(1337, "", "http://127.0.0.1:8545")
	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:8545", u)

	_, err = transfer.NodeURL(1337, "KEY", "")
	require.EqualError(t, err, "transfer: no hosted node for chain 1337; give a node URL")
	_, err = transfer.NodeURL("eth", "", "")
	require.EqualError(t, err, "transfer: a node key is required for the hosted node of chain 1")
}
