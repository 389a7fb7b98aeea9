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
	"runtime"
	"runtime/pprof"
	"time"
)

type result struct {
	MS      float64 `json:"ms"`
	QueryMS float64 `json:"queryMs,omitempty"`
	N       int     `json:"n"`
	Check   int     `json:"check"`
	// Requests is the number of HTTP requests of the timed part, for the workloads that count them.
	Requests int64 `json:"requests,omitempty"`
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
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the workload to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile of the workload to this file")
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
	stop, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	r, err := f(ctx, e)
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

// startProfiles starts a CPU profile and makes every allocation count for the allocation profile; the returned
// function writes them.
func startProfiles(cpu, mem string) (func() error, error) {
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		cpuFile = f
	}
	if mem != "" {
		runtime.MemProfileRate = 1
	}
	return func() error {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				return err
			}
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err != nil {
				return err
			}
			defer f.Close()
			runtime.GC() // the profile shows the allocations up to the last completed collection
			return pprof.Lookup("allocs").WriteTo(f, 0)
		}
		return nil
	}, nil
}

func since(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
