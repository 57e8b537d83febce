package session

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a goroutine-safe manual clock: the janitor may read it while a
// test advances it.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// newTestMemory returns a store without a janitor goroutine unless cfg
// supplies a tick channel, so that tests control every sweep, and closes it
// when the test ends.
func newTestMemory(t testing.TB, opts MemoryOptions, cfg memoryConfig) *Memory {
	t.Helper()
	if cfg.tick == nil {
		cfg.noJanitor = true
	}
	m := newMemory(opts, cfg)
	t.Cleanup(func() { m.Close() })
	return m
}

// collidingHash maps every id to one of a few hashes whose homes are at both
// ends of any index, so probe chains are long and wrap around.
func collidingHash(id string) uint64 {
	vals := [...]uint32{0, 1, 2, 5, 0x7fffffff, 0xfffffffe, 0xffffffff}
	f := fnv.New32a()
	f.Write([]byte(id))
	return uint64(vals[f.Sum32()%uint32(len(vals))]) << 32
}

// entryOf returns the entry of id, or nil.
func entryOf(m *Memory, id string) *entry {
	h := m.hash(id)
	s := &m.shards[h&m.shardMask]
	if _, idx := s.lookup(id, slotHash(h)); idx >= 0 {
		return s.ents.at(idx)
	}
	return nil
}

// checkInvariants verifies every shard's list, index and free list.
func checkInvariants(t testing.TB, m *Memory) {
	t.Helper()
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		checkShard(t, s)
		s.mu.Unlock()
	}
}

func checkShard(t testing.TB, s *shard) {
	t.Helper()
	count := 0
	prev := int32(-1)
	lastSeen := int64(math.MaxInt64)
	for i := s.head; i >= 0; i = s.ents.at(i).next {
		e := s.ents.at(i)
		if e.prev != prev {
			t.Fatalf("entry %d: prev %d, want %d", i, e.prev, prev)
		}
		if e.lastSeen > lastSeen {
			t.Fatalf("entry %d: LRU list not in recording order", i)
		}
		lastSeen = e.lastSeen
		if _, idx := s.lookup(s.key(i), slotHash(s.hash(s.key(i)))); idx != i {
			t.Fatalf("entry %d (%q): lookup finds %d", i, s.key(i), idx)
		}
		prev = i
		if count++; count > s.ents.len() {
			t.Fatal("LRU list has a cycle")
		}
	}
	if s.tail != prev {
		t.Fatalf("tail %d, want %d", s.tail, prev)
	}
	if count != s.n {
		t.Fatalf("LRU list has %d entries, n is %d", count, s.n)
	}
	if s.n > s.limit {
		t.Fatalf("n %d over limit %d", s.n, s.limit)
	}
	used := 0
	for _, sl := range s.slots {
		if sl.ref != 0 {
			used++
			if want := slotHash(s.hash(s.key(sl.ref - 1))); sl.hash != want {
				t.Fatalf("slot hash %#x, want %#x", sl.hash, want)
			}
		}
	}
	if used != s.n {
		t.Fatalf("index holds %d slots, n is %d", used, s.n)
	}
	if l := len(s.slots); l != 0 && (l&(l-1) != 0 || s.n*4 > l*3) {
		t.Fatalf("index size %d for %d entries", l, s.n)
	}
	free := 0
	for i := s.free; i >= 0; i = s.ents.at(i).next {
		if e := *s.ents.at(i); e != (entry{next: e.next}) {
			t.Fatalf("free entry %d is not cleared: %+v", i, e)
		}
		if free++; free > s.ents.len() {
			t.Fatal("free list has a cycle")
		}
	}
	if free+s.n != s.ents.len() {
		t.Fatalf("%d free + %d live != %d entries", free, s.n, s.ents.len())
	}
	pooledBytes, beside := 0, 0
	for i := s.head; i >= 0; i = s.ents.at(i).next {
		if _, ok := s.open[i]; ok != (s.ents.at(i).flags&turnsBeside != 0) {
			t.Fatalf("entry %d: open turns beside it %v, flagged %v", i, ok, !ok)
		} else if ok {
			beside++
		}
		if e := s.ents.at(i); e.flags&longKey == 0 {
			pooledBytes += int(e.klen)
		} else if _, ok := s.long[i]; !ok || pooled(s.long[i]) {
			t.Fatalf("entry %d: long id missing or short", i)
		}
	}
	if beside != len(s.open) {
		t.Fatalf("open turns for %d entries, %d flagged", len(s.open), beside)
	}
	if pooledBytes != s.keys.live || s.keys.held < s.keys.live {
		t.Fatalf("key pool counts %d live and %d held bytes; the entries hold %d", s.keys.live, s.keys.held, pooledBytes)
	}
}

