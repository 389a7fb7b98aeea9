// Package ed25519vec holds the ed25519 vectors of keyless forgery shared by the tests of auth and authserver:
// the 8 small-order points, the group order L, and a forger that needs no private key. It is for tests only.
package ed25519vec

import (
	"crypto/ed25519"
	"encoding/hex"
	"math/big"
	"testing"
)

// SmallOrderPointsHex are the 8 points of small order of edwards25519, canonically encoded (the torsion subgroup:
// the identity, the point of order 2, two of order 4, four of order 8). The second one, y = 0, is the Solana
// address 11111111111111111111111111111111.
var SmallOrderPointsHex = []string{
	"0100000000000000000000000000000000000000000000000000000000000000", // identity
	"0000000000000000000000000000000000000000000000000000000000000000", // order 4 (y = 0)
	"0000000000000000000000000000000000000000000000000000000000000080", // order 4 (y = 0, x negated)
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2 (y = -1)
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
}

// L is the order of the prime-order subgroup, 2^252 + 27742317777372353535851937790883648493.
var L, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// Hex decodes s, failing the test on an error.
func Hex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// LE32 is n as 32 little-endian bytes.
func LE32(n *big.Int) []byte {
	be := n.FillBytes(make([]byte, 32))
	out := make([]byte, 32)
	for i := range be {
		out[i] = be[31-i]
	}
	return out
}

// Reverse returns b in reverse order (little-endian <-> big-endian).
func Reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[len(b)-1-i]
	}
	return out
}

// ForgeSmallOrder makes a "signature" of msg for the small-order key pub without any private key: R a small-order
// point and S = 0, which crypto/ed25519 accepts whenever R = -[k]pub (k = SHA-512(R || pub || msg)); one of the 8
// candidates usually works. It returns nil when none does for this message.
func ForgeSmallOrder(t testing.TB, pub, msg []byte) []byte {
	t.Helper()
	for _, r := range SmallOrderPointsHex {
		sig := append(Hex(t, r), make([]byte, 32)...)
		if ed25519.Verify(pub, msg, sig) {
			return sig
		}
	}
	return nil
}
