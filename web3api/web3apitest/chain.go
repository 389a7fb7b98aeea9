package web3apitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// Chain is what the server needs from a node: methods of *ethclient.Client, which the simulated backend's
// client also has. Implementations must be safe for concurrent use.
type Chain interface {
	ChainID(ctx context.Context) (*big.Int, error)
	BlockByNumber(ctx context.Context, number *big.Int) (*types.Block, error)
	BlockByHash(ctx context.Context, hash common.Hash) (*types.Block, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	TransactionByHash(ctx context.Context, hash common.Hash) (tx *types.Transaction, isPending bool, err error)
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
}

type chainFunc func(ctx context.Context, c Chain, q *request) (any, error)

// chainBacked lists the endpoints answered from the chain when one is configured.
var chainBacked map[string]chainFunc

func init() {
	chainBacked = map[string]chainFunc{
		"getBlock":                  getBlock,
		"getDateToBlock":            getDateToBlock,
		"getTransaction":            getTransaction,
		"getNativeBalance":          getNativeBalance,
		"getLogsByAddress":          getLogsByAddress,
		"runContractFunction":       runContractFunction,
		"getTokenMetadata":          getTokenMetadata,
		"getTokenAllowance":         getTokenAllowance,
		"getTokenBalances":          getTokenBalances,
		"getTokenTransfers":         getWalletTokenTransfers,
		"getTokenAddressTransfers":  getTokenAddressTransfers,
		"getNFTs":                   getWalletNFTs,
		"getNFTsForContract":        getWalletNFTs,
		"getNFTOwners":              getNFTOwners,
		"getTokenIdOwners":          getNFTOwners,
		"getAllTokenIds":            getNFTOwners,
		"getNFTTransfers":           getWalletNFTTransfers,
		"getContractNFTTransfers":   getContractNFTTransfers,
		"getWalletTokenIdTransfers": getContractNFTTransfers,
		"getTokenIdMetadata":        getTokenIDMetadata,
		"getNFTMetadata":            getNFTContractMetadata,
	}
}

// ChainBackedEndpoints lists the endpoints a Handler with a Chain answers from the chain.
func ChainBackedEndpoints() []string {
	out := make([]string, 0, len(chainBacked))
	for k := range chainBacked {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var (
	transferSig       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	transferSingleSig = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	transferBatchSig  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
)

const tokenABIJSON = `[
{"type":"function","name":"name","inputs":[],"outputs":[{"name":"","type":"string"}],"stateMutability":"view"},
{"type":"function","name":"symbol","inputs":[],"outputs":[{"name":"","type":"string"}],"stateMutability":"view"},
{"type":"function","name":"decimals","inputs":[],"outputs":[{"name":"","type":"uint8"}],"stateMutability":"view"},
{"type":"function","name":"balanceOf","inputs":[{"name":"a","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"allowance","inputs":[{"name":"o","type":"address"},{"name":"s","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"tokenURI","inputs":[{"name":"id","type":"uint256"}],"outputs":[{"name":"","type":"string"}],"stateMutability":"view"},
{"type":"function","name":"uri","inputs":[{"name":"id","type":"uint256"}],"outputs":[{"name":"","type":"string"}],"stateMutability":"view"}
]`

var tokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(tokenABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// ---- value helpers ----

func isoTime(ts uint64) string {
	return time.Unix(int64(ts), 0).UTC().Format("2006-01-02T15:04:05.000Z")
}

// fill makes an answer object of shape spec: values from vals coerced to the declared types, the rest null.
func fill(spec ref.Field, vals map[string]any) map[string]any {
	m := map[string]any{}
	for _, f := range spec.Fields {
		v, ok := vals[f.Name]
		if !ok || v == nil {
			if f.Type == "array" {
				m[f.Name] = []any{}
			} else {
				m[f.Name] = nil
			}
			continue
		}
		m[f.Name] = coerce(f.Type, v)
	}
	return m
}

func coerce(typ string, v any) any {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case *big.Int:
		s = x.String()
	case uint64:
		s = strconv.FormatUint(x, 10)
	case int:
		s = strconv.Itoa(x)
	case uint:
		s = strconv.FormatUint(uint64(x), 10)
	case uint8:
		s = strconv.Itoa(int(x))
	case bool:
		if typ == "boolean" {
			return x
		}
		s = strconv.FormatBool(x)
	default:
		return v
	}
	switch typ {
	case "number", "integer":
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return json.Number(s)
		}
		return nil
	case "string":
		return s
	}
	return v
}

func elemSpec(q *request) ref.Field {
	if f, ok := resultField(q.ep); ok {
		return f
	}
	if q.ep.Response.Type == "array" && q.ep.Response.Elem != nil {
		return *q.ep.Response.Elem
	}
	return q.ep.Response
}

func address(q *request, name string) (common.Address, error) {
	s := q.str(name)
	if !common.IsHexAddress(s) {
		return common.Address{}, badRequest("parameter %s must be an address, got %q", name, s)
	}
	return common.HexToAddress(s), nil
}

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

func optBlock(q *request, name string) (*big.Int, error) {
	s := q.str(name)
	if s == "" {
		return nil, nil
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 {
		return nil, badRequest("parameter %s must be a block number, got %q", name, s)
	}
	return n, nil
}

type headerCache struct {
	c Chain
	m map[uint64]*types.Header
}

func (h *headerCache) get(ctx context.Context, n uint64) (*types.Header, error) {
	if h.m == nil {
		h.m = map[uint64]*types.Header{}
	}
	if hd, ok := h.m[n]; ok {
		return hd, nil
	}
	hd, err := h.c.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return nil, err
	}
	h.m[n] = hd
	return hd, nil
}

// ---- blocks and transactions ----

func signerFor(ctx context.Context, c Chain) (types.Signer, error) {
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	return types.LatestSignerForChainID(id), nil
}

func logValues(l *types.Log, ts uint64) map[string]any {
	v := map[string]any{
		"transaction_hash": l.TxHash.Hex(), "address": lower(l.Address), "block_timestamp": isoTime(ts),
		"block_number": l.BlockNumber, "block_hash": l.BlockHash.Hex(), "data": hexutil.Encode(l.Data),
		"transaction_index": uint64(l.TxIndex), "log_index": uint64(l.Index),
	}
	for i, t := range l.Topics {
		if i < 4 {
			v["topic"+strconv.Itoa(i)] = t.Hex()
		}
	}
	return v
}

func txValues(ctx context.Context, c Chain, signer types.Signer, tx *types.Transaction, rc *types.Receipt, hd *types.Header, logSpec *ref.Field) (map[string]any, error) {
	from, err := types.Sender(signer, tx)
	if err != nil {
		return nil, err
	}
	v := map[string]any{
		"hash": tx.Hash().Hex(), "nonce": tx.Nonce(), "transaction_index": uint64(rc.TransactionIndex),
		"from_address": lower(from), "value": tx.Value(), "gas": tx.Gas(),
		"gas_price": rc.EffectiveGasPrice, "input": hexutil.Encode(tx.Data()),
		"receipt_cumulative_gas_used": rc.CumulativeGasUsed, "receipt_gas_used": rc.GasUsed,
		"receipt_status": rc.Status, "block_timestamp": isoTime(hd.Time), "block_number": rc.BlockNumber,
		"block_hash": rc.BlockHash.Hex(),
	}
	if tx.To() != nil {
		v["to_address"] = lower(*tx.To())
	}
	if rc.ContractAddress != (common.Address{}) {
		v["receipt_contract_address"] = lower(rc.ContractAddress)
	}
	if len(rc.PostState) > 0 {
		v["receipt_root"] = hexutil.Encode(rc.PostState)
	}
	if logSpec != nil {
		logs := []any{}
		for _, l := range rc.Logs {
			logs = append(logs, fill(*logSpec, logValues(l, hd.Time)))
		}
		v["logs"] = logs
	}
	return v, nil
}

func subSpec(spec ref.Field, name string) *ref.Field {
	for _, f := range spec.Fields {
		if f.Name == name {
			if f.Elem != nil {
				return f.Elem
			}
			return &f
		}
	}
	return nil
}

func getBlock(ctx context.Context, c Chain, q *request) (any, error) {
	s := q.str("block_number_or_hash")
	var b *types.Block
	var err error
	if strings.HasPrefix(s, "0x") && len(s) == 66 {
		b, err = c.BlockByHash(ctx, common.HexToHash(s))
	} else {
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, badRequest("block_number_or_hash must be a number or a hash, got %q", s)
		}
		b, err = c.BlockByNumber(ctx, n)
	}
	if err != nil {
		if errors.Is(err, ethereum.NotFound) {
			return nil, notFound("block %s not found", s)
		}
		return nil, err
	}
	spec := q.ep.Response
	hd := b.Header()
	v := map[string]any{
		"timestamp": isoTime(hd.Time), "number": hd.Number, "hash": b.Hash().Hex(), "parent_hash": hd.ParentHash.Hex(),
		"nonce": hexutil.Encode(hd.Nonce[:]), "sha3_uncles": hd.UncleHash.Hex(), "logs_bloom": hexutil.Encode(hd.Bloom[:]),
		"transactions_root": hd.TxHash.Hex(), "state_root": hd.Root.Hex(), "receipts_root": hd.ReceiptHash.Hex(),
		"miner": lower(hd.Coinbase), "difficulty": hd.Difficulty, "size": b.Size(), "extra_data": hexutil.Encode(hd.Extra),
		"gas_limit": hd.GasLimit, "gas_used": hd.GasUsed, "transaction_count": uint64(len(b.Transactions())),
	}
	txSpec := subSpec(spec, "transactions")
	var logSpec *ref.Field
	if txSpec != nil {
		logSpec = subSpec(*txSpec, "logs")
		signer, err := signerFor(ctx, c)
		if err != nil {
			return nil, err
		}
		txs := []any{}
		for _, tx := range b.Transactions() {
			rc, err := c.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				return nil, err
			}
			tv, err := txValues(ctx, c, signer, tx, rc, hd, logSpec)
			if err != nil {
				return nil, err
			}
			txs = append(txs, fill(*txSpec, tv))
		}
		v["transactions"] = txs
	}
	return fill(spec, v), nil
}

