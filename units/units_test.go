package units

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The answers and texts below are moralis-v1 1.13.0's (Moralis.Units, run in Node against the same inputs).
func TestTokenLikeTheOriginal(t *testing.T) {
	for _, c := range []struct {
		value    string
		decimals int
		want     string
	}{
		{"1", 18, "1000000000000000000"},
		{"1.", 18, "1000000000000000000"},
		{".5", 18, "500000000000000000"},
		{"-0", 18, "0"},
		{"-1.5", 18, "-1500000000000000000"},
		{"0.000000000000000001", 18, "1"},
		{"00012.3400", 18, "12340000000000000000"},
		{"1", 6, "1000000"},
		{"1.23", 6, "1230000"},
		{"1.500", 1, "15"},
		{"7", 0, "7"},
		{"7.000", 0, "7"},
		{"1", 256, "1" + strings.Repeat("0", 256)},
	} {
		got, err := Token(c.value, c.decimals)
		require.NoError(t, err, "%q %d", c.value, c.decimals)
		assert.Equal(t, c.want, got.String(), "%q %d", c.value, c.decimals)
		if c.decimals == 18 {
			eth, err := ETH(c.value)
			require.NoError(t, err)
			assert.Equal(t, got, eth, "ETH is Token with 18 decimals")
		}
	}
}

