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

// historyImpl builds one History under test with opts.
type historyImpl struct {
	name string
	open func(t *testing.T, opts session.HistoryOptions) session.History
}

// histories are the memory history and the Redis one, against a real
// redis-server the test starts.
func histories(t *testing.T) []historyImpl {
	srv := redistest.Start(t)
	return []historyImpl{
		{"memory", func(t *testing.T, opts session.HistoryOptions) session.History { return session.NewMemoryHistory(opts) }},
		{"redis", func(t *testing.T, opts session.HistoryOptions) session.History {
			return newRedis(t, srv, session.RedisOptions{KeyPrefix: fmt.Sprintf("hist:%s:%d:", t.Name(), time.Now().UnixNano())}).History(opts)
		}},
	}
}

func change(path string, size int) session.Change {
	return session.Change{Path: path, Existed: true, Before: bytes.Repeat([]byte{'x'}, size), AfterSHA256: "h-" + path}
}

// TestHistoryBounds: both histories keep the newest change of a path, drop
// the oldest past the session's bytes and say so ("evicted"), refuse a
// change larger than the bound and forget the path's older ones, expire
// changes past the TTL ("expired"), and keep sessions apart.
func TestHistoryBounds(t *testing.T) {
	ctx := context.Background()
	for _, impl := range histories(t) {
		t.Run(impl.name, func(t *testing.T) {
			clock := newFakeNow()
			// Three changes of 1000 bytes do not fit in either's accounting,
			// two do.
			h := impl.open(t, session.HistoryOptions{SessionBytes: 3500, TTL: time.Minute, Now: clock.Now})
			for _, p := range []string{"w:a", "w:b", "w:c", "w:d"} {
				if err := h.Push(ctx, "s1", change(p, 1000)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := h.Last(ctx, "s1", "w:a"); !errors.Is(err, session.ErrForgotten) || !strings.Contains(err.Error(), "evicted: the session's history is full") {
				t.Fatalf("oldest: %v, want evicted", err)
			}
			c, err := h.Last(ctx, "s1", "w:d")
			if err != nil || c.Path != "w:d" || len(c.Before) != 1000 || c.AfterSHA256 != "h-w:d" || c.ID == 0 {
				t.Fatalf("newest: %+v, %v", c, err)
			}
			if _, err := h.Last(ctx, "s2", "w:d"); !errors.Is(err, session.ErrNoHistory) {
				t.Fatalf("other session: %v, want ErrNoHistory", err)
			}
			if _, err := h.Last(ctx, "s1", "w:never"); !errors.Is(err, session.ErrNoHistory) {
				t.Fatalf("unknown path: %v, want ErrNoHistory", err)
			}

			// The newest change of a path is the one returned; Drop uncovers
			// the one before it.
			if err := h.Push(ctx, "s1", change("w:d", 10)); err != nil {
				t.Fatal(err)
			}
			c2, err := h.Last(ctx, "s1", "w:d")
			if err != nil || len(c2.Before) != 10 {
				t.Fatalf("second change of d: %+v, %v", c2, err)
			}
			if err := h.Drop(ctx, "s1", c2); err != nil {
				t.Fatal(err)
			}
			if c3, err := h.Last(ctx, "s1", "w:d"); err != nil || c3.ID != c.ID {
				t.Fatalf("after drop: %+v, %v; want the first change of d", c3, err)
			}

			// Too large for the bound: not kept, and the older ones of the
			// path cannot be undone past it either.
			if err := h.Push(ctx, "s1", change("w:d", 4000)); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Last(ctx, "s1", "w:d"); !errors.Is(err, session.ErrForgotten) || !strings.Contains(err.Error(), "larger than the history keeps per session (3500 bytes)") {
				t.Fatalf("too large: %v", err)
			}

			// Past the TTL, a change is expired.
			if err := h.Push(ctx, "s3", change("w:e", 10)); err != nil {
				t.Fatal(err)
			}
			clock.Advance(2 * time.Minute)
			if _, err := h.Last(ctx, "s3", "w:e"); !errors.Is(err, session.ErrForgotten) || !strings.Contains(err.Error(), "expired: changes are kept for 1m0s") {
				t.Fatalf("expired: %v", err)
			}
		})
	}
}

// TestHistoryNotUndoable: a change held only to say why it cannot be undone
// comes back with its reason, from memory and from Redis.
func TestHistoryNotUndoable(t *testing.T) {
	ctx := context.Background()
	for _, impl := range histories(t) {
		t.Run(impl.name, func(t *testing.T) {
			h := impl.open(t, session.HistoryOptions{})
			if err := h.Push(ctx, "s", session.Change{Path: "w:dir", Directory: true, NotUndoable: "a folder deleted"}); err != nil {
				t.Fatal(err)
			}
			if c, err := h.Last(ctx, "s", "w:dir"); err != nil || c.NotUndoable != "a folder deleted" || !c.Directory {
				t.Fatalf("%+v, %v", c, err)
			}
		})
	}
}

// TestHistoryConcurrent: changes pushed at once by many goroutines are each
// held once, and each dropped once.
func TestHistoryConcurrent(t *testing.T) {
	ctx := context.Background()
	for _, impl := range histories(t) {
		t.Run(impl.name, func(t *testing.T) {
			h := impl.open(t, session.HistoryOptions{})
			const n = 32
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := h.Push(ctx, "s", change(fmt.Sprintf("w:%d", i), 100)); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			ids := map[uint64]bool{}
			for i := range n {
				c, err := h.Last(ctx, "s", fmt.Sprintf("w:%d", i))
				if err != nil || ids[c.ID] {
					t.Fatalf("%d: %+v, %v (ids %v)", i, c, err, ids)
				}
				ids[c.ID] = true
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := h.Drop(ctx, "s", c); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			for i := range n {
				if _, err := h.Last(ctx, "s", fmt.Sprintf("w:%d", i)); !errors.Is(err, session.ErrNoHistory) {
					t.Fatalf("%d after drop: %v", i, err)
				}
			}
		})
	}
}

// TestMemoryHistoryTotal: past the server's total, the oldest change of any
// session is evicted first, and Last says so; past 1000 changes a session's
// oldest goes whatever its size.
func TestMemoryHistoryTotal(t *testing.T) {
	ctx := context.Background()
	h := session.NewMemoryHistory(session.HistoryOptions{SessionBytes: 10_000, TotalBytes: 2500})
	for _, s := range []string{"s1", "s2", "s3"} {
		if err := h.Push(ctx, s, change("w:a", 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Last(ctx, "s1", "w:a"); !errors.Is(err, session.ErrForgotten) || !strings.Contains(err.Error(), "evicted: the server's history is full") {
		t.Fatalf("oldest session: %v", err)
	}
	for _, s := range []string{"s2", "s3"} {
		if _, err := h.Last(ctx, s, "w:a"); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	many := session.NewMemoryHistory(session.HistoryOptions{})
	for i := range 1001 {
		if err := many.Push(ctx, "s", change(fmt.Sprintf("w:%d", i), 1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := many.Last(ctx, "s", "w:0"); !errors.Is(err, session.ErrForgotten) {
		t.Fatalf("change 0 of 1001: %v, want evicted", err)
	}
	if _, err := many.Last(ctx, "s", "w:1000"); err != nil {
		t.Fatalf("change 1000: %v", err)
	}
}
