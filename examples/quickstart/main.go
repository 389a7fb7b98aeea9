// Command quickstart walks through moralis-go on a running backend (by default the local stack of `make up`):
// each step prints what it did and how long it took, and the program exits non-zero on the first failure.
//
//	make demo                      # brings the local stack up and runs this
//	go run ./examples/quickstart -h
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/cli"
)

type demo struct {
	c          *client.Client
	user       *client.User
	userClient *client.Client
	progress   io.Writer
	chain      chainConfig
	receiver   string
	rows       int
	class      string
	cfg        *cli.Backend
}

func main() {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	cfg := cli.BackendFlags(fs)
	rows := fs.Int("rows", 3000, "rows to create for the batch and iterator steps")
	var chain chainConfig
	fs.StringVar(&chain.RPCURL, "rpc", os.Getenv("MORALIS_RPC_URL"), "local chain JSON-RPC URL (env MORALIS_RPC_URL); empty skips the chain steps")
	fs.StringVar(&chain.DevKey, "dev-key", os.Getenv("MORALIS_DEV_KEY"), "hex key of the funded dev account (env MORALIS_DEV_KEY)")
	fs.StringVar(&chain.ERC20, "erc20", os.Getenv("MORALIS_ERC20"), "ERC-20 contract on the local chain (env MORALIS_ERC20)")
	fs.StringVar(&chain.Web3APIURL, "web3api-url", os.Getenv("MORALIS_WEB3API_URL"), "chain-data API base URL (env MORALIS_WEB3API_URL)")
	fs.StringVar(&chain.APIKey, "api-key", os.Getenv("MORALIS_API_KEY"), "chain-data API key (env MORALIS_API_KEY)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: quickstart [flags]\n\nWalks through the SDK against a backend (the local stack of `make up`).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			return
		}
		os.Exit(2)
	}
	if err := cfg.Check(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, cfg, chain, *rows, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run walks through every step, printing to out (and progress bars to progress).
func run(ctx context.Context, cfg *cli.Backend, chain chainConfig, rows int, out, progress io.Writer) error {
	c, err := client.New(client.Config{
		ServerURL: cfg.ServerURL, AppID: cfg.AppID, JavaScriptKey: cfg.JavaScriptKey, MasterKey: cfg.MasterKey,
	})
	if err != nil {
		return err
	}
	d := &demo{c: c, rows: rows, class: fmt.Sprintf("DemoScore%d", time.Now().UnixNano()), cfg: cfg, progress: progress, chain: chain}
	steps := allSteps(d)
	s := &cli.Steps{Out: out, Total: len(steps)}
	start := time.Now()
	fmt.Fprintf(out, "moralis-go quickstart against %s (client %s)\n\n", c.ServerURL(), client.Version)
	for _, st := range steps {
		if err := s.Run(ctx, st.name, st.run); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\nall %d steps passed in %v\n", len(steps), time.Since(start).Round(time.Millisecond))
	return nil
}

type step struct {
	name string
	run  func(ctx context.Context) (string, error)
}
