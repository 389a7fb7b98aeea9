// Package modroot finds the root directory of this module's checkout, for the tests and generators that read or run
// its files. It starts from the working directory (go test runs a test in its package's directory, go generate and
// go run in a directory of the checkout), not from a source file's path: a build with -trimpath, as make test's,
// records source paths as import paths, so runtime.Caller no longer names a directory on disk.
package modroot

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir returns the nearest directory at or above the working directory that holds a go.mod file.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("modroot: no go.mod at or above " + wd)
		}
	}
}
