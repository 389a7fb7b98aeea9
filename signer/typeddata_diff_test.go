//go:build ethersdiff

package signer_test

// The differential test of TypedDataHash against ethers v6's TypedDataEncoder.hash, in Node. It needs node and
// react-hooks/node_modules (npm ci in react-hooks), so it has its own build tag; make test-react runs it after
// npm ci:
//
//	go test -tags ethersdiff -run TestTypedDataDifferential ./signer/

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/c13f5054/moralis-go/signer"
)

const diffCorpusSize = 600

func TestTypedDataDifferential(t *testing.T) {
	pkg, err := filepath.Abs("../react-hooks/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(pkg), "node_modules", "ethers")); err != nil {
		t.Fatalf("ethers is not installed in react-hooks (run npm ci there): %v", err)
	}
	g := &corpusGen{r: rand.New(rand.NewPCG(712, 1))}
	var docs []map[string]any
	for range diffCorpusSize {
		docs = append(docs, g.document())
	}
	negatives := refusedByBoth()
	goOnly := refusedByGoOnly()
	positives := len(docs)
	for _, n := range negatives {
		docs = append(docs, n.doc)
	}
	for _, n := range goOnly {
		docs = append(docs, n.doc)
	}
	raw, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "corpus.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "testdata/typeddata_ethers.cjs", pkg, path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got struct {
		Ethers  string
		Results []struct{ Hash, Error string }
	}
	if err := json.Unmarshal(stdout, &got); err != nil || len(got.Results) != len(docs) {
		t.Fatalf("node answered %d results for %d documents: %v", len(got.Results), len(docs), err)
	}
	var kinds = map[string]int{}
	for i, doc := range docs {
		b, _ := json.Marshal(doc)
		td, err := signer.ParseTypedData(b)
		var goHash common.Hash
		if err == nil {
			goHash, err = signer.TypedDataHash(td)
		}
		e := got.Results[i]
		if i >= positives+len(negatives) {
			// Stricter than ethers on purpose: Go refuses, ethers hashes. If ethers starts refusing, move the case.
			n := goOnly[i-positives-len(negatives)]
			if !errors.Is(err, signer.ErrInvalidTypedData) || e.Error != "" {
				t.Errorf("Go-only refusal %q: Go %v, ethers %q", n.name, err, e.Error)
			}
			continue
		}
		if i >= positives {
			n := negatives[i-positives]
			if err == nil || !errors.Is(err, signer.ErrInvalidTypedData) || e.Error == "" {
				t.Errorf("negative %q: Go %v, ethers %q %s", n.name, err, e.Error, e.Hash)
			}
			t.Logf("%s: Go %v; ethers %s", n.name, err, e.Error)
			continue
		}
		if err != nil || e.Error != "" {
			t.Errorf("document %d: Go %v, ethers %q\n%s", i, err, e.Error, b)
			continue
		}
		if goHash.Hex() != e.Hash {
			t.Errorf("document %d: Go %s, ethers %s\n%s", i, goHash.Hex(), e.Hash, b)
		}
		for _, k := range strings.Split(g.kinds[i], ",") {
			kinds[k]++
		}
	}
	// The corpus is what it claims to be: every kind of value appears, many times.
	for _, k := range []string{"struct", "struct[]", "array2d", "fixedArray", "bytes", "bytesN", "string", "unicode",
		"intMin", "uintMax", "address", "bool", "salt", "jsonNumber", "hexInt"} {
		if kinds[k] < 10 {
			t.Errorf("the corpus has %d documents with %s", kinds[k], k)
		}
	}
	t.Logf("ethers %s: %d documents hashed alike, %d refused by both, %d refused by Go only; kinds %v", got.Ethers, positives, len(negatives), len(goOnly), kinds)
}

// corpusGen makes random EIP-712 documents: a domain with some of its fields, an acyclic graph of 1 to 5 struct
// types, fields of every kind (arrays of 1 and 2 dimensions, fixed and dynamic), and values at the edges.
type corpusGen struct {
	r     *rand.Rand
	kinds []string
	cur   map[string]bool
}

func (g *corpusGen) mark(k string) { g.cur[k] = true }

