package session_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

// failoverLoad is one session's load during a failover: mistakes counted
// and idempotency keys claimed and finished, one call after another.
type failoverLoad struct {
	id string
	// known is the count last acknowledged; maybe the calls since that
	// failed as unavailable, which may or may not have counted.
	known, maybe uint32
	// finished are the keys whose answer was acknowledged as stored.
	finished []string
	failed   int // calls that failed as unavailable
	// resumed counts the calls begun after the kill and acknowledged.
	resumed atomic.Int32
}

// TestRedisClusterFailover: a store on a 3-master cluster with a replica
// per master counts mistakes and keeps idempotency answers on sessions
// spread over the shards; one master is killed (SIGKILL) under that load
// and its replica promoted. Every count acknowledged is still there, no
// call counted twice, every answer acknowledged as stored is answered
// again, no call fails but as unavailable, and counting resumes on the
// failed-over shard.
func TestRedisClusterFailover(t *testing.T) {
	cl := redistest.StartClusterReplicas(t, 3, 1)
	ctx := context.Background()
	const prefix = "fo:"
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: cl.URL(), KeyPrefix: prefix,
		ReadTimeout: time.Second, WriteTimeout: time.Second, DialTimeout: time.Second,
		Log: func(string) {}}) // a dial refused per call while the master is down
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if r.Mode() != session.RedisCluster {
		t.Fatalf("mode %q, want cluster", r.Mode())
	}
	replies := r.Replies(session.ReplyOptions{SessionEntries: 1 << 20})

	victim := cl.Nodes[0]
	if len(cl.Replicas[victim]) != 1 {
		t.Fatalf("the first master has replicas %v, want one", cl.Replicas[victim])
	}
	promoted := cl.Replicas[victim][0]
	const sessions = 30
	loads := make([]*failoverLoad, sessions)
	onVictim := map[*failoverLoad]bool{}
	for i := range loads {
		loads[i] = &failoverLoad{id: fmt.Sprintf("f%d", i)}
		// The first count, before the load, tells where the session lives.
		if _, err := r.Record(ctx, loads[i].id, session.Outcome{}); err != nil {
			t.Fatal(err)
		}
		loads[i].known = 1
	}
	vc := redis.NewClient(&redis.Options{Addr: victim.Addr()})
	for _, l := range loads {
		// Another shard's key is MOVED.
		n, err := vc.Exists(ctx, session.RedisKey(prefix, l.id)).Result()
		if err != nil && !strings.HasPrefix(err.Error(), "MOVED ") {
			t.Fatal(err)
		}
		onVictim[l] = err == nil && n == 1
	}
	_ = vc.Close()
	onShard := 0
	for _, on := range onVictim {
		if on {
			onShard++
		}
	}
	if onShard == 0 {
		t.Fatal("no session on the master to kill")
	}

	var (
		stop     atomic.Bool
		killed   atomic.Bool
		wg       sync.WaitGroup
		warm     sync.WaitGroup
		errs     = make(chan error, sessions)
		progress = make(chan struct{}, 1)
	)
	note := func() {
		select {
		case progress <- struct{}{}:
		default:
		}
	}
	warm.Add(sessions)
	for _, l := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- l.run(ctx, r, replies, &stop, &killed, &warm, note)
		}()
	}
	// Kill the master once every session has counted under load.
	warm.Wait()
	victim.Kill()
	killedAt := time.Now()
	killed.Store(true)

	// A failover takes about 3 s here (cluster-node-timeout 1 s); the
	// client's own reload of the cluster's map, every minute, is too late.
	deadline := time.Now().Add(30 * time.Second)
	for !resumedAll(loads, onVictim) {
		select {
		case err := <-errs:
			if err == nil {
				continue
			}
			stop.Store(true)
			wg.Wait()
			t.Fatalf("during the failover: %v", err)
		case <-progress:
		}
		if time.Now().After(deadline) {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("counting did not resume on the failed-over shard within 30 s of killing its master")
		}
	}
	resumedAfter := time.Since(killedAt)
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if role, err := promoted.Role(); err != nil || role != "master" {
		t.Fatalf("the killed master's replica is %q (%v), want promoted to master", role, err)
	}

	var failed int
	for _, l := range loads {
		s, err := r.Get(ctx, l.id)
		if err != nil {
			t.Fatalf("Get %s: %v", l.id, err)
		}
		if s.Consecutive < l.known || s.Consecutive > l.known+l.maybe {
			t.Fatalf("session %s counts %d, want %d acknowledged and at most %d more not counted", l.id, s.Consecutive, l.known, l.maybe)
		}
		for _, key := range l.finished {
			body, done, err := replies.Claim(ctx, l.id, key, "h")
			if err != nil || !done || string(body) != key {
				t.Fatalf("session %s key %s: answer %q, done %v, %v; want its stored answer", l.id, key, body, done, err)
			}
		}
		failed += l.failed
	}
	t.Logf("%d sessions on the killed master's shard; counting resumed there %v after the kill; %d calls unavailable meanwhile",
		onShard, resumedAfter.Round(time.Millisecond), failed)
}

