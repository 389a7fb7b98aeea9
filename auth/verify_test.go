package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mr-tron/base58"

	"github.com/c13f5054/moralis-go/internal/ed25519vec"
	"github.com/c13f5054/moralis-go/signer"
)

// The known-answer vectors of signing live in package signer's tests; here the same vectors check verification.

// Known-answer vectors computed with an independent implementation (@noble/curves secp256k1 + @noble/hashes
// keccak, lowS, RFC 6979) for the well-known Hardhat development key #0.
const (
	katEthKey  = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	katEthAddr = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	katEthMsg  = "Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z"
	katEthSig  = "0x9d7c1a0651ff78f91168464aefad14726fd6439b78a6f9485bc5a844921ba24e7f648a0a6d5e629c8c9f1ea2a6144f34f3367a36ac61da532252ae5e13f143921b"
	katEthMsg2 = "hello world"
	katEthSig2 = "0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b"
)

// The known signatures verify and recover their address; a changed byte does not.
func TestEthKnownAnswer(t *testing.T) {
	for _, v := range []struct{ msg, sig string }{{katEthMsg, katEthSig}, {katEthMsg2, katEthSig2}} {
		addr, err := RecoverEthAddress([]byte(v.msg), v.sig)
		if err != nil || addr != katEthAddr {
			t.Errorf("recover %q: %s, %v", v.msg, addr, err)
		}
		// Mixed-case (EIP-55) address is accepted: comparisons are lower-cased.
		if err := VerifyEthSignature("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", []byte(v.msg), v.sig); err != nil {
			t.Errorf("verify: %v", err)
		}
	}
	// The same message with one byte changed recovers another address.
	if err := VerifyEthSignature(katEthAddr, []byte(katEthMsg+"."), katEthSig); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("tampered message: %v", err)
	}
	// signer.Key, the module's key, signs what auth verifies.
	s, err := signer.NewKeyFromHex(katEthKey)
	if err != nil || ethAddr(s) != katEthAddr {
		t.Fatalf("key: %v", err)
	}
	sig, _ := s.SignMessage(context.Background(), []byte(katEthMsg))
	if err := VerifyEthSignature(ethAddr(s), []byte(katEthMsg), "0x"+hex.EncodeToString(sig)); err != nil {
		t.Fatal(err)
	}
}

// RFC 8032 test 1 and the Moralis message vector verify; a changed byte does not.
func TestSolKnownAnswer(t *testing.T) {
	pubHex, _ := hex.DecodeString(ed25519vec.KATPubHex)
	if base58.Encode(pubHex) != ed25519vec.KATPub58 {
		t.Fatalf("public key %s", base58.Encode(pubHex))
	}
	sigHex, _ := hex.DecodeString(ed25519vec.KATSigHex)
	if err := VerifySolSignature(ed25519vec.KATPub58, nil, base58.Encode(sigHex)); err != nil {
		t.Fatal(err)
	}
	if err := VerifySolSignature(ed25519vec.KATPub58, []byte(ed25519vec.KATMsg), ed25519vec.KATSig58); err != nil {
		t.Fatal(err)
	}
	if err := VerifySolSignature(ed25519vec.KATPub58, []byte(ed25519vec.KATMsg+"x"), ed25519vec.KATSig58); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("tampered: %v", err)
	}
	// signer.Ed25519Key, the module's key, signs what auth verifies.
	seed, _ := hex.DecodeString(ed25519vec.KATSeedHex)
	s, err := signer.NewEd25519KeyFromBase58(base58.Encode(seed))
	if err != nil || s.PublicKey() != ed25519vec.KATPub58 {
		t.Fatalf("key: %v", err)
	}
	sig, _ := s.SignMessage(context.Background(), []byte(ed25519vec.KATMsg))
	if err := VerifySolSignature(s.PublicKey(), []byte(ed25519vec.KATMsg), base58.Encode(sig)); err != nil {
		t.Fatal(err)
	}
}

func TestEthRecoveryIDForms(t *testing.T) {
	raw, _ := hex.DecodeString(strings.TrimPrefix(katEthSig, "0x"))
	raw[64] -= 27 // 0/1 form
	if addr, err := RecoverEthAddress([]byte(katEthMsg), hex.EncodeToString(raw)); err != nil || addr != katEthAddr {
		t.Fatalf("v=0/1 without 0x: %s %v", addr, err)
	}
	for _, v := range []byte{2, 26, 29, 35, 255} {
		raw[64] = v
		if _, err := RecoverEthAddress([]byte(katEthMsg), hex.EncodeToString(raw)); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("v=%d: %v", v, err)
		}
	}
}

