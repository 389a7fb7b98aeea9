package auth

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/internal/devchain/devnet"
)

// The smart-wallet tests run on go-ethereum's simulated chain (in-process, offline) with contracts written here in
// the assembler of evmasm.go, so that no Solidity compiler is needed:
//
//   - testAccount: a minimal ERC-1271 account. isValidSignature(hash, sig) answers 0x1626ba7e when sig is a
//     65-byte ECDSA signature of hash by the owner (ecrecover precompile), else 0xffffffff. The owner is a
//     32-byte word appended to its runtime code. With prepared = true it also needs prepare() to have been called
//     first (a storage flag): the ERC-6492 "prepare" case.
//   - testFactory: createAccount(address owner) deploys testAccount for owner with CREATE2 (salt = owner) and
//     returns its address; the account's address is known before it exists (counterfactual).

var (
	selCreateAccount = crypto.Keccak256([]byte("createAccount(address)"))[:4]
	selPrepare       = crypto.Keccak256([]byte("prepare()"))[:4]
)

func mustAsm(t testing.TB, items ...any) []byte {
	t.Helper()
	code, err := assemble(items...)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// deployRest is a constructor that returns (deploys) every byte of the creation code after itself.
func deployRest(t testing.TB) []byte {
	return mustAsm(t, asmRef("end"), opCODESIZE, opSUB, opDUP1, asmRef("end"), push1(0), opCODECOPY,
		push1(0), opRETURN, asmMark("end"))
}

func testAccountRuntime(t testing.TB, prepared bool) []byte {
	magic := make([]byte, 32)
	copy(magic, erc1271Magic[:])
	no := make([]byte, 32)
	copy(no, []byte{0xff, 0xff, 0xff, 0xff})
	items := []any{
		push1(0), opCALLDATALOAD, push1(0xe0), opSHR, opDUP1, asmPush(erc1271Magic[:]), opEQ, asmRef("isvalid"), opJUMPI,
		opDUP1, asmPush(selPrepare), opEQ, asmRef("prepare"), opJUMPI,
		push1(0), push1(0), opREVERT,
		asmLabel("prepare"),
		push1(1), push1(0), opSSTORE, opSTOP,
		asmLabel("isvalid"),
	}
	if prepared {
		items = append(items, push1(0), opSLOAD, opISZERO, asmRef("bad"), opJUMPI)
	}
	items = append(items,
		// off := 4 + calldataload(0x24): where the signature's length word is; it must be 65.
		push1(0x24), opCALLDATALOAD, push1(4), opADD,
		opDUP1, opCALLDATALOAD, push1(65), opEQ, opISZERO, asmRef("bad"), opJUMPI,
		// ecrecover input at 0: hash, v, r, s.
		push1(4), opCALLDATALOAD, push1(0), opMSTORE,
		opDUP1, push1(0x20), opADD, opCALLDATALOAD, push1(0x40), opMSTORE,
		opDUP1, push1(0x40), opADD, opCALLDATALOAD, push1(0x60), opMSTORE,
		opDUP1, push1(0x60), opADD, opCALLDATALOAD, push1(0xf8), opSHR, push1(0x20), opMSTORE,
		opPOP,
		push1(0x20), push1(0x80), push1(0x80), push1(0), push1(1), opGAS, opSTATICCALL,
		opISZERO, asmRef("bad"), opJUMPI,
		// owner := the last word of this code.
		push1(0x20), push1(0x20), opCODESIZE, opSUB, push1(0xa0), opCODECOPY,
		push1(0x80), opMLOAD, push1(0xa0), opMLOAD, opEQ, opISZERO, asmRef("bad"), opJUMPI,
		asmPush(magic), push1(0), opMSTORE, push1(0x20), push1(0), opRETURN,
		asmLabel("bad"),
		asmPush(no), push1(0), opMSTORE, push1(0x20), push1(0), opRETURN,
	)
	return mustAsm(t, items...)
}

// testAccountInit is the account's creation code without its owner word (the factory appends it).
func testAccountInit(t testing.TB, prepared bool) []byte {
	return append(deployRest(t), testAccountRuntime(t, prepared)...)
}

func testFactoryInit(t testing.TB) []byte {
	runtime := mustAsm(t,
		push1(0), opCALLDATALOAD, push1(0xe0), opSHR, asmPush(selCreateAccount), opEQ, asmRef("create"), opJUMPI,
		push1(0), push1(0), opREVERT,
		asmLabel("create"),
		asmRef("tpl"), opCODESIZE, opSUB, // [T]
		opDUP1, asmRef("tpl"), push1(0), opCODECOPY,
		push1(4), opCALLDATALOAD, // [T, owner]
		opDUP1, opDUP3, opMSTORE, // memory[T:T+32] = owner
		opSWAP1, push1(0x20), opADD, push1(0), push1(0), opCREATE2, // create2(0, 0, T+32, owner)
		opDUP1, opISZERO, asmRef("fail"), opJUMPI,
		push1(0), opMSTORE, push1(0x20), push1(0), opRETURN,
		asmLabel("fail"),
		push1(0), push1(0), opREVERT,
		asmMark("tpl"),
	)
	code := append(deployRest(t), runtime...)
	return append(code, testAccountInit(t, false)...)
}

type walletChain struct {
	*devnet.Chain
	factory common.Address
}

func startWalletChain(t *testing.T) *walletChain {
	t.Helper()
	c, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	rcpt, err := c.SendFromDev(ctxT30(t), nil, nil, testFactoryInit(t))
	if err != nil {
		t.Fatal(err)
	}
	return &walletChain{Chain: c, factory: rcpt.ContractAddress}
}

func ctxT30(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func createAccountCall(owner common.Address) []byte {
	return append(bytes.Clone(selCreateAccount), common.LeftPadBytes(owner[:], 32)...)
}

// counterfactual is the address createAccount(owner) deploys to.
func (w *walletChain) counterfactual(t *testing.T, owner common.Address) common.Address {
	init := append(testAccountInit(t, false), common.LeftPadBytes(owner[:], 32)...)
	return crypto.CreateAddress2(w.factory, common.BytesToHash(owner[:]), crypto.Keccak256(init))
}

// deployAccount runs createAccount(owner) in a transaction and checks the account has code.
func (w *walletChain) deployAccount(t *testing.T, owner common.Address) common.Address {
	t.Helper()
	if _, err := w.SendFromDev(ctxT30(t), &w.factory, nil, createAccountCall(owner)); err != nil {
		t.Fatal(err)
	}
	acct := w.counterfactual(t, owner)
	if code, err := w.Client.CodeAt(ctxT30(t), acct, nil); err != nil || len(code) == 0 {
		t.Fatalf("account not deployed: %d bytes, %v", len(code), err)
	}
	return acct
}

// deployCode deploys runtime as is (through deployRest) from the dev account.
func (w *walletChain) deployCode(t *testing.T, runtime []byte) common.Address {
	t.Helper()
	rcpt, err := w.SendFromDev(ctxT30(t), nil, nil, append(deployRest(t), runtime...))
	if err != nil {
		t.Fatal(err)
	}
	return rcpt.ContractAddress
}

func signHex(t *testing.T, s EthSigner, msg string) string {
	t.Helper()
	sig, err := s.SignMessage(context.Background(), []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(sig)
}

func ownerAddr(s *PrivateKeySigner) common.Address { return common.HexToAddress(s.Address()) }

func TestContractWalletERC1271(t *testing.T) {
	w := startWalletChain(t)
	ctx := ctxT30(t)
	owner, _ := GenerateEthSigner()
	other, _ := GenerateEthSigner()
	acct := w.deployAccount(t, ownerAddr(owner)).Hex()
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
	if err := VerifyEthSignatureContext(ctx, w.Client, owner.Address(), []byte(msg), signHex(t, owner, msg)); err != nil {
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
	w := startWalletChain(t)
	ctx := ctxT30(t)
	owner, _ := GenerateEthSigner()
	other, _ := GenerateEthSigner()
	acct := w.counterfactual(t, ownerAddr(owner))
	const msg = "Sign in before the account exists"
	ownerSig := mustHex(signHex(t, owner, msg))
	wrap := func(factory common.Address, data, sig []byte) string {
		return "0x" + hex.EncodeToString(WrapERC6492Signature(factory, data, sig))
	}

	good := wrap(w.factory, createAccountCall(ownerAddr(owner)), ownerSig)
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
		"non-owner's signature":          wrap(w.factory, createAccountCall(ownerAddr(owner)), mustHex(signHex(t, other, msg))),
		"wrong factory (an EOA)":         wrap(w.DevAddr, createAccountCall(ownerAddr(owner)), ownerSig),
		"wrong factory (no code at all)": wrap(common.HexToAddress("0x00000000000000000000000000000000000000ff"), createAccountCall(ownerAddr(owner)), ownerSig),
		"calldata for another owner":     wrap(w.factory, createAccountCall(ownerAddr(other)), ownerSig),
		"calldata the factory reverts":   wrap(w.factory, []byte{1, 2, 3, 4}, ownerSig),
		"owner's signature, other text":  wrap(w.factory, createAccountCall(ownerAddr(owner)), mustHex(signHex(t, owner, msg+"!"))),
	}
	for name, sig := range refused {
		if err := VerifyEthSignatureContext(ctx, w.Client, acct.Hex(), []byte(msg), sig); !errors.Is(err, ErrSignatureMismatch) {
			t.Errorf("%s: %v, want ErrSignatureMismatch", name, err)
		}
	}
	// A valid wrapper for another account does not sign for this one.
	if err := VerifyEthSignatureContext(ctx, w.Client, w.counterfactual(t, ownerAddr(other)).Hex(), []byte(msg), good); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("other account: %v", err)
	}

	// Once deployed, both the wrapped signature (factory call skipped) and the plain one are accepted.
	w.deployAccount(t, ownerAddr(owner))
	for name, sig := range map[string]string{"wrapped": good, "plain": "0x" + hex.EncodeToString(ownerSig)} {
		if err := VerifyEthSignatureContext(ctx, w.Client, acct.Hex(), []byte(msg), sig); err != nil {
			t.Errorf("deployed, %s: %v", name, err)
		}
	}
}

// TestContractWalletPrepare: a deployed account that refuses until prepare() is called is accepted with an
// ERC-6492 wrapper whose call prepares it (made in the simulation only), and refused without.
func TestContractWalletPrepare(t *testing.T) {
	w := startWalletChain(t)
	ctx := ctxT30(t)
	owner, _ := GenerateEthSigner()
	acct := w.deployCode(t, append(testAccountRuntime(t, true), common.LeftPadBytes(ownerAddr(owner).Bytes(), 32)...))
	const msg = "prepare me"
	sig := mustHex(signHex(t, owner, msg))
	if err := VerifyEthHash(ctx, w.Client, acct, common.BytesToHash(accounts.TextHash([]byte(msg))), sig); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("unprepared: %v", err)
	}
	wrapped := WrapERC6492Signature(acct, selPrepare, sig)
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
	w := startWalletChain(t)
	ctx := ctxT30(t)
	s, _ := GenerateEthSigner()
	const msg = "lookalike"
	sig := signHex(t, s, msg)
	almost := make([]byte, 32)
	copy(almost, erc1271Magic[:])
	almost[31] = 1
	junk := w.deployCode(t, mustAsm(t, asmPush(almost), push1(0), opMSTORE, push1(0x20), push1(0), opRETURN))
	short := w.deployCode(t, mustAsm(t, asmPush(erc1271Magic[:]), push1(0xe0), opSHL, push1(0), opMSTORE,
		push1(4), push1(0), opRETURN))
	reverts := w.deployCode(t, mustAsm(t, asmPush(erc1271Magic[:]), push1(0xe0), opSHL, push1(0), opMSTORE,
		push1(0x20), push1(0), opREVERT))
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
	other, _ := GenerateEthSigner()
	for name, bad := range map[string]string{"high s": highSTwin(t, sig), "another key": signHex(t, other, msg), "64 bytes": sig[:130]} {
		want := VerifyEthSignature(s.Address(), []byte(msg), bad)
		got := VerifyEthSignatureContext(ctx, w.Client, s.Address(), []byte(msg), bad)
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
	s, _ := GenerateEthSigner()
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
// chain tests above rerun). It also checks the assembler's refusals.
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
	for name, items := range map[string][]any{
		"unknown item": {"PUSH1"},
		"empty push":   {asmPush{}},
		"long push":    {asmPush(make([]byte, 33))},
		"twice":        {asmLabel("a"), asmMark("a")},
		"no label":     {asmRef("nowhere")},
	} {
		if _, err := assemble(items...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestHandlerSmartWalletSignIn: through the endpoint, a deployed ERC-1271 account and a counterfactual ERC-6492
// one sign in with their owner's signature when HandlerOptions.Chain is set; a non-owner is refused with 401
// before the backend; without Chain the account is refused as today; a chain that is down answers 503.
func TestHandlerSmartWalletSignIn(t *testing.T) {
	w := startWalletChain(t)
	owner, _ := GenerateEthSigner()
	other, _ := GenerateEthSigner()
	deployed := w.deployAccount(t, ownerAddr(owner))
	later := w.counterfactual(t, ownerAddr(other))

	e := newTestEnv(t, func(o *HandlerOptions) { o.Chain = w.Client })
	msg, _ := e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, signHex(t, other, msg)), nil); a.status != http.StatusUnauthorized ||
		a.body["error"] != "Signature does not match address" {
		t.Fatalf("non-owner: %d %v", a.status, a.body)
	}
	if e.cb.n.Load() != 0 {
		t.Fatal("backend called for a refused signature")
	}
	msg, _ = e.getMessage("evm", deployed.Hex())
	if a := e.postJSON("/signin", body("evm", deployed.Hex(), msg, signHex(t, owner, msg)), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-1271 sign-in: %d %v", a.status, a.body)
	}
	msg, _ = e.getMessage("evm", later.Hex())
	sig := "0x" + hex.EncodeToString(WrapERC6492Signature(w.factory, createAccountCall(ownerAddr(other)), mustHex(signHex(t, other, msg))))
	if a := e.postJSON("/signin", body("evm", later.Hex(), msg, sig), nil); a.status != http.StatusOK {
		t.Fatalf("ERC-6492 sign-in: %d %v", a.status, a.body)
	}
	if got := len(e.be.signed); got != 2 || e.be.signed[0].Address != strings.ToLower(deployed.Hex()) ||
		e.be.signed[1].Address != strings.ToLower(later.Hex()) {
		t.Fatalf("backend saw %+v", e.be.signed)
	}

	plain := newTestEnv(t, nil)
	msg, _ = plain.getMessage("evm", deployed.Hex())
	if a := plain.postJSON("/signin", body("evm", deployed.Hex(), msg, signHex(t, owner, msg)), nil); a.status != http.StatusUnauthorized {
		t.Fatalf("no Chain: %d %v", a.status, a.body)
	}

	// A chain that is down answers 503 and spends no nonce: once it is back, the same signed message signs in.
	var up atomic.Bool
	flaky := &countingCaller{fn: func(m ethereum.CallMsg) ([]byte, error) {
		if !up.Load() {
			return nil, errors.New("dial tcp: connection refused")
		}
		return w.Client.CallContract(context.Background(), m, nil)
	}}
	down := newTestEnv(t, func(o *HandlerOptions) { o.Chain = flaky })
	msg, _ = down.getMessage("evm", deployed.Hex())
	signed := body("evm", deployed.Hex(), msg, signHex(t, owner, msg))
	if a := down.postJSON("/signin", signed, nil); a.status != http.StatusServiceUnavailable || a.body["error"] != "Chain unavailable" {
		t.Fatalf("chain down: %d %v", a.status, a.body)
	}
	if down.cb.n.Load() != 0 {
		t.Fatal("backend called while the chain was down")
	}
	up.Store(true)
	if a := down.postJSON("/signin", signed, nil); a.status != http.StatusOK {
		t.Fatalf("chain back: %d %v", a.status, a.body)
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
