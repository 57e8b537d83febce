package proxy

import (
	"slices"
	"sync"
)

// drainBudget is how much output drain prepares at a time: a large call
// held back is released in pieces, each one write of the reverse proxy's
// copy buffer (copyBufferSize): released at once, 20 MB go out in 160
// writes instead of 640, which halves the time they take on loopback.
const drainBudget = copyBufferSize

// pending is an event that may not go out yet.
type pending struct {
	ref arenaRef
	// waits counts the fragments of held calls it carries.
	waits int32
	// run: the bytes are a run of events (runEvent), never edited: a
	// repaired call's run is rendered anew (extra.run).
	run   bool
	edits []edit
	x     *extra
}

// extra is what few pending events carry: drop removes the event, before
// and after are sent around it; run rewrites a run's events.
type extra struct {
	drop          bool
	before, after []byte
	run           runText // events > 0: a run rewritten
}

// runText is a run of events (runEvent) with new fragments: every event
// of a run is its template's head and tail around a fragment, so each
// goes out as that head and tail around the new one. args, when first,
// is the first event's (quoted as it goes out); the others' are "".
type runText struct {
	head, tail int // the template's, the fragment's quotes included
	events     int
	first      bool
	args       []byte
}

// appendTo appends the run raw rewritten. The events after the first are
// all alike: one is rendered, then copied, doubling.
func (r *runText) appendTo(out, raw []byte) []byte {
	head, tail := raw[:r.head-1], raw[len(raw)-r.tail+1:]
	out = append(out, head...)
	if r.first {
		out = appendQuotedJSON(out, r.args)
	} else {
		out = append(out, emptyString...)
	}
	out = append(out, tail...)
	if r.events < 2 {
		return out
	}
	total := (len(head) + len(emptyString) + len(tail)) * (r.events - 1)
	out = slices.Grow(out, total)
	start := len(out)
	out = append(append(append(out, head...), emptyString...), tail...)
	for done := len(out) - start; done < total; done = len(out) - start {
		out = append(out, out[start:start+min(done, total-done)]...)
	}
	return out
}

// queue is the list of pending events. It grows by chunks, so holding
// back a large call never copies the events it already holds.
type queue struct {
	chunks [][]pending
	n      int
}

const queueChunk = 1024

func (q *queue) len() int { return q.n }

func (q *queue) at(i int) *pending { return &q.chunks[i/queueChunk][i%queueChunk] }

func (q *queue) push(p pending) int {
	if q.n/queueChunk == len(q.chunks) {
		q.chunks = append(q.chunks, make([]pending, queueChunk))
	}
	*q.at(q.n) = p
	q.n++
	return q.n - 1
}

// reset empties the queue, keeping its first chunk.
func (q *queue) reset() {
	if len(q.chunks) > 0 {
		clear(q.chunks[0][:min(q.n, queueChunk)])
		clear(q.chunks[1:])
		q.chunks = q.chunks[:1]
	}
	q.n = 0
}

// fragList is a call's fragments, in chunks that grow without copying.
type fragList struct {
	chunks [][]fragment
	n      int
}

func (l *fragList) add(fr fragment) {
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		size := 8
		if k >= 0 {
			size = min(2*cap(l.chunks[k]), 4096)
		}
		l.chunks = append(l.chunks, make([]fragment, 0, size))
		k++
	}
	l.chunks[k] = append(l.chunks[k], fr)
	l.n++
}

func (l *fragList) each(fn func(i int, fr fragment)) {
	i := 0
	for _, c := range l.chunks {
		for _, fr := range c {
			fn(i, fr)
			i++
		}
	}
}

func (l *fragList) first() fragment { return l.chunks[0][0] }

func (l *fragList) last() fragment {
	c := l.chunks[len(l.chunks)-1]
	return c[len(c)-1]
}

// arena holds the bytes of queued events in blocks, so that holding back
// a large call never copies what it already holds.
type arena struct {
	blocks [][]byte
	cur    int // the block being filled
	size   int // bytes held
}

type arenaRef struct{ block, start, end int32 }

const arenaBlock = 256 << 10

// arenaBlocks recycles blocks between streams (as pointers, so Put does not
// allocate a slice header).
var arenaBlocks = sync.Pool{New: func() any { b := make([]byte, 0, arenaBlock); return &b }}

func newBlock(size int) []byte {
	if size > arenaBlock {
		return make([]byte, 0, size)
	}
	return (*arenaBlocks.Get().(*[]byte))[:0]
}

func freeBlock(b []byte) {
	if cap(b) == arenaBlock {
		b = b[:0]
		arenaBlocks.Put(&b)
	}
}