func getTransaction(ctx context.Context, c Chain, q *request) (any, error) {
	s := q.str("transaction_hash")
	if !strings.HasPrefix(s, "0x") || len(s) != 66 {
		return nil, badRequest("transaction_hash must be a 32-byte hex hash, got %q", s)
	}
	h := common.HexToHash(s)
	tx, _, err := c.TransactionByHash(ctx, h)
	if err != nil {
		if errors.Is(err, ethereum.NotFound) {
			return nil, notFound("transaction %s not found", s)
		}
		return nil, err
	}
	rc, err := c.TransactionReceipt(ctx, h)
	if err != nil {
		return nil, notFound("transaction %s not mined", s)
	}
	hd, err := c.HeaderByNumber(ctx, rc.BlockNumber)
	if err != nil {
		return nil, err
	}
	signer, err := signerFor(ctx, c)
	if err != nil {
		return nil, err
	}
	spec := q.ep.Response
	v, err := txValues(ctx, c, signer, tx, rc, hd, subSpec(spec, "logs"))
	if err != nil {
		return nil, err
	}
	return fill(spec, v), nil
}

func parseDate(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, badRequest("date %q is neither a unix time nor an ISO date", s)
}

func getDateToBlock(ctx context.Context, c Chain, q *request) (any, error) {
	t, err := parseDate(q.str("date"))
	if err != nil {
		return nil, err
	}
	target := uint64(max(t.Unix(), 0))
	latest, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	hc := &headerCache{c: c}
	lo, hi := uint64(0), latest.Number.Uint64()
	// Find the last block whose timestamp is <= target (block 0 when all are later).
	for lo < hi {
		mid := (lo + hi + 1) / 2
		hd, err := hc.get(ctx, mid)
		if err != nil {
			return nil, err
		}
		if hd.Time <= target {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	hd, err := hc.get(ctx, lo)
	if err != nil {
		return nil, err
	}
	return fill(q.ep.Response, map[string]any{
		"date": isoTime(hd.Time), "block": lo, "timestamp": hd.Time, "block_timestamp": isoTime(hd.Time),
		"hash": hd.Hash().Hex(), "parent_hash": hd.ParentHash.Hex(),
	}), nil
}

func getNativeBalance(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	at, err := optBlock(q, "to_block")
	if err != nil {
		return nil, err
	}
	bal, err := c.BalanceAt(ctx, a, at)
	if err != nil {
		return nil, err
	}
	return fill(q.ep.Response, map[string]any{"balance": bal}), nil
}

func filterQuery(q *request, addrs []common.Address, topics [][]common.Hash) (ethereum.FilterQuery, error) {
	from, err := optBlock(q, "from_block")
	if err != nil {
		return ethereum.FilterQuery{}, err
	}
	to, err := optBlock(q, "to_block")
	if err != nil {
		return ethereum.FilterQuery{}, err
	}
	if bn, err := optBlock(q, "block_number"); err != nil {
		return ethereum.FilterQuery{}, err
	} else if bn != nil {
		from, to = bn, bn
	}
	if from == nil {
		from = big.NewInt(0)
	}
	return ethereum.FilterQuery{FromBlock: from, ToBlock: to, Addresses: addrs, Topics: topics}, nil
}

// newestFirst sorts logs by block then log index, newest first, dropping duplicates.
func newestFirst(logs []types.Log) []types.Log {
	seen := map[string]bool{}
	out := logs[:0:0]
	for _, l := range logs {
		k := l.TxHash.Hex() + strconv.Itoa(int(l.Index))
		if seen[k] || l.Removed {
			continue
		}
		seen[k] = true
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].BlockNumber != out[j].BlockNumber {
			return out[i].BlockNumber > out[j].BlockNumber
		}
		return out[i].Index > out[j].Index
	})
	return out
}

