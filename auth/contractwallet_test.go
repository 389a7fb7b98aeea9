package auth

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"
	asm "github.com/c13f5054/moralis-go/internal/evmasm"
	"github.com/c13f5054/moralis-go/signer"
)

// The smart-wallet tests run on go-ethereum's simulated chain (in-process, offline) with the test account and
// factory of internal/devchain/walletnet (written in the assembler of internal/evmasm, so no Solidity compiler is
// needed).

func ctxT30(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func signHex(t *testing.T, s signer.Ethereum, msg string) string {
	t.Helper()
	sig, err := s.SignMessage(context.Background(), []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(sig)
}

func TestContractWalletERC1271(t *testing.T) {
	w := walletnet.Start(t)
	ctx := ctxT30(t)
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	acct := w.DeployAccount(t, owner.Address()).Hex()
	const msg = "Sign in to the demo"

	if err := VerifyEthSignatureContext(ctx, w.Client, acct, []byte(msg), signHex(t, owner, msg)); err != nil {
		t.Fatalf("owner's signature for the account: %v", err)
	}
	for name, sig := range map[string]string{
		"non-owner":           signHex(t, other, msg),
		"owner, other text":   signHex(t, owner, msg+"!"),
		"owner, 64 bytes":     signHex(t, owner, msg)[:130],
		"owner, trailing 00":  signHex(t, owner, msg) + "00",
		"empty":               "0x",
		"owner, wrapped bare": "0x" + hex.EncodeToString(WrapERC6492Signature(common.Address{}, nil, mustHex(signHex(t, other, msg)))),
	} {
		if err := VerifyEthSignatureContext(ctx, w.Client, acct, []byte(msg), sig); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("%s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	// Without a chain nothing changes: a contract account cannot sign in.
	if err := VerifyEthSignatureContext(ctx, nil, acct, []byte(msg), signHex(t, owner, msg)); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("no chain: %v", err)
	}
	if err := VerifyEthSignature(acct, []byte(msg), signHex(t, owner, msg)); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("VerifyEthSignature: %v", err)
	}
	// The owner itself (an EOA) still signs for itself.
	if err := VerifyEthSignatureContext(ctx, w.Client, ethAddr(owner), []byte(msg), signHex(t, owner, msg)); err != nil {
		t.Errorf("owner as EOA: %v", err)
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		panic(err)
	}
	return b
}

func TestContractWalletERC6492(t *testing.T) {
	w := walletnet.Start(t)
	ctx := ctxT30(t)
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	acct := w.Counterfactual(t, owner.Address())
	const msg = "Sign in before the account exists"
	ownerSig := mustHex(signHex(t, owner, msg))
	wrap := func(factory common.Address, data, sig []byte) string {
		return "0x" + hex.EncodeToString(WrapERC6492Signature(factory, data, sig))
	}

	good := wrap(w.Factory, walletnet.CreateAccountCall(owner.Address()), ownerSig)
	if err := VerifyEthSignatureContext(ctx, w.Client, acct.Hex(), []byte(msg), good); err != nil {
		t.Fatalf("counterfactual account via its factory: %v", err)
	}
	// Checking is a simulation: the account is still not deployed.
	if code, err := w.Client.CodeAt(ctx, acct, nil); err != nil || len(code) != 0 {
		t.Fatalf("the check deployed the account: %d bytes, %v", len(code), err)
	}
	// Without the wrapper, or without a chain, an undeployed account cannot sign.
	if err := VerifyEthSignatureContext(ctx, w.Client, acct.Hex(), []byte(msg), "0x"+hex.EncodeToString(ownerSig)); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("unwrapped: %v", err)
	}
	if err := VerifyEthSignatureContext(ctx, nil, acct.Hex(), []byte(msg), good); !errors.Is(err, ErrMalformedSignature) {
		t.Errorf("no chain: %v", err)
	}

	refused := map[string]string{
		"non-owner's signature":          wrap(w.Factory, walletnet.CreateAccountCall(owner.Address()), mustHex(signHex(t, other, msg))),
		"wrong factory (an EOA)":         wrap(w.DevAddr, walletnet.CreateAccountCall(owner.Address()), ownerSig),
		"wrong factory (no code at all)": wrap(common.HexToAddress("0x00000000000000000000000000000000000000ff"), walletnet.CreateAccountCall(owner.Address()), ownerSig),
		"calldata for another owner":     wrap(w.Factory, walletnet.CreateAccountCall(other.Address()), ownerSig),
		"calldata the factory reverts":   wrap(w.Factory, []byte{1, 2, 3, 4}, ownerSig),
		"owner's signature, other text":  wrap(w.Factory, walletnet.CreateAccountCall(owner.Address()), mustHex(signHex(t, owner, msg+"!"))),
	}
	for name, sig := range refused {
		if err := VerifyEthSignatureContext(ctx, w.Client, acct.Hex(), []byte(msg), sig); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("%s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	// A valid wrapper for another account does not sign for this one.
	if err := VerifyEthSignatureContext(ctx, w.Client, w.Counterfactual(t, other.Address()).Hex(), []byte(msg), good); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("other account: %v", err)
	}

	// Once deployed, both the wrapped signature (factory call skipped) and the plain one are accepted.
	w.DeployAccount(t, owner.Address())
	for name, sig := range map[string]string{"wrapped": good, "plain": "0x" + hex.EncodeToString(ownerSig)} {
		if err := VerifyEthSignatureContext(ctx, w.Client, acct.Hex(), []byte(msg), sig); err != nil {
			t.Errorf("deployed, %s: %v", name, err)
		}
	}
}

// TestContractWalletPrepare: a deployed account that refuses until prepare() is called is accepted with an
// ERC-6492 wrapper whose call prepares it (made in the simulation only), and refused without.
func TestContractWalletPrepare(t *testing.T) {
	w := walletnet.Start(t)
	ctx := ctxT30(t)
	owner, _ := signer.GenerateKey()
	acct := w.DeployCode(t, append(walletnet.AccountRuntime(t, true), common.LeftPadBytes(owner.Address().Bytes(), 32)...))
	const msg = "prepare me"
	sig := mustHex(signHex(t, owner, msg))
	if err := VerifyEthHash(ctx, w.Client, acct, common.BytesToHash(accounts.TextHash([]byte(msg))), sig); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("unprepared: %v", err)
	}
	wrapped := WrapERC6492Signature(acct, walletnet.SelPrepare, sig)
	if err := VerifyEthHash(ctx, w.Client, acct, common.BytesToHash(accounts.TextHash([]byte(msg))), wrapped); err != nil {
		t.Fatalf("prepared in the call: %v", err)
	}
	bad := WrapERC6492Signature(acct, []byte{9, 9, 9, 9}, sig)
	if err := VerifyEthHash(ctx, w.Client, acct, common.BytesToHash(accounts.TextHash([]byte(msg))), bad); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("a prepare call that reverts: %v", err)
	}
}

