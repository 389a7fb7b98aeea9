package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ratio compares two contenders of one workload: the median of Num divided by the median of Den. Both are at
// their defaults, or both tuned; a ratio never compares a tuned row with a default one.
type ratio struct {
	Key      string // stable name in the history
	Label    string
	Short    string // the chart's legend
	Workload string
	Num, Den string // contender keys
	// Of is what is compared: "time" (wall time), "memory" (peak RSS) or "query" (one local query).
	Of string
	// Target, when set, is "<= x" or ">= x".
	Target string
	// Side puts the ratio in the chart's panel: "raw" (ours / raw HTTP) or "v1" (moralis-v1 / ours).
	Side string
}

var ratios = []ratio{
	{"creates ours/raw", "creates: ours / raw", "creates 1,000", "creates", "go", "raw", "time", "<= 1.05", "raw"},
	{"creates v1/ours", "creates: moralis-v1 / ours", "creates 1,000", "creates", "js", "go", "time", "", "v1"},
	{"saveall ours/raw", "SaveAll 10k, chunks of 20: ours / raw /batch of 20", "SaveAll 10k, chunks of 20", "saveall", "go", "raw", "time", "<= 1.1", "raw"},
	{"saveall v1/ours", "SaveAll 10k, chunks of 20: moralis-v1 / ours", "SaveAll 10k, chunks of 20", "saveall", "js", "go", "time", ">= 2.0", "v1"},
	{"saveall50 ours/raw", "SaveAll 10k, chunks of 50 (tuned): ours / raw /batch of 50", "SaveAll 10k, chunks of 50 (tuned)", "saveall", "go:b50", "raw:b50", "time", "", "raw"},
	{"saveall50 v1/ours", "SaveAll 10k, chunks of 50 (tuned): moralis-v1 batchSize 50 / ours BatchSize 50", "SaveAll 10k, chunks of 50 (tuned)", "saveall", "js:b50", "go:b50", "time", ">= 2.5", "v1"},
	{"saveall memory v1/ours", "SaveAll 10k peak memory: moralis-v1 / ours", "SaveAll 10k, peak memory", "saveall", "js", "go", "memory", "", "v1"},
	{"updates-set ours/raw", "SaveAll 2,000 updates (Set): ours / raw /batch of 20", "updates (Set) 2,000", "updates-set", "go", "raw", "time", "", "raw"},
	{"updates-set v1/ours", "SaveAll 2,000 updates (Set): moralis-v1 / ours", "updates (Set) 2,000", "updates-set", "js", "go", "time", ">= 1.0", "v1"},
	{"updates-inc ours/raw", "SaveAll 2,000 updates (Increment): ours / raw /batch of 20", "updates (Increment) 2,000", "updates-inc", "go", "raw", "time", "", "raw"},
	{"updates-inc v1/ours", "SaveAll 2,000 updates (Increment): moralis-v1 / ours", "updates (Increment) 2,000", "updates-inc", "js", "go", "time", ">= 1.0", "v1"},
	{"iterate ours/raw", "iterate 100k: ours All / raw keyset 1,000 with prefetch", "iterate 100k, All", "iterate", "go", "raw", "time", "<= 1.1", "raw"},
	{"iterate v1/ours", "iterate 100k: moralis-v1 each / ours All", "iterate 100k, each / All", "iterate", "js", "go", "time", ">= 3", "v1"},
	{"iterate memory v1/ours", "iterate 100k peak memory: moralis-v1 each / ours All", "iterate 100k, peak memory", "iterate", "js", "go", "memory", ">= 4", "v1"},
	{"iterate100 v1/ours", "iterate 100k, pages of 100 on both sides: moralis-v1 each / ours Batches", "iterate 100k, pages of 100", "iterate", "js", "go:b100", "time", "", "v1"},
	{"iterate1000 v1/ours", "iterate 100k, pages of 1,000 on both sides (tuned): moralis-v1 / ours Batches", "iterate 100k, pages of 1,000 (tuned)", "iterate", "js:b1000", "go:b1000", "time", "", "v1"},
	{"signin ours/raw", "sign-in: ours / raw", "sign-in", "signin", "go", "raw", "time", "", "raw"},
	{"signin v1/ours", "sign-in: moralis-v1 / ours", "sign-in", "signin", "js", "go", "time", "", "v1"},
	{"verify-eth v1/ours", "EIP-191 verification: ethers / ours", "EIP-191 verify (ethers)", "verify-eth", "js", "go", "time", ">= 30", "v1"},
	{"verify-sol v1/ours", "ed25519 verification: tweetnacl / ours", "ed25519 verify (tweetnacl)", "verify-sol", "js", "go", "time", "", "v1"},
	{"lds query v1/ours", "local query: moralis-v1 / ours", "local query", "lds", "js", "go", "query", ">= 20", "v1"},
	{"lds memory v1/ours", "local store peak memory: moralis-v1 / ours", "local store, peak memory", "lds", "js", "go", "memory", ">= 4", "v1"},
	{"web3 ours/raw", "chain-data paging: ours / raw", "chain-data paging", "web3-paging", "go", "raw", "time", "", "raw"},
}

