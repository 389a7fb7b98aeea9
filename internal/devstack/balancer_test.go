package devstack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deployBalancerMarker is the line of DEPLOY.md that precedes the balancer's configuration, shown whole.
const deployBalancerMarker = "<!-- internal/devstack/haproxy.cfg, shown whole: a test checks they are the same -->"

// balancerInDeployDoc returns the fenced block that follows the marker in the document doc.
func balancerInDeployDoc(doc string) (string, bool) {
	_, after, ok := strings.Cut(doc, deployBalancerMarker+"\n")
	if !ok {
		return "", false
	}
	after, ok = strings.CutPrefix(after, "```haproxy\n")
	if !ok {
		return "", false
	}
	block, _, ok := strings.Cut(after, "\n```\n")
	return block + "\n", ok
}

// The balancer configuration DEPLOY.md gives operators is the file the local stack runs and make test tests (up.sh
// starts HAProxy on internal/devstack/haproxy.cfg itself): one configuration, not two that drift. Fails when either
// is edited alone (tried: a timeout changed in DEPLOY.md only).
func TestDeployDocShowsTheStacksBalancer(t *testing.T) {
	cfg, err := os.ReadFile("haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "DEPLOY.md"))
	if err != nil {
		t.Fatal(err)
	}
	block, ok := balancerInDeployDoc(string(doc))
	if !ok {
		t.Fatalf("DEPLOY.md has no ```haproxy block after the line %q", deployBalancerMarker)
	}
	if block != string(cfg) {
		cl, bl := strings.Split(string(cfg), "\n"), strings.Split(block, "\n")
		for i := range max(len(cl), len(bl)) {
			var c, b string
			if i < len(cl) {
				c = cl[i]
			}
			if i < len(bl) {
				b = bl[i]
			}
			if c != b {
				t.Fatalf("DEPLOY.md's balancer differs from internal/devstack/haproxy.cfg at line %d:\n  haproxy.cfg: %q\n  DEPLOY.md:   %q", i+1, c, b)
			}
		}
	}
	if !strings.Contains(string(up(t)), `LB_FILE=$DEVSTACK_SRC/haproxy.cfg`) {
		t.Fatal("up.sh does not run internal/devstack/haproxy.cfg")
	}
}

func up(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("up.sh")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
