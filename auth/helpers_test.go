package auth

import (
	"crypto/ecdsa"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/crypto"
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
