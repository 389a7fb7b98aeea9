// Package ed25519vec holds the ed25519 vectors shared by the tests of signer, auth and authserver: a known-answer
// vector, the 8 small-order points, the group order L, and a forger that needs no private key. It is for tests only.
package ed25519vec

import (
	"crypto/ed25519"
	"encoding/hex"
	"math/big"
	"testing"
)

// RFC 8032 test vector 1 (seed, public key, signature of the empty message), plus a signature of a Moralis
// message by the same key made with @noble/curves ed25519 and encoded with bs58.
const (
	KATSeedHex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	KATPubHex  = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	KATSigHex  = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
	KATPub58   = "FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z"
	KATMsg     = "Moralis Authentication\n\nId: testAppId:abcDEF12345678"
	KATSig58   = "2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua"
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
