package store_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/store"
)

// TestHelperProcessPinsAndDies is not a test on its own: TestCrashWithoutCloseKeepsCommittedPins runs it in a
// child process, which pins objects and exits abruptly, without closing the store.
func TestHelperProcessPinsAndDies(t *testing.T) {
	path := os.Getenv("MORALIS_STORE_CRASH_FILE")
	if path == "" {
		return // only meaningful in the child process
	}
	s, err := store.Open(path, &store.Options{AppID: "crash"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	for i := range 100 {
		o := parse.NewObjectWithID("Crash", fmt.Sprintf("c%03d", i))
		o.Set("i", i)
		if err := s.Pin(ctx, o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(3) // no Close: the process dies with the file open
}

func TestCrashWithoutCloseKeepsCommittedPins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessPinsAndDies$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MORALIS_STORE_CRASH_FILE="+path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "output: %s", out)
	require.Equal(t, 3, ee.ExitCode(), "output: %s", out)

	s, err := store.Open(path, &store.Options{AppID: "crash"})
	require.NoError(t, err)
	defer s.Close()
	n, err := query.New[*parse.Object]("Crash").Count(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 100, n, "every committed pin survived the crash")
	got, err := query.New[*parse.Object]("Crash").GreaterThanOrEqualTo("i", 90).Find(context.Background(), s)
	require.NoError(t, err)
	assert.Len(t, got, 10)
}
