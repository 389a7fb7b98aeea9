package contracts

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

//go:embed artifacts/*.json
var files embed.FS

// Names of the embedded artifacts.
const (
	// ERC20 is ERC20PresetMinterPauser: constructor(name, symbol); the deployer
	// may mint(to, amount).
	ERC20 = "ERC20PresetMinterPauser"
	// ERC721 is ERC721PresetMinterPauserAutoId: constructor(name, symbol,
	// baseTokenURI); the deployer may mint(to), token ids count up from 0.
	ERC721 = "ERC721PresetMinterPauserAutoId"
	// ERC1155 is ERC1155PresetMinterPauser: constructor(uri); the deployer may
	// mint(to, id, amount, data).
	ERC1155 = "ERC1155PresetMinterPauser"
)

// Artifact is one contract's ABI and creation bytecode.
type Artifact struct {
	ContractName string          `json:"contractName"`
	Source       string          `json:"source"`
	RawABI       json.RawMessage `json:"abi"`
	Bytecode     string          `json:"bytecode"`

	// ABI is RawABI parsed.
	ABI abi.ABI `json:"-"`
}

// Load reads the embedded artifact with the given name (one of ERC20, ERC721,
// ERC1155) and parses its ABI.
func Load(name string) (*Artifact, error) {
	b, err := files.ReadFile("artifacts/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("contracts: no artifact %q", name)
	}
	var a Artifact
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("contracts: %s: %w", name, err)
	}
	if a.ABI, err = abi.JSON(strings.NewReader(string(a.RawABI))); err != nil {
		return nil, fmt.Errorf("contracts: %s abi: %w", name, err)
	}
	return &a, nil
}

// DeployData returns the creation bytecode followed by the ABI-encoded
// constructor arguments: the data field of a contract-creation transaction.
func (a *Artifact) DeployData(args ...any) ([]byte, error) {
	code := common.FromHex(a.Bytecode)
	if len(code) == 0 {
		return nil, fmt.Errorf("contracts: %s has no bytecode", a.ContractName)
	}
	packed, err := a.ABI.Pack("", args...)
	if err != nil {
		return nil, fmt.Errorf("contracts: %s constructor: %w", a.ContractName, err)
	}
	return append(code, packed...), nil
}
