package session

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by a Memory store's methods once Close has been called.
var ErrClosed = errors.New("session: store closed")

const (
	// defaultTTL and defaultMaxSessions match the service's configuration
	// defaults, so a zero MemoryOptions behaves like an unconfigured server.
	defaultTTL         = time.Hour
	defaultMaxSessions = 100_000

	// maxShards bounds the shard count: 64 mutexes keep contention negligible
	// on any realistic core count, and more would only spread small caps thin.
	maxShards = 64
	// minPerShard is the fewest sessions a shard is given before the store
	// uses more shards. The cap is enforced per shard, so a shard holding few
	// sessions makes eviction follow the hash rather than recency; a few
	// hundred per shard keeps eviction close to a global LRU.
	minPerShard = 256
	// maxPerShard keeps entry indices within int32 (see entry). A shard this
	// large would need tens of gigabytes, so the clamp never bites in practice.
	maxPerShard = 1 << 30

	// sweepPerCall is how many expired sessions an operation removes from its
	// shard as a side effect. Bounding it keeps a call's latency flat after a
	// long idle period; the janitor and later calls reclaim the rest.
	sweepPerCall = 8
	// janitorBatch is how many expired sessions the janitor removes per lock
	// hold, so that it never blocks a shard's callers for long.
	janitorBatch = 1024
	// shrinkMin is the entry-array length below which a shard never compacts:
	// small arrays are not worth rebuilding.
	shrinkMin = 256
)

// MemoryOptions configures a Memory store. The zero value is usable: every
// field has a default.
type MemoryOptions struct {
	// TTL is how long a session may stay idle (no Record) before it expires.
	// TTL <= 0 means the default, one hour.
	TTL time.Duration
	// MaxSessions caps the number of sessions kept; to admit a new session
	// beyond the cap the least recently recorded one is evicted. MaxSessions
	// <= 0 means the default, 100000. The cap is enforced per shard; see
	// Memory for the rounding.
	MaxSessions int
	// RepeatLimit is the number of identical calls in a row at which a call
	// is a repeated call (and so a mistake). Zero means DefaultRepeatLimit.
	// A limit of 1 makes every call a repeated call.
	RepeatLimit uint32
	// Now returns the current time; nil means time.Now. Tests set it to a
	// fake clock to drive expiry. It is called with a shard lock held, so it
	// must not call back into the store.
	Now func() time.Time
}

// Memory is a Store that keeps sessions in process memory: the default store
// for a single replica. Its state is lost on restart, which only resets
// counters. Create it with NewMemory and stop it with Close.
//
// # Sharding
//
// Sessions are spread over shards by a hash of the id, each shard with its
// own mutex, so calls for different sessions rarely contend. The hash is
// seeded randomly per store so that clients cannot pick ids that all land in
// one shard or one probe chain. The store uses 64 shards, or fewer when
// MaxSessions is small (each shard gets at least 256 sessions; a cap below 512
// uses a single shard).
//
// # Bounds
//
// A session expires once it has been idle (no Record) for TTL or longer; from
// then on it reads as absent and a Record starts it afresh. Its memory is
// reclaimed lazily: every call sweeps a few of the oldest expired sessions of
// its shard, and one janitor goroutine per store sweeps every shard
// periodically (every TTL/4, clamped to between 1s and 1min) until Close. A
// shard whose live sessions fall below a quarter of its entry array is
// compacted, so a burst of random ids does not pin memory once it expires.
//
// MaxSessions is enforced per shard: each of the S shards holds at most
// ceil(MaxSessions/S) sessions and, to admit a new one, evicts its least
// recently recorded session. The store therefore never holds more than
// MaxSessions rounded up to a multiple of S, and when ids hash unevenly a shard
// may start evicting a little before the store as a whole reaches MaxSessions.
//
// # Recency
//
// Only Record makes a session recent; Get and Reset do not. The TTL measures
// how long the agent has been idle, so a dashboard polling Get must not keep an
// abandoned session alive or shield it from eviction.
//
// # Memory
//
// Each shard keeps its sessions in one slice of fixed-size entries linked by
// int32 indices (LRU list and free list) and an open-addressing index of
// 8-byte slots, rather than a map and a heap object per session. The only
// per-session heap allocation is the copy of the id, and the garbage collector
// has one pointer per session to scan. An idle session with a 36-byte id
// costs 110 to 130 bytes of heap, depending on where the arrays are in their
// growth: 48 for the id's copy, 48 for the entry plus up to a quarter of
// that in slice capacity, and 11 to 21 for the index (see
// BenchmarkMemoryIdleSessions).
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