func getLogsByAddress(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	var topics [][]common.Hash
	for i := 0; i < 4; i++ {
		if s := q.str("topic" + strconv.Itoa(i)); s != "" {
			for len(topics) < i {
				topics = append(topics, nil)
			}
			topics = append(topics, []common.Hash{common.HexToHash(s)})
		}
	}
	fq, err := filterQuery(q, []common.Address{a}, topics)
	if err != nil {
		return nil, err
	}
	logs, err := c.FilterLogs(ctx, fq)
	if err != nil {
		return nil, err
	}
	sorted := newestFirst(logs)
	hc := &headerCache{c: c}
	spec := elemSpec(q)
	return paginateLazy(q, len(sorted), func(i int) (any, error) {
		hd, err := hc.get(ctx, sorted[i].BlockNumber)
		if err != nil {
			return nil, err
		}
		return fill(spec, logValues(&sorted[i], hd.Time)), nil
	})
}

// ---- contract calls ----

func call(ctx context.Context, c Chain, a abi.ABI, to common.Address, block *big.Int, method string, args ...any) ([]any, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, block)
	if err != nil {
		return nil, err
	}
	return a.Unpack(method, out)
}

func callString(ctx context.Context, c Chain, to common.Address, method string, args ...any) (string, bool) {
	v, err := call(ctx, c, tokenABI, to, nil, method, args...)
	if err != nil || len(v) != 1 {
		return "", false
	}
	return fmt.Sprint(v[0]), true
}

