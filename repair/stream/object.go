package stream

import (
	"hash/maphash"
	"iter"
)

// object is an object a valueBuilder reads: its members in the order of
// the text, each key once (a repeated key's value replaces the first's in
// place: the last wins, as in a strict parse), with an index of its keys
// once it has more than a few. Its map is made once, at its end, at its
// size. A map grown member by member moves its members at each doubling,
// and in a call of a hundred thousand parameters each member probed a
// table that outgrows the caches twice (is the key repeated, then the
// insert); the index holds no pointers, is far smaller, and is probed
// once a member.
type object struct {
	// chunks hold the members, chunkMembers each, the first grown to
	// that: a slice doubled would copy them all again, each copy a write
	// barrier while the collector marks.
	chunks [][]member
	n      int // the members
	index  keyIndex
	// The member being read (start): its key, its position (-1: a new
	// key), and the hash of a new key and its slot in the index.
	key   string
	at    int
	h     uint64
	slot  int
	began bool
}

type member struct {
	key string
	val any
}

const (
	chunkBits    = 12
	chunkMembers = 1 << chunkBits
	// indexFrom is the members an object has before its keys are
	// indexed: a few are found faster by comparing them.
	indexFrom = 8
)

// member returns the member at position i.
func (o *object) member(i int) *member {
	return &o.chunks[i>>chunkBits][i&(chunkMembers-1)]
}

// add appends a member.
func (o *object) add(m member) {
	if len(o.chunks) == 0 || len(o.chunks[len(o.chunks)-1]) == chunkMembers {
		size := indexFrom
		if len(o.chunks) > 0 {
			size = chunkMembers
		}
		o.chunks = append(o.chunks, make([]member, 0, size))
	}
	last := &o.chunks[len(o.chunks)-1]
	*last = append(*last, m)
	o.n++
}

// keyIndex is a set of an object's keys by hash, open addressing with
// linear probing, at most three quarters full. A slot holds the top 8 bits
// of the key's hash above the member's position plus one (24 bits); 0 is
// empty. At four bytes a slot, the index of a hundred thousand keys takes
// a megabyte, an eighth of a map's table. The hash is seeded once per process, so the keys a model
// writes cannot be chosen to collide.
type keyIndex struct {
	slots []uint32
}

const (
	posBits = 24
	posMask = 1<<posBits - 1
	// maxMembers is the members an indexed object holds; a larger one is
	// left to the validation's parse.
	maxMembers = posMask - 1
)

var keySeed = maphash.MakeSeed()

// start looks up the key of the member about to be read, and reports
// whether the object has it already.
func (o *object) start(key string) bool {
	o.key, o.began = key, true
	o.at, o.slot = o.find(key)
	return o.at >= 0
}

// met reports whether the object has key, as start does, without a second
// lookup of the member being read.
func (o *object) met(key string) bool {
	if o.began && o.key == key {
		return o.at >= 0
	}
	at, _ := o.find(key)
	return at >= 0
}

// find returns the position of key's member, or -1 and the slot of the
// index where it would go; it sets o.h when the object is indexed.
func (o *object) find(key string) (int, int) {
	if o.index.slots == nil {
		for i := range o.n {
			if o.member(i).key == key {
				return i, 0
			}
		}
		return -1, 0
	}
	o.h = maphash.String(keySeed, key)
	tag := uint32(o.h>>(64-(32-posBits))) << posBits
	mask := uint64(len(o.index.slots) - 1)
	for j := o.h & mask; ; j = (j + 1) & mask {
		s := o.index.slots[j]
		if s == 0 {
			return -1, int(j)
		}
		if s&^posMask == tag {
			if i := int(s&posMask) - 1; o.member(i).key == key {
				return i, int(j)
			}
		}
	}
}

// end gives the member started its value v; false when the object cannot
// hold another member.
func (o *object) end(v any) bool {
	if !o.began {
		return false
	}
	o.began = false
	if o.at >= 0 {
		o.member(o.at).val = v
		return true
	}
	if o.n >= maxMembers {
		return false
	}
	o.add(member{o.key, v})
	switch {
	case o.index.slots != nil && 4*o.n <= 3*len(o.index.slots):
		o.index.slots[o.slot] = slotOf(o.h, o.n-1)
	case o.index.slots != nil || o.n > indexFrom:
		o.reindex()
	}
	return true
}

// slotOf is what a slot holds for the member at position i whose key
// hashes to h.
func slotOf(h uint64, i int) uint32 {
	return uint32(h>>(64-(32-posBits)))<<posBits | uint32(i+1)
}

// reindex indexes the members in a table twice their number or more,
// reading their keys in order.
func (o *object) reindex() {
	size := 4 * indexFrom
	for size < 2*o.n {
		size *= 2
	}
	o.index.slots = make([]uint32, size)
	mask := uint64(size - 1)
	for i := range o.n {
		h := maphash.String(keySeed, o.member(i).key)
		j := h & mask
		for o.index.slots[j] != 0 {
			j = (j + 1) & mask
		}
		o.index.slots[j] = slotOf(h, i)
	}
}

// keys returns the keys of the members read.
func (o *object) keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, c := range o.chunks {
			for i := range c {
				if !yield(c[i].key) {
					return
				}
			}
		}
	}
}

// toMap returns the object as a map, made at its size.
func (o *object) toMap() map[string]any {
	m := make(map[string]any, o.n)
	for _, c := range o.chunks {
		for i := range c {
			m[c[i].key] = c[i].val
		}
	}
	return m
}
