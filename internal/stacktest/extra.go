package stacktest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/modroot"
)

// ExtraOptions are the settings of an extra parse-server instance (internal/devstack/extra.sh). The zero value is
// an instance like the stack's own (parse-server 9, the stack's database, every package feature on).
type ExtraOptions struct {
	// Line is the parse-server line ("5", "6", "7", "8"; internal/devstack/lines); "" is the stack's own.
	Line string
	// Database is the instance's own database in the stack's PostgreSQL cluster (made when missing); "" shares
	// the stack's database, so the instance sees the stack's users and objects.
	Database string
	// BreakPrivate names parse-server private modules the server package must find broken (Config, triggers,
	// Auth, RestWrite, RedisPubSub): DEVSTACK_BREAK_PRIVATE.
	BreakPrivate []string
	// Env holds other settings of the stack's app, by their DEVSTACK_* names (e.g. DEVSTACK_ALLOW_CUSTOM_OBJECT_ID).
	Env map[string]string
}

// Extra is a running extra parse-server instance.
type Extra struct {
	// Name is the instance's name (its PID file .devstack/extra/NAME.pid, its log .devstack/logs/extra-NAME.log).
	Name string
	// ServerURL is its URL with the mount path (http://127.0.0.1:PORT/parse); LiveQueryURL its LiveQuery websocket.
	ServerURL, LiveQueryURL string
	// Env is the stack's environment with ServerURL and LiveQueryURL set to the instance's (and PGURL to its
	// database when it has its own), for the helpers that take a devstack.Env.
	Env devstack.Env
}

var extraName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// StartExtra starts (or reuses, when one of that name runs with the same settings) an extra parse-server instance of
// the local stack, named name, and stops it when the test ends. It fails the test when the stack is not up or the
// instance does not start (the error carries the end of its log). Starting one costs a parse-server start (a few
// CPU seconds); a new parse-server line is installed first (once: tens of seconds).
func StartExtra(t *testing.T, name string, o ExtraOptions) Extra {
	t.Helper()
	env := devstack.MustLoad(t)
	if !extraName.MatchString(name) {
		t.Fatalf("stacktest: extra instance name %q: 1 to 40 letters, digits, _ or -", name)
	}
	script, err := extraScript()
	if err != nil {
		t.Fatalf("stacktest: %v", err)
	}
	args := []string{script, "start", name}
	if o.Line != "" {
		args = append(args, "LINE="+o.Line)
	}
	if o.Database != "" {
		args = append(args, "DATABASE="+o.Database)
	}
	if len(o.BreakPrivate) > 0 {
		args = append(args, "DEVSTACK_BREAK_PRIVATE="+strings.Join(o.BreakPrivate, ","))
	}
	keys := make([]string, 0, len(o.Env))
	for k := range o.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !strings.HasPrefix(k, "DEVSTACK_") {
			t.Fatalf("stacktest: extra instance setting %s: only DEVSTACK_* settings", k)
		}
		args = append(args, k+"="+o.Env[k])
	}
	url, err := runExtra(args...)
	if err != nil {
		t.Fatalf("stacktest: starting extra parse-server %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := runExtra(script, "stop", name); err != nil {
			t.Errorf("stacktest: stopping extra parse-server %s: %v", name, err)
		}
	})
	x := Extra{Name: name, ServerURL: url, LiveQueryURL: "ws" + strings.TrimPrefix(url, "http"), Env: env}
	x.Env.ServerURL, x.Env.LiveQueryURL = x.ServerURL, x.LiveQueryURL
	if o.Database != "" && env.PGURL != "" {
		x.Env.PGURL = env.PGURL[:strings.LastIndex(env.PGURL, "/")+1] + o.Database
	}
	return x
}

// extraScript is internal/devstack/extra.sh of this checkout.
func extraScript() (string, error) {
	root, err := modroot.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "internal", "devstack", "extra.sh"), nil
}

// runExtra runs extra.sh with args and returns the last line of its output (the URL for start).
func runExtra(args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command("bash", args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1], nil
}
