package live

import (
	"fmt"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// BenchmarkApply is the cost of taking one update event into a subscription of 1,000 objects, the superseded-event
// check included (BenchmarkSupersededCheck alone): the price of the per-object order, paid without any waiting.
func BenchmarkApply(b *testing.B) {
	s, evs := benchSubscription(b)
	b.ResetTimer()
	for i := range b.N {
		if i%len(evs) == 0 {
			s.view = map[string]*parse.Object{} // the next round's events are not older than the view's
		}
		s.apply(evs[i%len(evs)])
		<-s.events
	}
}

func BenchmarkSupersededCheck(b *testing.B) {
	s, evs := benchSubscription(b)
	b.ResetTimer()
	for i := range b.N {
		s.isSuperseded(evs[i%len(evs)])
	}
}

// benchSubscription is a subscription holding 1,000 objects, and updates of them, each newer than the last.
func benchSubscription(b *testing.B) (*Subscription, []Event) {
	s := &Subscription{c: &Client{}, className: "Thing", events: make(chan Event, 1), view: map[string]*parse.Object{},
		gone: map[string]goneMark{}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	evs := make([]Event, 100000)
	for i := range evs {
		o := parse.NewObject("Thing")
		raw := fmt.Sprintf(`{"objectId":"o%04d","updatedAt":"%s","seq":%d}`, i%1000,
			t0.Add(time.Duration(i)*time.Millisecond).Format("2006-01-02T15:04:05.000Z"), i)
		if err := o.UnmarshalJSON([]byte(raw)); err != nil {
			b.Fatal(err)
		}
		evs[i] = Event{Kind: Update, Object: o}
	}
	return s, evs
}
