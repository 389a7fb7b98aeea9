package transfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// FunctionCall is the input of Client.ExecuteFunction.
type FunctionCall struct {
	// ContractAddress is the 0x address of the contract.
	ContractAddress string
	// ABI is the contract's ABI JSON (the whole ABI or just the function).
	ABI string
	// FunctionName is a name ("transfer") or, for an overloaded function, its
	// signature ("safeTransferFrom(address,address,uint256)").
	FunctionName string
	// Params holds the inputs by name; an unnamed input is looked up by its
	// position ("0", "1", ...). Values may be the Go type go-ethereum's abi
	// package uses, or friendly forms: strings for addresses, decimal/0x
	// integers and 0x bytes; int, uint64, float64 (integral) or json.Number for
	// integers; []any for arrays; map[string]any for tuples.
	Params map[string]any
	// Value is the wei sent with a payable function; nil means 0.
	Value *big.Int
}

// Output is one decoded return value of a view or pure function.
type Output struct {
	Name  string // the ABI output name, or its position ("0", "1", ...) if unnamed
	Type  string // the ABI type, e.g. "uint256"
	Value any    // as go-ethereum's abi package decodes it (*big.Int, common.Address, ...)
}

// FunctionResult is the outcome of ExecuteFunction: Outputs for a view or pure
// function (an eth_call), Tx for any other function (a transaction).
type FunctionResult struct {
	Outputs []Output
	Tx      *Result
}

// Value returns the output with the given name (or position), and whether it exists.
func (r *FunctionResult) Value(name string) (any, bool) {
	for _, o := range r.Outputs {
		if o.Name == name {
			return o.Value, true
		}
	}
	return nil, false
}

