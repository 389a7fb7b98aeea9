package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/transfer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("transfer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rpcURL := fs.String("rpc", os.Getenv("MORALIS_RPC_URL"), "node JSON-RPC URL (default $MORALIS_RPC_URL)")
	chain := fs.String("chain", firstEnv("MORALIS_CHAIN"), "chain name or id (eth, 0x89, bsc testnet, ...) for the hosted node when -rpc is empty; checked against the node otherwise")
	nodeKey := fs.String("node-key", os.Getenv("MORALIS_SPEEDY_NODE_KEY"), "hosted node key (default $MORALIS_SPEEDY_NODE_KEY)")
	keyHex := fs.String("key", firstEnv("MORALIS_PRIVATE_KEY", "MORALIS_DEV_KEY"), "hex private key (default $MORALIS_PRIVATE_KEY, else $MORALIS_DEV_KEY)")
	keyFile := fs.String("keyfile", "", "keystore (V3 JSON) file; used instead of -key")
	password := fs.String("password", os.Getenv("MORALIS_KEYSTORE_PASSWORD"), "keystore password (default $MORALIS_KEYSTORE_PASSWORD)")
	typ := fs.String("type", "native", "native, erc20, erc721 or erc1155")
	to := fs.String("to", "", "receiver address")
	amount := fs.String("amount", "", "amount in base units (wei / token units); decimal or 0x hex")
	contract := fs.String("contract", "", "token contract address")
	tokenID := fs.String("token-id", "", "token id (erc721, erc1155)")
	all := fs.Bool("all", false, "send one transfer of each kind to -to, contracts from $MORALIS_ERC20, $MORALIS_ERC721, $MORALIS_ERC1155")
	dryRun := fs.Bool("dry-run", false, "sign but do not send")
	wait := fs.Bool("wait", true, "wait for the receipt")
	timeout := fs.Duration("timeout", 2*time.Minute, "overall time limit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: transfer [flags]\n\nSends a transfer and prints the transaction and receipt as JSON.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "transfer:", err)
		return code
	}

	var params []transfer.Params
	if *all {
		params = []transfer.Params{
			{Type: transfer.Native, Receiver: *to, Amount: orDefault(*amount, "1000000000000000")},
			{Type: transfer.ERC20, ContractAddress: os.Getenv("MORALIS_ERC20"), Receiver: *to, Amount: orDefault(*amount, "1000")},
			{Type: transfer.ERC721, ContractAddress: os.Getenv("MORALIS_ERC721"), Receiver: *to, TokenID: orDefault(*tokenID, "0")},
			{Type: transfer.ERC1155, ContractAddress: os.Getenv("MORALIS_ERC1155"), Receiver: *to, TokenID: orDefault(*tokenID, "1"), Amount: orDefault(*amount, "1")},
		}
	} else {
		params = []transfer.Params{{Type: transfer.Type(*typ), Receiver: *to, Amount: *amount, ContractAddress: *contract, TokenID: *tokenID}}
	}
	// Validate everything before touching the network or the key.
	for _, p := range params {
		if err := p.Validate(); err != nil {
			return fail(2, fmt.Errorf("%s: %w", p.Type, err))
		}
	}

	var key *signer.Key
	switch {
	case *keyFile != "":
		var err error
		if key, err = signer.NewKeyFromKeystoreFile(*keyFile, *password); err != nil {
			return fail(2, err)
		}
	case *keyHex != "":
		var err error
		if key, err = signer.NewKeyFromHex(*keyHex); err != nil {
			return fail(2, err)
		}
	default:
		return fail(2, transfer.ErrSenderNotFound)
	}

	url := strings.TrimSpace(*rpcURL)
	if url == "" {
		if *chain == "" {
			return fail(2, errors.New("give -rpc (or $MORALIS_RPC_URL), or -chain with -node-key"))
		}
		var err error
		if url, err = transfer.NodeURL(*chain, *nodeKey, ""); err != nil {
			return fail(2, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	ec, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return fail(1, err)
	}
	defer ec.Close()

	cfg := transfer.Config{Signer: key, ReceiptPollInterval: 200 * time.Millisecond}
	if *chain != "" {
		id, err := transfer.ResolveChainID(*chain)
		if err != nil {
			return fail(2, err)
		}
		cfg.ChainID = new(big.Int).SetUint64(id)
	}
	c, err := transfer.New(ec, cfg)
	if err != nil {
		return fail(2, err)
	}
	fmt.Fprintf(stdout, "# from %s\n", key.Address().Hex())
	for _, p := range params {
		res, err := c.Transfer(ctx, p, &transfer.TxOptions{Wait: *wait, DryRun: *dryRun})
		if res != nil {
			printJSON(stdout, fmt.Sprintf("%s transaction (sent=%v)", p.Type, res.Sent), res.Tx)
			if res.Receipt != nil {
				printJSON(stdout, string(p.Type)+" receipt", res.Receipt)
			}
		}
		if err != nil {
			return fail(1, fmt.Errorf("%s: %w", p.Type, err))
		}
	}
	return 0
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func printJSON(w io.Writer, title string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(w, "# %s: %v\n", title, err)
		return
	}
	fmt.Fprintf(w, "# %s\n%s\n", title, b)
}
