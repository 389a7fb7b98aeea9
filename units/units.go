// Package units converts between decimal amounts ("1.5" ether, "12.25" of a 6-decimal token) and their integer
// base units (wei, the token's smallest unit), exactly: the Go counterpart of moralis-v1's Moralis.Units (ETH,
// Token, FromWei).
//
// The conversions are exact big-integer arithmetic, never float64: "0.1" ether is 100000000000000000 wei, and a
// fraction finer than the decimals allow is an error, not a rounding. Inputs are read as the original reads them
// (it calls ethers 5's parseUnits and formatUnits): a decimal string of digits with at most one point and an
// optional leading minus ("1", "-1.5", ".5", "1.", "00012.3400"); no exponent, no plus sign, no spaces, no
// thousands separators. Bad input gives an *Error whose text is the original's, letter for letter, e.g.
//
//	invalid decimal value (argument="value", value="1e18", code=INVALID_ARGUMENT, version=bignumber/5.6.0)
//
// and which errors.Is matches with one of the Err values below.
//
// The package stands alone (no network, no other package of the SDK): amounts it makes go to transfer (as
// *big.Int values) and amounts from the chain-data API (decimal strings of wei) go through FromWeiString.
package units

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// DefaultDecimals is the decimals of ether (and of the original's Token and FromWei when none are given).
const DefaultDecimals = 18

// MaxDecimals is the largest number of decimals accepted (the original's limit).
const MaxDecimals = 256

// Errors of bad input; an *Error matches one of them with errors.Is. Their texts are the start of the original's.
var (
	// ErrInvalidDecimalValue: a decimal amount that is not digits, at most one point and an optional leading minus.
	ErrInvalidDecimalValue = errors.New("invalid decimal value")
	// ErrTooManyDecimalPoints: a decimal amount with two points or more.
	ErrTooManyDecimalPoints = errors.New("too many decimal points")
	// ErrMissingValue: a decimal amount that is only a point ("." or "-.").
	ErrMissingValue = errors.New("missing value")
	// ErrFractionTooLong: more fractional digits (after trailing zeros are dropped) than the decimals allow.
	ErrFractionTooLong = errors.New("fractional component exceeds decimals")
	// ErrInvalidDecimals: decimals below 0 or above MaxDecimals.
	ErrInvalidDecimals = errors.New("invalid decimal size")
	// ErrInvalidBigNumberString: an integer string that is neither decimal digits nor 0x and hex digits (each
	// with an optional leading minus).
	ErrInvalidBigNumberString = errors.New("invalid BigNumber string")
	// ErrInvalidBigNumberValue: a nil *big.Int.
	ErrInvalidBigNumberValue = errors.New("invalid BigNumber value")
)

// Error is a refused input. Error() is the original client's text: the reason, then the argument and value (or,
// for ErrFractionTooLong, the fault and operation), the code and the version of the library the original used.
type Error struct {
	// Kind is one of the Err values of this package.
	Kind error
	// Argument is the name of the bad argument ("value" or "decimals"); "" for a numeric fault.
	Argument string
	// Value is the bad value as given (a string, an int, or nil).
	Value any
}

// Error returns the original's text (see Error).
func (e *Error) Error() string {
	if e.Kind == ErrFractionTooLong {
		return e.Kind.Error() + ` [ See: https://links.ethers.org/v5-errors-NUMERIC_FAULT ] (fault="underflow", ` +
			`operation="parseFixed", code=NUMERIC_FAULT, version=bignumber/5.6.0)`
	}
	return fmt.Sprintf("%s (argument=%q, value=%s, code=INVALID_ARGUMENT, version=bignumber/5.6.0)",
		e.Kind.Error(), e.Argument, jsJSON(e.Value))
}

// Unwrap returns Kind, so errors.Is matches it.
func (e *Error) Unwrap() error { return e.Kind }