// TestContractWalletLookalikes: contracts and precompiles whose answer merely starts like the magic value are
// refused; only the exact word 0x1626ba7e000…000 counts.
func TestContractWalletLookalikes(t *testing.T) {
	w := walletnet.Start(t)
	ctx := ctxT30(t)
	s, _ := signer.GenerateKey()
	const msg = "lookalike"
	sig := signHex(t, s, msg)
	almost := make([]byte, 32)
	copy(almost, erc1271Magic[:])
	almost[31] = 1
	junk := w.DeployCode(t, walletnet.Asm(t, asm.Push(almost), asm.Push1(0), asm.MSTORE, asm.Push1(0x20), asm.Push1(0), asm.RETURN))
	short := w.DeployCode(t, walletnet.Asm(t, asm.Push(erc1271Magic[:]), asm.Push1(0xe0), asm.SHL, asm.Push1(0), asm.MSTORE,
		asm.Push1(4), asm.Push1(0), asm.RETURN))
	reverts := w.DeployCode(t, walletnet.Asm(t, asm.Push(erc1271Magic[:]), asm.Push1(0xe0), asm.SHL, asm.Push1(0), asm.MSTORE,
		asm.Push1(0x20), asm.Push1(0), asm.REVERT))
	for name, addr := range map[string]common.Address{
		"magic then junk":      junk,
		"4-byte answer":        short,
		"magic in a revert":    reverts,
		"identity precompile":  common.BytesToAddress([]byte{4}),
		"ecrecover precompile": common.BytesToAddress([]byte{1}),
		"empty account":        common.HexToAddress("0x000000000000000000000000000000000000dEaD"),
		"the zero address":     {},
	} {
		if err := VerifyEthSignatureContext(ctx, w.Client, addr.Hex(), []byte(msg), sig); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("%s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	// An EOA on the real chain gets the same verdict as without a chain.
	other, _ := signer.GenerateKey()
	for name, bad := range map[string]string{"high s": highSTwin(t, sig), "another key": signHex(t, other, msg), "64 bytes": sig[:130]} {
		want := VerifyEthSignature(ethAddr(s), []byte(msg), bad)
		got := VerifyEthSignatureContext(ctx, w.Client, ethAddr(s), []byte(msg), bad)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("EOA, %s: with chain %v, without %v", name, got, want)
		}
	}
	// The identity precompile echoes its input: with a wrapped signature too, nothing passes.
	wrapped := "0x" + hex.EncodeToString(WrapERC6492Signature(common.BytesToAddress([]byte{4}), nil, mustHex(sig)))
	if err := VerifyEthSignatureContext(ctx, w.Client, common.BytesToAddress([]byte{4}).Hex(), []byte(msg), wrapped); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("identity, wrapped: %v", err)
	}
}

