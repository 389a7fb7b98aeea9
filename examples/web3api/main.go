// Command web3api pages through every ERC-20 (or NFT) transfer of an address with the chain-data API and prints
// one line per transfer on stdout, with a progress line on stderr.
//
//	MORALIS_API_KEY=… go run ./examples/web3api -address 0x… [-chain eth] [-kind erc20|nft] [-limit 100]
//
// Flags override the environment: MORALIS_WEB3API_URL (the API base; default the hosted API) and
// MORALIS_API_KEY. Run `make demo` or web3apiserver for a local stand-in.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/c13f5054/moralis-go/web3api"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("web3api", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("url", envOr("MORALIS_WEB3API_URL", web3api.DefaultBaseURL), "chain-data API base URL (env MORALIS_WEB3API_URL)")
	key := fs.String("key", os.Getenv("MORALIS_API_KEY"), "API key (env MORALIS_API_KEY)")
	address := fs.String("address", "", "wallet address whose transfers to list (required)")
	chain := fs.String("chain", "eth", "chain name or hex id")
	kind := fs.String("kind", "erc20", "transfers to list: erc20 or nft")
	limit := fs.Int("limit", 100, "page size (at least 1)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: web3api -address 0x… [flags]\n\nPages through an address's transfers with the chain-data API.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *address == "" || *key == "" {
		fmt.Fprintln(stderr, "web3api: -address and an API key (-key or MORALIS_API_KEY) are required")
		fs.Usage()
		return 2
	}
	if *limit < 1 {
		fmt.Fprintf(stderr, "web3api: -limit must be at least 1, got %d\n", *limit)
		return 2
	}
	c, err := web3api.New(web3api.Config{APIKey: *key, BaseURL: *base})
	if err != nil {
		fmt.Fprintln(stderr, err) // already "web3api: …"
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	n := 0
	start := time.Now()
	progress := func(final bool) {
		if final || n%*limit == 0 {
			fmt.Fprintf(stderr, "\r%d transfers, %d pages, %s", n, (n+*limit-1) / *limit, time.Since(start).Round(time.Millisecond))
		}
	}
	var iterErr error
	switch *kind {
	case "erc20":
		for t, err := range c.Account.GetTokenTransfersIter(ctx, &web3api.GetTokenTransfersParams{Address: *address, Chain: *chain, Limit: limit}) {
			if err != nil {
				iterErr = err
				break
			}
			n++
			fmt.Fprintf(stdout, "%s\t%s\t%s -> %s\t%s\n", t.BlockNumber, t.Address, t.FromAddress, t.ToAddress, t.Value)
			progress(false)
		}
	case "nft":
		for t, err := range c.Account.GetNFTTransfersIter(ctx, &web3api.GetNFTTransfersParams{Address: *address, Chain: *chain, Limit: limit}) {
			if err != nil {
				iterErr = err
				break
			}
			n++
			fmt.Fprintf(stdout, "%s\t%s #%s\t%s -> %s\t%s\n", t.BlockNumber, t.TokenAddress, t.TokenID, t.FromAddress, t.ToAddress, t.Amount)
			progress(false)
		}
	default:
		fmt.Fprintf(stderr, "web3api: -kind must be erc20 or nft, got %q\n", *kind)
		return 2
	}
	progress(true)
	fmt.Fprintln(stderr)
	if iterErr != nil {
		fmt.Fprintln(stderr, "web3api:", iterErr)
		return 1
	}
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