func sameState(a, b State) bool {
	return a.Consecutive == b.Consecutive && a.Repeats == b.Repeats && a.Repeated == b.Repeated &&
		a.SameTurn == b.SameTurn && a.Exists == b.Exists && a.LastSeen.Equal(b.LastSeen)
}

func TestRecordCounting(t *testing.T) {
	type step struct {
		usable      bool
		fp          uint64
		consecutive uint32
		repeats     uint32
		repeated    bool
	}
	tests := []struct {
		name  string
		limit uint32
		steps []step
	}{
		{"mistakes count and a usable call resets", 0, []step{
			{false, 1, 1, 1, false},
			{false, 2, 2, 1, false},
			{false, 3, 3, 1, false},
			{true, 4, 0, 1, false},
			{false, 5, 1, 1, false},
			{true, 6, 0, 1, false},
		}},
		{"third identical call is repeated even when usable", 0, []step{
			{true, 7, 0, 1, false},
			{true, 7, 0, 2, false},
			{true, 7, 1, 3, true},
			{true, 7, 2, 4, true},
			{true, 8, 0, 1, false},
		}},
		{"a different call breaks the run", 0, []step{
			{true, 7, 0, 1, false},
			{true, 7, 0, 2, false},
			{true, 8, 0, 1, false},
			{true, 7, 0, 1, false},
			{true, 7, 0, 2, false},
			{true, 7, 1, 3, true},
		}},
		{"fingerprint zero never repeats", 0, []step{
			{true, 0, 0, 1, false},
			{true, 0, 0, 1, false},
			{true, 0, 0, 1, false},
			{false, 0, 1, 1, false},
			{false, 0, 2, 1, false},
		}},
		{"fingerprint zero breaks a run", 0, []step{
			{true, 5, 0, 1, false},
			{true, 5, 0, 2, false},
			{true, 0, 0, 1, false},
			{true, 5, 0, 1, false},
		}},
		{"identical unusable calls count once each", 0, []step{
			{false, 9, 1, 1, false},
			{false, 9, 2, 2, false},
			{false, 9, 3, 3, true},
			{true, 9, 4, 4, true},
			{true, 10, 0, 1, false},
		}},
		{"repeat limit 2", 2, []step{
			{true, 1, 0, 1, false},
			{true, 1, 1, 2, true},
			{true, 2, 0, 1, false},
		}},
		{"repeat limit 1 makes every call repeated", 1, []step{
			{true, 1, 1, 1, true},
			{true, 0, 2, 1, true},
			{true, 2, 3, 1, true},
		}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			m := newTestMemory(t, MemoryOptions{RepeatLimit: tt.limit, Now: clk.Now}, memoryConfig{})
			for i, st := range tt.steps {
				clk.Advance(time.Second)
				got, err := m.Record(ctx, "s", Outcome{Usable: st.usable, Fingerprint: st.fp})
				if err != nil {
					t.Fatal(err)
				}
				want := State{Consecutive: st.consecutive, Repeats: st.repeats, Repeated: st.repeated, LastSeen: clk.Now(), Exists: true}
				if !sameState(got, want) {
					t.Fatalf("step %d: Record = %+v, want %+v", i, got, want)
				}
				if read, err := m.Get(ctx, "s"); err != nil || !sameState(read, got) {
					t.Fatalf("step %d: Get = %+v, %v; want %+v", i, read, err, got)
				}
			}
		})
	}
}

// turnStep is one call of TestOneTurnCountsOnce and the state it leaves.
type turnStep struct {
	exec        bool // ExecuteWrite/ExecuteEdit; false: ValidateToolCall
	usable      bool
	fp          uint64
	call        string
	consecutive uint32
	repeats     uint32
	repeated    bool
	sameTurn    bool
}

