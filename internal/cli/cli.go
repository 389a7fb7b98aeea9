// Package cli holds what the example programs share: configuration from flags and MORALIS_* variables, numbered
// steps that print how long they took, and a progress bar for long work.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Backend is the backend configuration every example accepts.
type Backend struct {
	ServerURL, AppID, JavaScriptKey, MasterKey string
}

// BackendFlags registers -server, -app-id, -js-key and -master-key on fs, defaulting to MORALIS_SERVER_URL,
// MORALIS_APP_ID, MORALIS_JS_KEY and MORALIS_MASTER_KEY.
func BackendFlags(fs *flag.FlagSet) *Backend {
	b := &Backend{}
	fs.StringVar(&b.ServerURL, "server", os.Getenv("MORALIS_SERVER_URL"), "backend server URL (env MORALIS_SERVER_URL)")
	fs.StringVar(&b.AppID, "app-id", os.Getenv("MORALIS_APP_ID"), "application id (env MORALIS_APP_ID)")
	fs.StringVar(&b.JavaScriptKey, "js-key", os.Getenv("MORALIS_JS_KEY"), "JavaScript key (env MORALIS_JS_KEY)")
	fs.StringVar(&b.MasterKey, "master-key", os.Getenv("MORALIS_MASTER_KEY"), "master key, for jobs and schemas (env MORALIS_MASTER_KEY)")
	return b
}

// Check reports what is missing.
func (b *Backend) Check() error {
	var missing []string
	if b.ServerURL == "" {
		missing = append(missing, "-server (MORALIS_SERVER_URL)")
	}
	if b.AppID == "" {
		missing = append(missing, "-app-id (MORALIS_APP_ID)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s; run `make up` and `source .devstack/env`, or pass the flags", strings.Join(missing, " and "))
	}
	return nil
}

// Steps prints numbered steps with their duration.
type Steps struct {
	Out   io.Writer
	Total int
	n     int
}

// Run runs one step; its result line is printed after it. An error stops nothing by itself: the caller decides.
func (s *Steps) Run(ctx context.Context, name string, f func(ctx context.Context) (string, error)) error {
	s.n++
	fmt.Fprintf(s.Out, "[%2d/%d] %s\n", s.n, s.Total, name)
	start := time.Now()
	msg, err := f(ctx)
	d := time.Since(start).Round(time.Millisecond)
	if err != nil {
		fmt.Fprintf(s.Out, "       FAILED after %v: %v\n", d, err)
		return fmt.Errorf("%s: %w", name, err)
	}
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(s.Out, "       %s\n", line)
		}
	}
	fmt.Fprintf(s.Out, "       ok (%v)\n", d)
	return nil
}

// Progress draws a one-line progress bar on a terminal-like writer (stderr). Safe for concurrent Add calls.
type Progress struct {
	mu    sync.Mutex
	out   io.Writer
	label string
	total int
	done  int
	start time.Time
	last  time.Time
}

// NewProgress starts a bar for total units.
func NewProgress(out io.Writer, label string, total int) *Progress {
	p := &Progress{out: out, label: label, total: total, start: time.Now()}
	p.draw(true)
	return p
}

// Add records n more units done.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.draw(false)
}

// Done finishes the bar with a newline.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(true)
	fmt.Fprintln(p.out)
}

func (p *Progress) draw(force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < 100*time.Millisecond && p.done < p.total {
		return
	}
	p.last = now
	const width = 30
	frac := 0.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	fill := int(frac * width)
	if fill > width {
		fill = width
	}
	rate := float64(p.done) / max(now.Sub(p.start).Seconds(), 1e-9)
	fmt.Fprintf(p.out, "\r       %s [%s%s] %d/%d (%.0f/s)", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.done, p.total, rate)
}
