package auth

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"sync"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	asm "github.com/c13f5054/moralis-go/internal/evmasm"
)

// ContractCaller is what smart-contract wallet verification needs of a chain: eth_call at the latest block
// (blockNumber nil). go-ethereum's *ethclient.Client (ethclient.Dial(rpcURL)), the simulated backend's client
// and any bind.ContractCaller satisfy it. Implementations must be safe for concurrent use. The calls it gets
// are simulations: nothing is ever sent as a transaction, and no key is involved.
type ContractCaller interface {
	// CallContract runs call (no "to": a deployless call of the validator's code) at blockNumber (always nil:
	// the latest block) and returns what it returned; it must return when ctx is done.
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
}

// ErrChainUnavailable is returned (wrapped, with the cause) when a smart-wallet check could not ask the chain:
// the RPC failed or the context ended. It says nothing about the signature; the caller may retry.
var ErrChainUnavailable = errors.New("auth: chain unavailable for the smart-wallet check")

// erc1271Magic is what isValidSignature(bytes32,bytes) returns for a valid signature (its own selector).
var erc1271Magic = [4]byte{0x16, 0x26, 0xba, 0x7e}

// erc6492Suffix ends every ERC-6492 wrapped signature (a signature of a contract account not deployed yet).
var erc6492Suffix = common.HexToHash("0x6492649264926492649264926492649264926492649264926492649264926492")

// MaxContractSignatureLen bounds a contract account's signature (ERC-6492 wrapper included), in bytes.
const MaxContractSignatureLen = 16 << 10

// ContractCallGas is the gas given to the one eth_call of a smart-wallet check (factory deployment and
// isValidSignature together); what a check needs beyond it fails as a refusal.
const ContractCallGas = 10_000_000

// VerifyEthSignatureContext checks that sigHex (0x hex) is address's signature of message under EIP-191
// (personal_sign), for externally owned accounts and, when chain is not nil, smart-contract accounts:
//
//   - a 65-byte ECDSA signature that recovers to address is accepted at once, without asking the chain;
//   - otherwise, with chain set, one eth_call asks the account: ERC-1271 isValidSignature(hash, signature) must
//     answer 0x1626ba7e; a signature ending in the ERC-6492 magic suffix (0x6492…6492, 32 bytes) is first unwrapped and, if the account has no
//     code yet, its factory call is made in the same simulated call (ERC-6492), or, if it has code but refuses,
//     the wrapped call is made and the check repeated (the ERC's "prepare" case).
//
// With chain nil (the default everywhere in this package) it is VerifyEthSignature: EOAs only, no I/O. It
// returns nil, or an error wrapping ErrMalformedAddress, ErrMalformedSignature, ErrSignatureMismatch or
// ErrChainUnavailable. It is safe for concurrent use if chain is.
func VerifyEthSignatureContext(ctx context.Context, chain ContractCaller, address string, message []byte, sigHex string) error {
	eoaErr := VerifyEthSignature(address, message, sigHex)
	if eoaErr == nil || chain == nil || errors.Is(eoaErr, ErrMalformedAddress) {
		return eoaErr
	}
	sig, err := decodeContractSignature(sigHex)
	if err != nil {
		return err
	}
	a, _ := NormalizeEthAddress(address) // checked by VerifyEthSignature
	hash := common.BytesToHash(accounts.TextHash(message))
	return verifyContractSignature(ctx, chain, common.HexToAddress(a), hash, sig, eoaErr)
}

// VerifyEthHash checks that sig is address's signature of the 32-byte digest hash (already EIP-191 or EIP-712
// hashed): ECDSA first (65 bytes, v = 27/28 or 0/1, low s), then, when chain is not nil, ERC-1271 and ERC-6492
// as VerifyEthSignatureContext describes. With chain nil only ECDSA is checked, without I/O. It is safe for
// concurrent use if chain is.
func VerifyEthHash(ctx context.Context, chain ContractCaller, address common.Address, hash common.Hash, sig []byte) error {
	eoaErr := fmt.Errorf("%w: want 65 bytes", ErrMalformedSignature)
	if len(sig) == 65 {
		if eoaErr = verifyECDSAHash(address, hash, sig); eoaErr == nil {
			return nil
		}
	}
	if chain == nil {
		return eoaErr
	}
	return verifyContractSignature(ctx, chain, address, hash, sig, eoaErr)
}

