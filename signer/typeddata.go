package signer

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethmath "github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// TypedData is an EIP-712 typed-data document: types, primaryType, domain and message, as a wallet's
// eth_signTypedData_v4 takes it in JSON. It is go-ethereum's apitypes.TypedData (an alias, so values of either
// name are the same). ParseTypedData reads the JSON form; TypedDataHash checks and hashes it.
type TypedData = apitypes.TypedData

// ErrInvalidTypedData is returned (wrapped, with what is wrong and where) for typed data that TypedDataHash does
// not hash: malformed JSON, an unknown or ill-formed type, a value that does not fit its type, or a document
// over the limits below.
var ErrInvalidTypedData = errors.New("signer: invalid typed data")

// Limits on one typed-data document. Real ones (permits, orders, votes) are a few types and a few dozen values;
// the limits keep the cost of hashing an attacker's document small.
const (
	// MaxTypedDataSize bounds the JSON that ParseTypedData reads, in bytes.
	MaxTypedDataSize = 1 << 20
	// MaxTypedDataTypes bounds the struct types declared (EIP712Domain included).
	MaxTypedDataTypes = 64
	// MaxTypedDataFields bounds the fields of all struct types together.
	MaxTypedDataFields = 512
	// MaxTypedDataValues bounds the values of the message: every struct, array and primitive counts one.
	MaxTypedDataValues = 1 << 14
	// MaxTypedDataStructs bounds the struct values of the message (go-ethereum's encoder re-checks every type
	// for each struct value, so they cost most).
	MaxTypedDataStructs = 1 << 10
)

// EthereumTypedData signs EIP-712 typed data (eth_signTypedData_v4) for one account. *Key implements it; a
// hardware wallet or a remote signer can too.
//
// Implementations must be safe for concurrent use. SignTypedData may block (a wallet asking its user) but must
// return when ctx is done, with ctx's error.
type EthereumTypedData interface {
	// Address is the signing account; the zero address means "no account" (callers refuse it).
	Address() common.Address
	// SignTypedData returns the 65-byte [R || S || V] signature of TypedDataHash(data), V being 27 or 28 (as
	// wallets return it). It must not change data.
	SignTypedData(ctx context.Context, data *TypedData) ([]byte, error)
}

var _ EthereumTypedData = (*Key)(nil)

