// Package walletnet puts minimal smart-contract wallets on a devnet chain for the tests of ERC-1271 and ERC-6492
// sign-in (packages auth and authserver). The contracts are written in the assembler of internal/evmasm, so no
// Solidity compiler is needed:
//
//   - the account: a minimal ERC-1271 account. isValidSignature(hash, sig) answers 0x1626ba7e when sig is a
//     65-byte ECDSA signature of hash by the owner (ecrecover precompile), else 0xffffffff. The owner is a 32-byte
//     word appended to its runtime code. With prepared = true it also needs prepare() to have been called first (a
//     storage flag): the ERC-6492 "prepare" case.
//   - the factory: createAccount(address owner) deploys the account for owner with CREATE2 (salt = owner) and
//     returns its address; the account's address is known before it exists (counterfactual).
//
// Like devnet, it is for tests only (it imports go-ethereum's simulated backend), never for library code.
// A *Chain is safe for concurrent use.
package walletnet

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/internal/devchain/devnet"
	asm "github.com/c13f5054/moralis-go/internal/evmasm"
)

var (
	// ERC1271Magic is what isValidSignature(bytes32,bytes) returns for a valid signature (its own selector).
	ERC1271Magic = [4]byte{0x16, 0x26, 0xba, 0x7e}
	// SelCreateAccount is the selector of the factory's createAccount(address).
	SelCreateAccount = crypto.Keccak256([]byte("createAccount(address)"))[:4]
	// SelPrepare is the selector of a prepared account's prepare().
	SelPrepare = crypto.Keccak256([]byte("prepare()"))[:4]
)

