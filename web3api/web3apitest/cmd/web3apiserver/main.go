// Command web3apiserver serves the web3apitest fake chain-data API as a process, for demos and for the backend's
// cloud functions in the local stack.
//
//	web3apiserver -addr 127.0.0.1:8090 -key devkey -rpc http://127.0.0.1:8545
//
// Without -rpc every endpoint answers realistic example bodies; with it the chain-backed endpoints answer from
// that node. Request mismatches are logged to stderr and answered with 400.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/c13f5054/moralis-go/web3api/web3apitest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	rpc := flag.String("rpc", "", "Ethereum JSON-RPC URL to answer chain-backed endpoints from (optional)")
	key := flag.String("key", web3apitest.DefaultAPIKey, `API key to require in x-api-key ("" accepts any)`)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: web3apiserver [flags]\n\nServes a fake chain-data API (Web3 API v2) checked against the reference.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*addr, *rpc, *key); err != nil {
		fmt.Fprintln(os.Stderr, "web3apiserver:", err)
		os.Exit(1)
	}
}

func run(addr, rpc, key string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := []web3apitest.Option{web3apitest.WithAPIKey(key)}
	if rpc != "" {
		ec, err := ethclient.DialContext(ctx, rpc)
		if err != nil {
			return fmt.Errorf("dial %s: %w", rpc, err)
		}
		defer ec.Close()
		opts = append(opts, web3apitest.WithChain(ec))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: web3apitest.NewHandler(opts...), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("web3apiserver listening on http://%s (chain: %v)", ln.Addr(), rpc != "")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
