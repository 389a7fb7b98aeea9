package auth

import (
	"crypto/ecdsa"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/signer"
)

func textHashForTest(msg string) []byte { return accounts.TextHash([]byte(msg)) }

func mustPub(t *testing.T, b []byte) *ecdsa.PublicKey {
	t.Helper()
	p, err := crypto.UnmarshalPubkey(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ethAddr is the lower-cased 0x address of s, as the flows and the backend store it.
func ethAddr(s signer.Ethereum) string { return strings.ToLower(s.Address().Hex()) }
