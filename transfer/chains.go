package transfer

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// NodeURLTemplate is the hosted ("speedy node") endpoint template. {key} is the
// node key and {path} the chain's NodePath.
const NodeURLTemplate = "https://speedy-nodes-nyc.moralis.io/{key}/{path}"

// nodePaths maps each chain id that has a hosted node endpoint to its path in
// NodeURLTemplate.
var nodePaths = map[uint64]string{
	1:     "eth/mainnet",
	3:     "eth/ropsten",
	4:     "eth/rinkeby",
	5:     "eth/goerli",
	42:    "eth/kovan",
	137:   "polygon/mainnet",
	80001: "polygon/mumbai",
	56:    "bsc/mainnet",
	97:    "bsc/testnet",
	43114: "avalanche/mainnet",
	43113: "avalanche/testnet",
	250:   "fantom/mainnet",
}

// chainNames maps the chain names the product accepts (lower case) to chain ids.
var chainNames = map[string]uint64{
	"eth": 1, "mainnet": 1, "ethereum": 1,
	"ropsten": 3, "rinkeby": 4, "goerli": 5, "kovan": 42,
	"polygon": 137, "matic": 137,
	"mumbai": 80001, "polygon testnet": 80001, "matic testnet": 80001,
	"bsc": 56, "binance": 56, "binance smart chain": 56,
	"bsc testnet": 97, "binance testnet": 97, "binance smart chain testnet": 97,
	"avalanche": 43114, "avalanche testnet": 43113,
	"fantom":        250,
	"localdevchain": 1337, "dev": 1337,
}

// ResolveChainID turns a chain given as a name ("eth", "polygon", "bsc
// testnet"), a hex id ("0x1"), a decimal id ("137"), an integer or a *big.Int
// into a chain id. Names are case-insensitive. Any positive id is accepted,
// hosted or not.
func ResolveChainID(chain any) (uint64, error) {
	switch c := chain.(type) {
	case string:
		s := strings.ToLower(strings.Join(strings.Fields(c), " "))
		if id, ok := chainNames[s]; ok {
			return id, nil
		}
		var (
			id  uint64
			err error
		)
		if strings.HasPrefix(s, "0x") {
			id, err = strconv.ParseUint(s[2:], 16, 64)
		} else {
			id, err = strconv.ParseUint(s, 10, 64)
		}
		if err != nil || id == 0 {
			return 0, fmt.Errorf("transfer: unknown chain %q", c)
		}
		return id, nil
	case *big.Int:
		if c == nil || c.Sign() <= 0 || !c.IsUint64() {
			return 0, fmt.Errorf("transfer: invalid chain id %v", c)
		}
		return c.Uint64(), nil
	case int:
		if c > 0 {
			return uint64(c), nil
		}
	case int64:
		if c > 0 {
			return uint64(c), nil
		}
	case uint64:
		if c > 0 {
			return c, nil
		}
	case uint:
		if c > 0 {
			return uint64(c), nil
		}
	}
	return 0, fmt.Errorf("transfer: invalid chain %v", chain)
}

// NodePath returns the path of a chain's hosted node endpoint in NodeURLTemplate
// (e.g. "polygon/mainnet" for 137), and false for a chain without one.
func NodePath(chainID uint64) (string, bool) {
	p, ok := nodePaths[chainID]
	return p, ok
}

// HostedChainIDs returns the ids of the chains that have a hosted node
// endpoint, in ascending order (a new slice each time).
func HostedChainIDs() []uint64 {
	ids := make([]uint64, 0, len(nodePaths))
	for id := range nodePaths {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// NodeURL returns the node endpoint for chain (anything ResolveChainID
// accepts). A non-empty customURL wins for any chain. Otherwise the chain must
// have a NodePath and nodeKey non-empty, and the result is NodeURLTemplate
// filled in. Errors never contain the key.
func NodeURL(chain any, nodeKey, customURL string) (string, error) {
	if u := strings.TrimSpace(customURL); u != "" {
		return u, nil
	}
	id, err := ResolveChainID(chain)
	if err != nil {
		return "", err
	}
	path, ok := nodePaths[id]
	if !ok {
		return "", fmt.Errorf("transfer: no hosted node for chain %d; give a node URL", id)
	}
	if strings.TrimSpace(nodeKey) == "" {
		return "", fmt.Errorf("transfer: a node key is required for the hosted node of chain %d", id)
	}
	r := strings.NewReplacer("{key}", strings.TrimSpace(nodeKey), "{path}", path)
	return r.Replace(NodeURLTemplate), nil
}
