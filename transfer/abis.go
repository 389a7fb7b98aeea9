package transfer

import (
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// tokenABIJSON holds only the three transfer functions the package calls:
// ERC-20 transfer, ERC-721 safeTransferFrom(from,to,id) and ERC-1155
// safeTransferFrom(from,to,id,amount,data).
const tokenABIJSON = `[
 {"type":"function","name":"transfer","stateMutability":"nonpayable",
  "inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],
  "outputs":[{"name":"","type":"bool"}]},
 {"type":"function","name":"safeTransferFrom","stateMutability":"nonpayable",
  "inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}],
  "outputs":[]}
]`

const erc1155ABIJSON = `[
 {"type":"function","name":"safeTransferFrom","stateMutability":"nonpayable",
  "inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"id","type":"uint256"},
            {"name":"amount","type":"uint256"},{"name":"data","type":"bytes"}],
  "outputs":[]}
]`

var (
	tokenABI   = mustABI(tokenABIJSON)
	erc1155ABI = mustABI(erc1155ABIJSON)
)

// mustABI parses a constant ABI of this package; a failure is a programming
// error caught by every test run.
func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic("transfer: bad built-in abi: " + err.Error())
	}
	return a
}
