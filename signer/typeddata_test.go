package signer_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/c13f5054/moralis-go/signer"
)

// The EIP's own example (its Example.js): the Mail document, its digest, and the signature by keccak256("cow").
const (
	mailDigest = "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
	mailSigR   = "4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d"
	mailSigS   = "07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562"
)

func mailJSON(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/eip712_mail.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mailDoc is the Mail document as a plain JSON tree, for tests that change it.
func mailDoc(t testing.TB) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(mailJSON(t), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTypedDataEIP712Example(t *testing.T) {
	td, err := signer.ParseTypedData(mailJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	h, err := signer.TypedDataHash(td)
	if err != nil || h.Hex() != mailDigest {
		t.Fatalf("digest %s, %v; want %s", h.Hex(), err, mailDigest)
	}
	k, err := signer.NewKey(crypto.ToECDSAUnsafe(crypto.Keccak256([]byte("cow"))))
	if err != nil {
		t.Fatal(err)
	}
	if k.Address() != common.HexToAddress("0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826") {
		t.Fatalf("cow is %s", k.Address().Hex())
	}
	sig, err := k.SignTypedData(context.Background(), td)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(sig); got != mailSigR+mailSigS+"1c" {
		t.Fatalf("signature %s", got)
	}
	// Recovery: the signature is the key's, over the digest (v back to 0/1 for go-ethereum).
	sig[64] -= 27
	pub, err := crypto.SigToPub(h[:], sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != k.Address() {
		t.Fatalf("recovered %v, %v", pub, err)
	}
	// Leaving EIP712Domain out derives it from the domain: the same digest.
	doc := mailDoc(t)
	delete(doc["types"].(map[string]any), "EIP712Domain")
	if h2 := hashDoc(t, doc); h2 != h {
		t.Fatalf("without EIP712Domain: %s", h2.Hex())
	}
}

func hashDoc(t *testing.T, doc map[string]any) common.Hash {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	td, err := signer.ParseTypedData(b)
	if err != nil {
		t.Fatal(err)
	}
	h, err := signer.TypedDataHash(td)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTypedDataGoValues: message values written as Go values hash like their JSON form.
func TestTypedDataGoValues(t *testing.T) {
	types := apitypes.Types{
		"Order": {{Name: "maker", Type: "address"}, {Name: "amount", Type: "uint256"}, {Name: "delta", Type: "int64"},
			{Name: "small", Type: "uint8"}, {Name: "id", Type: "bytes32"}, {Name: "data", Type: "bytes"}, {Name: "tags", Type: "uint16[2]"}},
	}
	chain := apitypes.TypedDataDomain{Name: "Exchange", ChainId: nil}
	maker := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	id := common.HexToHash("0x01")
	goDoc := &signer.TypedData{Types: types, PrimaryType: "Order", Domain: chain, Message: map[string]any{
		"maker": maker, "amount": new(big.Int).Lsh(big.NewInt(1), 200), "delta": int64(-5), "small": uint8(255),
		"id": id, "data": []byte{1, 2, 3}, "tags": [2]int{7, 8},
	}}
	jsonDoc := fmt.Sprintf(`{"types":{"Order":[{"name":"maker","type":"address"},{"name":"amount","type":"uint256"},
		{"name":"delta","type":"int64"},{"name":"small","type":"uint8"},{"name":"id","type":"bytes32"},{"name":"data","type":"bytes"},
		{"name":"tags","type":"uint16[2]"}]},"primaryType":"Order","domain":{"name":"Exchange"},
		"message":{"maker":"%s","amount":"0x1%s","delta":-5,"small":"255","id":"%s","data":"0x010203","tags":[7,"0x8"]}}`,
		strings.ToLower(maker.Hex()), strings.Repeat("0", 50), id.Hex())
	a, err := signer.TypedDataHash(goDoc)
	if err != nil {
		t.Fatal(err)
	}
	td, err := signer.ParseTypedData([]byte(jsonDoc))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := signer.TypedDataHash(td); a != b {
		t.Fatalf("Go values %s, JSON %s", a.Hex(), b.Hex())
	}
	// go-ethereum alone does not take these Go values (common.Address, int64, [2]int): the normalising is ours.
	if _, _, err := apitypes.TypedDataAndHash(*goDoc); err == nil {
		t.Log("apitypes now accepts Go values too")
	}
	// A JSON number above 2^53 is read exactly, not rounded as a float64 would be.
	exact := strings.Replace(jsonDoc, `"delta":-5`, `"delta":9007199254740993`, 1)
	rounded := strings.Replace(jsonDoc, `"delta":-5`, `"delta":9007199254740992`, 1)
	x, _ := signer.ParseTypedData([]byte(exact))
	y, _ := signer.ParseTypedData([]byte(rounded))
	hx, err1 := signer.TypedDataHash(x)
	hy, err2 := signer.TypedDataHash(y)
	if err1 != nil || err2 != nil || hx == hy {
		t.Fatalf("2^53+1 and 2^53 hash alike (%v, %v)", err1, err2)
	}
}

// TestTypedDataRefused: every rule of TypedDataHash refuses what breaks it, with ErrInvalidTypedData and without
// panicking. gethAlone marks the documents go-ethereum's apitypes would hash (or panic on) by itself: the gaps
// this package closes.
func TestTypedDataRefused(t *testing.T) {
	type edit func(d map[string]any)
	types := func(d map[string]any) map[string]any { return d["types"].(map[string]any) }
	msg := func(d map[string]any) map[string]any { return d["message"].(map[string]any) }
	addField := func(typ string, value any) edit {
		return func(d map[string]any) {
			types(d)["Mail"] = append(types(d)["Mail"].([]any), map[string]any{"name": "extra", "type": typ})
			msg(d)["extra"] = value
		}
	}
	cases := []struct {
		name      string
		edit      edit
		gethAlone bool // apitypes hashes it (or panics) without our checks
		want      string
	}{
		{"int8 128", addField("int8", 128), true, "out of range for int8"},
		{"int8 -129", addField("int8", "-129"), true, "out of range for int8"},
		{"int16 -32769", addField("int16", -32769), true, "out of range for int16"},
		{"uint8 256", addField("uint8", 256), false, "out of range"},
		{"uint256 negative", addField("uint256", "-1"), false, "out of range"},
		{"empty integer string", addField("uint256", ""), true, "want decimal or 0x hex"},
		{"integer with spaces", addField("uint256", " 5"), false, "want decimal or 0x hex"},
		{"fraction", addField("uint256", 1.5), false, "not an integer"},
		{"fixed array too short", addField("uint8[3]", []any{1, 2}), true, "wants 3"},
		{"fixed array too long", addField("Person[1]", []any{map[string]any{"name": "a", "wallet": "0x" + strings.Repeat("0", 40)}, map[string]any{"name": "b", "wallet": "0x" + strings.Repeat("0", 40)}}), true, "wants 1"},
		{"array one level too deep", addField("uint8[]", []any{[]any{1}}), true, "want an integer"},
		{"array one level too shallow", addField("uint8[][]", []any{1}), true, "want an array"},
		{"null array element", addField("uint8[]", []any{nil}), true, "missing"},
		{"null struct array element", addField("Person[]", []any{nil}), true, "missing"},
		{"address bad checksum", addField("address", "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD827"), true, "checksum"},
		{"address without 0x", addField("address", strings.Repeat("ab", 20)), true, "want 0x"},
		{"bytes4 of 3 bytes", addField("bytes4", "0x010203"), false, "3 bytes for bytes4"},
		{"bytes odd hex", addField("bytes", "0x123"), false, "even number"},
		{"bool as string", addField("bool", "true"), false, "want a bool"},
		{"bare uint", addField("uint", 1), true, "neither primitive nor declared"},
		{"bare int", addField("int", 1), true, "neither primitive nor declared"},
		{"uint7", addField("uint7", 1), false, "neither primitive nor declared"},
		{"bytes0", addField("bytes0", "0x"), false, "neither primitive nor declared"},
		{"bad array suffix", addField("uint8[x]", []any{}), true, "bad array type"},
		{"array length with a zero first", addField("uint8[01]", []any{1}), true, "bad array type"},
		{"unknown type", addField("Cat", map[string]any{}), false, "neither primitive nor declared"},
		{"EIP712Domain as a field", addField("EIP712Domain", map[string]any{}), false, "not a field type"},
		{"missing field", func(d map[string]any) { delete(msg(d), "contents") }, false, "message.contents: missing"},
		{"missing nested field", func(d map[string]any) { delete(msg(d)["to"].(map[string]any), "wallet") }, false, "message.to.wallet: missing"},
		{"extra key", func(d map[string]any) { msg(d)["bcc"] = "x" }, false, `"bcc" is not a field`},
		{"misspelt key", func(d map[string]any) { delete(msg(d), "contents"); msg(d)["content"] = "x" }, false, "missing"},
		{"struct as string", func(d map[string]any) { msg(d)["to"] = "Bob" }, false, "want an object"},
		{"field name with a space", func(d map[string]any) { types(d)["Person"].([]any)[0].(map[string]any)["name"] = "full name" }, false, "not an identifier"},
		{"type name that injects a member", func(d map[string]any) {
			types(d)["Mail(string x)Cat"] = []any{map[string]any{"name": "a", "type": "string"}}
		}, true, "not an identifier"},
		{"struct named like a primitive", func(d map[string]any) {
			types(d)["address"] = []any{map[string]any{"name": "a", "type": "string"}}
		}, false, "is a primitive type"},
		{"duplicate field", func(d map[string]any) {
			types(d)["Person"] = append(types(d)["Person"].([]any), map[string]any{"name": "name", "type": "string"})
		}, true, "declared twice"},
		{"direct cycle", func(d map[string]any) {
			types(d)["Person"] = append(types(d)["Person"].([]any), map[string]any{"name": "friends", "type": "Person[]"})
			msg(d)["from"].(map[string]any)["friends"] = []any{}
			msg(d)["to"].(map[string]any)["friends"] = []any{}
		}, true, "refers to itself"},
		{"indirect cycle", func(d map[string]any) {
			types(d)["Person"] = append(types(d)["Person"].([]any), map[string]any{"name": "sent", "type": "Mail[]"})
			msg(d)["from"].(map[string]any)["sent"] = []any{}
			msg(d)["to"].(map[string]any)["sent"] = []any{}
		}, true, "refers to itself"},
		{"primaryType undeclared", func(d map[string]any) { d["primaryType"] = "Letter" }, false, "not a declared type"},
		{"primaryType EIP712Domain", func(d map[string]any) { d["primaryType"] = "EIP712Domain"; d["message"] = d["domain"] }, true, "not a message"},
		{"EIP712Domain out of order", func(d map[string]any) {
			f := types(d)["EIP712Domain"].([]any)
			f[0], f[1] = f[1], f[0]
		}, true, "the domain's fields want"},
		{"EIP712Domain missing a set field", func(d map[string]any) {
			types(d)["EIP712Domain"] = types(d)["EIP712Domain"].([]any)[:3]
		}, false, "the domain's fields want"},
		{"EIP712Domain with a wrong type", func(d map[string]any) {
			types(d)["EIP712Domain"].([]any)[2].(map[string]any)["type"] = "uint64"
		}, true, "the domain's fields want"},
		{"empty domain", func(d map[string]any) { d["domain"] = map[string]any{}; delete(types(d), "EIP712Domain") }, false, "domain is empty"},
		{"verifyingContract bad checksum", func(d map[string]any) {
			d["domain"].(map[string]any)["verifyingContract"] = "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccc"
		}, true, "checksum"},
		{"negative chainId", func(d map[string]any) { d["domain"].(map[string]any)["chainId"] = -1 }, false, "negative"},
		{"short salt", func(d map[string]any) {
			d["domain"].(map[string]any)["salt"] = "0x01"
			types(d)["EIP712Domain"] = append(types(d)["EIP712Domain"].([]any), map[string]any{"name": "salt", "type": "bytes32"})
		}, false, "salt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mailDoc(t)
			c.edit(d)
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			_, err = signer.ParseTypedData(b)
			if !errors.Is(err, signer.ErrInvalidTypedData) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrInvalidTypedData with %q", err, c.want)
			}
			// The same document built in Go (json.Unmarshal's float64 numbers) is refused by TypedDataHash as well.
			var td signer.TypedData
			if json.Unmarshal(b, &td) == nil {
				if _, err := signer.TypedDataHash(&td); !errors.Is(err, signer.ErrInvalidTypedData) {
					t.Errorf("TypedDataHash: %v", err)
				}
				if alone := gethHashes(&td); alone != c.gethAlone {
					t.Errorf("go-ethereum alone hashes it: %v, the table says %v", alone, c.gethAlone)
				}
			}
		})
	}
}

// gethHashes reports whether apitypes.TypedDataAndHash hashes td, or panics on it, without our checks.
func gethHashes(td *signer.TypedData) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = true
		}
	}()
	_, _, err := apitypes.TypedDataAndHash(*td)
	return err == nil
}

