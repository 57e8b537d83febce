package session_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

// repliesImpl builds one Replies under test with opts.
type repliesImpl struct {
	name string
	open func(t *testing.T, opts session.ReplyOptions) session.Replies
}

// replyStores are the memory store of answers and the Redis one, against a
// real redis-server the test starts.
func replyStores(t *testing.T) []repliesImpl {
	srv := redistest.Start(t)
	return []repliesImpl{
		{"memory", func(t *testing.T, opts session.ReplyOptions) session.Replies { return session.NewMemoryReplies(opts) }},
		{"redis", func(t *testing.T, opts session.ReplyOptions) session.Replies {
			return newRedis(t, srv, session.RedisOptions{KeyPrefix: fmt.Sprintf("idem:%s:%d:", t.Name(), time.Now().UnixNano())}).Replies(opts)
		}},
	}
}

var hashA, hashB = strings.Repeat("a", 64), strings.Repeat("b", 64)

// TestRepliesClaim: a key is claimed once; while it runs a duplicate is
// refused (ErrInFlight); once finished the same call gets the answer and
// another call ErrKeyReused; a released key runs again; sessions are apart;
// an answer past the bound is ErrReplyNotKept; the TTL and the per-session
// bound drop keys, oldest first.
func TestRepliesClaim(t *testing.T) {
	ctx := context.Background()
	for _, impl := range replyStores(t) {
		t.Run(impl.name, func(t *testing.T) {
			now := time.Unix(1_800_000_000, 0)
			clock := func() time.Time { return now }
			r := impl.open(t, session.ReplyOptions{EntryBytes: 16, SessionEntries: 2, TTL: time.Minute, Now: clock})
			claim := func(sess, key, hash string) ([]byte, bool, error) { return r.Claim(ctx, sess, key, hash) }
			if _, done, err := claim("s", "k1", hashA); done || err != nil {
				t.Fatalf("first claim: done=%v err=%v", done, err)
			}
			if _, _, err := claim("s", "k1", hashA); !errors.Is(err, session.ErrInFlight) {
				t.Fatalf("duplicate in flight: %v, want ErrInFlight", err)
			}
			if _, _, err := claim("s", "k1", hashB); !errors.Is(err, session.ErrKeyReused) {
				t.Fatalf("other call in flight: %v, want ErrKeyReused", err)
			}
			if err := r.Finish(ctx, "s", "k1", hashA, []byte("answer:1")); err != nil {
				t.Fatal(err)
			}
			if body, done, err := claim("s", "k1", hashA); !done || err != nil || !bytes.Equal(body, []byte("answer:1")) {
				t.Fatalf("retry: %q done=%v err=%v", body, done, err)
			}
			if _, _, err := claim("s", "k1", hashB); !errors.Is(err, session.ErrKeyReused) {
				t.Fatalf("other call: %v, want ErrKeyReused", err)
			}
			if _, done, err := claim("other", "k1", hashB); done || err != nil {
				t.Fatalf("another session's key: done=%v err=%v", done, err)
			}
			// Released: runs again. (A second later: the oldest key is k1.)
			now = now.Add(time.Second)
			if _, done, err := claim("s", "k2", hashA); done || err != nil {
				t.Fatal(done, err)
			}
			if err := r.Release(ctx, "s", "k2"); err != nil {
				t.Fatal(err)
			}
			if _, done, err := claim("s", "k2", hashB); done || err != nil {
				t.Fatalf("released key: done=%v err=%v", done, err)
			}
			if err := r.Finish(ctx, "s", "k2", hashB, bytes.Repeat([]byte("x"), 17)); err != nil {
				t.Fatal(err)
			}
			if _, _, err := claim("s", "k2", hashB); !errors.Is(err, session.ErrReplyNotKept) {
				t.Fatalf("answer past the bound: %v, want ErrReplyNotKept", err)
			}
			// A third key drops the oldest (k1).
			now = now.Add(time.Second)
			if _, done, err := claim("s", "k3", hashA); done || err != nil {
				t.Fatal(done, err)
			}
			if _, done, err := claim("s", "k1", hashB); done || err != nil {
				t.Fatalf("k1 past the session's bound: done=%v err=%v, want claimed anew", done, err)
			}
			now = now.Add(time.Minute)
			if _, done, err := claim("s", "k2", hashA); done || err != nil {
				t.Fatalf("k2 past the TTL: done=%v err=%v, want claimed anew", done, err)
			}
		})
	}
}

// TestRedisReplyLease: a claim never finished (its replica killed) frees
// its key after the lease, not the TTL; a finished one keeps it the TTL.
func TestRedisReplyLease(t *testing.T) {
	srv := redistest.Start(t)
	now := time.Unix(1_800_000_000, 0)
	r := newRedis(t, srv, session.RedisOptions{}).Replies(session.ReplyOptions{Lease: 10 * time.Second, TTL: time.Hour,
		Now: func() time.Time { return now }})
	ctx := context.Background()
	for _, key := range []string{"abandoned", "finished"} {
		if _, done, err := r.Claim(ctx, "s", key, hashA); done || err != nil {
			t.Fatal(done, err)
		}
	}
	if err := r.Finish(ctx, "s", "finished", hashA, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Claim(ctx, "s", "abandoned", hashA); !errors.Is(err, session.ErrInFlight) {
		t.Fatalf("within the lease: %v, want ErrInFlight", err)
	}
	now = now.Add(11 * time.Second)
	if _, done, err := r.Claim(ctx, "s", "abandoned", hashA); done || err != nil {
		t.Fatalf("past the lease: done=%v err=%v, want claimed anew", done, err)
	}
	if body, done, err := r.Claim(ctx, "s", "finished", hashA); !done || err != nil || string(body) != "a" {
		t.Fatalf("finished, past the lease: %q done=%v err=%v", body, done, err)
	}
}

// TestRepliesConcurrentClaims: of many claims of one key at once, exactly
// one runs.
func TestRepliesConcurrentClaims(t *testing.T) {
	for _, impl := range replyStores(t) {
		t.Run(impl.name, func(t *testing.T) {
			r := impl.open(t, session.ReplyOptions{})
			var wg sync.WaitGroup
			var mu sync.Mutex
			claimed, inFlight := 0, 0
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, done, err := r.Claim(context.Background(), "s", "k", hashA)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil && !done:
						claimed++
					case errors.Is(err, session.ErrInFlight):
						inFlight++
					default:
						t.Errorf("claim: done=%v err=%v", done, err)
					}
				}()
			}
			wg.Wait()
			if claimed != 1 || inFlight != 15 {
				t.Fatalf("claimed %d, in flight %d; want 1 and 15", claimed, inFlight)
			}
		})
	}
}