// TestOneTurnCountsOnce: an execution of a call the session validated is
// that validation's turn, for mistakes and repeats alike, whatever came
// between (parallel calls, reads).
func TestOneTurnCountsOnce(t *testing.T) {
	const (
		v = false // validated
		x = true  // executed
	)
	tests := []struct {
		name  string
		steps []turnStep
	}{
		{"validate then execute, three turns: repeats 1, 2, 3", []turnStep{
			{v, true, 7, "", 0, 1, false, false},
			{x, true, 7, "", 0, 1, false, true},
			{v, true, 7, "", 0, 2, false, false},
			{x, true, 7, "", 0, 2, false, true},
			{v, true, 7, "", 1, 3, true, false},
			{x, true, 7, "", 1, 3, true, true},
		}},
		{"a failing call validated then executed is one mistake", []turnStep{
			{v, false, 7, "", 1, 1, false, false},
			{x, false, 7, "", 1, 1, false, true},
			{v, false, 7, "", 2, 2, false, false},
			{x, false, 7, "", 2, 2, false, true},
		}},
		{"a usable validation whose execution fails: the turn is a mistake after the earlier ones", []turnStep{
			{v, false, 1, "", 1, 1, false, false},
			{v, false, 2, "", 2, 1, false, false},
			{v, true, 3, "", 0, 1, false, false},
			{x, false, 3, "", 3, 1, false, true},
			{v, true, 4, "", 0, 1, false, false},
		}},
		{"an execution that succeeds where its validation failed resets", []turnStep{
			{v, false, 5, "", 1, 1, false, false},
			{v, false, 6, "", 2, 1, false, false},
			{x, true, 6, "", 0, 1, false, true},
		}},
		{"executions alone are a turn each", []turnStep{
			{x, true, 7, "", 0, 1, false, false},
			{x, true, 7, "", 0, 2, false, false},
			{x, false, 7, "", 1, 3, true, false},
		}},
		{"a second validation is a new turn; the execution joins the last", []turnStep{
			{v, true, 7, "", 0, 1, false, false},
			{v, true, 7, "", 0, 2, false, false},
			{x, true, 7, "", 0, 2, false, true},
		}},
		{"a second execution is a new turn", []turnStep{
			{v, false, 7, "", 1, 1, false, false},
			{x, false, 7, "", 1, 1, false, true},
			{x, false, 7, "", 2, 2, false, false},
		}},
		{"a different call executed is a new turn; an earlier open one is still its own", []turnStep{
			{v, false, 7, "", 1, 1, false, false},
			{x, true, 8, "", 0, 1, false, false},
			{v, true, 7, "", 0, 1, false, false},
			{v, false, 9, "", 1, 1, false, false},
			{x, true, 7, "", 0, 1, false, true},
		}},
		{"the same call id is the same turn whatever the arguments", []turnStep{
			{v, false, 7, "call_1", 1, 1, false, false},
			{x, true, 8, "call_1", 0, 1, false, true},
		}},
		{"different call ids are different turns even for one call", []turnStep{
			{v, true, 7, "call_1", 0, 1, false, false},
			{x, true, 7, "call_2", 0, 2, false, false},
		}},
		{"an id on one side only: the fingerprint decides", []turnStep{
			{v, true, 7, "call_1", 0, 1, false, false},
			{x, true, 7, "", 0, 1, false, true},
			{v, false, 7, "", 1, 2, false, false},
			{x, false, 7, "call_9", 1, 2, false, true},
		}},
		{"parallel calls: two bad calls validated, then executed, count once each", []turnStep{
			{v, false, 7, "call_a", 1, 1, false, false},
			{v, false, 8, "call_b", 2, 1, false, false},
			{x, false, 7, "call_a", 2, 1, false, true},
			{x, false, 8, "call_b", 2, 1, false, true},
			{x, false, 8, "call_b", 3, 2, false, false}, // the turn is closed: a call of its own, repeating
		}},
		{"parallel calls without ids, by fingerprint", []turnStep{
			{v, false, 7, "", 1, 1, false, false},
			{v, false, 8, "", 2, 1, false, false},
			{x, false, 7, "", 2, 1, false, true},
			{x, false, 8, "", 2, 1, false, true},
		}},
		{"a read between a validation and its execution keeps the turn open", []turnStep{
			{v, false, 7, "call_a", 1, 1, false, false},
			{v, true, 5, "", 0, 1, false, false}, // read_file
			{x, false, 7, "call_a", 0, 1, false, true},
			{v, false, 9, "call_b", 1, 1, false, false},
			{v, true, 5, "", 0, 1, false, false},
			{x, true, 9, "call_b", 0, 1, false, true},
		}},
		{"fingerprint zero joins no turn, unless by id", []turnStep{
			{v, false, 0, "", 1, 1, false, false},
			{x, false, 0, "", 2, 1, false, false},
			{v, false, 0, "call_1", 3, 1, false, false},
			{x, false, 0, "call_1", 3, 1, false, true},
		}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			m := newTestMemory(t, MemoryOptions{Now: clk.Now}, memoryConfig{})
			for i, st := range tt.steps {
				clk.Advance(time.Second)
				got, err := m.Record(ctx, "s", Outcome{Usable: st.usable, Fingerprint: st.fp, CallID: st.call, Execution: st.exec})
				if err != nil {
					t.Fatal(err)
				}
				want := State{Consecutive: st.consecutive, Repeats: st.repeats, Repeated: st.repeated, SameTurn: st.sameTurn, LastSeen: clk.Now(), Exists: true}
				if !sameState(got, want) {
					t.Fatalf("step %d: Record = %+v, want %+v", i, got, want)
				}
				want.SameTurn = false // a property of a Record, not of the session
				if read, err := m.Get(ctx, "s"); err != nil || !sameState(read, want) {
					t.Fatalf("step %d: Get = %+v, %v; want %+v", i, read, err, want)
				}
			}
		})
	}
}

