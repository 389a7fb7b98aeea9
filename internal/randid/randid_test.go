package randid

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
)

func TestAlnum(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		s, err := Alnum(rand.Read, 10)
		if err != nil || len(s) != 10 || strings.Trim(s, Alphabet) != "" || seen[s] {
			t.Fatalf("%q %v", s, err)
		}
		seen[s] = true
	}
	// Bytes >= 248 are skipped, never mapped.
	calls := 0
	s, err := Alnum(func(b []byte) (int, error) {
		calls++
		for i := range b {
			b[i] = 255
			if calls > 1 {
				b[i] = 61
			}
		}
		return len(b), nil
	}, 3)
	if err != nil || s != "999" || calls != 2 {
		t.Fatalf("%q %v after %d reads", s, err, calls)
	}
	boom := errors.New("no entropy")
	if _, err := Alnum(func([]byte) (int, error) { return 0, boom }, 5); !errors.Is(err, boom) {
		t.Fatalf("%v", err)
	}
}
