package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

// TestRedisCluster: against a real 3-master cluster, however the URL names
// it, sessions spread over the shards are counted and their undo history
// (three keys, one script) works: no MOVED, no CROSSSLOT.
func TestRedisCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	for _, tt := range []struct{ name, url, mode string }{
		{"auto, every node", cl.URL(), ""},
		{"auto, one node", "redis://" + cl.Nodes[1].Addr(), session.RedisAuto},
		{"cluster, one node", "redis://" + cl.Nodes[2].Addr(), session.RedisCluster},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			r, err := session.NewRedis(ctx, session.RedisOptions{URL: tt.url, Mode: tt.mode, KeyPrefix: "c:" + tt.name + ":",
				ReadTimeout: loadedTimeout, WriteTimeout: loadedTimeout})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.Close() })
			if r.Mode() != session.RedisCluster {
				t.Fatalf("mode %q, want cluster", r.Mode())
			}
			h := r.History(session.HistoryOptions{})
			for i := range 30 {
				id := fmt.Sprintf("s%d", i)
				for range 2 {
					if _, err := r.Record(ctx, id, session.Outcome{}); err != nil {
						t.Fatalf("Record %s: %v", id, err)
					}
				}
				if st, err := r.Get(ctx, id); err != nil || st.Consecutive != 2 {
					t.Fatalf("Get %s = %+v, %v; want 2", id, st, err)
				}
				if err := h.Push(ctx, id, session.Change{Path: "p", Existed: true, Before: []byte("b")}); err != nil {
					t.Fatalf("history Push %s: %v", id, err)
				}
				if c, err := h.Last(ctx, id, "p"); err != nil || string(c.Before) != "b" {
					t.Fatalf("history Last %s = %+v, %v", id, c, err)
				}
			}
			shards := 0
			for _, n := range cl.Nodes {
				c := redis.NewClient(&redis.Options{Addr: n.Addr()})
				keys, err := c.Keys(ctx, "c:"+tt.name+":*").Result()
				_ = c.Close()
				if err != nil {
					t.Fatal(err)
				}
				if len(keys) > 0 {
					shards++
				}
			}
			if shards < 2 {
				t.Fatalf("the sessions' keys are on %d shard(s), want them spread", shards)
			}
		})
	}
	// A count whose reply times out is not sent again: a stuck master runs
	// every copy it was sent once it wakes, and a retried count would then
	// count twice.
	t.Run("a timed-out count is not sent again", func(t *testing.T) {
		ctx := context.Background()
		r, err := session.NewRedis(ctx, session.RedisOptions{URL: cl.URL(), KeyPrefix: "nr:",
			ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		// Only the call to the stuck master is about the timeout: the
		// others go through a store with room for a loaded machine.
		steady, err := session.NewRedis(ctx, session.RedisOptions{URL: cl.URL(), KeyPrefix: "nr:",
			ReadTimeout: loadedTimeout, WriteTimeout: loadedTimeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = steady.Close() })
		if _, err := steady.Record(ctx, "s", session.Outcome{}); err != nil {
			t.Fatal(err)
		}
		owner := ownerOf(t, cl, session.RedisKey("nr:", "s"))
		owner.Pause()
		_, err = r.Record(ctx, "s", session.Outcome{})
		owner.Resume()
		if !errors.Is(err, session.ErrUnavailable) {
			t.Fatalf("Record on a stuck master: %v, want ErrUnavailable", err)
		}
		// The stuck master ran what it was sent before it reads this call.
		s, err := steady.Record(ctx, "s", session.Outcome{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Consecutive > 3 {
			t.Fatalf("counted %d after 1 acknowledged, 1 not counted and this one: the call not counted was counted %d times",
				s.Consecutive, s.Consecutive-2)
		}
	})
}

// TestRedisClusterNodeAsSingleServer shows what auto mode prevents: a
// single-server client on a cluster node gets MOVED for keys of other
// shards.
func TestRedisClusterNodeAsSingleServer(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := context.Background()
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: "redis://" + cl.Nodes[0].Addr(), Mode: session.RedisSingle,
		ReadTimeout: loadedTimeout, WriteTimeout: loadedTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	var moved int
	for i := range 30 {
		if _, err := r.Record(ctx, fmt.Sprintf("s%d", i), session.Outcome{}); err != nil {
			if !strings.Contains(err.Error(), "MOVED") {
				t.Fatalf("Record: %v, want MOVED", err)
			}
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("no MOVED from a single-server client on a 3-master cluster")
	}
}

// TestRedisSentinelFailover: a store through a Sentinel counts; its master
// is killed under load; the Sentinel promotes the replica; counting
// resumes, and every count that was acknowledged is still there.
func TestRedisSentinelFailover(t *testing.T) {
	st := redistest.StartSentinel(t)
	ctx := context.Background()
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: st.URL(), MasterName: st.Name,
		ReadTimeout: time.Second, WriteTimeout: time.Second, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if r.Mode() != session.RedisSentinel {
		t.Fatalf("mode %q, want sentinel", r.Mode())
	}
	const sessions = 8
	acked := make([]uint32, sessions)
	record := func(i int) error {
		s, err := r.Record(ctx, fmt.Sprintf("f%d", i), session.Outcome{})
		if err != nil {
			return err
		}
		if s.Consecutive != acked[i]+1 {
			t.Fatalf("session f%d counted %d after %d acknowledged: a count was lost", i, s.Consecutive, acked[i])
		}
		acked[i]++
		return nil
	}
	for round := range 20 {
		for i := range sessions {
			if err := record(i); err != nil {
				t.Fatalf("round %d before the failover: %v", round, err)
			}
		}
	}
	old := st.Master.Addr()
	st.Master.Kill()
	var failed int
	deadline := time.Now().Add(60 * time.Second)
	for resumed := 0; resumed < 3*sessions; {
		for i := range sessions {
			err := record(i)
			switch {
			case err == nil:
				if p, perr := st.Primary(); perr == nil && p != old {
					resumed++
				}
			case errors.Is(err, session.ErrUnavailable):
				failed++
				_, _ = st.Primary() // a round trip to the Sentinel paces the retries
			default:
				t.Fatalf("during the failover: %v, want counted or ErrUnavailable", err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("counting did not resume within a minute of killing the master (%d calls not counted)", failed)
		}
	}
	if p, _ := st.Primary(); p != st.Replica.Addr() {
		t.Fatalf("the master is %s, want the promoted replica %s", p, st.Replica.Addr())
	}
	for i := range sessions {
		if s, err := r.Get(ctx, fmt.Sprintf("f%d", i)); err != nil || s.Consecutive != acked[i] {
			t.Fatalf("session f%d = %+v, %v; want the %d acknowledged counts", i, s, err, acked[i])
		}
	}
	t.Logf("%d calls not counted during the failover", failed)
}

// TestRedisStartUnreachable: with StartUnreachable, a store opens while its
// server is away, fails its calls as unavailable, and works once the
// server answers, loading its script then.
func TestRedisStartUnreachable(t *testing.T) {
	srv := redistest.Start(t)
	srv.Stop()
	ctx := context.Background()
	if _, err := session.NewRedis(ctx, session.RedisOptions{URL: srv.URL()}); !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("NewRedis without StartUnreachable: %v, want ErrUnavailable", err)
	}
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: srv.URL(), StartUnreachable: true})
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if err := r.Ping(ctx); !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Ping while away: %v", err)
	}
	if _, err := r.Record(ctx, "s", session.Outcome{}); !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Record while away: %v", err)
	}
	srv.Restart()
	if err := r.Ping(ctx); err != nil {
		t.Fatalf("Ping once back: %v", err)
	}
	if st, err := r.Record(ctx, "s", session.Outcome{}); err != nil || st.Consecutive != 1 {
		t.Fatalf("Record once back = %+v, %v", st, err)
	}
}

// ownerOf is the cluster node that holds key (the others answer MOVED).
func ownerOf(t *testing.T, cl *redistest.Cluster, key string) *redistest.Server {
	t.Helper()
	for _, n := range cl.Nodes {
		c := redis.NewClient(&redis.Options{Addr: n.Addr()})
		err := c.Exists(context.Background(), key).Err()
		_ = c.Close()
		if err == nil {
			return n
		}
		if !strings.HasPrefix(err.Error(), "MOVED ") {
			t.Fatal(err)
		}
	}
	t.Fatalf("no node holds %s", key)
	return nil
}