func TestCountersSaturate(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{}, memoryConfig{})
	if _, err := m.Record(ctx, "s", Outcome{Fingerprint: 1}); err != nil {
		t.Fatal(err)
	}
	e := entryOf(m, "s")
	e.consecutive, e.repeats = math.MaxUint32-1, math.MaxUint32-1
	for range 2 {
		st, err := m.Record(ctx, "s", Outcome{Usable: true, Fingerprint: 1})
		if err != nil {
			t.Fatal(err)
		}
		if st.Consecutive != math.MaxUint32 || st.Repeats != math.MaxUint32 || !st.Repeated {
			t.Fatalf("Record = %+v, want saturated counters", st)
		}
	}
}

func TestGetAndReset(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	m := newTestMemory(t, MemoryOptions{Now: clk.Now}, memoryConfig{})

	if st, err := m.Get(ctx, "a"); err != nil || st != (State{}) {
		t.Fatalf("Get unknown = %+v, %v; want zero State", st, err)
	}
	for _, id := range []string{"a", "b", ""} {
		m.Record(ctx, id, Outcome{Fingerprint: 1})
		m.Record(ctx, id, Outcome{Fingerprint: 1})
	}
	if err := m.Reset(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Get(ctx, "a"); st != (State{}) {
		t.Fatalf("Get after Reset = %+v, want zero State", st)
	}
	if err := m.Reset(ctx, "a"); err != nil {
		t.Fatalf("Reset unknown: %v", err)
	}
	for _, id := range []string{"b", ""} {
		if st, _ := m.Get(ctx, id); !st.Exists || st.Consecutive != 2 || st.Repeats != 2 {
			t.Fatalf("Get(%q) = %+v; Reset of another session disturbed it", id, st)
		}
	}
	st, _ := m.Record(ctx, "a", Outcome{Fingerprint: 1})
	if st.Consecutive != 1 || st.Repeats != 1 {
		t.Fatalf("Record after Reset = %+v, want a fresh session", st)
	}
	if n := m.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	checkInvariants(t, m)
}

func TestLastSeenIsWallClock(t *testing.T) {
	m := newTestMemory(t, MemoryOptions{}, memoryConfig{})
	st, err := m.Record(context.Background(), "s", Outcome{Usable: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.LastSeen.IsZero() || st.LastSeen != st.LastSeen.Round(0) {
		t.Fatalf("LastSeen %v: want a wall-clock time without a monotonic reading", st.LastSeen)
	}
}

func TestTTLExpiry(t *testing.T) {
	const ttl = time.Minute
	ctx := context.Background()
	clk := newFakeClock()
	m := newTestMemory(t, MemoryOptions{TTL: ttl, Now: clk.Now}, memoryConfig{})

	m.Record(ctx, "a", Outcome{Fingerprint: 1})
	m.Record(ctx, "a", Outcome{Fingerprint: 1})
	clk.Advance(ttl - 1)
	if st, _ := m.Get(ctx, "a"); !st.Exists || st.Consecutive != 2 {
		t.Fatalf("Get just before TTL = %+v, want the session", st)
	}
	// The Get above did not refresh the session: it expires TTL after its
	// last Record.
	clk.Advance(1)
	if st, _ := m.Get(ctx, "a"); st != (State{}) {
		t.Fatalf("Get at TTL = %+v, want zero State", st)
	}
	st, _ := m.Record(ctx, "a", Outcome{Fingerprint: 1})
	if st.Consecutive != 1 || st.Repeats != 1 || st.Repeated {
		t.Fatalf("Record after expiry = %+v, want a fresh session", st)
	}

	// A Record refreshes the session.
	clk.Advance(ttl / 2)
	m.Record(ctx, "a", Outcome{Fingerprint: 1})
	clk.Advance(ttl/2 + 1)
	if st, _ := m.Get(ctx, "a"); !st.Exists || st.Repeats != 2 {
		t.Fatalf("Get = %+v, want the refreshed session", st)
	}

	// An expired session is found fresh by Record even before any sweep.
	clk.Advance(ttl)
	st, _ = m.Record(ctx, "a", Outcome{Fingerprint: 1})
	if st.Consecutive != 1 || st.Repeats != 1 {
		t.Fatalf("Record after expiry = %+v, want a fresh session", st)
	}
	checkInvariants(t, m)
}

func TestRecordSweepsExpired(t *testing.T) {
	const ttl = time.Minute
	ctx := context.Background()
	clk := newFakeClock()
	m := newTestMemory(t, MemoryOptions{TTL: ttl, Now: clk.Now}, memoryConfig{shards: 1})

	for i := range 2 * sweepPerCall {
		m.Record(ctx, fmt.Sprint("old", i), Outcome{})
	}
	clk.Advance(ttl)
	m.Record(ctx, "new", Outcome{})
	if n, want := m.Len(), sweepPerCall+1; n != want {
		t.Fatalf("Len = %d, want %d: a Record sweeps %d expired sessions", n, want, sweepPerCall)
	}
	m.Record(ctx, "new", Outcome{})
	if n := m.Len(); n != 1 {
		t.Fatalf("Len = %d, want 1", n)
	}
	checkInvariants(t, m)
}

func TestJanitor(t *testing.T) {
	const ttl = time.Minute
	ctx := context.Background()
	clk := newFakeClock()
	tick := make(chan time.Time)
	m := newTestMemory(t, MemoryOptions{TTL: ttl, MaxSessions: 1 << 16, Now: clk.Now}, memoryConfig{tick: tick, shards: 1})
	// sweep runs one janitor pass: the janitor takes the second tick only
	// after it has finished the pass started by the first.
	sweep := func() { tick <- time.Time{}; tick <- time.Time{} }

	const n = 5 * janitorBatch
	for i := range n {
		m.Record(ctx, fmt.Sprint("old", i), Outcome{})
	}
	clk.Advance(ttl / 2)
	m.Record(ctx, "young", Outcome{})
	sweep()
	if got := m.Len(); got != n+1 {
		t.Fatalf("Len = %d, want %d: nothing has expired yet", got, n+1)
	}
	clk.Advance(ttl / 2)
	sweep()
	if got := m.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1 after the sweep", got)
	}
	checkInvariants(t, m)
	s := &m.shards[m.hash("young")&m.shardMask]
	s.mu.Lock()
	entries, slots := s.ents.len(), len(s.slots)
	s.mu.Unlock()
	if entries > shrinkMin || slots > 8 {
		t.Fatalf("after the sweep the shard keeps %d entries and %d slots; want it compacted", entries, slots)
	}
	clk.Advance(ttl)
	sweep()
	if got := m.Len(); got != 0 {
		t.Fatalf("Len = %d, want 0", got)
	}
	checkInvariants(t, m)
}

func TestCompaction(t *testing.T) {
	for _, hash := range []struct {
		name string
		fn   func(string) uint64
	}{{"maphash", nil}, {"colliding", collidingHash}} {
		t.Run(hash.name, func(t *testing.T) {
			ctx := context.Background()
			m := newTestMemory(t, MemoryOptions{MaxSessions: 1 << 16}, memoryConfig{shards: 1, hash: hash.fn})
			const n = 3000
			for i := range n {
				for range i%5 + 1 {
					m.Record(ctx, fmt.Sprint("id", i), Outcome{})
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			order := rng.Perm(n)
			kept := order[:n/10]
			for j, i := range order[n/10:] {
				m.Reset(ctx, fmt.Sprint("id", i))
				if j%500 == 0 {
					checkInvariants(t, m)
				}
			}
			checkInvariants(t, m)
			if got := m.shards[0].ents.len(); got >= n {
				t.Fatalf("entries length %d after removing 90%%: not compacted", got)
			}
			for _, i := range kept {
				st, _ := m.Get(ctx, fmt.Sprint("id", i))
				if want := uint32(i%5 + 1); !st.Exists || st.Consecutive != want {
					t.Fatalf("id%d: Get = %+v, want Consecutive %d", i, st, want)
				}
			}
			// The compacted list keeps the recording order.
			m.Record(ctx, "new", Outcome{})
			checkInvariants(t, m)
		})
	}
}

func TestEvictsLeastRecentlyRecorded(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	m := newTestMemory(t, MemoryOptions{MaxSessions: 3, Now: clk.Now}, memoryConfig{})
	record := func(id string) {
		t.Helper()
		clk.Advance(time.Second)
		if _, err := m.Record(ctx, id, Outcome{}); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(id string) bool {
		st, _ := m.Get(ctx, id)
		return st.Exists
	}
	check := func(present, absent []string) {
		t.Helper()
		for _, id := range present {
			if !exists(id) {
				t.Errorf("%s evicted", id)
			}
		}
		for _, id := range absent {
			if exists(id) {
				t.Errorf("%s still present", id)
			}
		}
		if n := m.Len(); n != 3 {
			t.Errorf("Len = %d, want 3", n)
		}
	}

	record("a")
	record("b")
	record("c")
	// Reading a does not make it recent, so it is still the one evicted.
	exists("a")
	record("d")
	check([]string{"b", "c", "d"}, []string{"a"})
	// Recording b does: c is now the least recently recorded.
	record("b")
	record("e")
	check([]string{"b", "d", "e"}, []string{"c"})
	checkInvariants(t, m)
}

func TestActiveSessionSurvivesRandomIDs(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{MaxSessions: 1000}, memoryConfig{})
	rng := rand.New(rand.NewPCG(3, 4))
	const rounds = 100_000
	for range rounds {
		m.Record(ctx, "agent", Outcome{})
		m.Record(ctx, fmt.Sprintf("%016x", rng.Uint64()), Outcome{})
	}
	if n := m.Len(); n > 1000 {
		t.Fatalf("Len = %d, over MaxSessions", n)
	}
	if st, _ := m.Get(ctx, "agent"); st.Consecutive != rounds {
		t.Fatalf("agent: Get = %+v, want Consecutive %d", st, rounds)
	}
	checkInvariants(t, m)
}

func TestShardSizing(t *testing.T) {
	tests := []struct {
		maxSessions      int
		shards, perShard int
	}{
		{0, 64, 1563}, // default 100000
		{-5, 64, 1563},
		{1, 1, 1},
		{3, 1, 3},
		{511, 1, 511},
		{512, 2, 256},
		{1001, 2, 501},
		{4096, 16, 256},
		{100_000, 64, 1563},
		{math.MaxInt, 64, maxPerShard},
	}
	for _, tt := range tests {
		m := newTestMemory(t, MemoryOptions{MaxSessions: tt.maxSessions}, memoryConfig{})
		if len(m.shards) != tt.shards || m.shards[0].limit != tt.perShard {
			t.Errorf("MaxSessions %d: %d shards of %d, want %d of %d",
				tt.maxSessions, len(m.shards), m.shards[0].limit, tt.shards, tt.perShard)
		}
	}
}

func TestShardedCap(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{MaxSessions: 4096}, memoryConfig{})
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50_000 {
		m.Record(ctx, fmt.Sprintf("%016x", rng.Uint64()), Outcome{})
	}
	if n := m.Len(); n != 4096 {
		t.Fatalf("Len = %d, want every shard full at 4096", n)
	}
	checkInvariants(t, m)
}

// model is a straightforward reference implementation of the store's
// semantics with eager expiry, for differential testing.
type model struct {
	ttl      time.Duration
	max      int
	limit    uint32
	seq      int
	sessions map[string]*modelSession
}

type modelSession struct {
	st  State
	fp  uint64
	seq int
}

func (md *model) expire(now time.Time) {
	for id, s := range md.sessions {
		if now.Sub(s.st.LastSeen) >= md.ttl {
			delete(md.sessions, id)
		}
	}
}

func (md *model) record(id string, o Outcome, now time.Time) State {
	md.expire(now)
	s := md.sessions[id]
	if s == nil {
		if len(md.sessions) >= md.max {
			oldest := ""
			for id, s := range md.sessions {
				if oldest == "" || s.seq < md.sessions[oldest].seq {
					oldest = id
				}
			}
			delete(md.sessions, oldest)
		}
		s = &modelSession{}
		md.sessions[id] = s
	}
	repeats := uint32(1)
	if s.st.Exists && o.Fingerprint != 0 && o.Fingerprint == s.fp {
		repeats = s.st.Repeats + 1
	}
	c := uint32(0)
	if !o.Usable || repeats >= md.limit {
		c = s.st.Consecutive + 1
	}
	md.seq++
	s.seq, s.fp = md.seq, o.Fingerprint
	s.st = State{Consecutive: c, Repeats: repeats, Repeated: repeats >= md.limit, LastSeen: now, Exists: true}
	return s.st
}

func (md *model) get(id string, now time.Time) State {
	md.expire(now)
	if s := md.sessions[id]; s != nil {
		return s.st
	}
	return State{}
}

func TestMatchesModel(t *testing.T) {
	const (
		ttl  = time.Minute
		max  = 64
		keys = 160
		ops  = 30_000
	)
	for _, hash := range []struct {
		name string
		fn   func(string) uint64
	}{{"maphash", nil}, {"colliding", collidingHash}} {
		t.Run(hash.name, func(t *testing.T) {
			ctx := context.Background()
			clk := newFakeClock()
			m := newTestMemory(t, MemoryOptions{TTL: ttl, MaxSessions: max, Now: clk.Now}, memoryConfig{hash: hash.fn})
			md := &model{ttl: ttl, max: max, limit: DefaultRepeatLimit, sessions: map[string]*modelSession{}}
			rng := rand.New(rand.NewPCG(7, 8))
			for op := range ops {
				clk.Advance(time.Duration(rng.Int64N(int64(ttl / 40))))
				id := fmt.Sprint("k", rng.IntN(keys))
				now := clk.Now()
				switch r := rng.IntN(10); {
				case r < 6:
					o := Outcome{Usable: rng.IntN(2) == 0, Fingerprint: uint64(rng.IntN(3))}
					got, err := m.Record(ctx, id, o)
					if want := md.record(id, o, now); err != nil || !sameState(got, want) {
						t.Fatalf("op %d: Record(%s, %+v) = %+v, %v; want %+v", op, id, o, got, err, want)
					}
				case r < 9:
					got, err := m.Get(ctx, id)
					if want := md.get(id, now); err != nil || !sameState(got, want) {
						t.Fatalf("op %d: Get(%s) = %+v, %v; want %+v", op, id, got, err, want)
					}
				default:
					if err := m.Reset(ctx, id); err != nil {
						t.Fatal(err)
					}
					delete(md.sessions, id)
				}
				if op%101 == 0 {
					checkInvariants(t, m)
				}
			}
			checkInvariants(t, m)
		})
	}
}

func TestConcurrentRecords(t *testing.T) {
	ctx := context.Background()
	m := newTestMemory(t, MemoryOptions{}, memoryConfig{})
	const (
		goroutines = 16
		calls      = 500
	)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			own := fmt.Sprint("own", g)
			for i := range calls {
				// Every goroutine's mistakes land on one shared session:
				// Record must be atomic for none to be lost.
				if _, err := m.Record(ctx, "shared", Outcome{}); err != nil {
					t.Error(err)
					return
				}
				m.Record(ctx, own, Outcome{Usable: i%2 == 0, Fingerprint: uint64(i%2) + 1})
				m.Get(ctx, fmt.Sprint("own", (g+i)%goroutines))
				m.Record(ctx, fmt.Sprint("tmp", g, i), Outcome{})
				m.Reset(ctx, fmt.Sprint("tmp", g, i))
				if i%50 == 0 {
					m.Len()
				}
			}
		})
	}
	wg.Wait()
	if st, _ := m.Get(ctx, "shared"); st.Consecutive != goroutines*calls {
		t.Fatalf("shared: Consecutive %d, want %d", st.Consecutive, goroutines*calls)
	}
	for g := range goroutines {
		// The last call (i = calls-1, odd) was unusable after a usable one.
		if st, _ := m.Get(ctx, fmt.Sprint("own", g)); st.Consecutive != 1 || st.Repeats != 1 {
			t.Fatalf("own%d: Get = %+v, want Consecutive 1, Repeats 1", g, st)
		}
	}
	if n := m.Len(); n != goroutines+1 {
		t.Fatalf("Len = %d, want %d", n, goroutines+1)
	}
	checkInvariants(t, m)
}

