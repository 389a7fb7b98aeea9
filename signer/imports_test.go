package signer_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Both auth and transfer import this package, so it must stay light: no ethclient, no node, no simulated backend,
// nothing of the module but itself.
func TestSignerImportsStayLight(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const geth = "github.com/ethereum/go-ethereum/"
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, geth+"ethclient") || strings.HasPrefix(d, geth+"node") || d == geth+"eth" ||
			strings.HasPrefix(d, geth+"eth/") || (strings.HasPrefix(d, "github.com/c13f5054/moralis-go/") &&
			d != "github.com/c13f5054/moralis-go/signer") {
			t.Errorf("signer imports %s", d)
		}
	}
}
