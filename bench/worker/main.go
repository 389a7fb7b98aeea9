// Command worker runs one workload for one contender (our Go SDK, or raw net/http) against the local stack and
// prints {"ms":..., "n":..., "check":...} on stdout. The bench driver (go run ./bench) starts it once per run,
// so each run's peak memory is its own process's.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

type result struct {
	MS      float64 `json:"ms"`
	QueryMS float64 `json:"queryMs,omitempty"`
	N       int     `json:"n"`
	Check   int     `json:"check"`
}

type env struct {
	server, appID, jsKey, master string
	class                        string
	n                            int
	fixture                      string
	web3URL, web3Key             string
}

var workloads = map[string]map[string]func(context.Context, env) (result, error){}

func register(workload, contender string, f func(context.Context, env) (result, error)) {
	if workloads[workload] == nil {
		workloads[workload] = map[string]func(context.Context, env) (result, error){}
	}
	workloads[workload][contender] = f
}

func main() {
	contender := flag.String("contender", "go", "go or raw")
	workload := flag.String("workload", "", "workload name")
	n := flag.Int("n", 100, "size")
	class := flag.String("class", "", "class name")
	flag.Parse()
	f := workloads[*workload][*contender]
	if f == nil {
		fmt.Fprintf(os.Stderr, "worker: no workload %q for contender %q\n", *workload, *contender)
		os.Exit(3)
	}
	e := env{server: os.Getenv("MORALIS_SERVER_URL"), appID: os.Getenv("MORALIS_APP_ID"), jsKey: os.Getenv("MORALIS_JS_KEY"),
		master: os.Getenv("MORALIS_MASTER_KEY"), class: *class, n: *n, fixture: os.Getenv("BENCH_FIXTURE"),
		web3URL: os.Getenv("BENCH_WEB3_URL"), web3Key: os.Getenv("BENCH_WEB3_KEY")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r, err := f(ctx, e)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

func since(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
