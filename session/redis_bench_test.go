package session_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

// BenchmarkRedisShard measures what one redis-server (one cluster shard)
// spends on toolguard's scripts, from 16 callers per core on 4,096
// sessions: counting a mistake, a validation and then its execution (one
// turn, two scripts), and an idempotency key claimed then answered (two
// scripts). An op is one script call. Besides the time per op it reports
// the server's CPU per op (redis-µs/op) and what it makes of one core: the
// ops a shard sustains with its one thread busy (shard-ops/s), the
// capacity a deployment sizes by (docs/replicas.md, Capacity). The CPU is
// the server's own, from /proc, so the callers on the same cores do not
// count.
func BenchmarkRedisShard(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: srv.URL(), ReadTimeout: 5 * time.Second,
		WriteTimeout: 5 * time.Second, PoolSize: 64})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	replies := r.Replies(session.ReplyOptions{})
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-%d", i)
	}
	var keys atomic.Uint64
	for _, bc := range []struct {
		name string
		op   func(id string, i uint64) error
	}{
		{"count", func(id string, _ uint64) error {
			_, err := r.Record(ctx, id, session.Outcome{Fingerprint: 7})
			return err
		}},
		{"turn", func(id string, i uint64) error {
			_, err := r.Record(ctx, id, session.Outcome{Usable: true, Fingerprint: i / 2, CallID: strconv.FormatUint(i/2, 10),
				Execution: i%2 == 1})
			return err
		}},
		{"reply", func(id string, i uint64) error {
			key := strconv.FormatUint(i/2, 10)
			if i%2 == 0 {
				_, _, err := replies.Claim(ctx, id, key, "h")
				return err
			}
			return replies.Finish(ctx, id, key, "h", []byte(`{"verdict":{"ok":true}}`))
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetParallelism(16)
			cpu0, err := srv.CPU()
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				// Each caller keeps to its own 256 sessions, so a turn's
				// two scripts reach one session one after the other.
				caller := keys.Add(1)
				for i := uint64(0); pb.Next(); i++ {
					id := ids[(caller*256+i/2%256)%uint64(len(ids))]
					if err := bc.op(id, caller<<32|i); err != nil {
						b.Error(err)
						return
					}
				}
			})
			elapsed := time.Since(start)
			cpu1, err := srv.CPU()
			if err != nil {
				b.Fatal(err)
			}
			used := (cpu1 - cpu0).Seconds()
			// Below a fifth of a second the clock ticks (10 ms) are too coarse.
			if used >= 0.2 {
				b.ReportMetric(used*1e6/float64(b.N), "redis-µs/op")
				b.ReportMetric(float64(b.N)/used, "shard-ops/s")
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
			b.ReportMetric(used/elapsed.Seconds(), "redis-cores")
		})
	}
}