func TestConcurrentChurn(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	tick := make(chan time.Time)
	m := newTestMemory(t, MemoryOptions{TTL: time.Second, MaxSessions: 2048, Now: clk.Now}, memoryConfig{tick: tick})
	stop := make(chan struct{})
	var ticker sync.WaitGroup
	ticker.Go(func() {
		for {
			select {
			case tick <- time.Time{}:
			case <-stop:
				return
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 5000 {
				clk.Advance(time.Duration(rng.IntN(int(time.Millisecond))))
				id := fmt.Sprint(rng.IntN(10_000))
				switch rng.IntN(4) {
				case 0:
					m.Get(ctx, id)
				case 1:
					m.Reset(ctx, id)
				default:
					m.Record(ctx, id, Outcome{Usable: rng.IntN(2) == 0, Fingerprint: uint64(rng.IntN(2))})
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	ticker.Wait()
	checkInvariants(t, m)
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(MemoryOptions{})
	m.Record(ctx, "a", Outcome{})
	for range 2 {
		if err := m.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if _, err := m.Record(ctx, "a", Outcome{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Record after Close: %v, want ErrClosed", err)
	}
	if _, err := m.Get(ctx, "a"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}
	if err := m.Reset(ctx, "a"); !errors.Is(err, ErrClosed) {
		t.Errorf("Reset after Close: %v, want ErrClosed", err)
	}
	if n := m.Len(); n != 0 {
		t.Errorf("Len after Close = %d, want 0", n)
	}
	select {
	case <-m.jan.done:
	default:
		t.Error("janitor still running after Close")
	}
}

func TestCloseWhileRecording(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(MemoryOptions{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				_, err := m.Record(ctx, fmt.Sprint(g, "-", i%100), Outcome{})
				if i == 0 {
					started <- struct{}{}
				}
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 8 {
		<-started
	}
	m.Close()
	wg.Wait()
}

func TestCanceledContext(t *testing.T) {
	m := newTestMemory(t, MemoryOptions{}, memoryConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Record(ctx, "a", Outcome{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Record: %v, want context.Canceled", err)
	}
	if _, err := m.Get(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get: %v, want context.Canceled", err)
	}
	if err := m.Reset(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Reset: %v, want context.Canceled", err)
	}
	if n := m.Len(); n != 0 {
		t.Errorf("Len = %d: a canceled Record created a session", n)
	}
}

// TestUnclosedStoreStopsJanitor checks that the garbage collector stops the
// janitor of a store dropped without Close.
func TestUnclosedStoreStopsJanitor(t *testing.T) {
	done := func() <-chan struct{} {
		m := NewMemory(MemoryOptions{})
		return m.jan.done
	}()
	for range 1000 {
		runtime.GC()
		select {
		case <-done:
			return
		default:
			runtime.Gosched()
		}
	}
	t.Fatal("janitor of an unreachable store still running")
}

// uuidString writes a random-looking UUID string derived from i into buf.
func uuidString(buf *[36]byte, i uint64) {
	const hex = "0123456789abcdef"
	mix := func(x uint64) uint64 { // splitmix64
		x += 0x9e3779b97f4a7c15
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		return x ^ x>>31
	}
	hi, lo := mix(2*i), mix(2*i+1)
	n := 0
	for k := range 32 {
		if k == 8 || k == 12 || k == 16 || k == 20 {
			buf[n] = '-'
			n++
		}
		v := hi
		if k >= 16 {
			v = lo
		}
		buf[n] = hex[v>>(60-4*(k%16))&0xf]
		n++
	}
}

// BenchmarkMemoryIdleSessions measures the heap held by one million idle
// sessions with UUID-string ids: the live heap after GC, before and after
// inserting them.
func BenchmarkMemoryIdleSessions(b *testing.B) {
	const sessions = 1_000_000
	ctx := context.Background()
	var perSession, total float64
	for b.Loop() {
		// A cap above the session count, so that no shard evicts.
		m := NewMemory(MemoryOptions{MaxSessions: 2 * sessions})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var buf [36]byte
		for i := range sessions {
			uuidString(&buf, uint64(i))
			if _, err := m.Record(ctx, string(buf[:]), Outcome{Usable: true, Fingerprint: uint64(i) + 1}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if n := m.Len(); n != sessions {
			b.Fatalf("Len = %d, want %d", n, sessions)
		}
		delta := float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
		perSession, total = delta/sessions, delta/1e6
		m.Close()
	}
	b.ReportMetric(perSession, "B/session")
	b.ReportMetric(total, "MB")
}

// BenchmarkRecord measures the hot path: Record on existing sessions from
// many goroutines.
func BenchmarkRecord(b *testing.B) {
	ctx := context.Background()
	m := NewMemory(MemoryOptions{})
	defer m.Close()
	ids := make([]string, 4096)
	var buf [36]byte
	for i := range ids {
		uuidString(&buf, uint64(i))
		ids[i] = string(buf[:])
		m.Record(ctx, ids[i], Outcome{})
	}
	var start atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := start.Add(977)
		for pb.Next() {
			i++
			o := Outcome{Usable: i%4 != 0, Fingerprint: i % 3}
			if _, err := m.Record(ctx, ids[i%uint64(len(ids))], o); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestRecordFullTurnsAllocateNothing: a session that only validates keeps
// MaxOpenTurns open turns, and recording one more, the oldest dropped,
// reuses their array.
func TestRecordFullTurnsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(MemoryOptions{})
	defer m.Close()
	fp := uint64(0)
	record := func() {
		fp++
		if _, err := m.Record(ctx, "s", Outcome{Usable: true, Fingerprint: fp}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 * MaxOpenTurns {
		record()
	}
	// Per run, as many calls as the bound: AllocsPerRun rounds down.
	if n := testing.AllocsPerRun(20, func() {
		for range MaxOpenTurns {
			record()
		}
	}); n != 0 {
		t.Errorf("%d Records with full open turns: %v allocations, want 0", MaxOpenTurns, n)
	}
}