func TestEthRejectsHighS(t *testing.T) {
	raw, _ := hex.DecodeString(strings.TrimPrefix(katEthSig, "0x"))
	n := crypto.S256().Params().N
	s := new(big.Int).SetBytes(raw[32:64])
	hs := new(big.Int).Sub(n, s) // the malleable twin: (r, n-s, v^1) is also a valid ECDSA signature
	hsb := hs.FillBytes(make([]byte, 32))
	mal := append(append(append([]byte{}, raw[:32]...), hsb...), 27+((raw[64]-27)^1))
	// Prove the twin is mathematically valid (recovers the same key when s-checks are skipped)...
	mal01 := append([]byte{}, mal...)
	mal01[64] -= 27
	pub, err := crypto.Ecrecover(textHashForTest(katEthMsg), mal01)
	if err != nil {
		t.Fatalf("twin does not recover at all: %v", err)
	}
	if got := strings.ToLower(crypto.PubkeyToAddress(*mustPub(t, pub)).Hex()); got != katEthAddr {
		t.Fatalf("twin recovers %s", got)
	}
	// ...and that we refuse it.
	if err := VerifyEthSignature(katEthAddr, []byte(katEthMsg), hex.EncodeToString(mal)); !errors.Is(err, ErrMalformedSignature) {
		t.Fatalf("high-s twin accepted: %v", err)
	}
}

func TestEthMalformed(t *testing.T) {
	for _, sig := range []string{"", "0x", "0x1234", strings.Repeat("zz", 65), katEthSig + "00", "0x" + strings.Repeat("00", 65)} {
		if err := VerifyEthSignature(katEthAddr, []byte(katEthMsg), sig); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("sig %q: %v", sig, err)
		}
	}
	for _, a := range []string{"", "0x12", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266"} {
		if err := VerifyEthSignature(a, []byte(katEthMsg), katEthSig); !errors.Is(err, ErrMalformedAddress) {
			t.Errorf("address %q: %v", a, err)
		}
	}
}

func TestEthRandomKeys(t *testing.T) {
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		a, err := signer.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := signer.GenerateKey()
		msg := []byte(BuildMoralisMessage("", "app", strings.Repeat("x", i)))
		sig, err := a.SignMessage(ctx, msg)
		if err != nil {
			t.Fatal(err)
		}
		sh := "0x" + hex.EncodeToString(sig)
		if err := VerifyEthSignature(ethAddr(a), msg, sh); err != nil {
			t.Fatalf("own signature refused: %v", err)
		}
		if err := VerifyEthSignature(ethAddr(b), msg, sh); !errors.Is(err, ErrSignatureMismatch) {
			t.Fatalf("signature by another address accepted: %v", err)
		}
	}
}

func TestSolMalformedAndRandom(t *testing.T) {
	for _, a := range []string{"", "0OIl", base58.Encode(make([]byte, 31)), "not base58!"} {
		if err := VerifySolSignature(a, []byte("m"), ed25519vec.KATSig58); !errors.Is(err, ErrMalformedAddress) {
			t.Errorf("address %q: %v", a, err)
		}
	}
	for _, s := range []string{"", "0x00", base58.Encode(make([]byte, 63)), hex.EncodeToString(make([]byte, 64))} {
		if err := VerifySolSignature(ed25519vec.KATPub58, []byte("m"), s); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("sig %q: %v", s, err)
		}
	}
	for i := 0; i < 20; i++ {
		a, _ := signer.GenerateEd25519Key()
		b, _ := signer.GenerateEd25519Key()
		msg := []byte(BuildMoralisMessage("", "app", strings.Repeat("n", i+8)))
		sig, _ := a.SignMessage(context.Background(), msg)
		if err := VerifySolSignature(a.PublicKey(), msg, base58.Encode(sig)); err != nil {
			t.Fatal(err)
		}
		if err := VerifySolSignature(b.PublicKey(), msg, base58.Encode(sig)); !errors.Is(err, ErrSignatureMismatch) {
			t.Fatalf("other key: %v", err)
		}
	}
	if _, err := signer.NewEd25519Key(make(ed25519.PrivateKey, 10)); err == nil {
		t.Fatal("short key accepted")
	}
}

func BenchmarkEthRecover(b *testing.B) {
	msg := []byte(katEthMsg)
	for b.Loop() {
		if _, err := RecoverEthAddress(msg, katEthSig); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEd25519Verify(b *testing.B) {
	msg := []byte(ed25519vec.KATMsg)
	for b.Loop() {
		if err := VerifySolSignature(ed25519vec.KATPub58, msg, ed25519vec.KATSig58); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEd25519VerifyRaw(b *testing.B) {
	pub, _ := DecodeSolPublicKey(ed25519vec.KATPub58)
	sig, _ := DecodeSolSignature(ed25519vec.KATSig58)
	msg := []byte(ed25519vec.KATMsg)
	for b.Loop() {
		if !ed25519.Verify(pub, msg, sig) {
			b.Fatal("verify failed")
		}
	}
}
