package auth

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"
	"github.com/c13f5054/moralis-go/signer"
)

// The EIP-712 document of these tests: the EIP's own Mail example (signer's test data).
func mailTypedData(t *testing.T) *signer.TypedData {
	t.Helper()
	b, err := os.ReadFile("../signer/testdata/eip712_mail.json")
	if err != nil {
		t.Fatal(err)
	}
	td, err := signer.ParseTypedData(b)
	if err != nil {
		t.Fatal(err)
	}
	return td
}

// otherMail is the Mail document with other contents: a different digest.
func otherMail(t *testing.T) *signer.TypedData {
	td := mailTypedData(t)
	td.Message["contents"] = "Hello, Alice!"
	return td
}

func signTyped(t *testing.T, s signer.EthereumTypedData, td *signer.TypedData) string {
	t.Helper()
	sig, err := s.SignTypedData(context.Background(), td)
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(sig)
}

func TestVerifyTypedDataEOA(t *testing.T) {
	ctx := context.Background()
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	td := mailTypedData(t)
	sig := signTyped(t, owner, td)
	never := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return abiWord(validatorValid), nil }}
	for _, chain := range []ContractCaller{nil, never} {
		if err := VerifyTypedData(ctx, chain, owner.Address().Hex(), td, sig); err != nil {
			t.Fatalf("owner: %v", err)
		}
		if err := VerifyTypedData(ctx, chain, ethAddr(owner), td, sig); err != nil {
			t.Fatalf("owner, lower-case address: %v", err)
		}
	}
	if never.n.Load() != 0 {
		t.Fatal("a valid EOA signature asked the chain")
	}
	for name, c := range map[string]struct {
		addr string
		td   *signer.TypedData
		sig  string
	}{
		"another signer":    {ethAddr(owner), td, signTyped(t, other, td)},
		"another document":  {ethAddr(owner), otherMail(t), sig},
		"another address":   {ethAddr(other), td, sig},
		"personal_sign sig": {ethAddr(owner), td, signHex(t, owner, "Hello, Bob!")},
	} {
		if err := VerifyTypedData(ctx, nil, c.addr, c.td, c.sig); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("%s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	for name, bad := range map[string]string{"high s": highSTwin(t, sig), "64 bytes": sig[:130], "not hex": "0xzz", "empty": ""} {
		if err := VerifyTypedData(ctx, nil, ethAddr(owner), td, bad); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("%s: %v, want ErrMalformedSignature", name, err)
		}
	}
	if err := VerifyTypedData(ctx, nil, "0x1234", td, sig); !errors.Is(err, ErrMalformedAddress) {
		t.Errorf("bad address: %v", err)
	}
}

// TestVerifyTypedDataRefusedFirst: a document signer.TypedDataHash refuses, or an oversized signature, is an
// error before any chain call.
func TestVerifyTypedDataRefusedFirst(t *testing.T) {
	ctx := context.Background()
	owner, _ := signer.GenerateKey()
	never := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return abiWord(validatorValid), nil }}
	td := mailTypedData(t)
	sig := signTyped(t, owner, td)
	bad := mailTypedData(t)
	bad.Message["to"].(map[string]any)["wallet"] = "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbb" // bad EIP-55 checksum
	if err := VerifyTypedData(ctx, never, ethAddr(owner), bad, sig); !errors.Is(err, signer.ErrInvalidTypedData) {
		t.Errorf("bad document: %v", err)
	}
	if err := VerifyTypedData(ctx, never, ethAddr(owner), nil, sig); !errors.Is(err, signer.ErrInvalidTypedData) {
		t.Errorf("nil document: %v", err)
	}
	huge := "0x" + strings.Repeat("00", MaxContractSignatureLen+64)
	if err := VerifyTypedData(ctx, never, ethAddr(owner), td, huge); !errors.Is(err, ErrMalformedSignature) {
		t.Errorf("huge signature: %v", err)
	}
	if never.n.Load() != 0 {
		t.Errorf("%d chain calls for refused input", never.n.Load())
	}
}

// TestVerifyTypedDataContractWallets: on the simulated chain, a deployed ERC-1271 account and an undeployed
// ERC-6492 one sign typed data through their owner; a non-owner's signature, another document or a wrong wrapper
// are refused.
func TestVerifyTypedDataContractWallets(t *testing.T) {
	w := walletnet.Start(t)
	ctx := ctxT30(t)
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	td := mailTypedData(t)
	ownerSig := mustHex(signTyped(t, owner, td))
	otherSig := mustHex(signTyped(t, other, td))

	deployed := w.DeployAccount(t, owner.Address()).Hex()
	if err := VerifyTypedData(ctx, w.Client, deployed, td, "0x"+hex.EncodeToString(ownerSig)); err != nil {
		t.Fatalf("ERC-1271 account, owner's signature: %v", err)
	}
	for name, c := range map[string]struct {
		td  *signer.TypedData
		sig []byte
	}{
		"non-owner's signature": {td, otherSig},
		"another document":      {otherMail(t), ownerSig},
	} {
		if err := VerifyTypedData(ctx, w.Client, deployed, c.td, "0x"+hex.EncodeToString(c.sig)); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("ERC-1271, %s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	// Without a chain a contract account cannot sign.
	if err := VerifyTypedData(ctx, nil, deployed, td, "0x"+hex.EncodeToString(ownerSig)); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("ERC-1271 without a chain: %v", err)
	}

	// An account its factory has not deployed yet: ERC-6492.
	other2, _ := signer.GenerateKey()
	acct := w.Counterfactual(t, other2.Address())
	wrap := func(factoryCall, sig []byte) string {
		return "0x" + hex.EncodeToString(WrapERC6492Signature(w.Factory, factoryCall, sig))
	}
	sig2 := mustHex(signTyped(t, other2, td))
	if err := VerifyTypedData(ctx, w.Client, acct.Hex(), td, wrap(walletnet.CreateAccountCall(other2.Address()), sig2)); err != nil {
		t.Fatalf("ERC-6492 account, owner's signature: %v", err)
	}
	if code, err := w.Client.CodeAt(ctx, acct, nil); err != nil || len(code) != 0 {
		t.Fatalf("the check deployed the account: %d bytes, %v", len(code), err)
	}
	for name, sig := range map[string]string{
		"non-owner's signature":    wrap(walletnet.CreateAccountCall(other2.Address()), otherSig),
		"another owner's calldata": wrap(walletnet.CreateAccountCall(other.Address()), sig2),
		"unwrapped":                "0x" + hex.EncodeToString(sig2),
	} {
		if err := VerifyTypedData(ctx, w.Client, acct.Hex(), td, sig); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("ERC-6492, %s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	if err := VerifyTypedData(ctx, w.Client, acct.Hex(), otherMail(t), wrap(walletnet.CreateAccountCall(other2.Address()), sig2)); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("ERC-6492, another document: %v", err)
	}
	// The digest asked of the account is the typed-data digest, nothing else.
	h, _ := signer.TypedDataHash(td)
	if err := VerifyEthHash(ctx, w.Client, common.HexToAddress(deployed), h, ownerSig); err != nil {
		t.Errorf("VerifyEthHash of the digest: %v", err)
	}
}
