package modroot

import (
	"os"
	"path/filepath"
	"testing"
)

// From a package directory the root is the directory with go.mod two levels up (internal/modroot), and the
// module's go.mod names this module.
func TestDirFindsTheModuleRootAbove(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); dir != want {
		t.Fatalf("Dir() = %s; want %s", dir, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || len(b) == 0 {
		t.Fatalf("go.mod at %s: %v", dir, err)
	}
}

// Outside any module it is an error, not a guess.
func TestDirOutsideAModuleIsAnError(t *testing.T) {
	t.Chdir(t.TempDir())
	if dir, err := Dir(); err == nil {
		t.Fatalf("Dir() = %s outside a module; want an error", dir)
	}
}
