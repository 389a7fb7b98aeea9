package query

import (
	"bytes"
	"context"
	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

// FuzzFromJSON feeds arbitrary bytes to FromJSON. It must never panic; a query it accepts must encode, read back
// to the same JSON, and build a request (the seed corpus is in testdata/fuzz/FuzzFromJSON).
func FuzzFromJSON(f *testing.F) {
	f.Add([]byte(`{"where":{"score":{"$gt":5}},"limit":10,"skip":2,"order":"-score","count":1,"keys":"a,b"}`))
	f.Add([]byte(`{"where":{"$or":[{"a":1},{"b":{"$in":[1,2]}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := FromJSON[*parse.Object]("GameScore", data)
		if err != nil {
			if q != nil {
				t.Fatal("a query and an error")
			}
			return
		}
		b1, err := q.MarshalJSON()
		if err != nil {
			t.Fatalf("accepted query does not encode: %v", err)
		}
		q2, err := FromJSON[map[string]any]("GameScore", b1)
		if err != nil {
			t.Fatalf("encoded query %s is refused: %v", b1, err)
		}
		b2, err := q2.MarshalJSON()
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("round trip changed the query:\n%s\n%s (%v)", b1, b2, err)
		}
		if _, err := q.Count(context.Background(), &fakeRunner{}); err == nil {
			t.Fatal("count against an answer without a count succeeded")
		}
		_, _ = q.Find(context.Background(), &fakeRunner{})
		_ = q.String()
	})
}
