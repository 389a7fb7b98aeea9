// Package evmasm is a tiny EVM assembler: enough to write the universal signature validator of
// auth/contractwallet.go (and the test wallets of internal/devchain/walletnet) as readable listings instead of
// opaque hex strings, so no Solidity compiler is needed to build or to audit them. Jump targets are named; every
// reference to one is a PUSH2 of its offset, so one pass plus fix-ups assembles a program. Everything here is
// pure and safe for concurrent use.
package evmasm

import (
	"fmt"
)

// Op is one EVM opcode without immediate data.
type Op byte

// The opcodes the listings use (Yellow Paper / evm.codes numbering).
const (
	STOP           Op = 0x00
	ADD            Op = 0x01
	SUB            Op = 0x03
	GT             Op = 0x11
	EQ             Op = 0x14
	ISZERO         Op = 0x15
	AND            Op = 0x16
	OR             Op = 0x17
	SHL            Op = 0x1b
	SHR            Op = 0x1c
	CALLDATALOAD   Op = 0x35
	CODESIZE       Op = 0x38
	CODECOPY       Op = 0x39
	EXTCODESIZE    Op = 0x3b
	RETURNDATASIZE Op = 0x3d
	POP            Op = 0x50
	MLOAD          Op = 0x51
	MSTORE         Op = 0x52
	SLOAD          Op = 0x54
	SSTORE         Op = 0x55
	JUMP           Op = 0x56
	JUMPI          Op = 0x57
	GAS            Op = 0x5a
	JUMPDEST       Op = 0x5b
	DUP1           Op = 0x80
	DUP2           Op = 0x81
	DUP3           Op = 0x82
	SWAP1          Op = 0x90
	CALL           Op = 0xf1
	RETURN         Op = 0xf3
	CREATE2        Op = 0xf5
	STATICCALL     Op = 0xfa
	REVERT         Op = 0xfd
)

// Push is a PUSHn of its bytes (1 to 32 of them; PUSH0 is never emitted, for chains before Shanghai).
type Push []byte

// Label emits a JUMPDEST and names its offset.
type Label string

// Mark names the offset it stands at without emitting anything (e.g. where appended data starts).
type Mark string

// Ref emits PUSH2 with the offset of the named label or mark.
type Ref string

// Push1 is a PUSH1 of a small constant.
func Push1(v byte) Push { return Push{v} }

// Assemble turns a listing of Op, Push, Label, Mark and Ref items into bytecode. An unknown item, an empty or
// over-long push, a name defined twice or a reference to no name is an error.
func Assemble(items ...any) ([]byte, error) {
	var code []byte
	names := map[string]int{}
	fixups := map[int]string{} // offset of a PUSH2 immediate -> name
	for i, it := range items {
		switch v := it.(type) {
		case Op:
			code = append(code, byte(v))
		case Push:
			if len(v) == 0 || len(v) > 32 {
				return nil, fmt.Errorf("evmasm: item %d: push of %d bytes", i, len(v))
			}
			code = append(code, 0x5f+byte(len(v)))
			code = append(code, v...)
		case Label, Mark:
			name := fmt.Sprint(v)
			if _, dup := names[name]; dup {
				return nil, fmt.Errorf("evmasm: %q defined twice", name)
			}
			names[name] = len(code)
			if _, ok := v.(Label); ok {
				code = append(code, byte(JUMPDEST))
			}
		case Ref:
			code = append(code, 0x61, 0, 0)
			fixups[len(code)-2] = string(v)
		default:
			return nil, fmt.Errorf("evmasm: item %d: unknown type %T", i, it)
		}
	}
	if len(code) > 0xffff {
		return nil, fmt.Errorf("evmasm: program of %d bytes does not fit PUSH2 offsets", len(code))
	}
	for at, name := range fixups {
		off, ok := names[name]
		if !ok {
			return nil, fmt.Errorf("evmasm: no label %q", name)
		}
		code[at], code[at+1] = byte(off>>8), byte(off)
	}
	return code, nil
}
