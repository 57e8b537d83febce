package session

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// ErrClosed is returned by a store's methods once Close has been called.
var ErrClosed = errors.New("session: store closed")

const (
	// A zero MemoryOptions behaves like an unconfigured server.
	defaultTTL         = time.Hour
	defaultMaxSessions = 100_000

	// 64 mutexes keep contention negligible; more would spread small caps thin.
	maxShards = 64
	// The cap is per shard, so a shard holding few sessions would evict by
	// hash rather than recency: a few hundred keep eviction close to an LRU.
	minPerShard = 256
	maxPerShard = 1 << 30 // entry indices are int32

	// Expired sessions an operation sweeps from its shard: bounded, so a call
	// stays fast after a long idle period.
	sweepPerCall = 8
	// Expired sessions the janitor sweeps per lock hold.
	janitorBatch = 1024
	// Entry arrays shorter than this are not worth compacting.
	shrinkMin = 256
)

// MemoryOptions configures a Memory store; the zero value is usable.
type MemoryOptions struct {
	// TTL is how long a session may stay idle before it expires; <= 0 is
	// one hour.
	TTL time.Duration
	// MaxSessions caps the sessions kept, evicting the least recently
	// recorded; <= 0 is 100000.
	MaxSessions int
	// RepeatLimit is the run of identical calls that makes a call a repeated
	// call; zero is DefaultRepeatLimit.
	RepeatLimit uint32
	// Now returns the current time; nil is time.Now. It runs under a shard
	// lock and must not call back into the store.
	Now func() time.Time
}

// Memory is a Store in process memory, for a single replica. Sessions are
// spread over up to 64 shards by a hash seeded per store, so clients cannot
// aim ids at one shard. Idle sessions expire and are swept lazily, by calls
// and a janitor; MaxSessions is enforced per shard. Only Record makes a
// session recent: a dashboard polling Get must not keep it alive. An idle
// session with a UUID id costs about 82 bytes (BenchmarkMemoryIdleSessions),
// and filling a store leaves almost no garbage (BenchmarkMemoryFillRSS).
type Memory struct {
	shards    []shard
	shardMask uint64
	hash      func(string) uint64
	clock     clock
	ttl       int64 // nanoseconds
	limit     uint32
	jan       *janitor // nil when the janitor is disabled (tests)
}

var _ Store = (*Memory)(nil)

type memoryConfig struct {
	shards    int                 // power of two; 0 picks from MaxSessions
	hash      func(string) uint64 // nil: seeded maphash
	tick      <-chan time.Time    // janitor wake-ups; nil: a ticker
	noJanitor bool                // run no janitor goroutine
}

// NewMemory returns an in-memory store with its janitor running. Call Close
// to stop it; a store dropped without Close has it stopped by the garbage
// collector, but not promptly.
func NewMemory(opts MemoryOptions) *Memory {
	return newMemory(opts, memoryConfig{})
}

func newMemory(opts MemoryOptions, cfg memoryConfig) *Memory {
	c := newCommon(opts.TTL, opts.RepeatLimit, opts.Now)
	ttl, now := c.ttl, c.now
	maxSessions := opts.MaxSessions
	if maxSessions <= 0 {
		maxSessions = defaultMaxSessions
	}
	hash := cfg.hash
	if hash == nil {
		seed := maphash.MakeSeed()
		hash = func(id string) uint64 { return maphash.String(seed, id) }
	}
	n := cfg.shards
	if n <= 0 {
		n = 1
		for n < maxShards && maxSessions/(2*n) >= minPerShard {
			n *= 2
		}
	}
	perShard := maxSessions / n
	if maxSessions%n != 0 {
		perShard++ // round up, so the shards together hold at least MaxSessions
	}
	perShard = min(perShard, maxPerShard)

	m := &Memory{
		shards:    make([]shard, n),
		shardMask: uint64(n - 1),
		hash:      hash,
		// Ages are measured on the monotonic clock: a wall-clock step
		// neither expires nor revives sessions.
		clock: clock{base: now(), now: now},
		ttl:   int64(ttl),
		limit: c.limit,
	}
	for i := range m.shards {
		m.shards[i].init(perShard, hash)
	}
	if !cfg.noJanitor {
		m.jan = &janitor{stop: make(chan struct{}), done: make(chan struct{})}
		tick := cfg.tick
		var ticker *time.Ticker
		if tick == nil {
			ticker = time.NewTicker(min(max(ttl/4, time.Second), time.Minute))
			tick = ticker.C
		}
		// The goroutine must not reference m, or the cleanup could never run.
		go runJanitor(m.jan, ticker, tick, m.shards, m.clock, m.ttl)
		runtime.AddCleanup(m, (*janitor).halt, m.jan)
	}
	return m
}