// memoryConfig holds the knobs tests need to make the store deterministic.
// The zero value gives the production behaviour.
type memoryConfig struct {
	shards    int                 // power of two; 0 picks from MaxSessions
	hash      func(string) uint64 // nil: seeded maphash
	tick      <-chan time.Time    // janitor wake-ups; nil: a ticker
	noJanitor bool                // run no janitor goroutine
}

// NewMemory returns an in-memory store configured by opts, with its janitor
// goroutine running. Call Close to stop the janitor and release the sessions;
// a store dropped without Close has its janitor stopped by the garbage
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
		// The base reading carries the monotonic clock, so ages are measured
		// on it and a wall-clock step neither expires nor revives sessions.
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
		// The goroutine must not reference m, or m would never become
		// unreachable and the cleanup below could never stop it.
		go runJanitor(m.jan, ticker, tick, m.shards, m.clock, m.ttl)
		runtime.AddCleanup(m, (*janitor).halt, m.jan)
	}
	return m
}

// Record applies one call's outcome to the session, creating it if it does
// not exist or has expired, and returns the state after it. See Store.
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
	// Read the clock under the lock so that, within a shard, recording order
	// and time order agree: the LRU list is then also sorted by lastSeen and
	// expiry can stop at the first live entry from the tail.
	now := m.clock.offset()
	s.sweep(now, m.ttl, sweepPerCall)

	pos, idx := s.lookup(id, sh)
	if idx >= 0 && now-s.entries[idx].lastSeen >= m.ttl {
		s.removeAt(pos)
		idx = -1
	}
	var repeats, consecutive uint32
	if idx < 0 {
		if s.n >= s.limit {
			s.removeEntry(s.tail)
		}
		idx = s.insert(id, sh)
		repeats = 1
	} else {
		e := &s.entries[idx]
		repeats = 1
		if o.Fingerprint != 0 && o.Fingerprint == e.fingerprint {
			repeats = satInc(e.repeats)
		}
		consecutive = e.consecutive
		s.moveToFront(idx)
	}
	repeated := repeats >= m.limit
	if !o.Usable || repeated {
		consecutive = satInc(consecutive)
	} else {
		consecutive = 0
	}
	e := &s.entries[idx]
	e.lastSeen = now
	e.fingerprint = o.Fingerprint
	e.repeats = repeats
	e.consecutive = consecutive
	s.maybeShrink()
	s.mu.Unlock()

	return State{
		Consecutive: consecutive,
		Repeats:     repeats,
		Repeated:    repeated,
		LastSeen:    m.clock.at(now),
		Exists:      true,
	}, nil
}