// SignTypedData signs TypedDataHash(data) and returns [R || S || V] with V = 27 or 28, as wallets do. Typed data
// that TypedDataHash refuses is an error wrapping ErrInvalidTypedData; so is a done ctx (ctx's error).
func (k *Key) SignTypedData(ctx context.Context, data *TypedData) ([]byte, error) {
	if k == nil || k.key == nil {
		return nil, errNoKey
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hash, err := TypedDataHash(data)
	if err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(hash[:], k.key)
	if err != nil {
		return nil, fmt.Errorf("signer: sign: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

// ParseTypedData reads the JSON of an EIP-712 document ({"types", "primaryType", "domain", "message"}, what
// ethers' TypedDataEncoder.getPayload and eth_signTypedData_v4 use) and checks it as TypedDataHash does. Numbers
// are read exactly (a JSON number above 2^53 is not rounded); an EIP712Domain type may be left out. Input over
// MaxTypedDataSize, JSON with trailing data and anything TypedDataHash refuses give an error wrapping
// ErrInvalidTypedData.
func ParseTypedData(b []byte) (*TypedData, error) {
	if len(b) > MaxTypedDataSize {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalidTypedData, MaxTypedDataSize)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var td TypedData
	if err := dec.Decode(&td); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTypedData, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("%w: data after the JSON document", ErrInvalidTypedData)
	}
	if _, err := TypedDataHash(&td); err != nil {
		return nil, err
	}
	return &td, nil
}

// TypedDataHash returns the EIP-712 digest of data: keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)),
// what eth_signTypedData_v4 signs, viem's hashTypedData and ethers' TypedDataEncoder.hash compute.
//
// The encoding is go-ethereum's (apitypes.TypedDataAndHash). Before it, the document is checked whole, closing
// what go-ethereum leaves open, so that a document is hashed only if it has exactly one meaning:
//
//   - type and field names are identifiers, unique, and no struct is named like a primitive; field types are
//     uint8…uint256 and int8…int256 in steps of 8 (not the aliases uint and int), bytes1…bytes32, bytes, string,
//     bool, address or a declared struct, each with any number of [] or [N] suffixes (N without leading zeros);
//     types do not refer to themselves, directly or not;
//   - EIP712Domain, when declared, has exactly the domain's non-empty fields, in the EIP's order
//     (name, version, chainId, verifyingContract, salt) and types; when left out it is made so;
//   - every field is present and no other key is; arrays have exactly N elements for [N] and the declared depth;
//   - integers fit their type (int8 is -128…127); strings are UTF-8; addresses are 0x and 40 hex digits, with a
//     valid EIP-55 checksum when mixed-case; bytesN values have N bytes;
//   - the limits MaxTypedDataTypes, MaxTypedDataFields, MaxTypedDataValues and MaxTypedDataStructs hold.
//
// Message values may be what encoding/json gives (string, bool, json.Number, float64 holding a safe integer,
// []any, map[string]any) or Go values: any Go integer, *big.Int, *math.HexOrDecimal256, common.Address, [20]byte,
// []byte, hexutil.Bytes, [N]byte, common.Hash; integers may also be decimal or 0x hex strings, bytes 0x hex.
// data is not changed. Anything refused gives an error wrapping ErrInvalidTypedData; it never panics.
func TypedDataHash(data *TypedData) (common.Hash, error) {
	if data == nil {
		return common.Hash{}, fmt.Errorf("%w: nil", ErrInvalidTypedData)
	}
	norm, err := normalizeTypedData(data)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%w: %v", ErrInvalidTypedData, err)
	}
	h, _, err := apitypes.TypedDataAndHash(*norm)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%w: %v", ErrInvalidTypedData, err)
	}
	return common.BytesToHash(h), nil
}

const domainType = "EIP712Domain"

var (
	structNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	fieldNameRE  = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	// arraySuffixRE is one trailing dimension: [] or [N], N decimal without leading zeros.
	arraySuffixRE = regexp.MustCompile(`\[(0|[1-9][0-9]{0,5})?\]$`)
)

// normalizeTypedData checks data and returns a copy that go-ethereum's encoder hashes the EIP's way: the domain
// type made or checked, message values in the forms apitypes accepts.
func normalizeTypedData(data *TypedData) (*TypedData, error) {
	n := &normalizer{types: data.Types}
	domainFields, err := domainTypeFor(&data.Domain)
	if err != nil {
		return nil, err
	}
	types := make(apitypes.Types, len(data.Types)+1)
	for name, fields := range data.Types {
		types[name] = fields
	}
	if declared, ok := data.Types[domainType]; ok {
		if !slices.Equal(declared, domainFields) {
			return nil, fmt.Errorf("EIP712Domain is %s, the domain's fields want %s", typeString(domainType, declared), typeString(domainType, domainFields))
		}
	} else {
		types[domainType] = domainFields
	}
	n.types = types
	if err := n.checkTypes(); err != nil {
		return nil, err
	}
	if data.PrimaryType == domainType {
		return nil, errors.New("primaryType EIP712Domain: the domain is not a message")
	}
	if _, ok := types[data.PrimaryType]; !ok {
		return nil, fmt.Errorf("primaryType %q is not a declared type", data.PrimaryType)
	}
	msg, err := n.value(data.PrimaryType, data.Message, "message")
	if err != nil {
		return nil, err
	}
	return &TypedData{Types: types, PrimaryType: data.PrimaryType, Domain: data.Domain, Message: msg.(map[string]any)}, nil
}

// domainTypeFor is the EIP712Domain type of a domain: its set fields in the EIP's order. It checks their values.
func domainTypeFor(d *apitypes.TypedDataDomain) ([]apitypes.Type, error) {
	var f []apitypes.Type
	if d.Name != "" {
		if !utf8.ValidString(d.Name) {
			return nil, errors.New("domain.name is not UTF-8")
		}
		f = append(f, apitypes.Type{Name: "name", Type: "string"})
	}
	if d.Version != "" {
		if !utf8.ValidString(d.Version) {
			return nil, errors.New("domain.version is not UTF-8")
		}
		f = append(f, apitypes.Type{Name: "version", Type: "string"})
	}
	if d.ChainId != nil {
		if c := (*big.Int)(d.ChainId); c.Sign() < 0 {
			return nil, errors.New("domain.chainId is negative")
		}
		f = append(f, apitypes.Type{Name: "chainId", Type: "uint256"})
	}
	if d.VerifyingContract != "" {
		if _, err := parseAddress(d.VerifyingContract); err != nil {
			return nil, fmt.Errorf("domain.verifyingContract: %v", err)
		}
		f = append(f, apitypes.Type{Name: "verifyingContract", Type: "address"})
	}
	if d.Salt != "" {
		if b, err := parseHexBytes(d.Salt); err != nil || len(b) != 32 {
			return nil, errors.New("domain.salt: want 0x and 32 bytes in hex")
		}
		f = append(f, apitypes.Type{Name: "salt", Type: "bytes32"})
	}
	if len(f) == 0 {
		return nil, errors.New("the domain is empty")
	}
	return f, nil
}

func typeString(name string, fields []apitypes.Type) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Type + " " + f.Name
	}
	return name + "(" + strings.Join(parts, ",") + ")"
}