// Record applies one call's outcome to the session, creating it if needed.
func (m *Memory) Record(ctx context.Context, id string, o Outcome) (State, error) {
	if err := ctx.Err(); err != nil {
		return State{}, err
	}
	h := m.hash(id)
	s := &m.shards[h&m.shardMask]
	sh := slotHash(h)

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return State{}, ErrClosed
	}
	// The clock is read under the lock, so the LRU list is also sorted by
	// lastSeen and expiry stops at the first live entry from the tail.
	now := m.clock.offset()
	s.sweep(now, m.ttl, sweepPerCall)

	pos, idx := s.lookup(id, sh)
	if idx >= 0 && now-s.ents.at(idx).lastSeen >= m.ttl {
		s.removeAt(pos)
		idx = -1
	}
	var prev counters
	if idx < 0 {
		if s.n >= s.limit {
			s.removeEntry(s.tail)
		}
		idx = s.insert(id, sh)
	} else {
		prev = s.ents.at(idx).counters
		s.moveToFront(idx)
	}
	next, turns, sameTurn := nextTurns(prev, s.turns(idx), o, m.limit, now, int64(OpenTurnTTL))
	e := s.ents.at(idx)
	e.lastSeen = now
	e.counters = next
	s.setTurns(idx, turns)
	s.maybeShrink()
	s.mu.Unlock()

	return State{
		Consecutive: next.mistakes(),
		Repeats:     next.repeats,
		Repeated:    next.repeats >= m.limit,
		SameTurn:    sameTurn,
		LastSeen:    m.clock.at(now),
		Exists:      true,
	}, nil
}

// counters are a session's counts, 16 bytes; its latest open turn is in
// its entry when it can be, and the others beside it (shard.open).
type counters struct {
	fingerprint uint64
	consecutive uint32
	repeats     uint32
}

// mistakes returns the consecutive mistakes, open turns included.
func (c counters) mistakes() uint32 { return c.consecutive }

// Get returns the session's state (zero when unknown or expired) without
// making it recent.
func (m *Memory) Get(ctx context.Context, id string) (State, error) {
	if err := ctx.Err(); err != nil {
		return State{}, err
	}
	h := m.hash(id)
	s := &m.shards[h&m.shardMask]

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return State{}, ErrClosed
	}
	now := m.clock.offset()
	pos, idx := s.lookup(id, slotHash(h))
	if idx < 0 {
		s.mu.Unlock()
		return State{}, nil
	}
	e := *s.ents.at(idx)
	if now-e.lastSeen >= m.ttl {
		s.removeAt(pos)
		s.maybeShrink()
		s.mu.Unlock()
		return State{}, nil
	}
	s.mu.Unlock()

	return State{
		Consecutive: e.mistakes(),
		Repeats:     e.repeats,
		Repeated:    e.repeats >= m.limit,
		LastSeen:    m.clock.at(e.lastSeen),
		Exists:      true,
	}, nil
}

// Reset forgets the session; resetting an unknown session is not an error.
func (m *Memory) Reset(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h := m.hash(id)
	s := &m.shards[h&m.shardMask]

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if pos, idx := s.lookup(id, slotHash(h)); idx >= 0 {
		s.removeAt(pos)
		s.maybeShrink()
	}
	return nil
}

// Len returns the number of sessions held, expired ones not yet swept
// included, for metrics and tests.
func (m *Memory) Len() int {
	total := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		total += s.n
		s.mu.Unlock()
	}
	return total
}

// Close stops the janitor and drops every session; later calls return
// ErrClosed. It is idempotent.
func (m *Memory) Close() error {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		s.closed = true
		s.release()
		s.mu.Unlock()
	}
	if m.jan != nil {
		m.jan.halt()
		<-m.jan.done
	}
	return nil
}

// satInc returns v+1 without wrapping: a pathological session must not
// appear healthy again.
func satInc(v uint32) uint32 {
	if v == math.MaxUint32 {
		return v
	}
	return v + 1
}