func resumedAll(loads []*failoverLoad, onVictim map[*failoverLoad]bool) bool {
	for _, l := range loads {
		if onVictim[l] && l.resumed.Load() < 3 {
			return false
		}
	}
	return true
}

// run makes calls until stop: claim a key, count a mistake, store the
// key's answer. It returns the first error that is not ErrUnavailable, or
// a count that lost an acknowledged one or counted one twice.
func (l *failoverLoad) run(ctx context.Context, r *session.Redis, replies *session.RedisReplies,
	stop, killed *atomic.Bool, warm *sync.WaitGroup, note func()) error {
	warmed := false
	defer func() {
		if !warmed {
			warm.Done()
		}
	}()
	for n := 0; !stop.Load(); n++ {
		afterKill := killed.Load()
		key := strconv.Itoa(n)
		_, done, err := replies.Claim(ctx, l.id, key, "h")
		switch {
		case errors.Is(err, session.ErrUnavailable):
			l.unavailable(note)
			continue
		case err != nil:
			return fmt.Errorf("session %s: Claim %s: %w", l.id, key, err)
		case done:
			return fmt.Errorf("session %s: Claim of the new key %s answered as done", l.id, key)
		}
		s, err := r.Record(ctx, l.id, session.Outcome{})
		switch {
		case errors.Is(err, session.ErrUnavailable):
			l.maybe++
			l.unavailable(note)
			continue
		case err != nil:
			return fmt.Errorf("session %s: Record: %w", l.id, err)
		case s.Consecutive < l.known+1:
			return fmt.Errorf("session %s counted %d after %d acknowledged: a count was lost", l.id, s.Consecutive, l.known)
		case s.Consecutive > l.known+1+l.maybe:
			return fmt.Errorf("session %s counted %d after %d acknowledged and %d not counted: a count was applied twice",
				l.id, s.Consecutive, l.known, l.maybe)
		}
		l.known, l.maybe = s.Consecutive, 0
		if err := replies.Finish(ctx, l.id, key, "h", []byte(key)); err != nil {
			if !errors.Is(err, session.ErrUnavailable) {
				return fmt.Errorf("session %s: Finish %s: %w", l.id, key, err)
			}
			l.unavailable(note)
			continue
		}
		l.finished = append(l.finished, key)
		if !warmed && n >= 10 {
			warmed = true
			warm.Done()
		}
		if afterKill {
			l.resumed.Add(1)
			note()
		}
	}
	return nil
}

// unavailable notes a call that failed as unavailable; the test's loop
// wakes on it to check its deadline.
func (l *failoverLoad) unavailable(note func()) {
	l.failed++
	note()
}