func runContractFunction(ctx context.Context, c Chain, q *request) (any, error) {
	to, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	body, _ := q.body.(map[string]any)
	abiJSON, err := json.Marshal(body["abi"])
	if err != nil {
		return nil, badRequest("abi: %v", err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(abiJSON)))
	if err != nil {
		return nil, badRequest("abi: %v", err)
	}
	name := q.str("function_name")
	m, ok := parsed.Methods[name]
	if !ok {
		return nil, badRequest("Function does not exist in abi")
	}
	params, _ := body["params"].(map[string]any)
	var args []any
	for i, in := range m.Inputs {
		raw, ok := params[in.Name]
		if !ok {
			return nil, badRequest("missing param %q (input %d of %s)", in.Name, i, name)
		}
		v, err := convertArg(in.Type, raw)
		if err != nil {
			return nil, badRequest("param %q: %v", in.Name, err)
		}
		args = append(args, v)
	}
	block, err := optBlock(q, "to_block")
	if err != nil {
		return nil, err
	}
	out, err := call(ctx, c, parsed, to, block, name, args...)
	if err != nil {
		return nil, badRequest("call %s: %v", name, err)
	}
	res := make([]any, len(out))
	for i, o := range out {
		res[i] = formatOut(o)
	}
	if len(res) == 1 {
		return res[0], nil
	}
	return res, nil
}

func convertArg(t abi.Type, raw any) (any, error) {
	s := fmt.Sprint(raw)
	switch t.T {
	case abi.AddressTy:
		if !common.IsHexAddress(s) {
			return nil, fmt.Errorf("not an address: %q", s)
		}
		return common.HexToAddress(s), nil
	case abi.BoolTy:
		return strconv.ParseBool(s)
	case abi.StringTy:
		return s, nil
	case abi.UintTy, abi.IntTy:
		n, ok := new(big.Int).SetString(s, 0)
		if !ok {
			return nil, fmt.Errorf("not an integer: %q", s)
		}
		gt := t.GetType()
		if gt == reflect.TypeOf(n) {
			return n, nil
		}
		if t.T == abi.UintTy {
			return reflect.ValueOf(n.Uint64()).Convert(gt).Interface(), nil
		}
		return reflect.ValueOf(n.Int64()).Convert(gt).Interface(), nil
	case abi.FixedBytesTy, abi.BytesTy:
		b, err := hexutil.Decode(s)
		if err != nil {
			return nil, err
		}
		if t.T == abi.BytesTy {
			return b, nil
		}
		arr := reflect.New(t.GetType()).Elem()
		reflect.Copy(arr, reflect.ValueOf(b))
		return arr.Interface(), nil
	}
	return nil, fmt.Errorf("type %s is not supported by web3apitest", t.String())
}