// Get returns the session's state, or the zero State if the session is
// unknown or expired. It does not make the session recent (see Memory).
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
	e := s.entries[idx]
	if now-e.lastSeen >= m.ttl {
		s.removeAt(pos)
		s.maybeShrink()
		s.mu.Unlock()
		return State{}, nil
	}
	s.mu.Unlock()

	return State{
		Consecutive: e.consecutive,
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

// Len returns the number of sessions held, including expired ones not yet
// swept. It is meant for metrics and tests; under concurrent use the shards
// are counted one after another, not at one instant.
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

// Close stops the janitor and drops every session. Later calls return
// ErrClosed. Close is idempotent and always returns nil.
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

// satInc returns v+1, or v if that would overflow: counters saturate rather
// than wrap, so a pathological session stays at the maximum instead of
// appearing healthy.
func satInc(v uint32) uint32 {
	if v == math.MaxUint32 {
		return v
	}
	return v + 1
}

// slotHash derives a shard's index hash from an id's 64-bit hash. The shard is
// chosen by the low bits, so the index uses the high ones: within a shard the
// low bits are all equal and would put every id in the same probe chain.
func slotHash(h uint64) uint32 { return uint32(h >> 32) }

// clock measures time as nanoseconds since a base reading.
//
// Entries store int64 offsets instead of time.Time (8 bytes instead of 24, and
// no pointer to scan). Taking the offset with Sub uses the monotonic clock
// when both readings have one, as time.Now's do.
type clock struct {
	base time.Time
	now  func() time.Time
}

func (c clock) offset() int64 { return int64(c.now().Sub(c.base)) }

// at converts an offset back to a time. The monotonic reading is stripped so
// that LastSeen is a plain wall-clock time, as a shared store would return.
func (c clock) at(offset int64) time.Time {
	return c.base.Add(time.Duration(offset)).Round(0)
}

// janitor stops the sweeping goroutine. It is separate from Memory so that
// the goroutine can hold it without keeping the Memory reachable.
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

// sweepShard removes every expired session of s, in batches so that callers
// waiting for the lock are not held up behind a large backlog.
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

// entry is one session. Entries live in their shard's entries slice and refer
// to each other by index, which is half the size of a pointer, needs no
// separate allocation, and is invisible to the garbage collector. The layout
// is 48 bytes on 64-bit platforms; keep it so.
type entry struct {
	key         string
	lastSeen    int64 // clock offset of the last Record
	fingerprint uint64
	consecutive uint32
	repeats     uint32
	// prev and next link the shard's LRU list: prev towards the head (more
	// recently recorded), next towards the tail. -1 ends the list. A free
	// entry uses next to link the free list.
	prev, next int32
}

// slot is one cell of a shard's open-addressing index.
type slot struct {
	// hash is the id's slotHash. It locates the slot's home cell without
	// reading the entry (so the index can be rebuilt and shifted cheaply) and
	// filters most non-matching cells before the key is compared.
	hash uint32
	// ref is the entry index plus one, so that the zero slot is empty and a
	// freshly made index needs no initialisation.
	ref int32
}

// shard is one lock's worth of sessions: entries in an LRU list, indexed by a
// linear-probing hash table whose deletions shift later cells back instead of
// leaving tombstones, so lookups never slow down as sessions churn.
type shard struct {
	mu     sync.Mutex
	closed bool
	n      int // live entries
	limit  int // max live entries
	hash   func(string) uint64

	// entries holds live and free entries; len(entries) is the high-water mark.
	entries []entry
	// slots has a power-of-two length and is at most three-quarters full, so
	// every probe sequence reaches an empty cell.
	slots      []slot
	head, tail int32 // most and least recently recorded; -1 when empty
	free       int32 // first free entry; -1 when none

	// The padding keeps the next shard's mutex off this shard's cache lines.
	_ [64]byte
}

func (s *shard) init(limit int, hash func(string) uint64) {
	s.limit = limit
	s.hash = hash
	s.head, s.tail, s.free = -1, -1, -1
}

// release drops all sessions and their memory.
func (s *shard) release() {
	s.entries, s.slots = nil, nil
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
		if sl.hash == h && s.entries[sl.ref-1].key == id {
			return i, sl.ref - 1
		}
	}
}

// insert adds a new session for id at the head of the LRU list and returns
// its entry index. The caller has made room (s.n < s.limit).
func (s *shard) insert(id string, h uint32) int32 {
	if (s.n+1)*4 > len(s.slots)*3 {
		s.rehash(max(2*len(s.slots), 8))
	}
	var idx int32
	if s.free >= 0 {
		idx = s.free
		s.free = s.entries[idx].next
	} else {
		s.entries = append(s.entries, entry{})
		idx = int32(len(s.entries) - 1)
	}
	// Copy the id: it may be a slice of a larger request buffer, which
	// keeping the session would otherwise pin for the whole TTL.
	s.entries[idx] = entry{key: strings.Clone(id)}
	s.linkFront(idx)
	s.placeSlot(slot{hash: h, ref: idx + 1})
	s.n++
	return idx
}