// slotHash is a shard's index hash: the high bits, since the low ones chose
// the shard and are all equal within it.
func slotHash(h uint64) uint32 { return uint32(h >> 32) }

// clock measures time as int64 offsets from a base reading: 8 bytes instead
// of 24 and no pointer to scan, on the monotonic clock.
type clock struct {
	base time.Time
	now  func() time.Time
}

func (c clock) offset() int64 { return int64(c.now().Sub(c.base)) }

// at converts an offset back to a wall-clock time, as a shared store returns.
func (c clock) at(offset int64) time.Time {
	return c.base.Add(time.Duration(offset)).Round(0)
}

// janitor stops the sweeping goroutine, which holds it without keeping the
// Memory reachable.
type janitor struct {
	once sync.Once
	stop chan struct{}
	done chan struct{}
}

func (j *janitor) halt() { j.once.Do(func() { close(j.stop) }) }

func runJanitor(j *janitor, ticker *time.Ticker, tick <-chan time.Time, shards []shard, c clock, ttl int64) {
	defer close(j.done)
	if ticker != nil {
		defer ticker.Stop()
	}
	for {
		select {
		case <-j.stop:
			return
		case <-tick:
			for i := range shards {
				sweepShard(&shards[i], c, ttl)
			}
		}
	}
}

// sweepShard removes every expired session of s, in batches, so callers
// are not held up behind a large backlog.
func sweepShard(s *shard, c clock, ttl int64) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		more := s.sweep(c.offset(), ttl, janitorBatch)
		s.maybeShrink()
		s.mu.Unlock()
		if !more {
			return
		}
	}
}

// entry is one session, 48 bytes on 64-bit platforms and no pointers; keep
// it so. Entries refer to each other and to their ids by index: half a
// pointer, and nothing for the collector to scan.
type entry struct {
	lastSeen int64 // clock offset of the last Record
	counters
	// call is the call key of the latest open turn, when flags has
	// turnInline (inlineTurn).
	call uint64
	// The id: klen bytes at koff in the key pool's block kblock, or
	// shard.long's string when flags has longKey.
	kblock uint32
	koff   uint16
	klen   uint8
	flags  uint8
	// prev and next link the LRU list (prev towards the most recent; -1
	// ends it); a free entry links the free list through next.
	prev, next int32
}

// Bits of entry.flags.
const (
	longKey     uint8 = 1 << iota // the id is in shard.long
	turnInline                    // the entry holds its latest open turn
	turnFailed                    // and that turn's validation was a mistake
	uuidKey                       // the id's pooled bytes end in a packed UUID (memory_key.go)
	turnsBeside                   // shard.open holds other open turns
)

// inlineTurn returns the open turn an entry holds. A validation that opens
// a turn leaves in the entry everything but the turn's call key: its
// fingerprint, its time, and the mistakes before it (the count less the
// turn's own mistake). Most sessions idle with that one turn open.
func inlineTurn(e *entry) openTurn {
	t := openTurn{call: e.call, fingerprint: e.fingerprint, base: e.consecutive, at: e.lastSeen}
	if e.flags&turnFailed != 0 {
		t.failed = true
		t.base--
	}
	return t
}

// slot is one cell of a shard's open-addressing index.
type slot struct {
	// hash (slotHash) finds the home cell without reading the entry and
	// filters most cells before the key is compared.
	hash uint32
	// ref is the entry index plus one, so the zero slot is empty.
	ref int32
}

// shard is one lock's worth of sessions: an LRU list of entries indexed by
// a linear-probing table with backward-shift deletion (no tombstones, so
// lookups do not slow down as sessions churn).
type shard struct {
	mu     sync.Mutex
	closed bool
	n      int // live entries
	limit  int // max live entries
	hash   func(string) uint64

	ents entryPool
	keys keyPool
	// slots is a power of two long and at most three-quarters full.
	slots      []slot
	head, tail int32 // most and least recently recorded; -1 when empty
	free       int32 // first free entry; -1 when none
	// open holds the open turns (turns.go) that entries cannot hold, by
	// entry index: most sessions have at most one, held inline.
	open map[int32][]openTurn
	// long holds the ids too long to pool, by entry index.
	long map[int32]string
	// one holds a Record's open turns when the entry held its only one.
	one [1]openTurn
	// kbuf holds the id key unpacked last.
	kbuf [maxPooledKey]byte

	// The padding keeps the next shard's mutex off this shard's cache lines.
	_ [64]byte
}

