package auth

import (
	"crypto/ed25519"
	"errors"
	"github.com/c13f5054/moralis-go/internal/ed25519vec"
	"math/big"
	"testing"

	"github.com/mr-tron/base58"
)

// The keyless forgery works against the standard library (so the attack is real), and every small-order key is
// refused as an address and by VerifySolSignature.
func TestSolSmallOrderKeysRefused(t *testing.T) {
	if got := base58.Encode(ed25519vec.Hex(t, ed25519vec.SmallOrderPointsHex[1])); got != "11111111111111111111111111111111" {
		t.Fatalf("y=0 point is %s", got)
	}
	forged := 0
	for i := 0; i < 64 && forged == 0; i++ { // some message works for every key; count that the attack is real
		msg := []byte("Moralis Authentication\n\nId: app:nonce" + string(rune('a'+i%26)) + string(rune('A'+i/26)))
		if ed25519vec.ForgeSmallOrder(t, ed25519vec.Hex(t, ed25519vec.SmallOrderPointsHex[1]), msg) != nil {
			forged++
		}
	}
	if forged == 0 {
		t.Fatal("no forgery for 111...1 accepted by crypto/ed25519: the vector does not show the attack")
	}
	for _, h := range ed25519vec.SmallOrderPointsHex {
		pub := ed25519vec.Hex(t, h)
		addr := base58.Encode(pub)
		if _, err := DecodeSolPublicKey(addr); !errors.Is(err, ErrMalformedAddress) {
			t.Errorf("small-order key %s (%s) accepted as an address: %v", h, addr, err)
		}
		for i := 0; i < 32; i++ {
			msg := []byte{byte(i), 'm', 's', 'g'}
			sig := ed25519vec.ForgeSmallOrder(t, pub, msg)
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
		b := ed25519vec.LE32(new(big.Int).Add(p, big.NewInt(k)))
		encs = append(encs, b)
		neg := append([]byte(nil), b...)
		neg[31] |= 0x80
		encs = append(encs, neg)
	}
	negZero := ed25519vec.Hex(t, ed25519vec.SmallOrderPointsHex[0]) // identity with the sign bit: x = 0 "negative"
	negZero[31] |= 0x80
	encs = append(encs, negZero)
	minusOne := ed25519vec.Hex(t, ed25519vec.SmallOrderPointsHex[3])
	minusOne[31] |= 0x80
	encs = append(encs, minusOne)
	seed := ed25519vec.Hex(t, ed25519vec.KATSeedHex)
	key := ed25519.NewKeyFromSeed(seed)
	msg := []byte(ed25519vec.KATMsg)
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
	for _, h := range ed25519vec.SmallOrderPointsHex {
		sig := append(ed25519vec.Hex(t, h), good[32:]...)
		if err := VerifySolSignature(ed25519vec.KATPub58, msg, base58.Encode(sig)); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("small-order R %s: %v", h, err)
		}
	}
}

// S >= L is refused (the malleable twin S + L of a valid signature, and S = L, S = 2^256 - 1), while the
// signature itself verifies.
func TestSolNonCanonicalSRefused(t *testing.T) {
	key := ed25519.NewKeyFromSeed(ed25519vec.Hex(t, ed25519vec.KATSeedHex))
	msg := []byte(ed25519vec.KATMsg)
	sig := ed25519.Sign(key, msg)
	if err := VerifySolSignature(ed25519vec.KATPub58, msg, base58.Encode(sig)); err != nil {
		t.Fatalf("real signature: %v", err)
	}
	s := new(big.Int).SetBytes(ed25519vec.Reverse(sig[32:]))
	for name, bad := range map[string]*big.Int{
		"S+L": new(big.Int).Add(s, ed25519vec.L),
		"L":   ed25519vec.L,
		"max": new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)),
	} {
		if bad.BitLen() > 256 {
			continue
		}
		forged := append(append([]byte(nil), sig[:32]...), ed25519vec.LE32(bad)...)
		if err := VerifySolSignature(ed25519vec.KATPub58, msg, base58.Encode(forged)); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("S = %s: %v", name, err)
		}
	}
}

// Real keys keep working: the RFC 8032 vector and 200 random keys.
func TestSolRealKeysStillVerify(t *testing.T) {
	if err := VerifySolSignature(base58.Encode(ed25519vec.Hex(t, ed25519vec.KATPubHex)), nil, base58.Encode(ed25519vec.Hex(t, ed25519vec.KATSigHex))); err != nil {
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
