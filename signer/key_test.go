package signer_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"github.com/c13f5054/moralis-go/signer"
)

// Known-answer vectors computed with an independent implementation (@noble/curves secp256k1 + @noble/hashes
// keccak, lowS, RFC 6979) for the well-known Hardhat development key #0.
const (
	katEthKey  = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	katEthAddr = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	katEthMsg  = "Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z"
	katEthSig  = "0x9d7c1a0651ff78f91168464aefad14726fd6439b78a6f9485bc5a844921ba24e7f648a0a6d5e629c8c9f1ea2a6144f34f3367a36ac61da532252ae5e13f143921b"
	katEthMsg2 = "hello world"
	katEthSig2 = "0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b"
)

// recoverAddr recovers the personal_sign signer of msg from a 65-byte signature with V = 27/28.
func recoverAddr(t *testing.T, msg []byte, sig []byte) common.Address {
	t.Helper()
	if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("signature %x: want 65 bytes with V 27 or 28", sig)
	}
	s := append([]byte(nil), sig...)
	s[64] -= 27
	pub, err := crypto.SigToPub(accounts.TextHash(msg), s)
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(*pub)
}

func TestKeyKnownAnswer(t *testing.T) {
	for _, in := range []string{katEthKey, "0x" + katEthKey, "0X" + strings.ToUpper(katEthKey), "  " + katEthKey + "\n"} {
		k, err := signer.NewKeyFromHex(in)
		if err != nil {
			t.Fatal(err)
		}
		if k.Address().Hex() != katEthAddr {
			t.Fatalf("address %s, want %s", k.Address().Hex(), katEthAddr)
		}
		for _, v := range []struct{ msg, sig string }{{katEthMsg, katEthSig}, {katEthMsg2, katEthSig2}} {
			sig, err := k.SignMessage(context.Background(), []byte(v.msg))
			if err != nil {
				t.Fatal(err)
			}
			if got := "0x" + hex.EncodeToString(sig); got != v.sig {
				t.Errorf("signature of %q:\n got %s\nwant %s", v.msg, got, v.sig)
			}
			if got := recoverAddr(t, []byte(v.msg), sig); got != k.Address() {
				t.Errorf("%q recovers %s", v.msg, got.Hex())
			}
		}
	}
	// NewKey gives the same key, and keeps its own copy.
	raw, _ := crypto.HexToECDSA(katEthKey)
	k, err := signer.NewKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the test changes the caller's key the way go-ethereum code can
	raw.D.SetInt64(1)
	sig, _ := k.SignMessage(context.Background(), []byte(katEthMsg))
	if "0x"+hex.EncodeToString(sig) != katEthSig {
		t.Fatal("NewKey shares the caller's key")
	}
}

