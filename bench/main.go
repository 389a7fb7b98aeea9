// Command bench runs the side-by-side benchmarks of `make bench`: each workload for each contender (our Go SDK,
// the original JavaScript client moralis-v1 in Node, and raw HTTP by hand), each at its default settings and then
// tuned, several rounds after a warm-up, the contenders interleaved in a new random order each round. Every run is
// its own process, so the peak memory (max RSS) is that run's alone. It prints a markdown table and the ratios
// (ours / raw, moralis-v1 / ours) with their targets, writes JSON under bench/results/, and a complete full-size
// run appends its ratios to bench/results/history.json and redraws BENCHMARKS-history.svg.
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
	"io"
	"math/rand/v2"
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

// contender is one side of a comparison: a worker contender ("go", "raw", "go:b50", ...) or moralis-v1 ("js", or
// "js:b1000" for its batchSize option).
type contender struct {
	Key   string
	Label string
	// Tuned marks a setting other than the contender's default; such rows are reported after the defaults and
	// only ever compared with tuned rows of the other side.
	Tuned bool
}

type workload struct {
	Name       string
	Title      string
	N          int
	SmallN     int
	Class      string
	Contenders []contender
	// ServerBound workloads talk to parse-server; their runs also record the CPU time parse-server spent.
	ServerBound bool
	// Fresh workloads write into Class, which is dropped before the workload, so every run of make bench
	// starts from an empty table (the table of earlier runs would otherwise grow by ~300,000 rows each time).
	Fresh bool
}

var (
	ours = contender{"go", "moralis-go", false}
	raw  = contender{"raw", "raw HTTP", false}
	v1   = contender{"js", "moralis-v1 (Node)", false}
)

var all = []workload{
	{Name: "creates", Title: "sequential object creates", N: 1000, SmallN: 20, Class: "BenchWrite", ServerBound: true, Fresh: true,
		Contenders: []contender{ours, {"raw", "raw HTTP (no object id, no request id)", false}, v1}},
	{Name: "saveall", Title: "saving objects in one call", N: 10000, SmallN: 100, Class: "BenchWrite", ServerBound: true, Fresh: true,
		Contenders: []contender{
			{"go", "moralis-go SaveAll (chunks of 20, 4 in flight)", false},
			{"raw", "raw HTTP /batch of 20, 4 in flight", false},
			{"js", "moralis-v1 saveAll (chunks of 20, one at a time)", false},
			{"go:b50", "moralis-go SaveAll, BatchSize 50", true},
			{"raw:b50", "raw HTTP /batch of 50, 4 in flight", true},
			{"js:b50", "moralis-v1 saveAll, batchSize 50", true},
		}},
	{Name: "updates-set", Title: "SaveAll of existing objects, a Set on each (issue 30)", N: 2000, SmallN: 40, Class: "BenchUpd", ServerBound: true, Fresh: true,
		Contenders: updateContenders},
	{Name: "updates-inc", Title: "SaveAll of existing objects, an Increment on each (issue 30)", N: 2000, SmallN: 40, Class: "BenchUpd", ServerBound: true, Fresh: true,
		Contenders: updateContenders},
	{Name: "iterate", Title: "iterating every row of a class", N: 100000, SmallN: 300, Class: "BenchIter", ServerBound: true,
		Contenders: []contender{
			{"go", "moralis-go All (pages of 100, then 1,000)", false},
			{"raw", "raw HTTP keyset pages of 1,000, next page prefetched", false},
			{"js", "moralis-v1 each (pages of 100)", false},
			{"go:b100", "moralis-go Batches (the spec's pages of 100)", true},
			{"go:b1000", "moralis-go Batches, pages of 1,000", true},
			{"js:b1000", "moralis-v1 each, batchSize 1000", true},
		}},
	{Name: "verify-eth", Title: "EIP-191 signature verifications", N: 2000, SmallN: 50, Contenders: []contender{ours, {"js", "ethers verifyMessage (Node)", false}}},
	{Name: "verify-sol", Title: "ed25519 signature verifications", N: 2000, SmallN: 50, Contenders: []contender{ours, {"js", "tweetnacl (Node)", false}}},
	{Name: "signin", Title: "wallet sign-ins from the client (message, sign, login, save the user)", N: 200, SmallN: 5, ServerBound: true,
		Contenders: []contender{{"go", "moralis-go auth.SignInEthereum", false}, {"raw", "raw HTTP, the same three calls", false}, {"js", "moralis-v1 authenticate's calls", false}}},
	{Name: "signin-endpoint", Title: "wallet sign-ins through the Go endpoint", N: 300, SmallN: 10, ServerBound: true, Contenders: []contender{ours}},
	{Name: "lds", Title: "pinning objects in the local store, then local queries", N: 100000, SmallN: 200, Class: "BenchPin", Contenders: []contender{ours, v1}},
	{Name: "web3-paging", Title: "paging chain-data items from web3apitest", N: 10000, SmallN: 100, Contenders: []contender{ours, raw}},
}