// ratioResult is a ratio measured in one run: Value divides the medians, Min and Max bound the same ratio taken
// round by round (the two runs of a round are back to back, so load that comes and goes hits both).
type ratioResult struct {
	ratio
	Value    float64 `json:"value"`
	Min, Max float64
}

// Met reports whether the ratio reaches its target (true when it has none).
func (r ratioResult) Met() bool {
	var x float64
	switch {
	case strings.HasPrefix(r.Target, "<="):
		fmt.Sscan(strings.TrimSpace(r.Target[2:]), &x)
		return r.Value <= x
	case strings.HasPrefix(r.Target, ">="):
		fmt.Sscan(strings.TrimSpace(r.Target[2:]), &x)
		return r.Value >= x
	}
	return true
}

func metric(r run, of string) float64 {
	switch of {
	case "memory":
		return float64(r.RSSKB)
	case "query":
		return r.QueryMS
	}
	return r.MS
}

func computeRatios(results []outcome) []ratioResult {
	var out []ratioResult
	for _, rt := range ratios {
		for _, res := range results {
			if res.Workload != rt.Workload {
				continue
			}
			num, den := res.Runs[rt.Num], res.Runs[rt.Den]
			if len(num) == 0 || len(den) == 0 {
				continue
			}
			var nv, dv []float64
			rr := ratioResult{ratio: rt, Min: math.Inf(1), Max: math.Inf(-1)}
			for i := range min(len(num), len(den)) {
				a, b := metric(num[i], rt.Of), metric(den[i], rt.Of)
				nv, dv = append(nv, a), append(dv, b)
				if b > 0 {
					rr.Min, rr.Max = math.Min(rr.Min, a/b), math.Max(rr.Max, a/b)
				}
			}
			if d := stats(dv).Median; d > 0 {
				rr.Value = stats(nv).Median / d
				out = append(out, rr)
			}
		}
	}
	return out
}

// historyEntry is one complete full-size run's ratios (bench/results/history.json, committed).
type historyEntry struct {
	Time   time.Time          `json:"time"`
	Rounds int                `json:"rounds"`
	Cores  int                `json:"cores"`
	Go     string             `json:"go"`
	Load   string             `json:"load,omitempty"`
	Note   string             `json:"note,omitempty"`
	Ratios map[string]float64 `json:"ratios"`
}

func readHistory(path string) ([]historyEntry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var h []historyEntry
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

func appendHistory(path string, e historyEntry) error {
	h, err := readHistory(path)
	if err != nil {
		return err
	}
	h = append(h, e)
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// loadAverage is the 1, 5 and 15 minute load averages (Linux), so a run on a busy machine says so.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