func TestKeyFromKeystore(t *testing.T) {
	key, err := crypto.HexToECDSA(katEthKey)
	if err != nil {
		t.Fatal(err)
	}
	js, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		"correct horse", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	k, err := signer.NewKeyFromKeystore(js, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if k.Address().Hex() != katEthAddr {
		t.Fatalf("address %s", k.Address().Hex())
	}
	sig, _ := k.SignMessage(context.Background(), []byte(katEthMsg))
	if "0x"+hex.EncodeToString(sig) != katEthSig {
		t.Fatal("keystore key signs differently from the raw key")
	}
	if _, err := signer.NewKeyFromKeystore(js, "wrong"); err == nil || strings.Contains(err.Error(), "correct horse") ||
		strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if _, err := signer.NewKeyFromKeystore([]byte("{"), "x"); err == nil {
		t.Fatal("bad JSON accepted")
	}
	path := t.TempDir() + "/key.json"
	if _, err := signer.NewKeyFromKeystoreFile(path, "x"); err == nil {
		t.Fatal("missing file accepted")
	}
	if err := writeFile(path, js); err != nil {
		t.Fatal(err)
	}
	if kf, err := signer.NewKeyFromKeystoreFile(path, "correct horse"); err != nil || kf.Address() != k.Address() {
		t.Fatalf("keystore file: %v", err)
	}
}

func TestKeyBadInput(t *testing.T) {
	for _, in := range []string{"", "0x12", "0xdeadbeef", strings.Repeat("g", 64), strings.Repeat("0", 64),
		"0x" + katEthKey + "00", "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"} {
		_, err := signer.NewKeyFromHex(in)
		if err == nil {
			t.Errorf("key %q accepted", in)
			continue
		}
		if in != "" && strings.Contains(err.Error(), in) {
			t.Errorf("error holds the key: %v", err)
		}
	}
	if _, err := signer.NewKey(nil); err == nil {
		t.Fatal("nil key accepted")
	}
	if _, err := signer.NewKey(&ecdsa.PrivateKey{}); err == nil {
		t.Fatal("empty key accepted")
	}
	if _, err := signer.NewKey(&ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: crypto.S256()}}); err == nil {
		t.Fatal("key without a scalar accepted")
	}
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, err := signer.NewKey(p256); err == nil {
		t.Fatal("P-256 key accepted")
	}
	k, _ := signer.NewKeyFromHex(katEthKey)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.SignMessage(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
	if _, err := k.SignTx(ctx, types.NewTx(&types.LegacyTx{}), big.NewInt(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
	// A nil or zero Key has no account and refuses to sign; nothing panics.
	for _, nk := range []*signer.Key{nil, {}} {
		if nk.Address() != (common.Address{}) || !strings.Contains(nk.String(), "none") {
			t.Errorf("no key: %s %s", nk.Address().Hex(), nk)
		}
		if _, err := nk.SignMessage(context.Background(), []byte("x")); err == nil {
			t.Error("no key signed a message")
		}
		if _, err := nk.SignTx(context.Background(), types.NewTx(&types.LegacyTx{}), big.NewInt(1)); err == nil {
			t.Error("no key signed a transaction")
		}
	}
}

// Neither the Key nor any way of printing it shows the private key.
func TestKeyNeverPrintsTheKey(t *testing.T) {
	k, _ := signer.NewKeyFromHex(katEthKey)
	for _, s := range []string{k.String(), fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s", k, k, k, k), fmt.Sprintf("%+v %#v", *k, *k)} {
		if strings.Contains(strings.ToLower(s), katEthKey) || strings.Contains(s, new(big.Int).SetBytes(mustHex(katEthKey)).String()) {
			t.Fatalf("printed key: %s", s)
		}
	}
	if k.String() != "signer.Key("+katEthAddr+")" {
		t.Fatalf("String %q", k.String())
	}
}

func TestKeySignTx(t *testing.T) {
	k, _ := signer.NewKeyFromHex(katEthKey)
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	for _, tx := range []*types.Transaction{
		types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: 7, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2), Gas: 21000, To: &to, Value: big.NewInt(5)}),
		types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(1), Gas: 21000, To: &to, Value: big.NewInt(5)}),
	} {
		unsigned := tx.Hash()
		signed, err := k.SignTx(context.Background(), tx, big.NewInt(1337))
		if err != nil {
			t.Fatal(err)
		}
		if tx.Hash() != unsigned {
			t.Fatal("SignTx changed its input")
		}
		from, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), signed)
		if err != nil || from != k.Address() {
			t.Fatalf("sender %s, %v", from.Hex(), err)
		}
		if signed.ChainId().Int64() != 1337 {
			t.Fatalf("chain id %v", signed.ChainId())
		}
	}
	if _, err := k.SignTx(context.Background(), nil, big.NewInt(1)); err == nil {
		t.Fatal("nil transaction signed")
	}
	if _, err := k.SignTx(context.Background(), types.NewTx(&types.LegacyTx{}), nil); err == nil {
		t.Fatal("signed without a chain id")
	}
}

func TestGenerateKey(t *testing.T) {
	a, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := signer.GenerateKey()
	if a.Address() == b.Address() || a.Address() == (common.Address{}) {
		t.Fatalf("addresses %s %s", a.Address().Hex(), b.Address().Hex())
	}
	msg := []byte("x")
	sig, err := a.SignMessage(context.Background(), msg)
	if err != nil || recoverAddr(t, msg, sig) != a.Address() {
		t.Fatalf("own signature: %v", err)
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		panic(err)
	}
	return b
}
