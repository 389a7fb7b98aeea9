package devnet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// ChainID is the chain id of every simulated chain.
const ChainID = 1337

// DefaultDevBalance is the dev account's genesis balance: 10^9 ether.
var DefaultDevBalance = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(1e18))

// Config configures Start. The zero value gives a chain without HTTP and
// without automatic mining, with a fresh random dev key.
type Config struct {
	// HTTPAddr, if set, serves JSON-RPC (eth, net, web3) over HTTP at this
	// host:port; port 0 picks a free port. The host must be a loopback address.
	HTTPAddr string
	// HTTPCors lists the browser origins allowed to call the HTTP JSON-RPC
	// (e.g. "*" for a local React demo); empty allows none.
	HTTPCors []string
	// AutoMine, if positive, is the polling period: whenever the pool holds
	// pending transactions a block is committed.
	AutoMine time.Duration
	// DevKey is the funded dev account's key; nil generates one.
	DevKey *ecdsa.PrivateKey
	// DevBalance is its genesis balance in wei; nil means DefaultDevBalance.
	DevBalance *big.Int
	// Funded lists more accounts given DevBalance at genesis.
	Funded []common.Address
}

// Chain is a running simulated chain.
type Chain struct {
	Backend *simulated.Backend
	Client  simulated.Client
	DevKey  *ecdsa.PrivateKey
	DevAddr common.Address
	// RPCURL is the HTTP JSON-RPC URL, empty without Config.HTTPAddr.
	RPCURL string

	rpc      *rpc.Client // in-process RPC handle of the simulated node
	commitMu sync.Mutex
	stop     context.CancelFunc
	done     chan struct{}
	closeMu  sync.Mutex
	closed   bool
}

// Start launches a chain. Close it when done.
func Start(cfg Config) (*Chain, error) {
	key := cfg.DevKey
	if key == nil {
		var err error
		if key, err = crypto.GenerateKey(); err != nil {
			return nil, fmt.Errorf("devnet: generate key: %w", err)
		}
	}
	bal := cfg.DevBalance
	if bal == nil {
		bal = DefaultDevBalance
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	alloc := types.GenesisAlloc{addr: {Balance: new(big.Int).Set(bal)}}
	for _, a := range cfg.Funded {
		alloc[a] = types.Account{Balance: new(big.Int).Set(bal)}
	}

	var host string
	var port int
	if cfg.HTTPAddr != "" {
		h, p, err := freeAddr(cfg.HTTPAddr)
		if err != nil {
			return nil, err
		}
		host, port = h, p
	}
	backend := simulated.NewBackend(alloc, func(nc *node.Config, ec *ethconfig.Config) {
		if host != "" {
			nc.HTTPHost = host
			nc.HTTPPort = port
			nc.HTTPModules = []string{"eth", "net", "web3"}
			nc.HTTPVirtualHosts = []string{"localhost", "127.0.0.1"}
			nc.HTTPCors = append([]string(nil), cfg.HTTPCors...)
		}
	})
	c := &Chain{Backend: backend, Client: backend.Client(), DevKey: key, DevAddr: addr, done: make(chan struct{})}
	c.rpc = rpcOf(c.Client)
	if host != "" {
		c.RPCURL = "http://" + net.JoinHostPort(host, strconv.Itoa(port))
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	if cfg.AutoMine > 0 {
		go c.autoMine(ctx, cfg.AutoMine)
	} else {
		close(c.done)
	}
	return c, nil
}

// freeAddr checks that addr is on a loopback host and resolves port 0 to a
// free port.
func freeAddr(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("devnet: bad HTTP address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", 0, fmt.Errorf("devnet: HTTP host %q must be a loopback IP such as 127.0.0.1", host)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("devnet: bad HTTP port %q", p)
	}
	if port == 0 {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return "", 0, fmt.Errorf("devnet: find a free port: %w", err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	return host, port, nil
}

// rpcOf digs the in-process *rpc.Client out of the simulated client, which
// wraps an *ethclient.Client in an unexported struct field named Client.
func rpcOf(cl simulated.Client) *rpc.Client {
	v := reflect.ValueOf(cl)
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("Client"); f.IsValid() && f.CanInterface() {
			if ec, ok := f.Interface().(interface{ Client() *rpc.Client }); ok {
				return ec.Client()
			}
		}
	}
	return nil
}

func (c *Chain) autoMine(ctx context.Context, every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := c.poolPending(ctx); err == nil && n > 0 {
			c.Commit()
		}
	}
}

// poolPending returns the number of executable transactions in the pool
// (txpool_status). eth_getBlockTransactionCountByNumber("pending") is no use
// here: the miner refreshes the pending block only every few seconds.
func (c *Chain) poolPending(ctx context.Context) (uint64, error) {
	if c.rpc == nil { // fall back to the (slowly refreshed) pending block
		n, err := c.Client.PendingTransactionCount(ctx)
		return uint64(n), err
	}
	var status struct {
		Pending hexutil.Uint64 `json:"pending"`
	}
	if err := c.rpc.CallContext(ctx, &status, "txpool_status"); err != nil {
		return 0, err
	}
	return uint64(status.Pending), nil
}

// Commit seals a block with the pending transactions. Safe to call while
// automatic mining runs.
func (c *Chain) Commit() common.Hash {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	return c.Backend.Commit()
}

// Close stops mining and the chain. It is safe to call more than once.
func (c *Chain) Close() error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.stop()
	<-c.done
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	return c.Backend.Close()
}

// SendFromDev signs and sends a transaction from the dev account (to == nil
// creates a contract), commits a block unless automatic mining does, and waits
// for the receipt. A failed transaction is an error.
func (c *Chain) SendFromDev(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	if value == nil {
		value = new(big.Int)
	}
	nonce, err := c.Client.PendingNonceAt(ctx, c.DevAddr)
	if err != nil {
		return nil, err
	}
	head, err := c.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	tip, err := c.Client.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	gas, err := c.Client.EstimateGas(ctx, ethereum.CallMsg{From: c.DevAddr, To: to, Value: value, Data: data})
	if err != nil {
		return nil, fmt.Errorf("devnet: estimate gas: %w", err)
	}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(ChainID), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas, To: to, Value: value, Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(ChainID)), c.DevKey)
	if err != nil {
		return nil, err
	}
	if err := c.Client.SendTransaction(ctx, signed); err != nil {
		return nil, err
	}
	for {
		rcpt, err := c.Client.TransactionReceipt(ctx, signed.Hash())
		if err == nil {
			if rcpt.Status != types.ReceiptStatusSuccessful {
				return rcpt, fmt.Errorf("devnet: transaction %s failed", signed.Hash().Hex())
			}
			// The receipt can be served a moment before its block is the latest one; wait for that, so a read
			// right after sees the transaction.
			for {
				head, err := c.Client.HeaderByNumber(ctx, nil)
				if err != nil {
					return rcpt, err
				}
				if head.Number.Cmp(rcpt.BlockNumber) >= 0 {
					return rcpt, nil
				}
				select {
				case <-ctx.Done():
					return rcpt, ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
			}
		}
		if !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "transaction indexing is in progress") {
			return nil, err
		}
		c.Commit()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
