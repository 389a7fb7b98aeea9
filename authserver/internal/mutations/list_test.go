package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPatternMatchesOnce fails when a mutation's pattern no longer occurs exactly once in its file (the code
// moved), so a stale entry is caught by go test, not only when someone runs make mutations-endpoint.
func TestEveryPatternMatchesOnce(t *testing.T) {
	for _, m := range mutations {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", m.file))
		if err != nil {
			t.Errorf("%s: %v", m.id, err)
			continue
		}
		if n := strings.Count(string(b), m.from); n != 1 {
			t.Errorf("%s: pattern found %d times in %s", m.id, n, m.file)
		}
	}
}