func formatOut(o any) any {
	switch x := o.(type) {
	case *big.Int:
		return x.String()
	case common.Address:
		return x.Hex()
	case []byte:
		return hexutil.Encode(x)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	rv := reflect.ValueOf(o)
	switch rv.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return hexutil.Encode(b)
		}
		fallthrough
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = formatOut(rv.Index(i).Interface())
		}
		return out
	}
	return fmt.Sprint(o)
}

// ---- ERC-20 ----

func erc20Meta(ctx context.Context, c Chain, a common.Address) map[string]any {
	v := map[string]any{"address": lower(a), "token_address": lower(a)}
	if s, ok := callString(ctx, c, a, "name"); ok {
		v["name"] = s
	}
	if s, ok := callString(ctx, c, a, "symbol"); ok {
		v["symbol"] = s
	}
	if s, ok := callString(ctx, c, a, "decimals"); ok {
		v["decimals"] = s
	}
	return v
}

func getTokenMetadata(ctx context.Context, c Chain, q *request) (any, error) {
	spec := elemSpec(q)
	out := []any{}
	for _, s := range q.list("addresses") {
		if !common.IsHexAddress(s) {
			return nil, badRequest("addresses: %q is not an address", s)
		}
		out = append(out, fill(spec, erc20Meta(ctx, c, common.HexToAddress(s))))
	}
	return out, nil
}

func getTokenAllowance(ctx context.Context, c Chain, q *request) (any, error) {
	tok, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	owner, err := address(q, "owner_address")
	if err != nil {
		return nil, err
	}
	spender, err := address(q, "spender_address")
	if err != nil {
		return nil, err
	}
	v, err := call(ctx, c, tokenABI, tok, nil, "allowance", owner, spender)
	if err != nil {
		return nil, badRequest("allowance: %v", err)
	}
	return fill(q.ep.Response, map[string]any{"allowance": v[0]}), nil
}

func topicAddr(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }

// transferLogs returns Transfer logs (ERC-20 and ERC-721) plus ERC-1155 TransferSingle/Batch logs, filtered by
// contract and by a wallet on either side, newest first.
func transferLogs(ctx context.Context, c Chain, q *request, contracts []common.Address, wallet *common.Address, sigs []common.Hash) ([]types.Log, error) {
	var queries [][][]common.Hash
	if wallet == nil {
		queries = [][][]common.Hash{{sigs}}
	} else {
		w := topicAddr(*wallet)
		for _, sig := range sigs {
			if sig == transferSig {
				queries = append(queries, [][]common.Hash{{sig}, {w}}, [][]common.Hash{{sig}, nil, {w}})
			} else {
				queries = append(queries, [][]common.Hash{{sig}, nil, {w}}, [][]common.Hash{{sig}, nil, nil, {w}})
			}
		}
	}
	var all []types.Log
	for _, topics := range queries {
		fq, err := filterQuery(q, contracts, topics)
		if err != nil {
			return nil, err
		}
		logs, err := c.FilterLogs(ctx, fq)
		if err != nil {
			return nil, err
		}
		all = append(all, logs...)
	}
	return newestFirst(all), nil
}

func erc20Transfers(ctx context.Context, c Chain, q *request, contracts []common.Address, wallet *common.Address) (any, error) {
	logs, err := transferLogs(ctx, c, q, contracts, wallet, []common.Hash{transferSig})
	if err != nil {
		return nil, err
	}
	var erc20 []types.Log
	for _, l := range logs {
		if len(l.Topics) == 3 && len(l.Data) == 32 {
			erc20 = append(erc20, l)
		}
	}
	hc := &headerCache{c: c}
	spec := elemSpec(q)
	return paginateLazy(q, len(erc20), func(i int) (any, error) {
		l := erc20[i]
		hd, err := hc.get(ctx, l.BlockNumber)
		if err != nil {
			return nil, err
		}
		return fill(spec, map[string]any{
			"transaction_hash": l.TxHash.Hex(), "address": lower(l.Address), "block_timestamp": isoTime(hd.Time),
			"block_number": l.BlockNumber, "block_hash": l.BlockHash.Hex(),
			"from_address": lower(common.BytesToAddress(l.Topics[1].Bytes())),
			"to_address":   lower(common.BytesToAddress(l.Topics[2].Bytes())),
			"value":        new(big.Int).SetBytes(l.Data), "transaction_index": uint64(l.TxIndex), "log_index": uint64(l.Index),
		}), nil
	})
}

