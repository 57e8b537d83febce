package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestKeyPoolCompaction churns a shard whose size stays the same, so that
// only its key blocks fill with removed ids: the shard must compact them
// while every live session keeps its state.
func TestKeyPoolCompaction(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{MaxSessions: 4096}, memoryConfig{shards: 1})
	s := &m.shards[0]
	id := func(i int) string { return fmt.Sprintf("session-%031d", i) } // 39 bytes, pooled
	const live = 1000
	for i := range live {
		if _, err := m.Record(ctx, id(i), Outcome{Usable: true, Fingerprint: uint64(i) + 1}); err != nil {
			t.Fatal(err)
		}
	}
	maxDead := 0
	for i := live; i < 20*live; i++ {
		if err := m.Reset(ctx, id(i-live)); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Record(ctx, id(i), Outcome{Usable: true, Fingerprint: uint64(i) + 1}); err != nil {
			t.Fatal(err)
		}
		maxDead = max(maxDead, s.keys.held-s.keys.live)
	}
	checkInvariants(t, m)
	// Compaction is due past the live ids' bytes (39,000) or 32 bytes a
	// session or four blocks, whichever is more; one removal later it runs.
	if limit := max(live*39, 32*live, 4*keyBlock) + 39; maxDead > limit {
		t.Errorf("removed ids held %d bytes at most, want at most %d", maxDead, limit)
	}
	if s.ents.len() != live {
		t.Errorf("%d entries for %d sessions", s.ents.len(), live)
	}
	for i := 19 * live; i < 20*live; i++ {
		st, err := m.Get(ctx, id(i))
		if err != nil || !st.Exists || st.Repeats != 1 {
			t.Fatalf("Get(%s) = %+v, %v; want the session recorded once", id(i), st, err)
		}
	}
}

// TestKeyPoolUnpooledIds records ids the pool does not hold (longer than
// maxPooledKey) beside pooled ones and the empty id, then compacts the
// shard.
func TestKeyPoolUnpooledIds(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{MaxSessions: 4096}, memoryConfig{shards: 1})
	ids := []string{"", "a", strings.Repeat("x", maxPooledKey), strings.Repeat("y", maxPooledKey+1), strings.Repeat("z", 3*keyBlock)}
	for round := range 2 {
		for i, id := range ids {
			if _, err := m.Record(ctx, id, Outcome{Usable: true, Fingerprint: uint64(i) + 1}); err != nil {
				t.Fatal(err)
			}
		}
		checkInvariants(t, m)
		if round == 0 {
			s := &m.shards[0]
			s.mu.Lock()
			s.compact()
			s.mu.Unlock()
		}
	}
	for _, id := range ids {
		if st, err := m.Get(ctx, id); err != nil || !st.Exists || st.Repeats != 2 {
			t.Errorf("Get(%.10q) = %+v, %v; want the session recorded twice", id, st, err)
		}
	}
	if got, want := m.shards[0].keys.live, 1+maxPooledKey; got != want {
		t.Errorf("pooled bytes %d, want %d", got, want)
	}
}

// TestCompactionKeepsOpenTurns compacts a shard under a session with open
// turns, in its entry and beside it, and a long id: they must follow the
// session to its new entry index.
func TestCompactionKeepsOpenTurns(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{MaxSessions: 4096}, memoryConfig{shards: 1})
	const others = 2 * shrinkMin
	for i := range others {
		if _, err := m.Record(ctx, fmt.Sprint("other-", i), Outcome{Usable: true}); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("l", maxPooledKey+1)
	for _, id := range []string{"a", long} {
		for _, call := range []string{"c1", "c2"} {
			if _, err := m.Record(ctx, id, Outcome{Fingerprint: 7, CallID: call}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range others {
		if err := m.Reset(ctx, fmt.Sprint("other-", i)); err != nil {
			t.Fatal(err)
		}
	}
	checkInvariants(t, m)
	if got := m.shards[0].ents.len(); got >= others {
		t.Fatalf("%d entries for 2 sessions: not compacted", got)
	}
	for _, id := range []string{"a", long} {
		for _, call := range []string{"c1", "c2"} {
			st, err := m.Record(ctx, id, Outcome{Fingerprint: 7, CallID: call, Execution: true})
			if err != nil || !st.SameTurn || st.Consecutive != 2 {
				t.Fatalf("%.5s: executing %s = %+v, %v; want the turn it opened, 2 mistakes", id, call, st, err)
			}
		}
	}
	checkInvariants(t, m)
}