// countingCaller counts eth_calls and answers with fn.
type countingCaller struct {
	n  atomic.Int32
	fn func(ethereum.CallMsg) ([]byte, error)
}

func (c *countingCaller) CallContract(_ context.Context, m ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	c.n.Add(1)
	return c.fn(m)
}

// TestContractWalletEOAUnchanged: with a chain set, EOA signatures are checked as before: a good one without any
// eth_call, a bad one with the same error as without a chain.
func TestContractWalletEOAUnchanged(t *testing.T) {
	ctx := context.Background()
	noCode := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return abiWord(validatorNoCode), nil }}
	if err := VerifyEthSignatureContext(ctx, noCode, katEthAddr, []byte(katEthMsg), katEthSig); err != nil {
		t.Fatal(err)
	}
	if noCode.n.Load() != 0 {
		t.Fatalf("a valid EOA signature made %d eth_calls", noCode.n.Load())
	}
	// Well-formed hex: the chain is asked (the address might be a contract), says "no code", and the EOA verdict
	// is returned word for word.
	for name, sig := range map[string]string{
		"other text": katEthSig2, "high s": highSTwin(t, katEthSig), "v = 29": katEthSig[:130] + "1d",
		"short": katEthSig[:100], "empty": "0x",
	} {
		want := VerifyEthSignature(katEthAddr, []byte(katEthMsg), sig)
		got := VerifyEthSignatureContext(ctx, noCode, katEthAddr, []byte(katEthMsg), sig)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: with chain %v, without %v", name, got, want)
		}
	}
	// Not hex: refused before any call.
	before := noCode.n.Load()
	for _, sig := range []string{"0xzz", katEthSig + "0", "0x" + strings.Repeat("00", MaxContractSignatureLen+1)} {
		if err := VerifyEthSignatureContext(ctx, noCode, katEthAddr, []byte(katEthMsg), sig); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("%.20s: %v", sig, err)
		}
	}
	if noCode.n.Load() != before {
		t.Error("undecodable signature reached the chain")
	}
	if err := VerifyEthSignatureContext(ctx, noCode, "0x1234", []byte(katEthMsg), katEthSig); !errors.Is(err, ErrMalformedAddress) {
		t.Errorf("bad address: %v", err)
	}
}

// highSTwin returns the malleable twin (s -> n - s, v flipped) of a canonical signature.
func highSTwin(t *testing.T, sigHex string) string {
	t.Helper()
	sig := mustHex(sigHex)
	s := new(big.Int).SetBytes(sig[32:64])
	s.Sub(crypto.S256().Params().N, s)
	copy(sig[32:64], common.LeftPadBytes(s.Bytes(), 32))
	sig[64] = 27 + 28 - sig[64] // the twin has the other recovery id (27 <-> 28)
	return "0x" + hex.EncodeToString(sig)
}

// TestContractWalletChainErrors: an RPC failure is ErrChainUnavailable (never a verdict on the signature) and its
// text does not carry the RPC URL, which may hold an API key; an odd answer is not taken as valid.
func TestContractWalletChainErrors(t *testing.T) {
	ctx := context.Background()
	s, _ := signer.GenerateKey()
	sig := signHex(t, s, "x")
	down := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) {
		return nil, &url.Error{Op: "Post", URL: "https://rpc.example/v3/SECRETKEY", Err: errors.New("connection refused")}
	}}
	err := VerifyEthSignatureContext(ctx, down, katEthAddr, []byte("x"), sig)
	if !errors.Is(err, ErrChainUnavailable) || strings.Contains(err.Error(), "SECRETKEY") {
		t.Fatalf("rpc down: %v", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("cause lost: %v", err)
	}
	for _, out := range [][]byte{nil, {1}, append(abiWord(validatorValid), 0), abiWord(7), append([]byte{1}, make([]byte, 31)...)} {
		odd := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return out, nil }}
		if err := VerifyEthSignatureContext(ctx, odd, katEthAddr, []byte("x"), sig); !errors.Is(err, ErrChainUnavailable) {
			t.Errorf("answer %x: %v", out, err)
		}
	}
	// The call is a deployless eth_call: no "to", the validator's code and the arguments as data, bounded gas.
	var seen ethereum.CallMsg
	spy := &countingCaller{fn: func(m ethereum.CallMsg) ([]byte, error) { seen = m; return abiWord(validatorValid), nil }}
	if err := VerifyEthSignatureContext(ctx, spy, katEthAddr, []byte("x"), sig); err != nil {
		t.Fatal(err)
	}
	code, _ := validatorCode()
	if seen.To != nil || seen.Gas != ContractCallGas || seen.Value != nil || !bytes.HasPrefix(seen.Data, code) {
		t.Errorf("call %+v", seen)
	}
}