func getWalletTokenTransfers(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	return erc20Transfers(ctx, c, q, nil, &a)
}

func getTokenAddressTransfers(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	return erc20Transfers(ctx, c, q, []common.Address{a}, nil)
}

func getTokenBalances(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	block, err := optBlock(q, "to_block")
	if err != nil {
		return nil, err
	}
	var only []common.Address
	for _, s := range q.list("token_addresses") {
		if !common.IsHexAddress(s) {
			return nil, badRequest("token_addresses: %q is not an address", s)
		}
		only = append(only, common.HexToAddress(s))
	}
	logs, err := transferLogs(ctx, c, &request{ep: q.ep, query: map[string][]string{"to_block": q.query["to_block"]}}, only, &a, []common.Hash{transferSig})
	if err != nil {
		return nil, err
	}
	seen := map[common.Address]bool{}
	var tokens []common.Address
	for i := len(logs) - 1; i >= 0; i-- {
		l := logs[i]
		if len(l.Topics) == 3 && len(l.Data) == 32 && !seen[l.Address] {
			seen[l.Address] = true
			tokens = append(tokens, l.Address)
		}
	}
	spec := elemSpec(q)
	out := []any{}
	for _, t := range tokens {
		v, err := call(ctx, c, tokenABI, t, block, "balanceOf", a)
		if err != nil {
			continue
		}
		bal := v[0].(*big.Int)
		if bal.Sign() == 0 {
			continue
		}
		m := erc20Meta(ctx, c, t)
		m["balance"] = bal
		m["possible_spam"] = false
		out = append(out, fill(spec, m))
	}
	return out, nil
}

// ---- NFTs ----

type nftMove struct {
	log      types.Log
	contract common.Address
	kind     string // ERC721 or ERC1155
	operator common.Address
	from, to common.Address
	id, amt  *big.Int
}

func nftMoves(logs []types.Log) []nftMove {
	var out []nftMove
	for _, l := range logs {
		switch {
		case l.Topics[0] == transferSig && len(l.Topics) == 4:
			out = append(out, nftMove{log: l, contract: l.Address, kind: "ERC721",
				from: common.BytesToAddress(l.Topics[1].Bytes()), to: common.BytesToAddress(l.Topics[2].Bytes()),
				id: l.Topics[3].Big(), amt: big.NewInt(1)})
		case l.Topics[0] == transferSingleSig && len(l.Topics) == 4 && len(l.Data) == 64:
			out = append(out, nftMove{log: l, contract: l.Address, kind: "ERC1155",
				operator: common.BytesToAddress(l.Topics[1].Bytes()),
				from:     common.BytesToAddress(l.Topics[2].Bytes()), to: common.BytesToAddress(l.Topics[3].Bytes()),
				id: new(big.Int).SetBytes(l.Data[:32]), amt: new(big.Int).SetBytes(l.Data[32:])})
		case l.Topics[0] == transferBatchSig && len(l.Topics) == 4:
			ids, amts, ok := decodeBatch(l.Data)
			if !ok {
				continue
			}
			for i := range ids {
				out = append(out, nftMove{log: l, contract: l.Address, kind: "ERC1155",
					operator: common.BytesToAddress(l.Topics[1].Bytes()),
					from:     common.BytesToAddress(l.Topics[2].Bytes()), to: common.BytesToAddress(l.Topics[3].Bytes()),
					id: ids[i], amt: amts[i]})
			}
		}
	}
	return out
}

func decodeBatch(data []byte) (ids, amts []*big.Int, ok bool) {
	t, err := abi.NewType("uint256[]", "", nil)
	if err != nil {
		return nil, nil, false
	}
	args := abi.Arguments{{Type: t}, {Type: t}}
	v, err := args.Unpack(data)
	if err != nil || len(v) != 2 {
		return nil, nil, false
	}
	ids, ok1 := v[0].([]*big.Int)
	amts, ok2 := v[1].([]*big.Int)
	return ids, amts, ok1 && ok2 && len(ids) == len(amts)
}

