package units_test

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/c13f5054/moralis-go/units"
)

// Ether to wei and back, exactly (moralis-v1: Moralis.Units.ETH and Moralis.Units.FromWei).
func ExampleETH() {
	wei, err := units.ETH("0.1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(wei)
	s, _ := units.FromWei(wei, units.DefaultDecimals)
	fmt.Println(s)
	// Output:
	// 100000000000000000
	// 0.1
}

// A token with 6 decimals (USDC, say): an amount in base units, and one too fine for the token.
func ExampleToken() {
	n, _ := units.Token("12.25", 6)
	fmt.Println(n)
	_, err := units.Token("0.0000001", 6)
	fmt.Println(errors.Is(err, units.ErrFractionTooLong))
	// Output:
	// 12250000
	// true
}

// A balance as the chain-data API sends it (a decimal string of wei), shown in ether.
func ExampleFromWeiString() {
	s, _ := units.FromWeiString("1234500000000000000", 18)
	fmt.Println(s)
	_, err := units.FromWeiString("1.5", 18)
	fmt.Println(err)
	// Output:
	// 1.2345
	// invalid BigNumber string (argument="value", value="1.5", code=INVALID_ARGUMENT, version=bignumber/5.6.0)
}

// FromWei of a *big.Int, negative amounts included.
func ExampleFromWei() {
	s, _ := units.FromWei(big.NewInt(-1500), 3)
	fmt.Println(s)
	// Output: -1.5
}