func (a *arena) add(b []byte) arenaRef {
	if len(a.blocks) == 0 {
		a.blocks = append(a.blocks, newBlock(len(b)))
	}
	blk := a.blocks[a.cur]
	if len(blk)+len(b) > cap(blk) {
		a.cur++
		if a.cur == len(a.blocks) {
			a.blocks = append(a.blocks, newBlock(len(b)))
		} else if cap(a.blocks[a.cur]) < len(b) {
			freeBlock(a.blocks[a.cur])
			a.blocks[a.cur] = newBlock(len(b))
		}
		blk = a.blocks[a.cur]
	}
	start := len(blk)
	a.blocks[a.cur] = append(blk, b...)
	a.size += len(b)
	return arenaRef{int32(a.cur), int32(start), int32(start + len(b))}
}

func (a *arena) get(r arenaRef) []byte { return a.blocks[r.block][r.start:r.end] }

// reset empties the arena, keeping one block for the next events.
func (a *arena) reset() {
	if len(a.blocks) > 1 {
		for _, b := range a.blocks[1:] {
			freeBlock(b)
		}
		clear(a.blocks[1:])
		a.blocks = a.blocks[:1]
	}
	if len(a.blocks) == 1 {
		a.blocks[0] = a.blocks[0][:0]
	}
	a.cur, a.size = 0, 0
}

func (a *arena) release() {
	for _, b := range a.blocks {
		freeBlock(b)
	}
	a.blocks, a.cur, a.size = nil, 0, 0
}

// pass sends an event that waits for nothing: at once, or after the
// events queued before it.
func (f *fixer) pass(raw []byte) {
	if f.head == f.queue.len() {
		*f.out = append(*f.out, raw...)
		return
	}
	f.enqueue(raw)
}

func (f *fixer) enqueue(raw []byte) int {
	return f.queue.push(pending{ref: f.arena.add(raw)})
}

// queued is the size of the events held, sent ones included until the queue empties.
func (f *fixer) queued() int { return f.arena.size }

// drain sends the events at the head of the queue that wait for nothing.
// What is held is bounded: past 8 times MaxCallBytes, or when the budget
// of all requests (MaxHeldBytes) has no room for it, the calls still open
// are given up and everything goes as it came.
func (f *fixer) drain() {
	if f.open > 0 {
		switch {
		case f.queued() > 8*f.p.cfg.MaxCallBytes:
			f.letGoOpen(nil, tooLargeHeld) // too much is held behind them
		case !f.hold.set(f.heldBytes()):
			f.letGoOpen(nil, tooLargeBudget)
		}
	}
	for f.head < f.queue.len() && f.queue.at(f.head).waits <= 0 && len(*f.out) < drainBudget {
		ev := f.queue.at(f.head)
		f.head++
		x := ev.x
		if x == nil {
			*f.out = f.appendRendered(*f.out, ev)
			continue
		}
		*f.out = append(*f.out, x.before...)
		if f.halt && x.before != nil {
			f.head = f.queue.len() // the error event ends the stream
			break
		}
		if !x.drop {
			*f.out = f.appendRendered(*f.out, ev)
		}
		*f.out = append(*f.out, x.after...)
	}
	if f.head == f.queue.len() {
		f.queue.reset()
		f.head = 0
		f.arena.reset()
	}
	// Less held, or the events given up on still going out: the holding
	// follows what is held as far as the budget allows.
	f.hold.set(f.heldBytes())
}

// heldBytes is what the fixer holds: the events queued and the open
// calls' arguments.
func (f *fixer) heldBytes() int64 { return int64(f.queued() + f.argsHeld) }

// addEdit adds an edit to a pending event. A repaired call edits every
// event it spans, tens of thousands for a large one: an event's first edit
// is cut from a slab shared with the others (a later one copies it out).
func (f *fixer) addEdit(ev *pending, e edit) {
	if ev.edits != nil {
		ev.edits = append(ev.edits, e)
		return
	}
	if len(f.slab) == cap(f.slab) {
		f.slab = make([]edit, 0, 1024)
	}
	f.slab = append(f.slab, e)
	n := len(f.slab)
	ev.edits = f.slab[n-1 : n : n]
}

func (f *fixer) raw(i int) []byte { return f.arena.get(f.queue.at(i).ref) }

func (f *fixer) extraOf(i int) *extra {
	ev := f.queue.at(i)
	if ev.x == nil {
		ev.x = &extra{}
	}
	return ev.x
}

// appendRendered appends a pending event with its edits applied.
func (f *fixer) appendRendered(out []byte, ev *pending) []byte {
	raw, edits := f.arena.get(ev.ref), ev.edits
	if ev.x != nil && ev.x.run.events > 0 {
		return ev.x.run.appendTo(out, raw)
	}
	if len(edits) == 0 {
		return append(out, raw...)
	}
	data, off, single, ok := eventData(raw)
	if !ok {
		return append(out, raw...)
	}
	if !single {
		return append(out, rewriteData(raw, off, single, len(data), applyEdits(data, edits))...)
	}
	// In place: the bytes before the data, the data edited, the rest.
	out = append(out, raw[:off]...)
	out = appendEdited(out, data, edits)
	return append(out, raw[off+len(data):]...)
}
