package transfer_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The library must stay light: no ethclient, no simulated backend, no node,
// and none of the test-only helpers.
func TestLibraryDoesNotImportHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const geth = "github.com/ethereum/go-ethereum/"
	banned := func(d string) bool {
		return strings.HasPrefix(d, geth+"ethclient") || strings.HasPrefix(d, geth+"node") ||
			d == geth+"eth" || strings.HasPrefix(d, geth+"eth/") ||
			strings.Contains(d, "moralis-go/internal/devchain") || strings.Contains(d, "moralis-go/internal/contracts")
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		if banned(d) {
			t.Errorf("transfer imports %s", d)
		}
	}
	t.Logf("transfer depends on %d packages", len(deps))
}
