package signer_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mr-tron/base58"

	"github.com/c13f5054/moralis-go/internal/ed25519vec"
	"github.com/c13f5054/moralis-go/signer"
)

func TestEd25519KnownAnswer(t *testing.T) {
	seed := mustHex(ed25519vec.KATSeedHex)
	pub := mustHex(ed25519vec.KATPubHex)
	for name, secret := range map[string]string{"seed": base58.Encode(seed), "seed || public": base58.Encode(append(append([]byte{}, seed...), pub...))} {
		k, err := signer.NewEd25519KeyFromBase58(secret)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if k.PublicKey() != ed25519vec.KATPub58 || k.PublicKey() != base58.Encode(pub) {
			t.Fatalf("%s: public key %s", name, k.PublicKey())
		}
		// RFC 8032 test 1: the empty message.
		sig, _ := k.SignMessage(context.Background(), nil)
		if hex.EncodeToString(sig) != ed25519vec.KATSigHex {
			t.Fatalf("%s: RFC 8032 signature %x", name, sig)
		}
		// The Moralis message vector.
		sig, _ = k.SignMessage(context.Background(), []byte(ed25519vec.KATMsg))
		if base58.Encode(sig) != ed25519vec.KATSig58 {
			t.Fatalf("%s: signature %s", name, base58.Encode(sig))
		}
		if !ed25519.Verify(ed25519.PublicKey(pub), []byte(ed25519vec.KATMsg), sig) {
			t.Fatalf("%s: signature does not verify", name)
		}
	}
	k, err := signer.NewEd25519Key(ed25519.NewKeyFromSeed(seed))
	if err != nil || k.PublicKey() != ed25519vec.KATPub58 {
		t.Fatalf("NewEd25519Key: %v", err)
	}
}

func TestEd25519BadInput(t *testing.T) {
	seed := mustHex(ed25519vec.KATSeedHex)
	// A 64-byte secret whose public half is not its seed's would sign for another address than it shows.
	bad := append(append([]byte{}, seed...), make([]byte, 32)...)
	if _, err := signer.NewEd25519KeyFromBase58(base58.Encode(bad)); err == nil {
		t.Fatal("inconsistent 64-byte secret accepted")
	}
	if _, err := signer.NewEd25519Key(ed25519.PrivateKey(bad)); err == nil {
		t.Fatal("inconsistent private key accepted")
	}
	for _, k := range []ed25519.PrivateKey{nil, make(ed25519.PrivateKey, 10), make(ed25519.PrivateKey, 65)} {
		if _, err := signer.NewEd25519Key(k); err == nil {
			t.Errorf("key of %d bytes accepted", len(k))
		}
	}
	for _, s := range []string{"", "0OIl", "not base58!", base58.Encode(make([]byte, 31)), base58.Encode(make([]byte, 33))} {
		_, err := signer.NewEd25519KeyFromBase58(s)
		if err == nil {
			t.Errorf("secret %q accepted", s)
		} else if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error holds the secret: %v", err)
		}
	}
	k, _ := signer.NewEd25519KeyFromBase58(base58.Encode(seed))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.SignMessage(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
	for _, s := range []string{k.String(), fmt.Sprintf("%v %+v %#v", k, k, k), fmt.Sprintf("%+v %#v", *k, *k)} {
		if strings.Contains(s, base58.Encode(seed)) || strings.Contains(s, ed25519vec.KATSeedHex) || strings.Contains(s, "157 97 177") {
			t.Fatalf("printed key: %s", s)
		}
	}
	for _, nk := range []*signer.Ed25519Key{nil, {}} {
		if nk.PublicKey() != "" || !strings.Contains(nk.String(), "none") {
			t.Errorf("no key: %q %s", nk.PublicKey(), nk)
		}
		if _, err := nk.SignMessage(context.Background(), []byte("x")); err == nil {
			t.Error("no key signed")
		}
	}
}

func TestGenerateEd25519Key(t *testing.T) {
	a, err := signer.GenerateEd25519Key()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := signer.GenerateEd25519Key()
	if a.PublicKey() == b.PublicKey() {
		t.Fatal("same key twice")
	}
	pub, err := base58.Decode(a.PublicKey())
	if err != nil || len(pub) != ed25519.PublicKeySize {
		t.Fatalf("public key %q", a.PublicKey())
	}
	sig, _ := a.SignMessage(context.Background(), []byte("m"))
	if !ed25519.Verify(pub, []byte("m"), sig) {
		t.Fatal("own signature does not verify")
	}
}