// jsJSON renders v as JavaScript's JSON.stringify does for the values an Error holds (nil is "undefined", the
// original's rendering of a missing value).
func jsJSON(v any) string {
	if v == nil {
		return "undefined"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// checkDecimals refuses decimals outside [0, MaxDecimals] (checked first, as the original does).
func checkDecimals(decimals int) error {
	if decimals < 0 || decimals > MaxDecimals {
		return &Error{Kind: ErrInvalidDecimals, Argument: "decimals", Value: decimals}
	}
	return nil
}

// ETH converts an amount of ether to wei: ETH("1.5") is 1500000000000000000. It is Token(value, 18), as in the
// original (Moralis.Units.ETH).
func ETH(value string) (*big.Int, error) { return Token(value, DefaultDecimals) }

// Token converts an amount of a token with the given decimals to its base units: Token("12.25", 6) is 12250000
// (Moralis.Units.Token). Trailing zeros of the fraction do not count against the decimals ("1.500" with 1 decimal
// is 15); "-0" is 0.
func Token(value string, decimals int) (*big.Int, error) {
	if err := checkDecimals(decimals); err != nil {
		return nil, err
	}
	bad := func(kind error, v string) error { return &Error{Kind: kind, Argument: "value", Value: v} }
	if !decimalShape(value) {
		return nil, bad(ErrInvalidDecimalValue, value)
	}
	digits, negative := strings.CutPrefix(value, "-")
	if digits == "." {
		return nil, bad(ErrMissingValue, digits)
	}
	whole, fraction, _ := strings.Cut(digits, ".")
	if strings.Contains(fraction, ".") {
		return nil, bad(ErrTooManyDecimalPoints, digits)
	}
	fraction = strings.TrimRight(fraction, "0")
	if len(fraction) > decimals {
		return nil, &Error{Kind: ErrFractionTooLong}
	}
	// whole and fraction are digits only (decimalShape), so this parse cannot fail.
	n, _ := new(big.Int).SetString("0"+whole+fraction+strings.Repeat("0", decimals-len(fraction)), 10)
	if negative {
		n.Neg(n)
	}
	return n, nil
}

// decimalShape reports whether s matches ^-?[0-9.]+$ (the original's first check).
func decimalShape(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// FromWei converts an amount in base units to a decimal string with the given decimals, without trailing zeros:
// FromWei(1500000000000000000, 18) is "1.5", FromWei(10^18, 18) is "1", FromWei(-1, 18) is
// "-0.000000000000000001" (Moralis.Units.FromWei). A nil wei gives ErrInvalidBigNumberValue.
func FromWei(wei *big.Int, decimals int) (string, error) {
	if err := checkDecimals(decimals); err != nil {
		return "", err
	}
	if wei == nil {
		return "", &Error{Kind: ErrInvalidBigNumberValue, Argument: "value"}
	}
	mul := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	whole, frac := new(big.Int).QuoRem(new(big.Int).Abs(wei), mul, new(big.Int))
	out := whole.String()
	if decimals > 0 {
		f := frac.String()
		f = strings.Repeat("0", decimals-len(f)) + f
		if f = strings.TrimRight(f, "0"); f != "" {
			out += "." + f
		}
	}
	if wei.Sign() < 0 {
		out = "-" + out
	}
	return out, nil
}

// FromWeiString is FromWei of an integer written as the original accepts one: decimal digits or 0x and hex digits,
// each with an optional leading minus ("1000000000000000000", "0x10", "-5"). Anything else gives
// ErrInvalidBigNumberString with the original's text.
func FromWeiString(wei string, decimals int) (string, error) {
	if err := checkDecimals(decimals); err != nil {
		return "", err
	}
	n, err := ParseInt(wei)
	if err != nil {
		return "", err
	}
	return FromWei(n, decimals)
}

// ParseInt reads an integer as the original's BigNumber.from reads a string: decimal digits, or 0x (or 0X) and hex
// digits, each with an optional leading minus. Anything else (spaces, a plus sign, a point, "0x" alone) gives
// ErrInvalidBigNumberString.
func ParseInt(s string) (*big.Int, error) {
	body, negative := strings.CutPrefix(s, "-")
	base := 10
	if h, ok := strings.CutPrefix(strings.ToLower(body), "0x"); ok {
		body, base = h, 16
	}
	n, ok := new(big.Int).SetString(body, base)
	if !ok || body == "" || !plainDigits(body, base) {
		return nil, &Error{Kind: ErrInvalidBigNumberString, Argument: "value", Value: s}
	}
	if negative {
		n.Neg(n)
	}
	return n, nil
}

// plainDigits reports whether s is only digits of base (big.Int.SetString also takes underscores and signs).
func plainDigits(s string, base int) bool {
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		default:
			return false
		}
	}
	return true
}
