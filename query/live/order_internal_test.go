package live

import (
	"fmt"
	"testing"
	"time"
)

// The versions of objects that left a subscription are bounded: beyond maxGone the oldest is forgotten, an object
// that came back and left again counts once, and the order list does not grow without bound.
func TestGoneIsBounded(t *testing.T) {
	s := &Subscription{gone: map[string]goneMark{}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 * maxGone {
		s.markGone("again", t0.Add(time.Duration(i)))
		s.markGone(fmt.Sprint(i), t0)
	}
	if len(s.gone) != maxGone {
		t.Fatalf("%d versions remembered, want %d", len(s.gone), maxGone)
	}
	if _, ok := s.gone["0"]; ok {
		t.Fatal("the oldest version was not forgotten")
	}
	if _, ok := s.gone[fmt.Sprint(3*maxGone-1)]; !ok {
		t.Fatal("the newest version was forgotten")
	}
	if len(s.goneOrder) > 2*maxGone+1 {
		t.Fatalf("the order list holds %d entries for %d versions", len(s.goneOrder), len(s.gone))
	}
}
