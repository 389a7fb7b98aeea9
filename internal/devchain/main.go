package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/internal/devchain/devnet"
)

// File names inside the state directory.
const (
	EnvFile = "chain.env"
	PIDFile = "devchain.pid"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run starts the chain, writes the state files and blocks until ctx is done.
// It returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("devchain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8545", "host:port of the JSON-RPC HTTP server (loopback only; port 0 picks a free port)")
	state := fs.String("state", ".devchain", "directory for chain.env and devchain.pid")
	deploy := fs.Bool("deploy", true, "deploy the ERC-20/721/1155 presets and mint tokens to the dev account")
	every := fs.Duration("automine", 50*time.Millisecond, "how often to check the pool and mine pending transactions")
	cors := fs.String("cors", "*", "comma-separated browser origins allowed to call the RPC (empty: none)")
	keyHex := fs.String("key", os.Getenv("MORALIS_DEV_KEY"), "hex private key of the dev account (default $MORALIS_DEV_KEY, else random)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: devchain [flags]\n\nRuns a local EVM dev chain (chain id %d) and writes DIR/%s.\n\n", devnet.ChainID, EnvFile)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *every <= 0 {
		fmt.Fprintln(stderr, "devchain: -automine must be positive")
		return 2
	}
	cfg := devnet.Config{HTTPAddr: *addr, AutoMine: *every}
	for _, o := range strings.Split(*cors, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.HTTPCors = append(cfg.HTTPCors, o)
		}
	}
	if *keyHex != "" {
		k, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(*keyHex), "0x"))
		if err != nil {
			fmt.Fprintln(stderr, "devchain: invalid -key (want 64 hex digits)")
			return 2
		}
		cfg.DevKey = k
	}
	if err := os.MkdirAll(*state, 0o755); err != nil {
		fmt.Fprintln(stderr, "devchain:", err)
		return 1
	}
	pidPath := filepath.Join(*state, PIDFile)
	envPath := filepath.Join(*state, EnvFile)
	_ = os.Remove(envPath) // never leave a stale env file for readers to find
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fmt.Fprintln(stderr, "devchain:", err)
		return 1
	}
	defer os.Remove(pidPath)

	chain, err := devnet.Start(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "devchain:", err)
		return 1
	}
	defer chain.Close()

	lines := []string{
		"MORALIS_RPC_URL=" + chain.RPCURL,
		"MORALIS_CHAIN_ID=" + strconv.Itoa(devnet.ChainID),
		"MORALIS_DEV_KEY=0x" + hex.EncodeToString(crypto.FromECDSA(chain.DevKey)),
		"MORALIS_DEV_ADDRESS=" + chain.DevAddr.Hex(),
	}
	if *deploy {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		p, err := chain.DeployPresets(dctx)
		cancel()
		if err != nil {
			fmt.Fprintln(stderr, "devchain:", err)
			return 1
		}
		lines = append(lines, "MORALIS_ERC20="+p.ERC20.Hex(), "MORALIS_ERC721="+p.ERC721.Hex(), "MORALIS_ERC1155="+p.ERC1155.Hex())
	}
	if err := writeFileAtomic(envPath, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
		fmt.Fprintln(stderr, "devchain:", err)
		return 1
	}
	defer os.Remove(envPath)
	fmt.Fprintf(stdout, "devchain: chain %d at %s, dev account %s; wrote %s\n", devnet.ChainID, chain.RPCURL, chain.DevAddr.Hex(), envPath)

	<-ctx.Done()
	fmt.Fprintln(stdout, "devchain: stopping")
	return 0
}

// writeFileAtomic writes to a temporary file and renames it, so a reader
// polling for path never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
