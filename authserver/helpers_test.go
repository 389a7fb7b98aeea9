package authserver

import (
	"context"
	"encoding/hex"
	"math/big"
	"strings"
	"sync/atomic"

	"github.com/c13f5054/moralis-go/signer"

	ethereum "github.com/ethereum/go-ethereum"
)

// ethAddr is the lower-cased 0x address of s, as the endpoint and the backend store it.
func ethAddr(s signer.Ethereum) string { return strings.ToLower(s.Address().Hex()) }

// mustHex decodes hex (with or without 0x) of a test's own making.
func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		panic(err)
	}
	return b
}

// countingCaller is an auth.ContractCaller that counts eth_calls and answers with fn.
type countingCaller struct {
	n  atomic.Int32
	fn func(ethereum.CallMsg) ([]byte, error)
}

func (c *countingCaller) CallContract(_ context.Context, m ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	c.n.Add(1)
	return c.fn(m)
}

// The address of a well-known key (the same vector as in auth's and signer's tests); the Solana one is
// ed25519vec.KATPub58.
const (
	katEthAddr = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" // Hardhat's development key #0
)
