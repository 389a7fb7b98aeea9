package evmasm

import (
	"encoding/hex"
	"testing"
)

func TestAssemble(t *testing.T) {
	code, err := Assemble(Ref("end"), Push1(1), Push{0xaa, 0xbb}, Label("l"), Ref("l"), JUMP, Mark("end"))
	if err != nil {
		t.Fatal(err)
	}
	// PUSH2 0x000b, PUSH1 1, PUSH2 aabb, JUMPDEST (at 8), PUSH2 0x0008, JUMP; "end" marks offset 13.
	if got, want := hex.EncodeToString(code), "61000d600161aabb5b61000856"; got != want {
		t.Fatalf("code %s, want %s", got, want)
	}
}

// The assembler's refusals: every one is an error, never a panic or a silently wrong program.
func TestAssembleRefusals(t *testing.T) {
	for name, items := range map[string][]any{
		"unknown item": {"PUSH1"},
		"empty push":   {Push{}},
		"long push":    {Push(make([]byte, 33))},
		"twice":        {Label("a"), Mark("a")},
		"no label":     {Ref("nowhere")},
	} {
		if _, err := Assemble(items...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A program too long for PUSH2 offsets.
	long := make([]any, 0, 2000)
	for range 2000 {
		long = append(long, Push(make([]byte, 32)))
	}
	if _, err := Assemble(long...); err == nil {
		t.Error("a program of 66,000 bytes assembled")
	}
}
