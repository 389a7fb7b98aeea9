//go:build integration

package live

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/redis/go-redis/v9"
)

// BenchmarkJournalRecord is the Redis cost of one journaled event (one Lua script: the version check, XADD
// MAXLEN ~, the expiry, the read of what follows the cursor) on the stack's Redis, each event a new version of one
// of 100 objects.
func BenchmarkJournalRecord(b *testing.B) {
	env := devstack.MustLoad(b)
	opt, err := redis.ParseURL(env.RedisURL)
	if err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	nonce, _ := newNonce()
	j := newJournal(rdb, DefaultJournalLength, time.Minute, "bench-token", "LiveItem", nil, nonce)
	if _, err := j.open(ctx, nil); err != nil {
		b.Fatal(err)
	}
	defer rdb.Del(ctx, j.stream, j.state)
	base := time.Now()
	b.ResetTimer()
	for i := range b.N {
		o := parse.NewObjectWithID("LiveItem", fmt.Sprintf("obj%03d", i%100))
		o.Set("step", i)
		v := fmt.Sprintf("%020d", base.Add(time.Duration(i)*time.Microsecond).UnixNano())
		es, _, err := j.record(ctx, change{Event{Kind: Update, Object: o}, v})
		if err != nil || len(es) != 1 {
			b.Fatalf("record %d: %v, %d entries", i, err, len(es))
		}
	}
}

// BenchmarkRedisPing is one round trip to the stack's Redis, the floor under BenchmarkJournalRecord.
func BenchmarkRedisPing(b *testing.B) {
	opt, err := redis.ParseURL(devstack.MustLoad(b).RedisURL)
	if err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	for range b.N {
		if err := rdb.Ping(context.Background()).Err(); err != nil {
			b.Fatal(err)
		}
	}
}