func TestTypedDataLimits(t *testing.T) {
	if _, err := signer.ParseTypedData(make([]byte, signer.MaxTypedDataSize+1)); !errors.Is(err, signer.ErrInvalidTypedData) {
		t.Errorf("oversize: %v", err)
	}
	if _, err := signer.ParseTypedData(append(mailJSON(t), []byte(` {}`)...)); !errors.Is(err, signer.ErrInvalidTypedData) {
		t.Errorf("trailing data: %v", err)
	}
	if _, err := signer.TypedDataHash(nil); !errors.Is(err, signer.ErrInvalidTypedData) {
		t.Errorf("nil: %v", err)
	}
	// Values: an array one longer than the limit allows.
	d := mailDoc(t)
	d["types"].(map[string]any)["Mail"] = append(d["types"].(map[string]any)["Mail"].([]any), map[string]any{"name": "n", "type": "bool[]"})
	d["message"].(map[string]any)["n"] = make([]bool, signer.MaxTypedDataValues)
	if _, err := signer.ParseTypedData(mustJSON(t, d)); err == nil || !strings.Contains(err.Error(), "values") {
		t.Errorf("values: %v", err)
	}
	d["message"].(map[string]any)["n"] = make([]bool, signer.MaxTypedDataValues-20)
	if _, err := signer.ParseTypedData(mustJSON(t, d)); err != nil {
		t.Errorf("values under the limit: %v", err)
	}
	// Struct values.
	d = mailDoc(t)
	d["types"].(map[string]any)["Mail"] = append(d["types"].(map[string]any)["Mail"].([]any), map[string]any{"name": "cc", "type": "Person[]"})
	var cc []any
	for range signer.MaxTypedDataStructs - 2 { // the Mail and its two Persons count too
		cc = append(cc, map[string]any{"name": "x", "wallet": "0x" + strings.Repeat("ab", 20)})
	}
	d["message"].(map[string]any)["cc"] = cc
	if _, err := signer.ParseTypedData(mustJSON(t, d)); err == nil || !strings.Contains(err.Error(), "struct values") {
		t.Errorf("struct values: %v", err)
	}
	d["message"].(map[string]any)["cc"] = cc[1:]
	if _, err := signer.ParseTypedData(mustJSON(t, d)); err != nil {
		t.Errorf("struct values at the limit: %v", err)
	}
	// Types and fields.
	d = mailDoc(t)
	for i := range signer.MaxTypedDataTypes - 2 {
		d["types"].(map[string]any)[fmt.Sprintf("Unused%d", i)] = []any{map[string]any{"name": "a", "type": "bool"}}
	}
	if _, err := signer.ParseTypedData(mustJSON(t, d)); err == nil || !strings.Contains(err.Error(), "types") {
		t.Errorf("types: %v", err)
	}
	d = mailDoc(t)
	var many []any
	msg := d["message"].(map[string]any)
	for i := range signer.MaxTypedDataFields {
		many = append(many, map[string]any{"name": fmt.Sprintf("f%d", i), "type": "bool"})
		msg[fmt.Sprintf("f%d", i)] = true
	}
	d["types"].(map[string]any)["Mail"] = append(d["types"].(map[string]any)["Mail"].([]any), many...)
	if _, err := signer.ParseTypedData(mustJSON(t, d)); err == nil || !strings.Contains(err.Error(), "fields") {
		t.Errorf("fields: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTypedDataUnchanged: hashing and signing leave the caller's document as it was.
func TestTypedDataUnchanged(t *testing.T) {
	var td signer.TypedData
	if err := json.Unmarshal(mailJSON(t), &td); err != nil {
		t.Fatal(err)
	}
	delete(td.Types, "EIP712Domain")
	before := mustJSON(t, td)
	k, _ := signer.GenerateKey()
	if _, err := k.SignTypedData(context.Background(), &td); err != nil {
		t.Fatal(err)
	}
	if after := mustJSON(t, td); !bytes.Equal(before, after) {
		t.Fatalf("changed:\n%s\n%s", before, after)
	}
}

func TestSignTypedDataErrors(t *testing.T) {
	td, _ := signer.ParseTypedData(mailJSON(t))
	var nilKey *signer.Key
	if _, err := nilKey.SignTypedData(context.Background(), td); err == nil {
		t.Error("nil key signed")
	}
	k, _ := signer.GenerateKey()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.SignTypedData(ctx, td); !errors.Is(err, context.Canceled) {
		t.Errorf("done ctx: %v", err)
	}
	if _, err := k.SignTypedData(context.Background(), &signer.TypedData{PrimaryType: "Mail"}); !errors.Is(err, signer.ErrInvalidTypedData) {
		t.Errorf("empty document: %v", err)
	}
}

// FuzzParseTypedData: no input panics; what parses hashes, and its JSON parses again to the same digest.
func FuzzParseTypedData(f *testing.F) {
	b, err := os.ReadFile("testdata/eip712_mail.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"types":{"A":[{"name":"x","type":"uint8[]"}]},"primaryType":"A","domain":{"name":"d"},"message":{"x":[null]}}`))
	f.Add([]byte(`{"types":{"A":[{"name":"x","type":"A[]"}]},"primaryType":"A","domain":{"chainId":"0x1"},"message":{"x":[{"x":[]}]}}`))
	f.Add([]byte(`{"types":{"A":[{"name":"x","type":"bytes32[2][]"}]},"primaryType":"A","domain":{"salt":"0x00"},"message":{"x":[]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		td, err := signer.ParseTypedData(in)
		if err != nil {
			if !errors.Is(err, signer.ErrInvalidTypedData) {
				t.Fatalf("error %v", err)
			}
			return
		}
		h, err := signer.TypedDataHash(td)
		if err != nil {
			t.Fatalf("parsed but not hashed: %v", err)
		}
		again, err := signer.ParseTypedData(mustJSON(t, td))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if h2, err := signer.TypedDataHash(again); err != nil || h2 != h {
			t.Fatalf("re-parsed digest %s, %v; was %s", h2.Hex(), err, h.Hex())
		}
	})
}

// BenchmarkTypedDataHash: the EIP's Mail document, and a document at the struct-values limit (what costs most in
// go-ethereum's encoder: the most an attacker's document can cost).
func BenchmarkTypedDataHash(b *testing.B) {
	mail, err := signer.ParseTypedData(mailJSON(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("mail", func(b *testing.B) {
		for b.Loop() {
			if _, err := signer.TypedDataHash(mail); err != nil {
				b.Fatal(err)
			}
		}
	})
	d := mailDoc(b)
	d["types"].(map[string]any)["Mail"] = append(d["types"].(map[string]any)["Mail"].([]any), map[string]any{"name": "cc", "type": "Person[]"})
	var cc []any
	for len(cc) < signer.MaxTypedDataStructs-3 {
		cc = append(cc, map[string]any{"name": "x", "wallet": "0x" + strings.Repeat("ab", 20)})
	}
	d["message"].(map[string]any)["cc"] = cc
	raw, _ := json.Marshal(d)
	big, err := signer.ParseTypedData(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("structs-limit", func(b *testing.B) {
		for b.Loop() {
			if _, err := signer.TypedDataHash(big); err != nil {
				b.Fatal(err)
			}
		}
	})
}