// placeSlot puts sl in the first empty cell of its probe sequence.
func (s *shard) placeSlot(sl slot) {
	mask := len(s.slots) - 1
	i := int(sl.hash) & mask
	for s.slots[i].ref != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = sl
}

// rehash rebuilds the index with size cells (a power of two).
func (s *shard) rehash(size int) {
	old := s.slots
	s.slots = make([]slot, size)
	for _, sl := range old {
		if sl.ref != 0 {
			s.placeSlot(sl)
		}
	}
}

// removeAt removes the session whose slot is at pos.
func (s *shard) removeAt(pos int) {
	idx := s.slots[pos].ref - 1
	s.deleteSlot(pos)
	s.unlink(idx)
	// Clearing the entry drops the key so its memory can be reclaimed.
	s.entries[idx] = entry{next: s.free}
	s.free = idx
	s.n--
}

// removeEntry removes the session at entry index idx, finding its slot by
// rehashing its key: entries do not store their hash, to stay at 48 bytes,
// and this path (eviction, expiry) is off the hot path.
func (s *shard) removeEntry(idx int32) {
	h := slotHash(s.hash(s.entries[idx].key))
	mask := len(s.slots) - 1
	i := int(h) & mask
	for s.slots[i].ref != idx+1 {
		i = (i + 1) & mask
	}
	s.removeAt(i)
}

// deleteSlot empties cell i, then shifts back later cells of the same cluster
// whose home is not between the hole and themselves (backward-shift deletion),
// so that no lookup is cut short by the hole.
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
	e := &s.entries[idx]
	e.prev = -1
	e.next = s.head
	if s.head >= 0 {
		s.entries[s.head].prev = idx
	}
	s.head = idx
	if s.tail < 0 {
		s.tail = idx
	}
}

func (s *shard) unlink(idx int32) {
	e := &s.entries[idx]
	if e.prev >= 0 {
		s.entries[e.prev].next = e.next
	} else {
		s.head = e.next
	}
	if e.next >= 0 {
		s.entries[e.next].prev = e.prev
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

// sweep removes up to budget expired sessions from the tail of the LRU list
// and reports whether expired sessions remain. The list is in recording order
// and offsets are read under the lock, so the first live entry from the tail
// ends the sweep. (Were a custom Now to go backwards, sweeping would merely
// stop early: lookups check each session's own age.)
func (s *shard) sweep(now, ttl int64, budget int) (more bool) {
	for s.tail >= 0 && now-s.entries[s.tail].lastSeen >= ttl {
		if budget == 0 {
			return true
		}
		budget--
		s.removeEntry(s.tail)
	}
	return false
}

// maybeShrink compacts the shard when fewer than a quarter of its entries are
// live. The free list would reuse the space, but after a burst (say, random
// ids) expires the arrays would stay at their peak size forever. Compacting to
// twice the live count makes the next compaction at least a (shrunken) array's
// worth of removals away, so the cost is amortised O(1) per removal.
func (s *shard) maybeShrink() {
	if len(s.entries) >= shrinkMin && s.n < len(s.entries)/4 {
		s.compact()
	}
}

// compact rebuilds entries in LRU order without free entries, and the index
// sized for the live count.
func (s *shard) compact() {
	if s.n == 0 {
		s.release()
		return
	}
	entries := make([]entry, s.n, 2*s.n)
	i := int32(0)
	for old := s.head; old >= 0; i++ {
		e := s.entries[old]
		next := e.next
		e.prev, e.next = i-1, i+1
		entries[i] = e
		// The old entry is discarded; its prev records the new index for the
		// index rebuild below.
		s.entries[old].prev = i
		old = next
	}
	entries[i-1].next = -1

	size := 8
	for s.n*4 > size*3 {
		size *= 2
	}
	slots := make([]slot, size)
	oldSlots, oldEntries := s.slots, s.entries
	s.slots = slots
	for _, sl := range oldSlots {
		if sl.ref != 0 {
			s.placeSlot(slot{hash: sl.hash, ref: oldEntries[sl.ref-1].prev + 1})
		}
	}
	s.entries = entries
	s.head, s.tail, s.free = 0, i-1, -1
}
