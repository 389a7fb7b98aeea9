package auth

import (
	"fmt"
)

// A tiny EVM assembler: enough to write the universal signature validator of contractwallet.go as a readable
// listing instead of an opaque hex string (no Solidity compiler is needed to build or to audit it). Jump targets
// are named; every reference to one is a PUSH2 of its offset, so one pass plus fix-ups assembles a program.

// evmOp is one EVM opcode without immediate data.
type evmOp byte

// The opcodes the listings use (Yellow Paper / evm.codes numbering).
const (
	opSTOP           evmOp = 0x00
	opADD            evmOp = 0x01
	opSUB            evmOp = 0x03
	opGT             evmOp = 0x11
	opEQ             evmOp = 0x14
	opISZERO         evmOp = 0x15
	opAND            evmOp = 0x16
	opOR             evmOp = 0x17
	opSHL            evmOp = 0x1b
	opSHR            evmOp = 0x1c
	opCALLDATALOAD   evmOp = 0x35
	opCODESIZE       evmOp = 0x38
	opCODECOPY       evmOp = 0x39
	opEXTCODESIZE    evmOp = 0x3b
	opRETURNDATASIZE evmOp = 0x3d
	opPOP            evmOp = 0x50
	opMLOAD          evmOp = 0x51
	opMSTORE         evmOp = 0x52
	opSLOAD          evmOp = 0x54
	opSSTORE         evmOp = 0x55
	opJUMP           evmOp = 0x56
	opJUMPI          evmOp = 0x57
	opGAS            evmOp = 0x5a
	opJUMPDEST       evmOp = 0x5b
	opDUP1           evmOp = 0x80
	opDUP2           evmOp = 0x81
	opDUP3           evmOp = 0x82
	opSWAP1          evmOp = 0x90
	opCALL           evmOp = 0xf1
	opRETURN         evmOp = 0xf3
	opCREATE2        evmOp = 0xf5
	opSTATICCALL     evmOp = 0xfa
	opREVERT         evmOp = 0xfd
)

// asmPush is a PUSHn of its bytes (1 to 32 of them; PUSH0 is never emitted, for chains before Shanghai).
type asmPush []byte

// asmLabel emits a JUMPDEST and names its offset.
type asmLabel string

// asmMark names the offset it stands at without emitting anything (e.g. where appended data starts).
type asmMark string

// asmRef emits PUSH2 with the offset of the named label or mark.
type asmRef string

// push1 is a PUSH1 of a small constant.
func push1(v byte) asmPush { return asmPush{v} }

// assemble turns a listing of evmOp, asmPush, asmLabel, asmMark and asmRef items into bytecode. An unknown item,
// an empty or over-long push, a name defined twice or a reference to no name is an error.
func assemble(items ...any) ([]byte, error) {
	var code []byte
	names := map[string]int{}
	fixups := map[int]string{} // offset of a PUSH2 immediate -> name
	for i, it := range items {
		switch v := it.(type) {
		case evmOp:
			code = append(code, byte(v))
		case asmPush:
			if len(v) == 0 || len(v) > 32 {
				return nil, fmt.Errorf("auth: evm asm item %d: push of %d bytes", i, len(v))
			}
			code = append(code, 0x5f+byte(len(v)))
			code = append(code, v...)
		case asmLabel, asmMark:
			name := fmt.Sprint(v)
			if _, dup := names[name]; dup {
				return nil, fmt.Errorf("auth: evm asm: %q defined twice", name)
			}
			names[name] = len(code)
			if _, ok := v.(asmLabel); ok {
				code = append(code, byte(opJUMPDEST))
			}
		case asmRef:
			code = append(code, 0x61, 0, 0)
			fixups[len(code)-2] = string(v)
		default:
			return nil, fmt.Errorf("auth: evm asm item %d: unknown type %T", i, it)
		}
	}
	if len(code) > 0xffff {
		return nil, fmt.Errorf("auth: evm asm: program of %d bytes does not fit PUSH2 offsets", len(code))
	}
	for at, name := range fixups {
		off, ok := names[name]
		if !ok {
			return nil, fmt.Errorf("auth: evm asm: no label %q", name)
		}
		code[at], code[at+1] = byte(off>>8), byte(off)
	}
	return code, nil
}