var nftSigs = []common.Hash{transferSig, transferSingleSig, transferBatchSig}

func tokenIDString(q *request, id *big.Int) string {
	if q.str("format") == "hex" {
		return "0x" + id.Text(16)
	}
	return id.String()
}

func nftTransfers(ctx context.Context, c Chain, q *request, contracts []common.Address, wallet *common.Address, tokenID *big.Int) (any, error) {
	logs, err := transferLogs(ctx, c, q, contracts, wallet, nftSigs)
	if err != nil {
		return nil, err
	}
	dir := q.str("direction")
	hc := &headerCache{c: c}
	spec := elemSpec(q)
	items := []any{}
	for _, m := range nftMoves(logs) {
		if tokenID != nil && m.id.Cmp(tokenID) != 0 {
			continue
		}
		if wallet != nil {
			if (dir == "to" && m.to != *wallet) || (dir == "from" && m.from != *wallet) || (m.to != *wallet && m.from != *wallet) {
				continue
			}
		}
		hd, err := hc.get(ctx, m.log.BlockNumber)
		if err != nil {
			return nil, err
		}
		v := map[string]any{
			"token_address": lower(m.contract), "token_id": tokenIDString(q, m.id), "from_address": lower(m.from),
			"to_address": lower(m.to), "value": "0", "amount": m.amt, "contract_type": m.kind,
			"block_number": m.log.BlockNumber, "block_timestamp": isoTime(hd.Time), "block_hash": m.log.BlockHash.Hex(),
			"transaction_hash": m.log.TxHash.Hex(), "transaction_type": "Single", "transaction_index": uint64(m.log.TxIndex),
			"log_index": uint64(m.log.Index),
		}
		if m.kind == "ERC1155" {
			v["operator"] = lower(m.operator)
			if m.log.Topics[0] == transferBatchSig {
				v["transaction_type"] = "Batch"
			}
		}
		items = append(items, fill(spec, v))
	}
	return paginate(q, items)
}

func getWalletNFTTransfers(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	return nftTransfers(ctx, c, q, nil, &a, nil)
}

func getContractNFTTransfers(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	var id *big.Int
	if s := q.str("token_id"); s != "" {
		var ok bool
		if id, ok = new(big.Int).SetString(s, 0); !ok {
			return nil, badRequest("token_id must be an integer, got %q", s)
		}
	}
	return nftTransfers(ctx, c, q, []common.Address{a}, nil, id)
}

type holding struct {
	contract  common.Address
	kind      string
	id        *big.Int
	owner     common.Address
	amount    *big.Int
	lastBlock uint64
	minted    uint64
	minter    common.Address
}

// holdings replays every NFT move oldest first and returns who holds what (amount > 0).
func holdings(ctx context.Context, c Chain, contracts []common.Address) ([]*holding, error) {
	var all []types.Log
	for _, sig := range nftSigs {
		logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: contracts, Topics: [][]common.Hash{{sig}}})
		if err != nil {
			return nil, err
		}
		all = append(all, logs...)
	}
	logs := newestFirst(all)
	moves := nftMoves(logs)
	type key struct {
		c     common.Address
		id    string
		owner common.Address
	}
	h := map[key]*holding{}
	var order []key
	minted := map[string]uint64{}
	minter := map[string]common.Address{}
	for i := len(moves) - 1; i >= 0; i-- {
		m := moves[i]
		idk := m.contract.Hex() + "/" + m.id.String()
		if m.from == (common.Address{}) {
			if _, ok := minted[idk]; !ok {
				minted[idk] = m.log.BlockNumber
				minter[idk] = m.to
			}
		}
		if m.from != (common.Address{}) {
			k := key{m.contract, m.id.String(), m.from}
			if x := h[k]; x != nil {
				x.amount = new(big.Int).Sub(x.amount, m.amt)
				x.lastBlock = m.log.BlockNumber
			}
		}
		if m.to != (common.Address{}) {
			k := key{m.contract, m.id.String(), m.to}
			x := h[k]
			if x == nil {
				x = &holding{contract: m.contract, kind: m.kind, id: m.id, owner: m.to, amount: new(big.Int)}
				h[k] = x
				order = append(order, k)
			}
			x.amount = new(big.Int).Add(x.amount, m.amt)
			x.lastBlock = m.log.BlockNumber
		}
	}
	var out []*holding
	for i := len(order) - 1; i >= 0; i-- {
		x := h[order[i]]
		if x.amount.Sign() > 0 {
			idk := x.contract.Hex() + "/" + x.id.String()
			x.minted, x.minter = minted[idk], minter[idk]
			out = append(out, x)
		}
	}
	return out, nil
}