type normalizer struct {
	types   apitypes.Types
	values  int
	structs int
}

// checkTypes checks every declared type (see TypedDataHash) and that no type refers to itself.
func (n *normalizer) checkTypes() error {
	if len(n.types) > MaxTypedDataTypes {
		return fmt.Errorf("%d types, more than %d", len(n.types), MaxTypedDataTypes)
	}
	total := 0
	for name, fields := range n.types {
		if !structNameRE.MatchString(name) {
			return fmt.Errorf("type name %q is not an identifier", name)
		}
		if isPrimitive(name) {
			return fmt.Errorf("type name %q is a primitive type", name)
		}
		total += len(fields)
		if total > MaxTypedDataFields {
			return fmt.Errorf("more than %d fields in all", MaxTypedDataFields)
		}
		seen := make(map[string]bool, len(fields))
		for _, f := range fields {
			if !fieldNameRE.MatchString(f.Name) {
				return fmt.Errorf("%s: field name %q is not an identifier", name, f.Name)
			}
			if seen[f.Name] {
				return fmt.Errorf("%s: field %q declared twice", name, f.Name)
			}
			seen[f.Name] = true
			base, _ := splitArray(f.Type)
			if base == "" {
				return fmt.Errorf("%s.%s: bad array type %q", name, f.Name, f.Type)
			}
			if base == domainType && name != domainType {
				return fmt.Errorf("%s.%s: EIP712Domain is not a field type", name, f.Name)
			}
			if !isPrimitive(base) {
				if _, ok := n.types[base]; !ok {
					return fmt.Errorf("%s.%s: type %q is neither primitive nor declared", name, f.Name, f.Type)
				}
			}
		}
	}
	// No cycles: depth-first over struct references, by name order so the error is stable.
	names := make([]string, 0, len(n.types))
	for name := range n.types {
		names = append(names, name)
	}
	slices.Sort(names)
	state := make(map[string]int, len(n.types)) // 0 new, 1 on the path, 2 done
	var visit func(string) error
	visit = func(name string) error {
		switch state[name] {
		case 1:
			return fmt.Errorf("type %s refers to itself", name)
		case 2:
			return nil
		}
		state[name] = 1
		for _, f := range n.types[name] {
			if base, _ := splitArray(f.Type); !isPrimitive(base) {
				if err := visit(base); err != nil {
					return err
				}
			}
		}
		state[name] = 2
		return nil
	}
	for _, name := range names {
		if err := visit(name); err != nil {
			return err
		}
	}
	return nil
}

// splitArray splits "T[2][]" into "T" and its dimensions, outermost first ([]int{-1, 2}: -1 is dynamic). base
// is "" when a suffix is ill-formed.
func splitArray(t string) (base string, dims []int) {
	for strings.HasSuffix(t, "]") {
		loc := arraySuffixRE.FindStringIndex(t)
		if loc == nil {
			return "", nil
		}
		d := -1
		if inner := t[loc[0]+1 : loc[1]-1]; inner != "" {
			d, _ = strconv.Atoi(inner)
		}
		dims = append(dims, d)
		t = t[:loc[0]]
	}
	if strings.ContainsAny(t, "[]") {
		return "", nil
	}
	return t, dims
}

