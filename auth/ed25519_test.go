package auth

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"github.com/mr-tron/base58"
)

// The 8 points of small order of edwards25519, canonically encoded (the torsion subgroup: the identity, the point
// of order 2, two of order 4, four of order 8). The second one, y = 0, is the Solana address
// 11111111111111111111111111111111.
var smallOrderPointsHex = []string{
	"0100000000000000000000000000000000000000000000000000000000000000", // identity
	"0000000000000000000000000000000000000000000000000000000000000000", // order 4 (y = 0)
	"0000000000000000000000000000000000000000000000000000000000000080", // order 4 (y = 0, x negated)
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2 (y = -1)
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
}

// ed25519L is the order of the prime-order subgroup, 2^252 + 27742317777372353535851937790883648493.
var ed25519L, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

func edHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// le32 is n as 32 little-endian bytes.
func le32(n *big.Int) []byte {
	be := n.FillBytes(make([]byte, 32))
	out := make([]byte, 32)
	for i := range be {
		out[i] = be[31-i]
	}
	return out
}

// forgeSmallOrder makes a "signature" of msg for the small-order key pub without any private key: R a small-order
// point and S = 0, which crypto/ed25519 accepts whenever R = -[k]pub (k = SHA-512(R || pub || msg)); one of the 8
// candidates usually works. It returns nil when none does for this message.
func forgeSmallOrder(t testing.TB, pub, msg []byte) []byte {
	t.Helper()
	for _, r := range smallOrderPointsHex {
		sig := append(edHex(t, r), make([]byte, 32)...)
		if ed25519.Verify(pub, msg, sig) {
			return sig
		}
	}
	return nil
}

// The keyless forgery works against the standard library (so the attack is real), and every small-order key is
// refused as an address and by VerifySolSignature.
func TestSolSmallOrderKeysRefused(t *testing.T) {
	if got := base58.Encode(edHex(t, smallOrderPointsHex[1])); got != "11111111111111111111111111111111" {
		t.Fatalf("y=0 point is %s", got)
	}
	forged := 0
	for i := 0; i < 64 && forged == 0; i++ { // some message works for every key; count that the attack is real
		msg := []byte("Moralis Authentication\n\nId: app:nonce" + string(rune('a'+i%26)) + string(rune('A'+i/26)))
		if forgeSmallOrder(t, edHex(t, smallOrderPointsHex[1]), msg) != nil {
			forged++
		}
	}
	if forged == 0 {
		t.Fatal("no forgery for 111...1 accepted by crypto/ed25519: the vector does not show the attack")
	}
	for _, h := range smallOrderPointsHex {
		pub := edHex(t, h)
		addr := base58.Encode(pub)
		if _, err := DecodeSolPublicKey(addr); !errors.Is(err, ErrMalformedAddress) {
			t.Errorf("small-order key %s (%s) accepted as an address: %v", h, addr, err)
		}
		for i := 0; i < 32; i++ {
			msg := []byte{byte(i), 'm', 's', 'g'}
			sig := forgeSmallOrder(t, pub, msg)
			if sig == nil {
				continue
			}
			if err := VerifySolSignature(addr, msg, base58.Encode(sig)); !errors.Is(err, ErrMalformedAddress) {
				t.Errorf("forged signature by small-order key %s: %v", h, err)
			}
			break
		}
	}
}

// Non-canonical encodings: y >= p (y + p for y = 0..18, both sign bits) and "negative zero" x (x = 0 with the
// sign bit set) are refused as keys and as R, whether the point they decode to is of small order or not.
func TestSolNonCanonicalPointsRefused(t *testing.T) {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	var encs [][]byte
	for k := int64(0); k < 19; k++ {
		b := le32(new(big.Int).Add(p, big.NewInt(k)))
		encs = append(encs, b)
		neg := append([]byte(nil), b...)
		neg[31] |= 0x80
		encs = append(encs, neg)
	}
	negZero := edHex(t, smallOrderPointsHex[0]) // identity with the sign bit: x = 0 "negative"
	negZero[31] |= 0x80
	encs = append(encs, negZero)
	minusOne := edHex(t, smallOrderPointsHex[3])
	minusOne[31] |= 0x80
	encs = append(encs, minusOne)
	seed := edHex(t, katSolSeedHex)
	key := ed25519.NewKeyFromSeed(seed)
	msg := []byte(katSolMsg)
	good := ed25519.Sign(key, msg)
	for _, enc := range encs {
		if _, err := DecodeSolPublicKey(base58.Encode(enc)); !errors.Is(err, ErrMalformedAddress) {
			t.Errorf("non-canonical key %x accepted: %v", enc, err)
		}
		sig := append(append([]byte(nil), enc...), good[32:]...)
		if _, err := DecodeSolSignature(base58.Encode(sig)); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("non-canonical R %x accepted: %v", enc, err)
		}
	}
	// Small-order R with a real key.
	for _, h := range smallOrderPointsHex {
		sig := append(edHex(t, h), good[32:]...)
		if err := VerifySolSignature(katSolPub58, msg, base58.Encode(sig)); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("small-order R %s: %v", h, err)
		}
	}
}

// S >= L is refused (the malleable twin S + L of a valid signature, and S = L, S = 2^256 - 1), while the
// signature itself verifies.
func TestSolNonCanonicalSRefused(t *testing.T) {
	key := ed25519.NewKeyFromSeed(edHex(t, katSolSeedHex))
	msg := []byte(katSolMsg)
	sig := ed25519.Sign(key, msg)
	if err := VerifySolSignature(katSolPub58, msg, base58.Encode(sig)); err != nil {
		t.Fatalf("real signature: %v", err)
	}
	s := new(big.Int).SetBytes(reverse(sig[32:]))
	for name, bad := range map[string]*big.Int{
		"S+L": new(big.Int).Add(s, ed25519L),
		"L":   ed25519L,
		"max": new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)),
	} {
		if bad.BitLen() > 256 {
			continue
		}
		forged := append(append([]byte(nil), sig[:32]...), le32(bad)...)
		if err := VerifySolSignature(katSolPub58, msg, base58.Encode(forged)); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("S = %s: %v", name, err)
		}
	}
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[len(b)-1-i]
	}
	return out
}

// Real keys keep working: the RFC 8032 vector and 200 random keys.
func TestSolRealKeysStillVerify(t *testing.T) {
	if err := VerifySolSignature(base58.Encode(edHex(t, katSolPubHex)), nil, base58.Encode(edHex(t, katSolSigHex))); err != nil {
		t.Fatalf("RFC 8032 vector 1: %v", err)
	}
	for i := 0; i < 200; i++ {
		pub, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		msg := []byte{byte(i), byte(i >> 8)}
		if err := VerifySolSignature(base58.Encode(pub), msg, base58.Encode(ed25519.Sign(priv, msg))); err != nil {
			t.Fatalf("random key %d: %v", i, err)
		}
	}
}