// verifyContractSignature asks the chain, by one deployless eth_call of the validator, whether the account at
// address accepts sig for hash. eoaErr is the ECDSA verdict, returned as is when address has no code (an EOA).
func verifyContractSignature(ctx context.Context, chain ContractCaller, address common.Address, hash common.Hash, sig []byte, eoaErr error) error {
	if len(sig) > MaxContractSignatureLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrMalformedSignature, MaxContractSignatureLen)
	}
	wrapped := IsERC6492Signature(sig)
	var factory common.Address
	var factoryData []byte
	inner := sig
	if wrapped {
		var err error
		if factory, factoryData, inner, err = UnwrapERC6492Signature(sig); err != nil {
			return err
		}
	}
	code, err := validatorCode()
	if err != nil {
		return err
	}
	data := append(bytes.Clone(code), validatorArgs(address, factory, factoryData, isValidSignatureCall(hash, inner))...)
	out, err := chain.CallContract(ctx, ethereum.CallMsg{Gas: ContractCallGas, Data: data}, nil)
	if err != nil {
		return chainError(err)
	}
	if len(out) != 32 || !bytes.Equal(out[:31], make([]byte, 31)) {
		return fmt.Errorf("%w: the validator answered %d bytes", ErrChainUnavailable, len(out))
	}
	switch out[31] {
	case validatorValid:
		return nil
	case validatorNoCode:
		if !wrapped {
			return eoaErr // an EOA: the ECDSA verdict stands, as without a chain
		}
		return fmt.Errorf("%w: no contract at the address after the ERC-6492 factory call", ErrSignatureMismatch)
	case validatorFactoryFailed:
		return fmt.Errorf("%w: the ERC-6492 factory call failed", ErrSignatureMismatch)
	case validatorRefused:
		return fmt.Errorf("%w: the contract account refused the signature (ERC-1271)", ErrSignatureMismatch)
	default:
		return fmt.Errorf("%w: the validator answered %d", ErrChainUnavailable, out[31])
	}
}

// verifyECDSAHash is the EOA check of VerifyEthHash: DecodeEthSignature's rules, then recovery.
func verifyECDSAHash(address common.Address, hash common.Hash, sig []byte) error {
	norm, err := DecodeEthSignature(hex.EncodeToString(sig))
	if err != nil {
		return err
	}
	pub, err := crypto.SigToPub(hash[:], norm)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformedSignature, err)
	}
	if crypto.PubkeyToAddress(*pub) != address {
		return ErrSignatureMismatch
	}
	return nil
}

// decodeContractSignature decodes 0x hex of any even length (verifyContractSignature bounds it).
func decodeContractSignature(sigHex string) ([]byte, error) {
	s := strings.TrimSpace(sigHex)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not hex", ErrMalformedSignature)
	}
	return b, nil
}

// chainError wraps an RPC failure in ErrChainUnavailable without the RPC URL (which may hold an API key).
func chainError(err error) error {
	var ue *url.Error
	text := err.Error()
	if errors.As(err, &ue) {
		text = ue.Op + ": " + ue.Err.Error()
	}
	return &chainErr{text: text, cause: err}
}

type chainErr struct {
	text  string
	cause error
}

// Error is ErrChainUnavailable's text and the cause's, without an RPC URL.
func (e *chainErr) Error() string { return ErrChainUnavailable.Error() + ": " + e.text }

// Unwrap gives ErrChainUnavailable and the cause, for errors.Is and errors.As.
func (e *chainErr) Unwrap() []error { return []error{ErrChainUnavailable, e.cause} }

// IsERC6492Signature reports whether sig ends with the ERC-6492 magic suffix 0x6492…6492 (32 bytes) (and has room for a wrapper before it).
func IsERC6492Signature(sig []byte) bool {
	return len(sig) >= 32+3*32 && bytes.Equal(sig[len(sig)-32:], erc6492Suffix[:])
}

// WrapERC6492Signature makes the ERC-6492 signature of a contract account not deployed yet:
// abi.encode(factory, factoryCalldata, signature) followed by the 32-byte magic suffix 0x6492…6492. factoryCalldata is the call
// that deploys the account (for CREATE2 factories, at the address the signature is checked against).
func WrapERC6492Signature(factory common.Address, factoryCalldata, signature []byte) []byte {
	var b []byte
	b = append(b, common.LeftPadBytes(factory[:], 32)...)
	b = append(b, abiWord(96)...)
	b = append(b, abiWord(uint64(96+32+padded(len(factoryCalldata))))...)
	b = append(b, abiBytes(factoryCalldata)...)
	b = append(b, abiBytes(signature)...)
	return append(b, erc6492Suffix[:]...)
}

