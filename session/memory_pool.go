package session

import "strings"

const (
	// Entries per block of a shard's entry pool: with the 8-byte header the
	// allocator puts before an object of pointers this large, 341 entries
	// of 48 bytes fill a 16 KiB size class, where 256 would waste a quarter
	// of it (TestEntrySize).
	entryBlock = 341
	// Bytes per block of a shard's key pool.
	keyBlock = 8 << 10
	// Ids longer than this get an allocation of their own: a block holds
	// dozens of pooled ids, and a long id would waste most of its last one.
	maxPooledKey = 128
)

// entryPool holds a shard's entries in blocks of entryBlock. Growing it
// allocates one block and copies nothing: a slice grown by append leaves
// about four times its final size behind as garbage while a store fills,
// and the collector's headroom makes that resident memory.
type entryPool struct {
	blocks []*[entryBlock]entry
	n      int32 // entries handed out, free ones included
}

func (p *entryPool) at(i int32) *entry {
	return &p.blocks[uint32(i)/entryBlock][uint32(i)%entryBlock]
}

// len returns the entries handed out, free ones included.
func (p *entryPool) len() int { return int(p.n) }

// add hands out a zero entry and returns its index.
func (p *entryPool) add() int32 {
	if int(p.n) == len(p.blocks)*entryBlock {
		p.blocks = append(p.blocks, new([entryBlock]entry))
	}
	p.n++
	return p.n - 1
}

// keyPool copies ids into shared blocks: a UUID then costs its 36 bytes
// rather than an allocation of 48, and the collector sees one object per
// block. A removed id stays in its block until the shard compacts, which
// copies the live ids to new blocks.
type keyPool struct {
	cur  strings.Builder // the block being filled; it only appends
	live int             // bytes of the pooled ids of live entries
	held int             // bytes of pooled ids written since the last reset
}

func pooled(key string) bool { return len(key) > 0 && len(key) <= maxPooledKey }

// clone returns a copy of id that does not share the caller's memory.
func (p *keyPool) clone(id string) string {
	if !pooled(id) {
		return strings.Clone(id)
	}
	if p.cur.Cap()-p.cur.Len() < len(id) {
		p.cur = strings.Builder{}
		p.cur.Grow(keyBlock)
	}
	start := p.cur.Len()
	p.cur.WriteString(id)
	p.live += len(id)
	p.held += len(id)
	// Builder's String shares its buffer, whose written bytes never change.
	return p.cur.String()[start:]
}

// drop accounts for the removal of an entry's key.
func (p *keyPool) drop(key string) {
	if pooled(key) {
		p.live -= len(key)
	}
}

// wasteful reports whether the removed ids the blocks may still hold
// outweigh the live ones and the shard's n entries enough to compact: the
// compaction's cost is then paid by as many removals.
func (p *keyPool) wasteful(n int) bool {
	return p.held-p.live > max(p.live, 32*n, 4*keyBlock)
}

// reset starts new blocks; the ids already handed out stay valid.
func (p *keyPool) reset() {
	p.cur = strings.Builder{}
	p.live, p.held = 0, 0
}