func tokenURI(ctx context.Context, c Chain, h *holding) (string, bool) {
	if h.kind == "ERC1155" {
		return callString(ctx, c, h.contract, "uri", h.id)
	}
	return callString(ctx, c, h.contract, "tokenURI", h.id)
}

func holdingValues(ctx context.Context, c Chain, q *request, h *holding, names map[common.Address][2]string) map[string]any {
	nm, ok := names[h.contract]
	if !ok {
		nm[0], _ = callString(ctx, c, h.contract, "name")
		nm[1], _ = callString(ctx, c, h.contract, "symbol")
		names[h.contract] = nm
	}
	v := map[string]any{
		"token_address": lower(h.contract), "token_id": tokenIDString(q, h.id), "contract_type": h.kind,
		"owner_of": lower(h.owner), "block_number": h.lastBlock, "block_number_minted": h.minted,
		"amount": h.amount, "minter_address": lower(h.minter),
	}
	if nm[0] != "" {
		v["name"] = nm[0]
	}
	if nm[1] != "" {
		v["symbol"] = nm[1]
	}
	if u, ok := tokenURI(ctx, c, h); ok {
		v["token_uri"] = u
	}
	return v
}

func getWalletNFTs(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	var contracts []common.Address
	for _, s := range append(q.list("token_addresses"), q.str("token_address")) {
		if s == "" {
			continue
		}
		if !common.IsHexAddress(s) {
			return nil, badRequest("%q is not an address", s)
		}
		contracts = append(contracts, common.HexToAddress(s))
	}
	hs, err := holdings(ctx, c, contracts)
	if err != nil {
		return nil, err
	}
	spec := elemSpec(q)
	names := map[common.Address][2]string{}
	items := []any{}
	for _, h := range hs {
		if h.owner == a {
			items = append(items, fill(spec, holdingValues(ctx, c, q, h, names)))
		}
	}
	ans, err := paginate(q, items)
	if err == nil {
		if _, ok := ans["status"]; ok {
			ans["status"] = "SYNCED"
		}
	}
	return ans, err
}

func getNFTOwners(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	var id *big.Int
	if s := q.str("token_id"); s != "" {
		var ok bool
		if id, ok = new(big.Int).SetString(s, 0); !ok {
			return nil, badRequest("token_id must be an integer, got %q", s)
		}
	}
	hs, err := holdings(ctx, c, []common.Address{a})
	if err != nil {
		return nil, err
	}
	spec := elemSpec(q)
	names := map[common.Address][2]string{}
	items := []any{}
	for _, h := range hs {
		if id == nil || h.id.Cmp(id) == 0 {
			items = append(items, fill(spec, holdingValues(ctx, c, q, h, names)))
		}
	}
	ans, err := paginate(q, items)
	if err == nil {
		if _, ok := ans["status"]; ok {
			ans["status"] = "SYNCED"
		}
	}
	return ans, err
}

func getTokenIDMetadata(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	id, ok := new(big.Int).SetString(q.str("token_id"), 0)
	if !ok {
		return nil, badRequest("token_id must be an integer, got %q", q.str("token_id"))
	}
	hs, err := holdings(ctx, c, []common.Address{a})
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		if h.id.Cmp(id) == 0 {
			return fill(q.ep.Response, holdingValues(ctx, c, q, h, map[common.Address][2]string{})), nil
		}
	}
	return nil, notFound("No metadata found! Try again later")
}

func getNFTContractMetadata(ctx context.Context, c Chain, q *request) (any, error) {
	a, err := address(q, "address")
	if err != nil {
		return nil, err
	}
	hs, err := holdings(ctx, c, []common.Address{a})
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, notFound("No metadata found! Try again later")
	}
	v := map[string]any{"token_address": lower(a), "contract_type": hs[0].kind}
	if s, ok := callString(ctx, c, a, "name"); ok {
		v["name"] = s
	}
	if s, ok := callString(ctx, c, a, "symbol"); ok {
		v["symbol"] = s
	}
	return fill(q.ep.Response, v), nil
}