func TestERC6492Wrapper(t *testing.T) {
	f := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	data, inner := []byte{1, 2, 3}, bytes.Repeat([]byte{7}, 65)
	w := WrapERC6492Signature(f, data, inner)
	if !IsERC6492Signature(w) || IsERC6492Signature(inner) || len(w)%32 != 0 {
		t.Fatalf("wrapper %x", w)
	}
	gf, gd, gi, err := UnwrapERC6492Signature(w)
	if err != nil || gf != f || !bytes.Equal(gd, data) || !bytes.Equal(gi, inner) {
		t.Fatalf("unwrap: %v %x %x %x", err, gf, gd, gi)
	}
	mut := func(fn func(b []byte) []byte) []byte { return fn(bytes.Clone(w)) }
	bad := map[string][]byte{
		"dirty address":     mut(func(b []byte) []byte { b[0] = 1; return b }),
		"offset past end":   mut(func(b []byte) []byte { b[63] = 0xff; return b }),
		"offset unaligned":  mut(func(b []byte) []byte { b[63] = 0x61; return b }),
		"huge offset":       mut(func(b []byte) []byte { b[32] = 0x80; return b }),
		"length past end":   mut(func(b []byte) []byte { b[96+31] = 0xf0; return b }),
		"huge length":       mut(func(b []byte) []byte { b[96] = 0xff; return b }),
		"truncated":         append(bytes.Clone(w[:70]), erc6492Suffix[:]...),
		"suffix only":       erc6492Suffix[:],
		"offsets into head": append(make([]byte, 96), erc6492Suffix[:]...),
	}
	never := &countingCaller{fn: func(ethereum.CallMsg) ([]byte, error) { return abiWord(validatorValid), nil }}
	for name, b := range bad {
		if _, _, _, err := UnwrapERC6492Signature(b); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("%s: %v", name, err)
		}
		// Verification refuses a malformed wrapper the same way, before any chain call.
		if IsERC6492Signature(b) {
			if err := VerifyEthHash(context.Background(), never, f, common.Hash{}, b); !errors.Is(err, ErrMalformedSignature) {
				t.Errorf("%s: verify %v", name, err)
			}
		}
	}
	if never.n.Load() != 0 {
		t.Error("a malformed wrapper reached the chain")
	}
}

// TestValidatorBytecode pins the hand-assembled validator: a change to its listing must be deliberate (and the
// chain tests above rerun).
func TestValidatorBytecode(t *testing.T) {
	code, err := validatorCode()
	if err != nil {
		t.Fatal(err)
	}
	const want = "6100ce38036100ce6020396020513b1515604051158117610035576000600060605160a060006040515af1610035576003" +
		"6100c5565b61003d610071565b806001146100c55781156100c557604051156100c5576000600060605160a060006040515af1" +
		"156100c557506100c5610071565b6020513b156100c05760006000526020600060805160605160a0016020515afa3d60201115" +
		"166000517f1626ba7e00000000000000000000000000000000000000000000000000000000141690565b600290565b600052" +
		"60206000f3"
	if got := hex.EncodeToString(code); got != want {
		t.Fatalf("validator bytecode changed:\n%s", got)
	}
	if code[0] == 0xef {
		t.Fatal("starts with 0xEF")
	}
}

// FuzzUnwrapERC6492Signature: decoding any bytes never panics; what decodes re-wraps to a signature that decodes
// to the same parts.
func FuzzUnwrapERC6492Signature(f *testing.F) {
	f.Add(WrapERC6492Signature(common.HexToAddress("0x00000000000000000000000000000000000000aa"), []byte{1, 2, 3}, bytes.Repeat([]byte{7}, 65)))
	f.Add(append(make([]byte, 96), erc6492Suffix[:]...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		fa, fd, in, err := UnwrapERC6492Signature(b)
		if err != nil {
			if !errors.Is(err, ErrMalformedSignature) {
				t.Fatalf("error %v", err)
			}
			return
		}
		fa2, fd2, in2, err := UnwrapERC6492Signature(WrapERC6492Signature(fa, fd, in))
		if err != nil || fa2 != fa || !bytes.Equal(fd2, fd) || !bytes.Equal(in2, in) {
			t.Fatalf("re-wrap: %v", err)
		}
	})
}