// isPrimitive reports whether t is an EIP-712 atomic or dynamic type. The aliases int and uint are not: the EIP
// names uint8 to uint256, and implementations disagree on them (ethers hashes "uint" as "uint256" in the type
// string, go-ethereum as "uint": two digests for one document).
func isPrimitive(t string) bool {
	switch t {
	case "address", "bool", "string", "bytes":
		return true
	}
	if s, ok := strings.CutPrefix(t, "bytes"); ok {
		n, err := strconv.Atoi(s)
		return err == nil && n >= 1 && n <= 32 && strconv.Itoa(n) == s
	}
	_, _, ok := intType(t)
	return ok
}

// intType parses uintN and intN (N a multiple of 8 from 8 to 256).
func intType(t string) (bits int, signed bool, ok bool) {
	s, unsigned := strings.CutPrefix(t, "uint")
	if !unsigned {
		if s, ok = strings.CutPrefix(t, "int"); !ok {
			return 0, false, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 8 || n > 256 || n%8 != 0 || strconv.Itoa(n) != s {
		return 0, false, false
	}
	return n, !unsigned, true
}

// value checks v against type t and returns it in the form apitypes encodes. at names the place, for errors.
func (n *normalizer) value(t string, v any, at string) (any, error) {
	n.values++
	if n.values > MaxTypedDataValues {
		return nil, fmt.Errorf("more than %d values", MaxTypedDataValues)
	}
	if v == nil {
		return nil, fmt.Errorf("%s: missing (%s)", at, t)
	}
	base, dims := splitArray(t)
	if len(dims) > 0 {
		elem := t[:strings.LastIndexByte(t, '[')]
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return nil, fmt.Errorf("%s: want an array (%s)", at, t)
		}
		if want := dims[0]; want >= 0 && rv.Len() != want {
			return nil, fmt.Errorf("%s: %d elements, %s wants %d", at, rv.Len(), t, want)
		}
		out := make([]any, rv.Len())
		for i := range out {
			e, err := n.value(elem, rv.Index(i).Interface(), at+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	if fields, ok := n.types[base]; ok {
		if n.structs++; n.structs > MaxTypedDataStructs {
			return nil, fmt.Errorf("more than %d struct values", MaxTypedDataStructs)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want an object (%s)", at, t)
		}
		out := make(map[string]any, len(fields))
		for _, f := range fields {
			fv, err := n.value(f.Type, m[f.Name], at+"."+f.Name)
			if err != nil {
				return nil, err
			}
			out[f.Name] = fv
		}
		if len(m) != len(fields) {
			for k := range m {
				if _, ok := out[k]; !ok {
					return nil, fmt.Errorf("%s: %q is not a field of %s", at, k, t)
				}
			}
		}
		return out, nil
	}
	p, err := primitive(t, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", at, err)
	}
	return p, nil
}

// primitive checks v against the primitive type t.
func primitive(t string, v any) (any, error) {
	switch t {
	case "bool":
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("want a bool, got %T", v)
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", v)
		}
		if !utf8.ValidString(s) {
			return nil, errors.New("string is not UTF-8")
		}
		return s, nil
	case "address":
		var a common.Address
		switch x := v.(type) {
		case string:
			var err error
			if a, err = parseAddress(x); err != nil {
				return nil, err
			}
		case common.Address:
			a = x
		case [20]byte:
			a = x
		case []byte:
			if len(x) != 20 {
				return nil, fmt.Errorf("address of %d bytes", len(x))
			}
			a = common.BytesToAddress(x)
		default:
			return nil, fmt.Errorf("want an address, got %T", v)
		}
		return a.Hex(), nil
	}
	if bits, signed, ok := intType(t); ok {
		return integer(v, bits, signed)
	}
	b, err := bytesValue(v)
	if err != nil {
		return nil, err
	}
	if t != "bytes" {
		if size, _ := strconv.Atoi(strings.TrimPrefix(t, "bytes")); len(b) != size {
			return nil, fmt.Errorf("%d bytes for %s", len(b), t)
		}
	}
	return b, nil
}

// parseAddress accepts 0x and 40 hex digits; mixed case must be the EIP-55 checksum.
func parseAddress(s string) (common.Address, error) {
	if len(s) != 42 || s[:2] != "0x" {
		return common.Address{}, fmt.Errorf("address %q: want 0x and 40 hex digits", s)
	}
	if _, err := hex.DecodeString(s[2:]); err != nil {
		return common.Address{}, fmt.Errorf("address %q: want 0x and 40 hex digits", s)
	}
	a := common.HexToAddress(s)
	if lower := strings.ToLower(s[2:]); s[2:] != lower && s[2:] != strings.ToUpper(s[2:]) && a.Hex() != s {
		return common.Address{}, fmt.Errorf("address %q: bad EIP-55 checksum", s)
	}
	return a, nil
}

// parseHexBytes accepts 0x and an even number of hex digits ("0x" is empty).
func parseHexBytes(s string) ([]byte, error) {
	if len(s) < 2 || (s[:2] != "0x" && s[:2] != "0X") {
		return nil, errors.New("want 0x hex")
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, errors.New("want 0x and an even number of hex digits")
	}
	return b, nil
}

func bytesValue(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return parseHexBytes(x)
	case []byte:
		return bytes.Clone(x), nil
	case hexutil.Bytes:
		return bytes.Clone(x), nil
	case common.Hash:
		return x.Bytes(), nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return b, nil
	}
	return nil, fmt.Errorf("want bytes (0x hex), got %T", v)
}

// maxSafeFloat is 2^53 - 1: float64 integers above it may be rounded already (JavaScript's MAX_SAFE_INTEGER).
const maxSafeFloat = 1<<53 - 1

// integer reads an integer and checks it fits intN/uintN.
func integer(v any, bits int, signed bool) (*big.Int, error) {
	var b *big.Int
	switch x := v.(type) {
	case *big.Int:
		if x != nil {
			b = new(big.Int).Set(x)
		}
	case *gethmath.HexOrDecimal256:
		if x != nil {
			b = new(big.Int).Set((*big.Int)(x))
		}
	case json.Number:
		var ok bool
		if b, ok = new(big.Int).SetString(string(x), 10); !ok {
			return nil, fmt.Errorf("number %s is not an integer", x)
		}
	case string:
		var err error
		if b, err = parseIntString(x); err != nil {
			return nil, err
		}
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > maxSafeFloat {
			return nil, fmt.Errorf("number %v is not a safe integer (beyond 2^53 or fractional); use a string", x)
		}
		b = big.NewInt(int64(x))
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			b = big.NewInt(rv.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			b = new(big.Int).SetUint64(rv.Uint())
		}
	}
	if b == nil {
		return nil, fmt.Errorf("want an integer, got %T", v)
	}
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits)) // [0, 2^bits)
	if signed {
		hi.Rsh(hi, 1)
		lo.Neg(hi) // [-2^(bits-1), 2^(bits-1))
	}
	if b.Cmp(lo) < 0 || b.Cmp(hi) >= 0 {
		kind := "uint"
		if signed {
			kind = "int"
		}
		return nil, fmt.Errorf("%s out of range for %s%d", b, kind, bits)
	}
	return b, nil
}

// parseIntString accepts decimal (an optional leading "-") or 0x hex digits; nothing else, not "".
func parseIntString(s string) (*big.Int, error) {
	digits, base := s, 10
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		digits, base = s[2:], 16
	} else {
		digits = strings.TrimPrefix(s, "-")
	}
	if digits == "" || len(digits) > 80 {
		return nil, fmt.Errorf("integer %q: want decimal or 0x hex digits", s)
	}
	for _, c := range digits {
		if !(c >= '0' && c <= '9' || base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
			return nil, fmt.Errorf("integer %q: want decimal or 0x hex digits", s)
		}
	}
	b, _ := new(big.Int).SetString(s[len(s)-len(digits):], base)
	if base == 10 && strings.HasPrefix(s, "-") {
		b.Neg(b)
	}
	return b, nil
}