// turns returns the open turns of entry idx, oldest first; in s.one when
// the entry holds at most one, so a Record allocates nothing. The slice
// may share s.open[idx]'s array: setTurns replaces it.
func (s *shard) turns(idx int32) []openTurn {
	e := s.ents.at(idx)
	var ts []openTurn
	if e.flags&turnsBeside != 0 {
		ts = s.open[idx]
	}
	if e.flags&turnInline == 0 {
		if ts == nil {
			return s.one[:0] // a validation's new turn is appended here
		}
		return ts
	}
	if len(ts) == 0 {
		s.one[0] = inlineTurn(e)
		return s.one[:]
	}
	return append(ts, inlineTurn(e))
}

// setTurns keeps the open turns of entry idx, whose counters and lastSeen
// are those after the call: the latest in the entry when inlineTurn gives
// it back exactly, the others in s.open.
func (s *shard) setTurns(idx int32, turns []openTurn) {
	e := s.ents.at(idx)
	e.flags &^= turnInline | turnFailed
	e.call = 0
	if n := len(turns); n > 0 {
		last := turns[n-1]
		e.call, e.flags = last.call, e.flags|turnInline
		if last.failed {
			e.flags |= turnFailed
		}
		if inlineTurn(e) == last {
			turns = turns[:n-1]
		} else {
			e.flags &^= turnInline | turnFailed
			e.call = 0
		}
	}
	if len(turns) == 0 {
		if e.flags&turnsBeside != 0 {
			delete(s.open, idx)
			e.flags &^= turnsBeside
		}
		return
	}
	e.flags |= turnsBeside
	if &turns[0] == &s.one[0] {
		turns = slices.Clone(turns)
	}
	if s.open == nil {
		s.open = make(map[int32][]openTurn)
	}
	s.open[idx] = turns
}

func (s *shard) init(limit int, hash func(string) uint64) {
	s.limit = limit
	s.hash = hash
	s.head, s.tail, s.free = -1, -1, -1
}

func (s *shard) release() {
	s.ents, s.slots = entryPool{}, nil
	s.keys = keyPool{}
	s.open, s.long = nil, nil
	s.n = 0
	s.head, s.tail, s.free = -1, -1, -1
}

// lookup returns the slot position and entry index of id, or -1, -1.
func (s *shard) lookup(id string, h uint32) (pos int, idx int32) {
	if len(s.slots) == 0 {
		return -1, -1
	}
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		sl := s.slots[i]
		if sl.ref == 0 {
			return -1, -1
		}
		if sl.hash == h && s.keyIs(sl.ref-1, id) {
			return i, sl.ref - 1
		}
	}
}

// insert adds a session for id at the head of the LRU list; the caller has
// made room.
func (s *shard) insert(id string, h uint32) int32 {
	if (s.n+1)*4 > len(s.slots)*3 {
		s.rehash(max(2*len(s.slots), 8))
	}
	var idx int32
	if s.free >= 0 {
		idx = s.free
		s.free = s.ents.at(idx).next
	} else {
		idx = s.ents.add()
	}
	*s.ents.at(idx) = entry{}
	s.setKey(idx, id)
	s.linkFront(idx)
	s.placeSlot(slot{hash: h, ref: idx + 1})
	s.n++
	return idx
}

func (s *shard) placeSlot(sl slot) {
	mask := len(s.slots) - 1
	i := int(sl.hash) & mask
	for s.slots[i].ref != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = sl
}

func (s *shard) rehash(size int) {
	old := s.slots
	s.slots = make([]slot, size)
	for _, sl := range old {
		if sl.ref != 0 {
			s.placeSlot(sl)
		}
	}
}

func (s *shard) removeAt(pos int) {
	idx := s.slots[pos].ref - 1
	s.deleteSlot(pos)
	s.unlink(idx)
	e := s.ents.at(idx)
	if e.flags&longKey != 0 {
		delete(s.long, idx)
	} else {
		s.keys.live -= int(e.klen)
	}
	if e.flags&turnsBeside != 0 {
		delete(s.open, idx)
	}
	*e = entry{next: s.free}
	s.free = idx
	s.n--
}