func (g *corpusGen) document() map[string]any {
	g.cur = map[string]bool{}
	nTypes := 1 + g.r.IntN(5)
	names := make([]string, nTypes)
	for i := range names {
		names[i] = fmt.Sprintf("T%d_%s", i, []string{"Mail", "Person", "Order", "Item", "Vote"}[g.r.IntN(5)])
	}
	types := map[string]any{}
	fieldsOf := map[string][]map[string]string{}
	for i := nTypes - 1; i >= 0; i-- {
		var fields []map[string]string
		nf := 1 + g.r.IntN(5)
		// Every struct but the first is referenced by the one before it, so that all are reachable from T0.
		if i+1 < nTypes {
			ref := names[i+1] + g.arraySuffix(true)
			fields = append(fields, map[string]string{"name": "child", "type": ref})
			nf--
		}
		for j := 0; j < nf; j++ {
			var typ string
			if i+2 < nTypes && g.r.IntN(4) == 0 {
				typ = names[i+2+g.r.IntN(nTypes-i-2)] // a further struct: a DAG, not only a chain
			} else {
				typ = g.primitiveType()
			}
			if g.r.IntN(4) == 0 {
				typ += g.arraySuffix(false)
			}
			fields = append(fields, map[string]string{"name": fmt.Sprintf("f%d_%c", j, 'a'+rune(g.r.IntN(26))), "type": typ})
		}
		fieldsOf[names[i]] = fields
		types[names[i]] = fields
	}
	domain, domainFields := g.domain()
	if g.r.IntN(2) == 0 {
		types["EIP712Domain"] = domainFields
	}
	msg := g.structValue(names[0], fieldsOf)
	g.kinds = append(g.kinds, strings.Join(keys(g.cur), ","))
	return map[string]any{"types": types, "primaryType": names[0], "domain": domain, "message": msg}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (g *corpusGen) arraySuffix(maybeNone bool) string {
	switch g.r.IntN(5) {
	case 0:
		if maybeNone {
			return ""
		}
		return "[]"
	case 1:
		return "[]"
	case 2:
		return fmt.Sprintf("[%d]", 1+g.r.IntN(3))
	case 3:
		return fmt.Sprintf("[%d][]", 1+g.r.IntN(2))
	default:
		return "[][2]"
	}
}

func (g *corpusGen) primitiveType() string {
	switch g.r.IntN(8) {
	case 0:
		return fmt.Sprintf("uint%d", 8*(1+g.r.IntN(32)))
	case 1:
		return fmt.Sprintf("int%d", 8*(1+g.r.IntN(32)))
	case 2:
		return fmt.Sprintf("bytes%d", 1+g.r.IntN(32))
	case 3:
		return "bytes"
	case 4:
		return "string"
	case 5:
		return "address"
	case 6:
		return "bool"
	default:
		return []string{"uint256", "int256", "bytes32", "uint8", "int8"}[g.r.IntN(5)]
	}
}

func (g *corpusGen) domain() (map[string]any, []map[string]string) {
	for {
		d := map[string]any{}
		var f []map[string]string
		if g.r.IntN(3) > 0 {
			d["name"] = g.stringValue()
			if d["name"] == "" {
				d["name"] = "Ether Mail"
			}
			f = append(f, map[string]string{"name": "name", "type": "string"})
		}
		if g.r.IntN(2) > 0 {
			d["version"] = fmt.Sprint(g.r.IntN(10))
			f = append(f, map[string]string{"name": "version", "type": "string"})
		}
		if g.r.IntN(3) > 0 {
			d["chainId"] = []any{1, 137, 31337, "0x2105", "11155111", "115792089237316195423570985008687907853269984665640564039457584007913129639935"}[g.r.IntN(6)]
			f = append(f, map[string]string{"name": "chainId", "type": "uint256"})
		}
		if g.r.IntN(2) > 0 {
			d["verifyingContract"] = g.address()
			f = append(f, map[string]string{"name": "verifyingContract", "type": "address"})
		}
		if g.r.IntN(4) == 0 {
			d["salt"] = g.hexBytes(32)
			f = append(f, map[string]string{"name": "salt", "type": "bytes32"})
			g.mark("salt")
		}
		if len(f) > 0 {
			return d, f
		}
	}
}

func (g *corpusGen) structValue(name string, fieldsOf map[string][]map[string]string) map[string]any {
	g.mark("struct")
	out := map[string]any{}
	for _, f := range fieldsOf[name] {
		out[f["name"]] = g.value(f["type"], fieldsOf)
	}
	return out
}

func (g *corpusGen) value(typ string, fieldsOf map[string][]map[string]string) any {
	if strings.HasSuffix(typ, "]") {
		i := strings.LastIndexByte(typ, '[')
		elem, dim := typ[:i], typ[i+1:len(typ)-1]
		n := g.r.IntN(4)
		if dim != "" {
			fmt.Sscan(dim, &n)
			g.mark("fixedArray")
		}
		if strings.HasSuffix(elem, "]") {
			g.mark("array2d")
		}
		if _, ok := fieldsOf[strings.Split(elem, "[")[0]]; ok {
			g.mark("struct[]")
		}
		out := make([]any, n)
		for k := range out {
			out[k] = g.value(elem, fieldsOf)
		}
		return out
	}
	if _, ok := fieldsOf[typ]; ok {
		return g.structValue(typ, fieldsOf)
	}
	switch {
	case typ == "bool":
		g.mark("bool")
		return g.r.IntN(2) == 0
	case typ == "string":
		g.mark("string")
		return g.stringValue()
	case typ == "address":
		g.mark("address")
		return g.address()
	case typ == "bytes":
		g.mark("bytes")
		return g.hexBytes([]int{0, 1, 31, 32, 33, 64, 100}[g.r.IntN(7)])
	case strings.HasPrefix(typ, "bytes"):
		g.mark("bytesN")
		var n int
		fmt.Sscan(typ[5:], &n)
		return g.hexBytes(n)
	}
	signed := strings.HasPrefix(typ, "int")
	var bits uint
	fmt.Sscan(strings.TrimPrefix(strings.TrimPrefix(typ, "u"), "int"), &bits)
	one := big.NewInt(1)
	var v *big.Int
	switch g.r.IntN(7) {
	case 0:
		v = big.NewInt(0)
	case 1: // the largest value of the type
		if signed {
			v = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
		} else {
			v = new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
			g.mark("uintMax")
		}
	case 2: // the smallest
		if signed {
			v = new(big.Int).Neg(new(big.Int).Lsh(one, bits-1))
			g.mark("intMin")
		} else {
			v = big.NewInt(0)
		}
	case 3: // 2^53 ± 1, where JavaScript numbers end, when the type holds it
		v = new(big.Int).Add(new(big.Int).Lsh(one, 53), big.NewInt(int64(g.r.IntN(3)-1)))
		if v.BitLen() >= int(bits) {
			v = big.NewInt(1)
		}
	default: // random within range
		limit := new(big.Int).Lsh(one, bits)
		if signed {
			limit.Rsh(limit, 1)
		}
		buf := make([]byte, 32)
		for i := range buf {
			buf[i] = byte(g.r.UintN(256))
		}
		v = new(big.Int).Mod(new(big.Int).SetBytes(buf[:1+g.r.IntN(32)]), limit)
		if signed && g.r.IntN(2) == 0 {
			v.Neg(v)
		}
	}
	switch {
	case v.IsInt64() && v.Int64() >= -(1<<53-1) && v.Int64() <= 1<<53-1 && g.r.IntN(2) == 0:
		g.mark("jsonNumber")
		return json.Number(v.String())
	case v.Sign() >= 0 && g.r.IntN(3) == 0:
		g.mark("hexInt")
		return "0x" + v.Text(16)
	default:
		return v.String()
	}
}

func (g *corpusGen) stringValue() string {
	pick := []string{"", "Hello, Bob!", "ünïcödé ✓", "日本語のテキスト", "emoji 🦊🔥 and a ZWJ 👩‍💻", "e\u0301 combining",
		"quotes \" and \\ backslash", "new\nline\ttab", "RTL עברית العربية", "\u0000 nul", strings.Repeat("long ", 60)}
	s := pick[g.r.IntN(len(pick))]
	for _, c := range s {
		if c > 127 {
			g.mark("unicode")
			break
		}
	}
	return s
}

func (g *corpusGen) address() string {
	b := make([]byte, 20)
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	a := common.BytesToAddress(b)
	if g.r.IntN(2) == 0 {
		return strings.ToLower(a.Hex())
	}
	return a.Hex() // EIP-55 checksummed
}

func (g *corpusGen) hexBytes(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	return fmt.Sprintf("0x%x", b)
}

type negative struct {
	name string
	doc  map[string]any
}

// refusedByBoth are documents both TypedDataHash and ethers must refuse.
func refusedByBoth() []negative {
	mail := func(fieldType string, value any) map[string]any {
		return map[string]any{
			"types":       map[string]any{"Mail": []map[string]string{{"name": "v", "type": fieldType}}},
			"primaryType": "Mail",
			"domain":      map[string]any{"name": "N", "chainId": 1},
			"message":     map[string]any{"v": value},
		}
	}
	withTypes := func(types map[string]any, msg map[string]any) map[string]any {
		return map[string]any{"types": types, "primaryType": "Mail", "domain": map[string]any{"name": "N"}, "message": msg}
	}
	return []negative{
		{"int8 128", mail("int8", 128)},
		{"int8 -129", mail("int8", "-129")},
		{"uint8 256", mail("uint8", 256)},
		{"uint256 2^256", mail("uint256", "0x1"+strings.Repeat("0", 64))},
		{"uint negative", mail("uint64", -1)},
		{"fraction", mail("uint64", 1.5)},
		{"integer not a number", mail("uint64", "12abc")},
		{"empty integer string", mail("uint64", "")},
		{"unsafe JS number", mail("uint64", json.Number("9007199254740993e0"))},
		{"fixed array too short", mail("uint8[3]", []any{1, 2})},
		{"fixed array too long", mail("uint8[1]", []any{1, 2})},
		{"bytes4 with 3 bytes", mail("bytes4", "0x010203")},
		{"bytes4 with 5 bytes", mail("bytes4", "0x0102030405")},
		{"bytes odd hex", mail("bytes", "0x123")},
		{"bytes not hex", mail("bytes", "hello")},
		{"bytes33", mail("bytes33", "0x00")},
		{"uint7", mail("uint7", 1)},
		{"uint264", mail("uint264", 1)},
		{"address bad checksum", mail("address", "0xCD2a3d9f938e13cd947ec05abc7fe734df8dd826")},
		{"address short", mail("address", "0x1234")},
		{"string as number", mail("string", 5)},
		{"array given a scalar", mail("uint8[]", 5)},
		{"unknown type", mail("Person", map[string]any{})},
		{"missing field", withTypes(map[string]any{"Mail": []map[string]string{{"name": "a", "type": "uint8"}, {"name": "b", "type": "string"}}},
			map[string]any{"a": 1})},
		{"struct given a string", withTypes(map[string]any{"Mail": []map[string]string{{"name": "p", "type": "P"}}, "P": []map[string]string{{"name": "x", "type": "uint8"}}},
			map[string]any{"p": "x"})},
		{"circular types", withTypes(map[string]any{"Mail": []map[string]string{{"name": "p", "type": "P"}}, "P": []map[string]string{{"name": "m", "type": "Mail[]"}}},
			map[string]any{"p": map[string]any{"m": []any{}}})},
		{"duplicate field", withTypes(map[string]any{"Mail": []map[string]string{{"name": "a", "type": "uint8"}, {"name": "a", "type": "uint8"}}},
			map[string]any{"a": 1})},
	}
}

// refusedByGoOnly are documents TypedDataHash refuses and ethers hashes: where this package is stricter, so that
// what is signed has one reading.
func refusedByGoOnly() []negative {
	mail := func(fieldType string, value any) map[string]any {
		return map[string]any{
			"types":       map[string]any{"Mail": []map[string]string{{"name": "v", "type": fieldType}}},
			"primaryType": "Mail",
			"domain":      map[string]any{"name": "N"},
			"message":     map[string]any{"v": value},
		}
	}
	extra := mail("uint8", 1)
	extra["message"].(map[string]any)["w"] = "not a field" // ethers ignores keys that are not fields
	return []negative{
		{"key that is not a field", extra},
		{"array length with a zero first", mail("uint8[01]", []any{1})}, // one type, one spelling
		{"bool as a string", mail("bool", "false")},                     // ethers takes any truthy value as true
		{"int written 2.0", mail("int64", json.Number("2.0"))},          // not an integer literal
		{"uint alias", mail("uint", 1)},                                 // ethers hashes it as uint256, go-ethereum as uint
		{"int alias", mail("int[]", []any{1})},
	}
}
