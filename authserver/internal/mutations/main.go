// Command mutations is the mutation check of the endpoint's guards: each entry of the list (list.go) breaks one
// guard of package authserver by an exact text replacement, runs the offline tests that should notice, and
// expects them to FAIL. The mutant is given to the go command as a build overlay (go help build, -overlay): the
// source files are never written, so Ctrl-C, a panic or a crash cannot leave a broken guard behind, and two
// entries run at a time.
//
// Usage, from the module root (make mutations-endpoint):
//
//	go run ./authserver/internal/mutations [id ...]
//
// It prints one line per entry and "mutations: N/M killed", and exits 1 when a mutation survives, when an
// entry's pattern is not found exactly once, or when the mutated package does not build (a build error would
// fail the tests without proving anything).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// mutation breaks one guard: from (found exactly once in file) becomes to; tests (a go test -run pattern of
// offline tests of ./authserver) must then fail.
type mutation struct {
	id, desc string
	file     string // relative to the module root
	from, to string
	tests    string
}

func main() {
	only := os.Args[1:]
	list := mutations
	if len(only) > 0 {
		list = nil
		for _, m := range mutations {
			if slices.Contains(only, m.id) {
				list = append(list, m)
			}
		}
		if len(list) != len(only) {
			fmt.Fprintln(os.Stderr, "mutations: unknown id in", only)
			os.Exit(2)
		}
	}
	tmp, err := os.MkdirTemp("", "mutations-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutations:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(tmp)

	// Two entries at a time: each is its own overlay, so they do not see each other.
	type result struct{ outcome, by string }
	results := make([]result, len(list))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, m := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			o, by := runOne(m, filepath.Join(tmp, fmt.Sprint(i)))
			results[i] = result{o, by}
			fmt.Fprintf(os.Stderr, "  %s: %s\n", m.id, o)
		}()
	}
	wg.Wait()
	killed := 0
	for i, m := range list {
		r := results[i]
		if r.outcome == "killed" {
			killed++
		}
		fmt.Printf("%-8s %-22s %s\n", r.outcome, m.id, m.desc)
		if r.by != "" {
			fmt.Printf("         by: %s\n", r.by)
		}
	}
	fmt.Printf("\nmutations: %d/%d killed\n", killed, len(list))
	if killed != len(list) {
		os.RemoveAll(tmp)
		os.Exit(1)
	}
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// runOne builds m's mutant as a go build overlay in dir (the source tree is never written, so an interrupted
// run leaves nothing to restore), runs its tests, and reports killed, SURVIVED, BROKEN or ERROR.
func runOne(m mutation, dir string) (outcome, by string) {
	path, err := filepath.Abs(filepath.FromSlash(m.file))
	if err != nil {
		return "ERROR", err.Error()
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		return "ERROR", err.Error()
	}
	if n := bytes.Count(orig, []byte(m.from)); n != 1 {
		return "BROKEN", fmt.Sprintf("pattern found %d times in %s", n, m.file)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "ERROR", err.Error()
	}
	mutant := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(mutant, bytes.Replace(orig, []byte(m.from), []byte(m.to), 1), 0o644); err != nil {
		return "ERROR", err.Error()
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{path: mutant}})
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return "ERROR", err.Error()
	}
	out, err := exec.Command("go", "test", "-overlay", overlayFile, "-count=1", "-run", m.tests, "./authserver/").CombinedOutput()
	if err == nil {
		return "SURVIVED", ""
	}
	// The mutant must build (tests and vet included), or its failing tests prove nothing.
	if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
		return "BROKEN", "mutant does not build: " + firstLines(string(out), 3)
	}
	var names []string
	for _, x := range failLine.FindAllStringSubmatch(string(out), -1) {
		if !slices.Contains(names, x[1]) {
			names = append(names, x[1])
		}
	}
	if len(names) == 0 {
		return "ERROR", "no failing test reported: " + firstLines(string(out), 3)
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	return "killed", strings.Join(names, " | ")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}
