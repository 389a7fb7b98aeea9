// Command bench runs the side-by-side benchmarks of `make bench`: each workload for each contender (our Go SDK,
// the original JavaScript client moralis-v1 in Node, and raw HTTP by hand), several rounds after a warm-up, the
// contenders interleaved in a rotating order. Every run is its own process, so the peak memory (max RSS) is that
// run's alone. It prints a markdown table and writes JSON under bench/results/.
//
//	go run ./bench                 # full sizes (needs `make up`)
//	go run ./bench -scale small    # what `make test` runs to check the harness still works
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
)

type workload struct {
	Name       string
	Title      string
	N          int
	SmallN     int
	Class      string
	Contenders []string
	Seed       int // rows the class must hold before the runs (iterate)
	// ServerBound workloads talk to parse-server; their runs also record the CPU time parse-server spent.
	ServerBound bool
	// Fresh workloads write into Class, which is dropped before the workload, so every run of make bench
	// starts from an empty table (the table of earlier runs would otherwise grow by ~300,000 rows each time).
	Fresh bool
}

var all = []workload{
	{Name: "creates", Title: "sequential object creates", N: 1000, SmallN: 20, Class: "BenchWrite", Contenders: []string{"go", "raw", "js"}, ServerBound: true, Fresh: true},
	{Name: "saveall", Title: "saving objects in one call", N: 10000, SmallN: 100, Class: "BenchWrite", Contenders: []string{"go", "go50", "raw", "raw20", "js"}, ServerBound: true, Fresh: true},
	{Name: "iterate", Title: "iterating every row of a class", N: 100000, SmallN: 300, Class: "BenchIter", Contenders: []string{"go", "raw", "js"}, ServerBound: true},
	{Name: "verify-eth", Title: "EIP-191 signature verifications", N: 2000, SmallN: 50, Contenders: []string{"go", "js"}},
	{Name: "verify-sol", Title: "ed25519 signature verifications", N: 2000, SmallN: 50, Contenders: []string{"go", "js"}},
	{Name: "signin", Title: "wallet sign-ins through the Go endpoint", N: 1000, SmallN: 10, Contenders: []string{"go"}, ServerBound: true},
	{Name: "lds", Title: "pinning objects in the local store, then local queries", N: 100000, SmallN: 200, Class: "BenchPin", Contenders: []string{"go", "js"}},
	{Name: "web3-paging", Title: "paging chain-data items from web3apitest", N: 10000, SmallN: 100, Contenders: []string{"go", "raw"}},
}

type run struct {
	MS      float64 `json:"ms"`
	QueryMS float64 `json:"queryMs,omitempty"`
	N       int     `json:"n"`
	Check   int     `json:"check"`
	RSSKB   int64   `json:"rssKB"`
	// ServerCPUMS is the CPU time (user + system) parse-server's process spent during the run: where the
	// time goes when the server, not the client, is the limit.
	ServerCPUMS float64 `json:"serverCpuMs,omitempty"`
}

type stat struct {
	Median, Min, Max float64
}

type outcome struct {
	Workload string            `json:"workload"`
	Title    string            `json:"title"`
	N        int               `json:"n"`
	Runs     map[string][]run  `json:"runs"`
	Skipped  map[string]string `json:"skipped,omitempty"`
}

