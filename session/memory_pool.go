package session

import "unsafe"

const (
	// Entries per block of a shard's entry pool: entries hold no pointers,
	// so a block has no allocator header, and 341 entries of 48 bytes fill
	// a 16 KiB size class, where 256 would waste a quarter of it
	// (TestEntrySize).
	entryBlock = 341
	// Bytes per block of a shard's key pool; offsets in it fit a uint16.
	keyBlock = 8 << 10
	// Ids longer than this are kept as strings of their own (shard.long): a
	// block holds dozens of pooled ids, and a long id would waste most of
	// its last one. Lengths up to it fit an entry's uint8.
	maxPooledKey = 128
)

// entryPool holds a shard's entries in blocks of entryBlock. Growing it
// allocates one block and copies nothing: a slice grown by append leaves
// about four times its final size behind as garbage while a store fills,
// and the collector's headroom makes that resident memory. The blocks hold
// no pointers, so the collector does not scan them.
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

// keyPool copies ids into shared blocks of bytes, which an entry refers to
// by block, offset and length: a UUID then costs its 36 bytes rather than
// an allocation of 48 and a string header, and the collector scans neither
// the blocks nor the entries. A removed id stays in its block until the
// shard compacts, which copies the live ids to new blocks.
type keyPool struct {
	blocks []*[keyBlock]byte
	used   int // bytes written to the last block
	live   int // bytes of the pooled ids of live entries
	held   int // bytes of pooled ids written since the last reset
}

func pooled(key string) bool { return len(key) <= maxPooledKey }

// add copies id and then packed, together at most maxPooledKey bytes, and
// returns where they are.
func (p *keyPool) add(id string, packed []byte) (block uint32, off uint16) {
	n := len(id) + len(packed)
	if n == 0 {
		return 0, 0
	}
	if len(p.blocks) == 0 || keyBlock-p.used < n {
		p.blocks = append(p.blocks, new([keyBlock]byte))
		p.used = 0
	}
	block, off = uint32(len(p.blocks)-1), uint16(p.used)
	b := p.blocks[block][p.used:]
	copy(b[copy(b, id):], packed)
	p.used += n
	p.live += n
	p.held += n
	return block, off
}

// str returns the pooled id at block and off, without copying: the bytes
// of a block are written once and never changed.
func (p *keyPool) str(block uint32, off uint16, n uint8) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&p.blocks[block][off], int(n))
}

// wasteful reports whether the removed ids the blocks may still hold
// outweigh the live ones and the shard's n entries enough to compact: the
// compaction's cost is then paid by as many removals.
func (p *keyPool) wasteful(n int) bool {
	return p.held-p.live > max(p.live, 32*n, 4*keyBlock)
}