// ExecuteFunction calls a contract function. View and pure functions are run
// as an eth_call on the latest block and their outputs decoded; other functions
// are sent as a transaction from the client's signer with opts (which are
// ignored for view calls). Before any network call it checks the ABI, the
// function ("Function does not exist in abi", or ErrMultipleFunctions as an
// *AmbiguousFunctionError listing the signatures), every input ("{input} is
// required", as a *ValidationError) and the signer ("From address is required").
func (c *Client) ExecuteFunction(ctx context.Context, call FunctionCall, opts *TxOptions) (*FunctionResult, error) {
	var problems []error
	addrRaw := strings.TrimSpace(call.ContractAddress)
	if addrRaw == "" {
		problems = append(problems, &RequiredError{Field: "contractAddress"})
	} else if !common.IsHexAddress(addrRaw) {
		problems = append(problems, errors.New("contractAddress is not a valid address"))
	}
	if strings.TrimSpace(call.ABI) == "" {
		problems = append(problems, &RequiredError{Field: "abi"})
	}
	if strings.TrimSpace(call.FunctionName) == "" {
		problems = append(problems, &RequiredError{Field: "functionName"})
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	parsed, err := abi.JSON(strings.NewReader(call.ABI))
	if err != nil {
		return nil, fmt.Errorf("transfer: invalid abi: %w", err)
	}
	method, err := findMethod(parsed, call.FunctionName)
	if err != nil {
		return nil, err
	}
	args, err := methodArgs(method, call.Params)
	if err != nil {
		return nil, err
	}
	data, err := method.Inputs.Pack(args...)
	if err != nil {
		return nil, fmt.Errorf("transfer: encode %s: %w", method.Sig, err)
	}
	data = append(append([]byte{}, method.ID...), data...)
	to := common.HexToAddress(addrRaw)
	if call.Value != nil && call.Value.Sign() < 0 {
		return nil, errors.New("transfer: value must not be negative")
	}
	if call.Value != nil && call.Value.Sign() > 0 && !method.IsPayable() {
		return nil, fmt.Errorf("transfer: %s is not payable", method.Sig)
	}

	if method.IsConstant() {
		msg := ethereum.CallMsg{To: &to, Data: data, Value: call.Value}
		if from, err := c.sender(nil); err == nil {
			msg.From = from
		}
		out, err := c.backend.CallContract(ctx, msg, nil)
		if err != nil {
			return nil, revertFrom("call "+method.Sig, err)
		}
		if len(out) == 0 && len(method.Outputs) > 0 {
			return nil, fmt.Errorf("transfer: call %s returned no data (no contract at %s?)", method.Sig, to.Hex())
		}
		vals, err := method.Outputs.Unpack(out)
		if err != nil {
			return nil, fmt.Errorf("transfer: decode %s outputs: %w", method.Sig, err)
		}
		res := &FunctionResult{Outputs: make([]Output, len(vals))}
		for i, v := range vals {
			name := method.Outputs[i].Name
			if name == "" {
				name = strconv.Itoa(i)
			}
			res.Outputs[i] = Output{Name: name, Type: method.Outputs[i].Type.String(), Value: v}
		}
		return res, nil
	}

	from, err := c.sender(ErrFromRequired)
	if err != nil {
		return nil, err
	}
	tx, err := c.transact(ctx, from, to, call.Value, data, opts)
	if tx == nil && err != nil {
		return nil, err
	}
	return &FunctionResult{Tx: tx}, err
}

// findMethod resolves a bare name or a "name(type,...)" signature.
func findMethod(parsed abi.ABI, name string) (abi.Method, error) {
	name = strings.Join(strings.Fields(name), "")
	var found []abi.Method
	for _, m := range parsed.Methods {
		if (strings.Contains(name, "(") && m.Sig == name) || m.RawName == name {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return abi.Method{}, ErrFunctionNotFound
	case 1:
		return found[0], nil
	}
	sigs := make([]string, len(found))
	for i, m := range found {
		sigs[i] = m.Sig
	}
	sort.Strings(sigs)
	return abi.Method{}, &AmbiguousFunctionError{Name: name, Candidates: sigs}
}

// methodArgs orders params by the method's inputs, reporting every missing one.
func methodArgs(m abi.Method, params map[string]any) ([]any, error) {
	args := make([]any, len(m.Inputs))
	var problems []error
	for i, in := range m.Inputs {
		key := in.Name
		if key == "" {
			key = strconv.Itoa(i)
		}
		v, ok := params[key]
		if !ok || v == nil {
			problems = append(problems, &RequiredError{Field: key})
			continue
		}
		conv, err := convertArg(in.Type, v)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", key, err))
			continue
		}
		args[i] = conv
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return args, nil
}

// convertArg turns a friendly Go value into the type abi.Pack expects for t.
func convertArg(t abi.Type, v any) (any, error) {
	if v == nil {
		return nil, fmt.Errorf("want a value for %s, got nothing", t)
	}
	goType := t.GetType()
	rv := reflect.ValueOf(v)
	if rv.Type().AssignableTo(goType) {
		return v, nil
	}
	switch t.T {
	case abi.AddressTy:
		s, ok := v.(string)
		if !ok || !common.IsHexAddress(s) {
			return nil, fmt.Errorf("want an address, got %v", v)
		}
		return common.HexToAddress(s), nil
	case abi.BoolTy:
		if s, ok := v.(string); ok {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, fmt.Errorf("want a bool, got %q", s)
			}
			return b, nil
		}
		return nil, fmt.Errorf("want a bool, got %T", v)
	case abi.StringTy:
		return nil, fmt.Errorf("want a string, got %T", v)
	case abi.IntTy, abi.UintTy:
		n, err := toBigInt(v)
		if err != nil {
			return nil, err
		}
		if t.T == abi.UintTy && n.Sign() < 0 {
			return nil, fmt.Errorf("%s must not be negative", t)
		}
		if n.BitLen() > t.Size {
			return nil, fmt.Errorf("%s does not fit in %s", n, t)
		}
		if t.Size > 64 {
			return n, nil
		}
		out := reflect.New(goType).Elem()
		if t.T == abi.UintTy {
			out.SetUint(n.Uint64())
		} else {
			if !n.IsInt64() {
				return nil, fmt.Errorf("%s does not fit in %s", n, t)
			}
			out.SetInt(n.Int64())
		}
		return out.Interface(), nil
	case abi.BytesTy, abi.FixedBytesTy:
		b, err := toBytes(v)
		if err != nil {
			return nil, err
		}
		if t.T == abi.BytesTy {
			return b, nil
		}
		if len(b) != t.Size {
			return nil, fmt.Errorf("want %d bytes, got %d", t.Size, len(b))
		}
		out := reflect.New(goType).Elem()
		reflect.Copy(out, reflect.ValueOf(b))
		return out.Interface(), nil
	case abi.SliceTy, abi.ArrayTy:
		in := reflect.ValueOf(v)
		if in.Kind() != reflect.Slice && in.Kind() != reflect.Array {
			return nil, fmt.Errorf("want a list for %s, got %T", t, v)
		}
		if t.T == abi.ArrayTy && in.Len() != t.Size {
			return nil, fmt.Errorf("want %d elements for %s, got %d", t.Size, t, in.Len())
		}
		var out reflect.Value
		if t.T == abi.SliceTy {
			out = reflect.MakeSlice(goType, in.Len(), in.Len())
		} else {
			out = reflect.New(goType).Elem()
		}
		for i := 0; i < in.Len(); i++ {
			e, err := convertArg(*t.Elem, in.Index(i).Interface())
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out.Index(i).Set(reflect.ValueOf(e))
		}
		return out.Interface(), nil
	case abi.TupleTy:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an object for %s, got %T", t, v)
		}
		out := reflect.New(goType).Elem()
		for i, elem := range t.TupleElems {
			name := t.TupleRawNames[i]
			fv, ok := m[name]
			if !ok || fv == nil {
				return nil, &RequiredError{Field: name}
			}
			e, err := convertArg(*elem, fv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out.Field(i).Set(reflect.ValueOf(e))
		}
		return out.Interface(), nil
	}
	return nil, fmt.Errorf("cannot use %T as %s", v, t)
}

func toBigInt(v any) (*big.Int, error) {
	switch x := v.(type) {
	case *big.Int:
		return new(big.Int).Set(x), nil
	case big.Int:
		return new(big.Int).Set(&x), nil
	case string:
		s := strings.TrimSpace(x)
		neg := strings.HasPrefix(s, "-")
		n, ok := parseUint256(strings.TrimPrefix(s, "-"))
		if !ok {
			return nil, fmt.Errorf("want an integer, got %q", x)
		}
		if neg {
			n.Neg(n)
		}
		return n, nil
	case json.Number:
		return toBigInt(string(x))
	case float64:
		// JSON numbers decode to float64; only integers that float64 holds exactly are accepted.
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, fmt.Errorf("want an exact integer, got %v (pass large numbers as strings)", x)
		}
		return big.NewInt(int64(x)), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return big.NewInt(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return new(big.Int).SetUint64(rv.Uint()), nil
	}
	return nil, fmt.Errorf("want an integer, got %T", v)
}

func toBytes(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case string:
		b, err := hexutil.Decode(x)
		if err != nil {
			return nil, fmt.Errorf("want 0x-prefixed hex bytes, got %q", x)
		}
		return b, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return b, nil
	}
	return nil, fmt.Errorf("want bytes, got %T", v)
}