func main() {
	scale := flag.String("scale", "full", "full or small")
	rounds := flag.Int("rounds", 5, "measured rounds per contender (after one warm-up)")
	only := flag.String("only", "", "comma-separated workloads to run (default all)")
	outDir := flag.String("out", "bench/results", "folder for the JSON results")
	flag.Parse()
	if err := mainErr(*scale, *rounds, *only, *outDir); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func mainErr(scale string, rounds int, only, outDir string) error {
	env, err := devstack.Load()
	if err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	state := filepath.Join(root, ".devstack", "bench")
	if err := os.MkdirAll(state, 0o755); err != nil {
		return err
	}
	worker := filepath.Join(state, "worker")
	fmt.Fprintln(os.Stderr, "bench: building the Go worker")
	if out, err := exec.Command("go", "build", "-o", worker, "./bench/worker").CombinedOutput(); err != nil {
		return fmt.Errorf("building the worker: %v\n%s", err, out)
	}
	jsModules, err := installJS(root, state)
	if err != nil {
		return err
	}
	fixture := filepath.Join(state, "fixture.json")
	if out, err := exec.Command(worker, "-workload", "fixture", "-contender", "go", "-n", "200", "-class", fixture).CombinedOutput(); err != nil {
		return fmt.Errorf("making the signature fixture: %v\n%s", err, out)
	}
	baseEnv := append(os.Environ(),
		"MORALIS_SERVER_URL="+env.ServerURL, "MORALIS_APP_ID="+env.AppID, "MORALIS_JS_KEY="+env.JavaScriptKey,
		"MORALIS_MASTER_KEY="+env.MasterKey, "BENCH_FIXTURE="+fixture, "NODE_PATH="+jsModules)
	want := map[string]bool{}
	for _, w := range strings.Split(only, ",") {
		if w != "" {
			want[w] = true
		}
	}
	var results []outcome
	for _, w := range all {
		if len(want) > 0 && !want[w.Name] {
			continue
		}
		n := w.N
		if scale == "small" {
			n = w.SmallN
		}
		if w.Name == "iterate" {
			if err := seed(worker, baseEnv, w.Class, n); err != nil {
				return err
			}
		}
		if w.Fresh {
			if err := dropClass(env, w.Class); err != nil {
				return err
			}
		}
		res := outcome{Workload: w.Name, Title: w.Title, N: n, Runs: map[string][]run{}, Skipped: map[string]string{}}
		fmt.Fprintf(os.Stderr, "bench: %s (n=%d)\n", w.Name, n)
		for r := 0; r <= rounds; r++ {
			order := rotate(w.Contenders, r)
			for _, c := range order {
				if _, skip := res.Skipped[c]; skip {
					continue
				}
				rr, err := runOne(root, worker, baseEnv, w, c, n)
				if errors.Is(err, errUnavailable) {
					res.Skipped[c] = err.Error()
					continue
				}
				if err != nil {
					return fmt.Errorf("%s/%s: %w", w.Name, c, err)
				}
				if r > 0 { // round 0 is the warm-up
					res.Runs[c] = append(res.Runs[c], rr)
				}
			}
		}
		results = append(results, res)
	}
	report(os.Stdout, results, rounds)
	return writeJSON(outDir, results)
}

var errUnavailable = errors.New("not available")

func runOne(root, worker string, env []string, w workload, contender string, n int) (run, error) {
	var cmd *exec.Cmd
	if contender == "js" {
		cmd = exec.Command("node", filepath.Join(root, "bench", "js", "run.js"), w.Name, fmt.Sprint(n), w.Class)
	} else {
		cmd = exec.Command(worker, "-contender", contender, "-workload", w.Name, "-n", fmt.Sprint(n), "-class", w.Class)
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var cpu0 float64
	var cpuErr error
	if w.ServerBound {
		cpu0, cpuErr = serverCPU(root)
	}
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		return run{}, fmt.Errorf("%w: %s", errUnavailable, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return run{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r run
	if err := json.Unmarshal(bytes.TrimSpace(lastLine(stdout.Bytes())), &r); err != nil {
		return run{}, fmt.Errorf("unreadable result %q: %v", stdout.String(), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.RSSKB = ru.Maxrss
	}
	if w.ServerBound && cpuErr == nil {
		cpu1, err := serverCPU(root)
		if err != nil {
			return run{}, err
		}
		r.ServerCPUMS = cpu1 - cpu0
	}
	if w.Name != "iterate" && r.Check != n && w.Name != "lds" {
		return run{}, fmt.Errorf("check failed: %d of %d", r.Check, n)
	}
	if w.Name == "iterate" && r.Check < n {
		return run{}, fmt.Errorf("iterated %d rows, want at least %d", r.Check, n)
	}
	return r, nil
}

// serverCPU is the CPU time in milliseconds that parse-server instance 1 (the one the contenders talk to) has used
// so far, from /proc/<pid>/stat (utime + stime, in clock ticks of 1/100 s, Linux's USER_HZ).
func serverCPU(root string) (float64, error) {
	pidText, err := os.ReadFile(filepath.Join(root, devstack.StateDirName, "server.pid"))
	if err != nil {
		return 0, fmt.Errorf("parse-server CPU: %w", err)
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(pidText)), "stat"))
	if err != nil {
		return 0, fmt.Errorf("parse-server CPU: %w", err)
	}
	// Fields after the command name (which is in parentheses and may hold spaces): state is field 3,
	// utime field 14, stime field 15.
	rest := string(stat)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("parse-server CPU: unreadable /proc stat %q", stat)
	}
	var utime, stime float64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0, fmt.Errorf("parse-server CPU: utime %q: %w", f[11], err)
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0, fmt.Errorf("parse-server CPU: stime %q: %w", f[12], err)
	}
	return (utime + stime) * 10, nil
}

func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// dropClass empties and drops a class (master key), so the next writes start from an empty table.
func dropClass(env devstack.Env, class string) error {
	c, err := client.New(client.Config{ServerURL: env.ServerURL, AppID: env.AppID, JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.Schemas.Purge(ctx, class); err != nil {
		return fmt.Errorf("emptying %s: %w", class, err)
	}
	if err := c.Schemas.Delete(ctx, class); err != nil {
		return fmt.Errorf("dropping %s: %w", class, err)
	}
	return nil
}

func seed(worker string, env []string, class string, n int) error {
	cmd := exec.Command(worker, "-contender", "raw", "-workload", "seed", "-n", fmt.Sprint(n), "-class", class)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("seeding %s: %v\n%s", class, err, out)
	}
	return nil
}

func rotate(s []string, k int) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[(i+k)%len(s)]
	}
	return out
}