// removeEntry removes the session at entry index idx, finding its slot by
// rehashing the key: entries do not store their hash (48 bytes), and
// eviction and expiry are off the hot path.
func (s *shard) removeEntry(idx int32) {
	h := slotHash(s.hash(s.key(idx)))
	mask := len(s.slots) - 1
	i := int(h) & mask
	for s.slots[i].ref != idx+1 {
		i = (i + 1) & mask
	}
	s.removeAt(i)
}

// deleteSlot empties cell i and shifts back the later cells of its cluster
// that the hole would cut off from their home.
func (s *shard) deleteSlot(i int) {
	mask := len(s.slots) - 1
	for j := i; ; {
		j = (j + 1) & mask
		sl := s.slots[j]
		if sl.ref == 0 {
			break
		}
		k := int(sl.hash) & mask
		// The cell at j may stay if its home k lies cyclically in (i, j].
		var stays bool
		if i < j {
			stays = i < k && k <= j
		} else {
			stays = i < k || k <= j
		}
		if !stays {
			s.slots[i] = sl
			i = j
		}
	}
	s.slots[i] = slot{}
}

func (s *shard) linkFront(idx int32) {
	e := s.ents.at(idx)
	e.prev = -1
	e.next = s.head
	if s.head >= 0 {
		s.ents.at(s.head).prev = idx
	}
	s.head = idx
	if s.tail < 0 {
		s.tail = idx
	}
}

func (s *shard) unlink(idx int32) {
	e := s.ents.at(idx)
	if e.prev >= 0 {
		s.ents.at(e.prev).next = e.next
	} else {
		s.head = e.next
	}
	if e.next >= 0 {
		s.ents.at(e.next).prev = e.prev
	} else {
		s.tail = e.prev
	}
}

func (s *shard) moveToFront(idx int32) {
	if s.head != idx {
		s.unlink(idx)
		s.linkFront(idx)
	}
}

// sweep removes up to budget expired sessions from the tail and reports
// whether more remain. The list is in recording order, so the first live
// entry ends the sweep.
func (s *shard) sweep(now, ttl int64, budget int) (more bool) {
	for s.tail >= 0 && now-s.ents.at(s.tail).lastSeen >= ttl {
		if budget == 0 {
			return true
		}
		budget--
		s.removeEntry(s.tail)
	}
	return false
}

// maybeShrink compacts the shard when fewer than a quarter of its entries
// are live, so a burst of random ids does not keep its peak size forever,
// or when its key blocks hold more removed ids than live ones. Compacting
// to the live count keeps the cost amortised O(1).
func (s *shard) maybeShrink() {
	if s.ents.len() >= shrinkMin && s.n < s.ents.len()/4 || s.keys.wasteful(s.n) {
		s.compact()
	}
}

// compact rebuilds entries in LRU order without free entries, their pooled
// keys in new blocks, and the maps by entry index.
func (s *shard) compact() {
	if s.n == 0 {
		s.release()
		return
	}
	var ents entryPool
	var keys keyPool
	var open map[int32][]openTurn
	var long map[int32]string
	if len(s.open) > 0 {
		open = make(map[int32][]openTurn, len(s.open))
	}
	if len(s.long) > 0 {
		long = make(map[int32]string, len(s.long))
	}
	i := int32(0)
	for old := s.head; old >= 0; i++ {
		oe := s.ents.at(old)
		e := *oe
		next := e.next
		e.prev, e.next = i-1, i+1
		if e.flags&longKey != 0 {
			long[i] = s.long[old]
		} else {
			e.kblock, e.koff = keys.add(s.keys.str(e.kblock, e.koff, e.klen), nil)
		}
		if e.flags&turnsBeside != 0 {
			open[i] = s.open[old]
		}
		*ents.at(ents.add()) = e
		// The old entry's prev records the new index for the rebuild below.
		oe.prev = i
		old = next
	}
	ents.at(i - 1).next = -1

	size := 8
	for s.n*4 > size*3 {
		size *= 2
	}
	slots := make([]slot, size)
	oldSlots, oldEnts := s.slots, s.ents
	s.slots = slots
	for _, sl := range oldSlots {
		if sl.ref != 0 {
			s.placeSlot(slot{hash: sl.hash, ref: oldEnts.at(sl.ref-1).prev + 1})
		}
	}
	s.ents, s.keys, s.open, s.long = ents, keys, open, long
	s.head, s.tail, s.free = 0, i-1, -1
}