// Asm assembles a listing of internal/evmasm items, failing the test on an error.
func Asm(t testing.TB, items ...any) []byte {
	t.Helper()
	code, err := asm.Assemble(items...)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// DeployRest is a constructor that returns (deploys) every byte of the creation code after itself.
func DeployRest(t testing.TB) []byte {
	return Asm(t, asm.Ref("end"), asm.CODESIZE, asm.SUB, asm.DUP1, asm.Ref("end"), asm.Push1(0), asm.CODECOPY,
		asm.Push1(0), asm.RETURN, asm.Mark("end"))
}

// AccountRuntime is the runtime code of the account without its owner word.
func AccountRuntime(t testing.TB, prepared bool) []byte {
	magic := make([]byte, 32)
	copy(magic, ERC1271Magic[:])
	no := make([]byte, 32)
	copy(no, []byte{0xff, 0xff, 0xff, 0xff})
	items := []any{
		asm.Push1(0), asm.CALLDATALOAD, asm.Push1(0xe0), asm.SHR, asm.DUP1, asm.Push(ERC1271Magic[:]), asm.EQ,
		asm.Ref("isvalid"), asm.JUMPI,
		asm.DUP1, asm.Push(SelPrepare), asm.EQ, asm.Ref("prepare"), asm.JUMPI,
		asm.Push1(0), asm.Push1(0), asm.REVERT,
		asm.Label("prepare"),
		asm.Push1(1), asm.Push1(0), asm.SSTORE, asm.STOP,
		asm.Label("isvalid"),
	}
	if prepared {
		items = append(items, asm.Push1(0), asm.SLOAD, asm.ISZERO, asm.Ref("bad"), asm.JUMPI)
	}
	items = append(items,
		// off := 4 + calldataload(0x24): where the signature's length word is; it must be 65.
		asm.Push1(0x24), asm.CALLDATALOAD, asm.Push1(4), asm.ADD,
		asm.DUP1, asm.CALLDATALOAD, asm.Push1(65), asm.EQ, asm.ISZERO, asm.Ref("bad"), asm.JUMPI,
		// ecrecover input at 0: hash, v, r, s.
		asm.Push1(4), asm.CALLDATALOAD, asm.Push1(0), asm.MSTORE,
		asm.DUP1, asm.Push1(0x20), asm.ADD, asm.CALLDATALOAD, asm.Push1(0x40), asm.MSTORE,
		asm.DUP1, asm.Push1(0x40), asm.ADD, asm.CALLDATALOAD, asm.Push1(0x60), asm.MSTORE,
		asm.DUP1, asm.Push1(0x60), asm.ADD, asm.CALLDATALOAD, asm.Push1(0xf8), asm.SHR, asm.Push1(0x20), asm.MSTORE,
		asm.POP,
		asm.Push1(0x20), asm.Push1(0x80), asm.Push1(0x80), asm.Push1(0), asm.Push1(1), asm.GAS, asm.STATICCALL,
		asm.ISZERO, asm.Ref("bad"), asm.JUMPI,
		// owner := the last word of this code.
		asm.Push1(0x20), asm.Push1(0x20), asm.CODESIZE, asm.SUB, asm.Push1(0xa0), asm.CODECOPY,
		asm.Push1(0x80), asm.MLOAD, asm.Push1(0xa0), asm.MLOAD, asm.EQ, asm.ISZERO, asm.Ref("bad"), asm.JUMPI,
		asm.Push(magic), asm.Push1(0), asm.MSTORE, asm.Push1(0x20), asm.Push1(0), asm.RETURN,
		asm.Label("bad"),
		asm.Push(no), asm.Push1(0), asm.MSTORE, asm.Push1(0x20), asm.Push1(0), asm.RETURN,
	)
	return Asm(t, items...)
}

// AccountInit is the account's creation code without its owner word (the factory appends it).
func AccountInit(t testing.TB, prepared bool) []byte {
	return append(DeployRest(t), AccountRuntime(t, prepared)...)
}

// FactoryInit is the factory's creation code.
func FactoryInit(t testing.TB) []byte {
	runtime := Asm(t,
		asm.Push1(0), asm.CALLDATALOAD, asm.Push1(0xe0), asm.SHR, asm.Push(SelCreateAccount), asm.EQ, asm.Ref("create"),
		asm.JUMPI,
		asm.Push1(0), asm.Push1(0), asm.REVERT,
		asm.Label("create"),
		asm.Ref("tpl"), asm.CODESIZE, asm.SUB, // [T]
		asm.DUP1, asm.Ref("tpl"), asm.Push1(0), asm.CODECOPY,
		asm.Push1(4), asm.CALLDATALOAD, // [T, owner]
		asm.DUP1, asm.DUP3, asm.MSTORE, // memory[T:T+32] = owner
		asm.SWAP1, asm.Push1(0x20), asm.ADD, asm.Push1(0), asm.Push1(0), asm.CREATE2, // create2(0, 0, T+32, owner)
		asm.DUP1, asm.ISZERO, asm.Ref("fail"), asm.JUMPI,
		asm.Push1(0), asm.MSTORE, asm.Push1(0x20), asm.Push1(0), asm.RETURN,
		asm.Label("fail"),
		asm.Push1(0), asm.Push1(0), asm.REVERT,
		asm.Mark("tpl"),
	)
	code := append(DeployRest(t), runtime...)
	return append(code, AccountInit(t, false)...)
}

// Chain is a devnet chain with the factory deployed at Factory.
type Chain struct {
	*devnet.Chain
	Factory common.Address
}

// Start starts a chain (closed when the test ends) and deploys the factory.
func Start(t *testing.T) *Chain {
	t.Helper()
	c, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	rcpt, err := c.SendFromDev(ctx30(t), nil, nil, FactoryInit(t))
	if err != nil {
		t.Fatal(err)
	}
	return &Chain{Chain: c, Factory: rcpt.ContractAddress}
}

func ctx30(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// CreateAccountCall is the calldata of createAccount(owner).
func CreateAccountCall(owner common.Address) []byte {
	return append(bytes.Clone(SelCreateAccount), common.LeftPadBytes(owner[:], 32)...)
}

// Counterfactual is the address createAccount(owner) deploys to.
func (w *Chain) Counterfactual(t *testing.T, owner common.Address) common.Address {
	init := append(AccountInit(t, false), common.LeftPadBytes(owner[:], 32)...)
	return crypto.CreateAddress2(w.Factory, common.BytesToHash(owner[:]), crypto.Keccak256(init))
}

// DeployAccount runs createAccount(owner) in a transaction and checks the account has code.
func (w *Chain) DeployAccount(t *testing.T, owner common.Address) common.Address {
	t.Helper()
	if _, err := w.SendFromDev(ctx30(t), &w.Factory, nil, CreateAccountCall(owner)); err != nil {
		t.Fatal(err)
	}
	acct := w.Counterfactual(t, owner)
	if code, err := w.Client.CodeAt(ctx30(t), acct, nil); err != nil || len(code) == 0 {
		t.Fatalf("account not deployed: %d bytes, %v", len(code), err)
	}
	return acct
}

// DeployCode deploys runtime as is (through DeployRest) from the dev account.
func (w *Chain) DeployCode(t *testing.T, runtime []byte) common.Address {
	t.Helper()
	rcpt, err := w.SendFromDev(ctx30(t), nil, nil, append(DeployRest(t), runtime...))
	if err != nil {
		t.Fatal(err)
	}
	return rcpt.ContractAddress
}