// updateContenders are the sides of the updates workloads, each at its defaults.
var updateContenders = []contender{
	{"go", "moralis-go SaveAll (updates in /batch of 20, 4 in flight)", false},
	{"raw", "raw HTTP /batch of 20 PUTs, 4 in flight", false},
	{"js", "moralis-v1 saveAll (chunks of 20, one at a time)", false},
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
	// Requests is the number of HTTP requests of the timed part (the updates workloads count them).
	Requests int64 `json:"requests,omitempty"`
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
	history := flag.String("history", "bench/results/history.json", "history of the ratios; a complete full-size run appends to it")
	chart := flag.String("chart", "BENCHMARKS-history.svg", "the history drawn as an SVG chart (rewritten when the history grows)")
	chartOnly := flag.Bool("chart-only", false, "only redraw the chart from the history, run nothing")
	flag.Parse()
	var err error
	if *chartOnly {
		err = redraw(*history, *chart)
	} else {
		err = mainErr(*scale, *rounds, *only, *outDir, *history, *chart)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func mainErr(scale string, rounds int, only, outDir, historyPath, chartPath string) error {
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
	load := loadAverage()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	began := time.Now().UTC()
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
			order := shuffled(w.Contenders, rng)
			for _, c := range order {
				if _, skip := res.Skipped[c.Key]; skip {
					continue
				}
				rr, err := runOne(root, worker, baseEnv, w, c.Key, n)
				if err != nil && !errors.Is(err, errUnavailable) {
					// The stack is shared: another checkout's up.sh may restart parse-server under a run.
					fmt.Fprintf(os.Stderr, "bench: %s/%s failed (%v); running it once more\n", w.Name, c.Key, err)
					time.Sleep(5 * time.Second)
					rr, err = runOne(root, worker, baseEnv, w, c.Key, n)
				}
				if errors.Is(err, errUnavailable) {
					res.Skipped[c.Key] = err.Error()
					continue
				}
				if err != nil {
					return fmt.Errorf("%s/%s: %w", w.Name, c.Key, err)
				}
				if r > 0 { // round 0 is the warm-up
					res.Runs[c.Key] = append(res.Runs[c.Key], rr)
				}
			}
		}
		results = append(results, res)
	}
	ratios := computeRatios(results)
	report(os.Stdout, results, ratios, rounds, load)
	if err := writeJSON(outDir, results, ratios, load); err != nil {
		return err
	}
	if scale == "full" && len(want) == 0 && rounds >= 3 {
		entry := historyEntry{Time: began, Rounds: rounds, Cores: runtime.NumCPU(), Go: runtime.Version(), Load: load, Ratios: map[string]float64{}}
		for _, r := range ratios {
			entry.Ratios[r.Key] = round3(r.Value)
		}
		if err := appendHistory(historyPath, entry); err != nil {
			return err
		}
		return redraw(historyPath, chartPath)
	}
	return nil
}

var errUnavailable = errors.New("not available")