// UnwrapERC6492Signature decodes an ERC-6492 signature into the factory, its calldata and the inner signature.
// Offsets and lengths are bounds-checked; anything malformed gives ErrMalformedSignature. It never panics.
func UnwrapERC6492Signature(sig []byte) (factory common.Address, factoryCalldata, inner []byte, err error) {
	if !IsERC6492Signature(sig) {
		return factory, nil, nil, fmt.Errorf("%w: not an ERC-6492 signature", ErrMalformedSignature)
	}
	body := sig[:len(sig)-32]
	bad := func(what string) error { return fmt.Errorf("%w: ERC-6492 wrapper: %s", ErrMalformedSignature, what) }
	head := body[:32]
	if !bytes.Equal(head[:12], make([]byte, 12)) {
		return factory, nil, nil, bad("factory is not an address")
	}
	copy(factory[:], head[12:])
	if factoryCalldata, err = abiBytesAt(body, 32); err != nil {
		return factory, nil, nil, bad("factory calldata: " + err.Error())
	}
	if inner, err = abiBytesAt(body, 64); err != nil {
		return factory, nil, nil, bad("signature: " + err.Error())
	}
	return factory, factoryCalldata, inner, nil
}

// abiBytesAt reads the dynamic bytes whose offset (from the start of body) is the word at head.
func abiBytesAt(body []byte, head int) ([]byte, error) {
	off, ok := abiUint(body, head)
	if !ok || off%32 != 0 || off < 96 { // after the three head words

		return nil, errors.New("bad offset")
	}
	n, ok := abiUint(body, off)
	if !ok {
		return nil, errors.New("bad length")
	}
	start := off + 32
	if n > len(body)-start {
		return nil, errors.New("length past the end")
	}
	return bytes.Clone(body[start : start+n]), nil
}

// abiUint reads the 32-byte big-endian word at i as a small non-negative int; false when out of range.
func abiUint(b []byte, i int) (int, bool) {
	if i < 0 || i > len(b)-32 {
		return 0, false
	}
	w := b[i : i+32]
	if !bytes.Equal(w[:24], make([]byte, 24)) {
		return 0, false
	}
	v := binary.BigEndian.Uint64(w[24:])
	if v > uint64(len(b)) {
		return 0, false
	}
	return int(v), true
}

func abiWord(v uint64) []byte {
	w := make([]byte, 32)
	binary.BigEndian.PutUint64(w[24:], v)
	return w
}

func padded(n int) int { return (n + 31) / 32 * 32 }

// abiBytes is the tail encoding of a bytes value: its length, then the bytes zero-padded to 32.
func abiBytes(b []byte) []byte {
	out := abiWord(uint64(len(b)))
	out = append(out, b...)
	return append(out, make([]byte, padded(len(b))-len(b))...)
}

// isValidSignatureCall is the calldata of isValidSignature(bytes32 hash, bytes signature).
func isValidSignatureCall(hash common.Hash, sig []byte) []byte {
	out := make([]byte, 0, 4+32+32+32+padded(len(sig)))
	out = append(out, erc1271Magic[:]...)
	out = append(out, hash[:]...)
	out = append(out, abiWord(64)...)
	return append(out, abiBytes(sig)...)
}

// What the validator answers: one 32-byte word.
const (
	validatorRefused       = 0 // isValidSignature failed, reverted or answered something else than the magic word
	validatorValid         = 1 // isValidSignature answered 0x1626ba7e (followed by 28 zero bytes)
	validatorNoCode        = 2 // the account has no code (an EOA, or the factory did not deploy it)
	validatorFactoryFailed = 3 // the ERC-6492 factory call reverted
)

// validatorArgs is the data appended to the validator's code: four words (account, factory or zero, the factory
// calldata's length F, the isValidSignature calldata's length S), then the two calldatas. The layout is ours
// (not ABI): the validator copies it to memory at 0x20 and reads it at fixed offsets.
func validatorArgs(account, factory common.Address, factoryData, call []byte) []byte {
	var b []byte
	b = append(b, common.LeftPadBytes(account[:], 32)...)
	b = append(b, common.LeftPadBytes(factory[:], 32)...)
	b = append(b, abiWord(uint64(len(factoryData)))...)
	b = append(b, abiWord(uint64(len(call)))...)
	b = append(b, factoryData...)
	return append(b, call...)
}