func installJS(root, state string) (string, error) {
	dir := filepath.Join(state, "js")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(root, "bench", "js", "package-lock.json"))
	if err != nil {
		return "", err
	}
	stamp := filepath.Join(dir, ".installed")
	if old, _ := os.ReadFile(stamp); !bytes.Equal(old, lock) {
		fmt.Fprintln(os.Stderr, "bench: npm ci of moralis-v1 into", dir)
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join(root, "bench", "js", f))
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				return "", err
			}
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm ci for the JavaScript contender: %v\n%s", err, out)
		}
		if err := os.WriteFile(stamp, lock, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "node_modules"), nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the repository")
		}
		dir = parent
	}
}

func stats(v []float64) stat {
	if len(v) == 0 {
		return stat{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{Median: m, Min: s[0], Max: s[len(s)-1]}
}

func report(w *os.File, results []outcome, rounds int) {
	fmt.Fprintf(w, "\n## moralis-go benchmarks\n\n%s, %d cores, %s; median of %d runs after a warm-up (range in brackets); peak memory is the run's max RSS.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), runtime.Version(), rounds)
	fmt.Fprintln(w, "| workload | n | contender | wall time ms | peak MB | vs ours (time) | vs ours (memory) | parse-server CPU ms |")
	fmt.Fprintln(w, "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
	names := map[string]string{"go": "moralis-go", "go50": "moralis-go, BatchSize 50", "raw": "raw HTTP", "raw20": "raw HTTP, /batch of 20", "js": "moralis-v1 (Node)"}
	for _, res := range results {
		ours := res.Runs["go"]
		oursT := stats(times(ours, res.Workload)).Median
		oursM := stats(mems(ours)).Median
		for _, c := range []string{"go", "go50", "raw", "raw20", "js"} {
			rs, ok := res.Runs[c]
			if !ok {
				if why, skipped := res.Skipped[c]; skipped {
					fmt.Fprintf(w, "| %s | %d | %s | n/a | | | %s | |\n", res.Workload, res.N, names[c], why)
				}
				continue
			}
			t, m := stats(times(rs, res.Workload)), stats(mems(rs))
			ratioT, ratioM := "", ""
			if c != "go" && oursT > 0 {
				ratioT = fmt.Sprintf("%.2fx", t.Median/oursT)
				ratioM = fmt.Sprintf("%.2fx", m.Median/oursM)
			}
			cpu := ""
			if sc := stats(serverCPUs(rs)); sc.Max > 0 {
				cpu = fmt.Sprintf("%.0f", sc.Median)
			}
			fmt.Fprintf(w, "| %s | %d | %s | %.1f [%.1f-%.1f] | %.1f | %s | %s | %s |\n", res.Workload, res.N, names[c], t.Median, t.Min, t.Max, m.Median, ratioT, ratioM, cpu)
			if res.Workload == "lds" {
				q := stats(queryTimes(rs))
				qo := stats(queryTimes(ours)).Median
				r := ""
				if c != "go" && qo > 0 {
					r = fmt.Sprintf("%.1fx", q.Median/qo)
				}
				fmt.Fprintf(w, "| lds: one local query | %d | %s | %.2f [%.2f-%.2f] | | %s | | |\n", res.N, names[c], q.Median, q.Min, q.Max, r)
			}
		}
	}
	fmt.Fprintln(w, "\nThe ratio columns divide each contender's median by ours: above 1 means moralis-go is faster or smaller.")
	fmt.Fprintln(w, "parse-server CPU is the median CPU time the server process used during a run (workloads that reach it).")
}

func times(rs []run, workload string) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.MS
	}
	return out
}

func queryTimes(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.QueryMS
	}
	return out
}

func serverCPUs(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.ServerCPUMS
	}
	return out
}

func mems(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = float64(r.RSSKB) / 1024
	}
	return out
}

func writeJSON(dir string, results []outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(map[string]any{"time": time.Now().UTC(), "cores": runtime.NumCPU(), "go": runtime.Version(), "results": results}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "latest.json"), b, 0o644)
}