func TestBadInputGivesTheOriginalsText(t *testing.T) {
	const v = "code=INVALID_ARGUMENT, version=bignumber/5.6.0)"
	for _, c := range []struct {
		value    string
		decimals int
		kind     error
		text     string
	}{
		{"abc", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="abc", ` + v},
		{"1.2.3", 18, ErrTooManyDecimalPoints, `too many decimal points (argument="value", value="1.2.3", ` + v},
		{"-1.2.3", 18, ErrTooManyDecimalPoints, `too many decimal points (argument="value", value="1.2.3", ` + v},
		{".", 18, ErrMissingValue, `missing value (argument="value", value=".", ` + v},
		{"-.", 18, ErrMissingValue, `missing value (argument="value", value=".", ` + v},
		{"", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="", ` + v},
		{"1e18", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="1e18", ` + v},
		{"-", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="-", ` + v},
		{" 1", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value=" 1", ` + v},
		{"+1", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="+1", ` + v},
		{"1,5", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="1,5", ` + v},
		{"١", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="١", ` + v},
		{"<1>", 18, ErrInvalidDecimalValue, `invalid decimal value (argument="value", value="<1>", ` + v},
		{"0.0000000000000000001", 18, ErrFractionTooLong, `fractional component exceeds decimals [ See: https://links.ethers.org/v5-errors-NUMERIC_FAULT ] (fault="underflow", operation="parseFixed", code=NUMERIC_FAULT, version=bignumber/5.6.0)`},
		{"1.5", 0, ErrFractionTooLong, `fractional component exceeds decimals [ See: https://links.ethers.org/v5-errors-NUMERIC_FAULT ] (fault="underflow", operation="parseFixed", code=NUMERIC_FAULT, version=bignumber/5.6.0)`},
		{"1", -1, ErrInvalidDecimals, `invalid decimal size (argument="decimals", value=-1, ` + v},
		{"1", 257, ErrInvalidDecimals, `invalid decimal size (argument="decimals", value=257, ` + v},
		{"abc", 257, ErrInvalidDecimals, `invalid decimal size (argument="decimals", value=257, ` + v}, // decimals first
	} {
		n, err := Token(c.value, c.decimals)
		require.Error(t, err, "%q", c.value)
		assert.Nil(t, n)
		assert.ErrorIs(t, err, c.kind, "%q", c.value)
		assert.Equal(t, c.text, err.Error())
		var ue *Error
		assert.True(t, errors.As(err, &ue))
	}
}

func TestFromWeiLikeTheOriginal(t *testing.T) {
	const v = "code=INVALID_ARGUMENT, version=bignumber/5.6.0)"
	for _, c := range []struct {
		wei      string
		decimals int
		want     string
		kind     error
		text     string
	}{
		{wei: "1000000000000000000", decimals: 18, want: "1"},
		{wei: "0", decimals: 18, want: "0"},
		{wei: "-1500000000000000000", decimals: 18, want: "-1.5"},
		{wei: "1", decimals: 18, want: "0.000000000000000001"},
		{wei: "0x10", decimals: 18, want: "0.000000000000000016"},
		{wei: "0X10", decimals: 18, want: "0.000000000000000016"},
		{wei: "-0x10", decimals: 18, want: "-0.000000000000000016"},
		{wei: "1", decimals: 0, want: "1"},
		{wei: "123", decimals: 2, want: "1.23"},
		{wei: "100", decimals: 2, want: "1"},
		{wei: "abc", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="abc", ` + v},
		{wei: "", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="", ` + v},
		{wei: "1.5", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="1.5", ` + v},
		{wei: " 1", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value=" 1", ` + v},
		{wei: "0x", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="0x", ` + v},
		{wei: "-", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="-", ` + v},
		{wei: "1_000", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="1_000", ` + v},
		{wei: "+1", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="+1", ` + v},
		{wei: "--1", decimals: 18, kind: ErrInvalidBigNumberString, text: `invalid BigNumber string (argument="value", value="--1", ` + v},
		{wei: "1", decimals: -1, kind: ErrInvalidDecimals, text: `invalid decimal size (argument="decimals", value=-1, ` + v},
		{wei: "5", decimals: 257, kind: ErrInvalidDecimals, text: `invalid decimal size (argument="decimals", value=257, ` + v},
	} {
		got, err := FromWeiString(c.wei, c.decimals)
		if c.kind != nil {
			assert.ErrorIs(t, err, c.kind, "%q", c.wei)
			if err != nil {
				assert.Equal(t, c.text, err.Error())
			}
			continue
		}
		require.NoError(t, err, "%q", c.wei)
		assert.Equal(t, c.want, got, "%q %d", c.wei, c.decimals)
	}
	_, err := FromWei(nil, 18)
	assert.ErrorIs(t, err, ErrInvalidBigNumberValue)
	assert.EqualError(t, err, `invalid BigNumber value (argument="value", value=undefined, code=INVALID_ARGUMENT, version=bignumber/5.6.0)`)
}

// FuzzRoundTrip: any integer amount, formatted with any decimals, parses back to itself; and any decimal amount
// Token accepts formats back to the same number (its canonical text parses to the same integer).
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1}, false, uint8(18), "1.5")
	f.Add([]byte{0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 0}, true, uint8(6), "-0.000001")
	f.Add([]byte{}, false, uint8(0), "00012.3400")
	f.Fuzz(func(t *testing.T, mag []byte, neg bool, dec uint8, text string) {
		decimals := int(dec) // 0..255, all valid
		wei := new(big.Int).SetBytes(mag)
		if neg {
			wei.Neg(wei)
		}
		s, err := FromWei(wei, decimals)
		if err != nil {
			t.Fatalf("FromWei(%v, %d): %v", wei, decimals, err)
		}
		back, err := Token(s, decimals)
		if err != nil || back.Cmp(wei) != 0 {
			t.Fatalf("Token(FromWei(%v, %d) = %q) = %v, %v", wei, decimals, s, back, err)
		}
		if hex, err := FromWeiString("0x"+wei.Text(16), decimals); wei.Sign() >= 0 && (err != nil || hex != s) {
			t.Fatalf("FromWeiString(0x%s) = %q, %v; want %q", wei.Text(16), hex, err, s)
		}
		n, err := Token(text, decimals)
		if err != nil {
			var ue *Error
			if !errors.As(err, &ue) {
				t.Fatalf("Token(%q) gave an untyped error %v", text, err)
			}
			return
		}
		canon, err := FromWei(n, decimals)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Token(canon, decimals)
		if err != nil || again.Cmp(n) != 0 {
			t.Fatalf("Token(%q) = %v formats as %q, which parses to %v, %v", text, n, canon, again, err)
		}
	})
}
