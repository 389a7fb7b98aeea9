package transfer

import (
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Type is the kind of a transfer.
type Type string

// The four transfer types. The zero Type means Native.
const (
	Native  Type = "native"
	ERC20   Type = "erc20"
	ERC721  Type = "erc721"
	ERC1155 Type = "erc1155"
)

// Params is the input of Client.Transfer. Required fields by type:
//
//	native:  Receiver, Amount
//	erc20:   ContractAddress, Receiver, Amount
//	erc721:  ContractAddress, Receiver, TokenID
//	erc1155: ContractAddress, Receiver, TokenID, Amount
//
// Amounts and token ids are integers in base units (wei, the token's smallest
// unit), written in decimal or as 0x-prefixed hex, from 0 to 2^256-1. Fields
// not used by the type are ignored.
type Params struct {
	Type            Type   // default Native
	Receiver        string // 0x address
	Amount          string // integer, base units
	ContractAddress string // 0x address of the token contract
	TokenID         string // integer token id
}

// Field names as they appear in the "{field} is required" messages.
const (
	FieldReceiver        = "receiver"
	FieldAmount          = "amount"
	FieldContractAddress = "contractAddress"
	FieldTokenID         = "tokenId"
)

// requiredFields lists each type's required fields in message order.
var requiredFields = map[Type][]string{
	Native:  {FieldReceiver, FieldAmount},
	ERC20:   {FieldContractAddress, FieldReceiver, FieldAmount},
	ERC721:  {FieldContractAddress, FieldReceiver, FieldTokenID},
	ERC1155: {FieldContractAddress, FieldReceiver, FieldTokenID, FieldAmount},
}

// validated is Params after validation.
type validated struct {
	typ      Type
	receiver common.Address
	contract common.Address
	amount   *big.Int
	tokenID  *big.Int
}

// Validate checks p without any network call. It returns nil or a
// *ValidationError listing every problem found.
func (p Params) Validate() error {
	_, err := p.validate()
	return err
}

func (p Params) validate() (*validated, error) {
	typ := p.Type
	if typ == "" {
		typ = Native
	}
	fields, ok := requiredFields[typ]
	if !ok {
		return nil, &ValidationError{Problems: []error{ErrUnsupportedType}}
	}
	values := map[string]string{
		FieldReceiver:        p.Receiver,
		FieldAmount:          p.Amount,
		FieldContractAddress: p.ContractAddress,
		FieldTokenID:         p.TokenID,
	}
	v := &validated{typ: typ}
	var problems []error
	for _, f := range fields {
		raw := strings.TrimSpace(values[f])
		if raw == "" {
			problems = append(problems, &RequiredError{Field: f})
			continue
		}
		switch f {
		case FieldReceiver, FieldContractAddress:
			addr, err := parseAddress(f, raw)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			if f == FieldReceiver {
				v.receiver = addr
			} else {
				v.contract = addr
			}
		case FieldAmount:
			n, ok := parseUint256(raw)
			if !ok {
				problems = append(problems, errors.New("amount must be an integer from 0 to 2^256-1"))
				continue
			}
			v.amount = n
		case FieldTokenID:
			n, ok := parseUint256(raw)
			if !ok {
				problems = append(problems, ErrInvalidTokenID)
				continue
			}
			v.tokenID = n
		}
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return v, nil
}

func parseAddress(field, s string) (common.Address, error) {
	if !common.IsHexAddress(s) {
		return common.Address{}, errors.New(field + " is not a valid address")
	}
	return common.HexToAddress(s), nil
}

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// parseUint256 accepts decimal digits or 0x-prefixed hex digits (no sign, no
// underscores) whose value fits in 256 bits.
func parseUint256(s string) (*big.Int, bool) {
	base := 10
	digits := s
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, digits = 16, s[2:]
	}
	if digits == "" {
		return nil, false
	}
	for _, r := range digits {
		ok := r >= '0' && r <= '9'
		if base == 16 {
			ok = ok || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F')
		}
		if !ok {
			return nil, false
		}
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok || n.Cmp(maxUint256) > 0 {
		return nil, false
	}
	return n, true
}