func runOne(root, worker string, env []string, w workload, contender string, n int) (run, error) {
	var cmd *exec.Cmd
	if contender == "js" || strings.HasPrefix(contender, "js:b") {
		batch := strings.TrimPrefix(strings.TrimPrefix(contender, "js"), ":b")
		cmd = exec.Command("node", filepath.Join(root, "bench", "js", "run.js"), w.Name, fmt.Sprint(n), w.Class, batch)
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
	// The PID file's first line is the PID (up.sh writes more lines after it).
	pid, _, _ := strings.Cut(strings.TrimSpace(string(pidText)), "\n")
	stat, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(pid), "stat"))
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

// shuffled is s in a random order. Each round runs the contenders in a new order: with a fixed rotation every
// contender would always follow the same one, and inherit its effect on the server (a Node client leaves
// parse-server more garbage to collect than a Go one, a bulk write leaves the table bigger).
func shuffled(s []contender, rng *rand.Rand) []contender {
	out := append([]contender(nil), s...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
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

func report(w io.Writer, results []outcome, ratios []ratioResult, rounds int, load string) {
	fmt.Fprintf(w, "\n## moralis-go benchmarks\n\n%s, %d cores (load average at the start: %s), %s; median of %d runs after a warm-up (range in brackets), the contenders interleaved in a new random order each round; peak memory is the run's max RSS.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), load, runtime.Version(), rounds)
	fmt.Fprintln(w, "| workload | n | contender | setting | wall time ms | peak MB | parse-server CPU ms | requests |")
	fmt.Fprintln(w, "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: |")
	for _, res := range results {
		wl := workloadNamed(res.Workload)
		// Every contender at its default first, then the tuned rows.
		for _, tuned := range []bool{false, true} {
			for _, c := range wl.Contenders {
				if c.Tuned != tuned {
					continue
				}
				setting := "default"
				if c.Tuned {
					setting = "tuned"
				}
				rs, ok := res.Runs[c.Key]
				if !ok {
					if why, skipped := res.Skipped[c.Key]; skipped {
						fmt.Fprintf(w, "| %s | %d | %s | %s | n/a: %s | | | |\n", res.Workload, res.N, c.Label, setting, why)
					}
					continue
				}
				t, m := stats(times(rs)), stats(mems(rs))
				cpu := ""
				if sc := stats(serverCPUs(rs)); sc.Max > 0 {
					cpu = fmt.Sprintf("%.0f", sc.Median)
				}
				reqs := ""
				if rq := stats(requestCounts(rs)); rq.Max > 0 {
					reqs = fmt.Sprintf("%.0f", rq.Median)
				}
				fmt.Fprintf(w, "| %s | %d | %s | %s | %.1f [%.1f-%.1f] | %.1f | %s | %s |\n", res.Workload, res.N, c.Label, setting, t.Median, t.Min, t.Max, m.Median, cpu, reqs)
				if res.Workload == "lds" {
					q := stats(queryTimes(rs))
					fmt.Fprintf(w, "| lds: one local query | %d | %s | %s | %.2f [%.2f-%.2f] | | | |\n", res.N, c.Label, setting, q.Median, q.Min, q.Max)
				}
			}
		}
	}
	fmt.Fprintln(w, "\nparse-server CPU is the median CPU time the server process used during a run (workloads that reach it).")
	fmt.Fprintln(w, "\n| ratio | this run | per round | target |")
	fmt.Fprintln(w, "| --- | ---: | --- | --- |")
	for _, r := range ratios {
		verdict := ""
		if r.Target != "" {
			verdict = r.Target
			if r.Met() {
				verdict += ": met"
			} else {
				verdict += ": **missed**"
			}
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f-%.2f | %s |\n", r.Label, r.Value, r.Min, r.Max, verdict)
	}
	fmt.Fprintln(w, "\nA ratio divides two medians of this run; \"per round\" is the range of the same ratio within each round (the two runs back to back).")
}

func workloadNamed(name string) workload {
	for _, w := range all {
		if w.Name == name {
			return w
		}
	}
	return workload{}
}

func times(rs []run) []float64 {
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

func requestCounts(rs []run) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = float64(r.Requests)
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

func writeJSON(dir string, results []outcome, ratios []ratioResult, load string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(map[string]any{"time": time.Now().UTC(), "cores": runtime.NumCPU(), "go": runtime.Version(), "load": load,
		"results": results, "ratios": ratios}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "latest.json"), b, 0o644)
}