// validatorCode is the universal signature validator: creation code that is run by eth_call without a "to"
// (a "deployless" call; nothing is deployed) and whose constructor returns the verdict word. Hand-assembled from
// the listing below; TestValidatorBytecode pins its bytes. Memory: 0x00 scratch (the isValidSignature answer),
// 0x20 account, 0x40 factory, 0x60 F, 0x80 S, 0xa0 factory calldata, 0xa0+F isValidSignature calldata.
var validatorCode = sync.OnceValues(func() ([]byte, error) {
	magicWord := make([]byte, 32)
	copy(magicWord, erc1271Magic[:])
	return asm.Assemble(
		// Copy the appended arguments to memory at 0x20.
		asm.Ref("args"), asm.CODESIZE, asm.SUB, asm.Ref("args"), asm.Push1(0x20), asm.CODECOPY,
		// deployed := extcodesize(account) != 0; kept at the bottom of the stack.
		asm.Push1(0x20), asm.MLOAD, asm.EXTCODESIZE, asm.ISZERO, asm.ISZERO,
		// No factory, or already deployed: straight to the check.
		asm.Push1(0x40), asm.MLOAD, asm.ISZERO, asm.DUP2, asm.OR, asm.Ref("first"), asm.JUMPI,
		// ERC-6492 deployment: call(gas, factory, 0, 0xa0, F, 0, 0); a revert answers validatorFactoryFailed.
		asm.Push1(0), asm.Push1(0), asm.Push1(0x60), asm.MLOAD, asm.Push1(0xa0), asm.Push1(0), asm.Push1(0x40), asm.MLOAD,
		asm.GAS, asm.CALL,
		asm.Ref("first"), asm.JUMPI,
		asm.Push1(validatorFactoryFailed), asm.Ref("done"), asm.JUMP,

		asm.Label("first"), // [deployed]
		asm.Ref("after"), asm.Ref("check"), asm.JUMP,
		asm.Label("after"), // [deployed, verdict]
		asm.DUP1, asm.Push1(validatorValid), asm.EQ, asm.Ref("done"), asm.JUMPI,
		// ERC-6492 "prepare": the account had code and refused; make the wrapped call and check again.
		asm.DUP2, asm.ISZERO, asm.Ref("done"), asm.JUMPI,
		asm.Push1(0x40), asm.MLOAD, asm.ISZERO, asm.Ref("done"), asm.JUMPI,
		asm.Push1(0), asm.Push1(0), asm.Push1(0x60), asm.MLOAD, asm.Push1(0xa0), asm.Push1(0), asm.Push1(0x40), asm.MLOAD,
		asm.GAS, asm.CALL,
		asm.ISZERO, asm.Ref("done"), asm.JUMPI,
		asm.POP, asm.Ref("done"), asm.Ref("check"), asm.JUMP,

		// check: [return address] -> [verdict], jumping back.
		asm.Label("check"),
		asm.Push1(0x20), asm.MLOAD, asm.EXTCODESIZE, asm.ISZERO, asm.Ref("nocode"), asm.JUMPI,
		asm.Push1(0), asm.Push1(0), asm.MSTORE,
		// staticcall(gas, account, 0xa0+F, S, 0, 32)
		asm.Push1(0x20), asm.Push1(0), asm.Push1(0x80), asm.MLOAD, asm.Push1(0x60), asm.MLOAD, asm.Push1(0xa0), asm.ADD,
		asm.Push1(0x20), asm.MLOAD, asm.GAS, asm.STATICCALL,
		// valid := success && returndatasize >= 32 && the first word is exactly the magic value, zero-padded.
		asm.RETURNDATASIZE, asm.Push1(0x20), asm.GT, asm.ISZERO, asm.AND,
		asm.Push1(0), asm.MLOAD, asm.Push(magicWord), asm.EQ, asm.AND,
		asm.SWAP1, asm.JUMP,
		asm.Label("nocode"),
		asm.Push1(validatorNoCode), asm.SWAP1, asm.JUMP,

		// done: [..., verdict] -> return the verdict as one word.
		asm.Label("done"),
		asm.Push1(0), asm.MSTORE, asm.Push1(0x20), asm.Push1(0), asm.RETURN,
		asm.Mark("args"),
	)
})
