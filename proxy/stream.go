package proxy

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// fixer follows one streamed answer, OpenAI's or Anthropic's, and decides
// when each event goes out.
//
// The hold-back rule: an event goes out as soon as it is complete, byte for
// byte, unless it carries a fragment (name or arguments) of a call of a
// target tool whose arguments are not complete yet, or it comes after such
// an event (order is kept). A call is complete when its arguments' JSON
// value closes (stream.ValueScanner), when its block stops (Anthropic),
// when its choice finishes or the stream ends ([DONE], message_stop, the
// end of the body). Then its events go out: as they came when the call
// needs no repair or cannot be repaired (fallback), or rewritten so the
// call's argument fragments join into the repaired arguments (the first
// fragment carries them whole, the others are emptied; every other byte of
// the events is kept). A call cut off (a length limit, or the stream ending
// before the call's end) goes out as it came, followed by an SSE comment
// line saying so.
//
// Events of other tools' calls are held only until the call's name is
// known (the first argument fragment, for OpenAI, whose names may arrive
// in pieces). Another call's index starting is not taken as the end of a
// call: some servers interleave calls' fragments by index.
type fixer struct {
	p   *Proxy
	rs  *request
	out *[]byte
	// calls by (choice, index); an Anthropic call's choice is 0.
	calls map[callKey]*streamCall
	open  int // calls deciding or held
	// queue holds the events not yet sent, in order, from head; their
	// bytes are in the arena. Both are emptied whenever the queue is.
	queue queue
	head  int
	arena arena
	// halt: a call was refused; nothing after its error event is sent.
	halt bool
	// scratch for parsing events.
	oa openAIChunk
	// tmpl is the last argument fragment event parsed.
	tmpl template
}

// template is an event that carried one call's argument fragment and
// nothing else a fixer reads: the bytes of its data before the fragment's
// string and from the string's closing quote. Servers send the same bytes
// around every fragment of a call, so an event that has them, with a
// well-formed string between, reads the same but for the fragment, without
// being parsed again.
type template struct {
	valid          bool
	prefix, suffix []byte
	key            callKey
}

// set makes data, whose argument fragment string is at s, the template.
func (t *template) set(data []byte, s span, key callKey) {
	t.prefix = append(t.prefix[:0], data[:s.start+1]...)
	t.suffix = append(t.suffix[:0], data[s.end-1:]...)
	t.key, t.valid = key, true
}

// match returns where the fragment string is in data when data has the
// template's bytes around a well-formed string body.
func (t *template) match(data []byte, single bool) (span, bool) {
	if !t.valid || !single || len(data) < len(t.prefix)+len(t.suffix) ||
		!bytes.HasPrefix(data, t.prefix) || !bytes.HasSuffix(data, t.suffix) {
		return span{}, false
	}
	body := data[len(t.prefix) : len(data)-len(t.suffix)]
	// No quote in the body may end the string, and the closing quote may
	// not be escaped: an odd run of backslashes before a quote escapes it.
	for i := 0; ; {
		k := bytes.IndexByte(body[i:], '"')
		if k < 0 {
			break
		}
		if backslashesBefore(body, i+k)%2 == 0 {
			return span{}, false
		}
		i += k + 1
	}
	if backslashesBefore(body, len(body))%2 == 1 {
		return span{}, false
	}
	return span{len(t.prefix) - 1, len(data) - len(t.suffix) + 1}, true
}

// backslashesBefore counts the backslashes that end b[:i].
func backslashesBefore(b []byte, i int) int {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n++
		i--
	}
	return n
}

// drainBudget is how much output drain prepares at a time: a call held
// back is released in pieces of about this size, not all at once.
const drainBudget = 64 << 10

type callKey struct{ choice, index int }

// pending is an event that may not go out yet.
type pending struct {
	ref arenaRef
	// waits counts the fragments of held calls it carries.
	waits int32
	// edits rewrite its data.
	edits []edit
	// x holds what few events carry.
	x *extra
}

// extra is what a few pending events carry: drop removes the event,
// before and after are sent around it.
type extra struct {
	drop          bool
	before, after []byte
}

// extraOf returns the extra of the event at i, made if need be.
func (f *fixer) extraOf(i int) *extra {
	ev := f.queue.at(i)
	if ev.x == nil {
		ev.x = &extra{}
	}
	return ev.x
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

// each calls fn for each fragment in order, with its position.
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

// arenaBlocks recycles blocks between streams.
var arenaBlocks = sync.Pool{New: func() any { return make([]byte, 0, arenaBlock) }}

func newBlock(size int) []byte {
	if size > arenaBlock {
		return make([]byte, 0, size)
	}
	return arenaBlocks.Get().([]byte)[:0]
}

func freeBlock(b []byte) {
	if cap(b) == arenaBlock {
		arenaBlocks.Put(b[:0])
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

// reset empties the arena, keeping a block for the next events; blocks
// beyond the first are let go.
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

// release gives every block back.
func (a *arena) release() {
	for _, b := range a.blocks {
		freeBlock(b)
	}
	a.blocks, a.cur, a.size = nil, 0, 0
}

type callState uint8

const (
	stateDeciding callState = iota // name not known yet: events held
	stateHeld                      // a target tool's call: events held
	statePassing                   // not a target, or given up on: events go out
	stateDone                      // concluded and sent
)

// streamCall is one call in the stream.
type streamCall struct {
	key   callKey
	name  []byte
	args  []byte
	state callState
	tool  *repair.Tool
	scan  stream.ValueScanner
	frags fragList
	// edited: sent with its arguments rewritten.
	edited bool
	// stopped: an Anthropic block stopped before its JSON closed; it
	// waits for the message's stop reason.
	stopped bool
}

// isOpen reports a call whose events are held: its name is not known yet,
// or it is a target tool's call not complete yet.
func (c *streamCall) isOpen() bool { return c.state == stateDeciding || c.state == stateHeld }

// fragment is an event holding part of a call: where in its data the
// call's name and arguments are (spans of JSON strings, quotes included;
// end 0 when absent).
type fragment struct {
	ev         int // in the queue
	name, args span
}

func newFixer(p *Proxy, rs *request, out *[]byte) *fixer {
	return &fixer{p: p, rs: rs, out: out, calls: map[callKey]*streamCall{}}
}

func (f *fixer) stopped() bool { return f.halt }

// pass sends an event that waits for nothing: at once, or after the
// events queued before it.
func (f *fixer) pass(raw []byte) {
	if f.head == f.queue.len() {
		*f.out = append(*f.out, raw...)
		return
	}
	f.enqueue(raw)
}

// letGoOpen lets every open call but except go as it came and returns
// how many it let go. tooLarge counts those of target tools as too large
// (a call whose name is not known yet is nobody's call to count).
func (f *fixer) letGoOpen(except *streamCall, tooLarge bool) int {
	n := 0
	for _, c := range f.calls {
		if c == except || !c.isOpen() {
			continue
		}
		if tooLarge && c.state == stateHeld {
			f.p.tooLarge(f.rs, c.key.index, c.tool, true)
		}
		f.letGo(c)
		n++
	}
	return n
}

// enqueue queues an event and returns its place.
func (f *fixer) enqueue(raw []byte) int {
	return f.queue.push(pending{ref: f.arena.add(raw)})
}

// queued is the size of the events held (sent ones included, until the
// queue empties).
func (f *fixer) queued() int { return f.arena.size }

// drain sends the events at the head of the queue that wait for nothing,
// about drainBudget bytes at a time. What is held, call fragments and the
// events queued behind them alike, is bounded: past 8 times MaxCallBytes,
// the calls still open are given up and everything goes as it came.
func (f *fixer) drain() {
	if f.queued() > 8*f.p.cfg.MaxCallBytes && f.open > 0 {
		f.letGoOpen(nil, true) // too much is held behind them
	}
	for f.head < f.queue.len() && f.queue.at(f.head).waits <= 0 && len(*f.out) < drainBudget {
		ev := f.queue.at(f.head)
		f.head++
		x := ev.x
		if x == nil {
			*f.out = f.appendRendered(*f.out, f.arena.get(ev.ref), ev.edits)
			continue
		}
		*f.out = append(*f.out, x.before...)
		if f.halt && x.before != nil {
			f.head = f.queue.len() // the error event ends the stream
			break
		}
		if !x.drop {
			*f.out = f.appendRendered(*f.out, f.arena.get(ev.ref), ev.edits)
		}
		*f.out = append(*f.out, x.after...)
	}
	if f.head == f.queue.len() {
		f.queue.reset()
		f.head = 0
		f.arena.reset()
	}
}

func (f *fixer) raw(i int) []byte { return f.arena.get(f.queue.at(i).ref) }

// appendRendered appends an event with its edits applied.
func (f *fixer) appendRendered(out, raw []byte, edits []edit) []byte {
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

// fragment records that the event holds part of c.
func (f *fixer) fragment(c *streamCall, fr fragment) {
	c.frags.add(fr)
	f.queue.at(fr.ev).waits++
}

// newCall starts following a call.
func (f *fixer) newCall(key callKey) *streamCall {
	c := &streamCall{key: key}
	f.calls[key] = c
	f.open++
	return c
}

// decide makes a call held (a target tool's) or passing, once its name is
// known.
func (f *fixer) decide(c *streamCall) {
	if c.state != stateDeciding {
		return
	}
	c.tool = f.p.target(f.rs, string(c.name))
	if c.tool == nil {
		f.letGo(c)
		return
	}
	c.state = stateHeld
	f.advance(c)
}

// letGo stops holding a call's events: they go out as they came.
func (f *fixer) letGo(c *streamCall) {
	if c.isOpen() {
		f.open--
	}
	c.state = statePassing
	f.release(c)
}

// advance checks a held call after a fragment: too large, or complete.
func (f *fixer) advance(c *streamCall) {
	if c.state != stateHeld {
		return
	}
	limit := f.p.cfg.MaxCallBytes
	if len(c.args) > limit {
		f.p.tooLarge(f.rs, c.key.index, c.tool, true)
		f.letGo(c)
		return
	}
	if len(c.args) > 0 && c.scan.Scan(c.args) {
		f.complete(c, false)
	}
}

// complete concludes a held call and releases its events.
func (f *fixer) complete(c *streamCall, truncated bool) {
	if c.state == stateDeciding {
		f.decide(c)
	}
	if c.state != stateHeld {
		return
	}
	f.open--
	c.state = stateDone
	if len(bytes.TrimSpace(c.args)) == 0 && !truncated {
		// No arguments were written: nothing to judge or repair.
		f.release(c)
		return
	}
	d := f.p.conclude(f.rs, callInfo{index: c.key.index, name: string(c.name), text: string(c.args),
		tool: c.tool, truncated: truncated, streamed: true})
	switch d.action {
	case actionRepaired:
		f.rewrite(c, d)
	case actionTruncated:
		if c.frags.n > 0 {
			ev := c.frags.last().ev
			last := f.extraOf(ev)
			// The stream may have ended in the middle of that event: the
			// comment must not join its last line.
			last.after = append(last.after, unfinished(f.raw(ev))...)
			last.after = append(last.after, fmt.Sprintf(": toolguard: call %d truncated, not repaired\n\n", c.key.index)...)
		}
	case actionRefused:
		f.refuse(c, d.message)
		return
	}
	f.release(c)
}

// release lets a call's events go.
func (f *fixer) release(c *streamCall) {
	c.frags.each(func(_ int, fr fragment) { f.queue.at(fr.ev).waits-- })
	c.frags, c.args = fragList{}, nil
}

// rewrite edits a call's events so that its argument fragments join into
// the repaired arguments and its name fragments into the canonical name.
func (f *fixer) rewrite(c *streamCall, d decision) {
	argsAt, nameAt := -1, -1
	var names []string
	c.frags.each(func(i int, fr fragment) {
		if fr.args.end > 0 && argsAt < 0 {
			argsAt = i
		}
		if fr.name.end > 0 {
			if nameAt < 0 {
				nameAt = i
			}
			names = append(names, f.text(fr.ev, fr.name))
		}
	})
	if d.args != nil && argsAt < 0 || d.name != "" && nameAt < 0 {
		f.rs.log.Warn("tool call repaired but sent as written: its events could not be rewritten", zap.Int("index", c.key.index))
		return
	}
	// A server that repeats the whole name on every fragment gets the
	// canonical name on every fragment.
	repeated := len(names) > 1 && !slices.ContainsFunc(names, func(n string) bool { return n != names[0] })
	empty := emptyString
	c.frags.each(func(i int, fr fragment) {
		ev := f.queue.at(fr.ev)
		if d.args != nil && fr.args.end > 0 {
			text := empty
			if i == argsAt {
				text = jsonString(string(d.args))
			}
			ev.edits = append(ev.edits, edit{start: fr.args.start, end: fr.args.end, text: text})
		}
		if d.name != "" && fr.name.end > 0 {
			text := empty
			if i == nameAt || repeated {
				text = jsonString(d.name)
			}
			ev.edits = append(ev.edits, edit{start: fr.name.start, end: fr.name.end, text: text})
		}
	})
	c.edited = d.args != nil
}

var emptyString = []byte(`""`)

// text returns the string at s in an event's data.
func (f *fixer) text(ev int, s span) string {
	data, _, _, ok := eventData(f.raw(ev))
	if !ok || s.end > len(data) {
		return ""
	}
	b, _ := appendUnquoted(nil, data[s.start:s.end])
	return string(b)
}

// refuse ends the stream at a call that could not be repaired (fallback
// off): what came before it goes out, other held calls as they came, then
// an error event instead of the call, and nothing more.
func (f *fixer) refuse(c *streamCall, message string) {
	c.frags.each(func(_ int, fr fragment) { f.extraOf(fr.ev).drop = true })
	f.extraOf(c.frags.first().ev).before = errorEvent(f.rs.api, message)
	f.letGoOpen(c, false)
	// What comes after the error event is dropped, so nothing waits.
	for i := f.head; i < f.queue.len(); i++ {
		f.queue.at(i).waits = 0
	}
	c.frags, c.args = fragList{}, nil
	f.halt = true
}

// errorEvent is the event that ends a stream whose call was refused, in
// the API's own shape.
func errorEvent(a api, message string) []byte {
	body := errorBody(a, "toolguard_error", message)
	if a == apiAnthropic {
		return append(append([]byte("event: error\ndata: "), body...), "\n\n"...)
	}
	return append(append([]byte("data: "), body...), "\n\n"...)
}

// finish concludes the open calls that match, in index order; truncated
// says which were cut off.
func (f *fixer) finish(match func(callKey) bool, truncated func(*streamCall) bool) {
	if f.open == 0 {
		return
	}
	keys := slices.SortedFunc(maps.Keys(f.calls), func(a, b callKey) int {
		if a.choice != b.choice {
			return a.choice - b.choice
		}
		return a.index - b.index
	})
	for _, k := range keys {
		c := f.calls[k]
		if match(k) && c.isOpen() && !f.halt {
			f.complete(c, truncated(c))
		}
	}
}

func all(callKey) bool { return true }

// always and never are the truncation of every call and of none.
func always(*streamCall) bool { return true }
func never(*streamCall) bool  { return false }

// end: the upstream's body ended. Calls still open were cut off: the
// answer never said they were complete. When the body broke off (the
// client went away, or the upstream's connection failed) nothing is
// concluded or counted: what was held goes as it came, if anyone is left
// to read it.
func (f *fixer) end(cut bool) {
	if !cut {
		f.finish(all, always)
	} else if f.open > 0 {
		n := f.letGoOpen(nil, false)
		f.rs.log.Info("stream broken off: calls still open sent as they came, unchecked", zap.Int("calls", n))
	}
	f.drain()
}

// close releases the fixer's buffers; the stream is over.
func (f *fixer) close() {
	f.queue.reset()
	f.arena.release()
}

// late handles a fragment of a call already sent. When the call went out
// rewritten, the repaired arguments are complete: trailing white space is
// emptied; anything else goes as it came, and is logged.
func (f *fixer) late(c *streamCall, ev int, s span, fragment []byte) {
	if !c.edited || len(fragment) == 0 {
		return
	}
	if len(bytes.TrimSpace(fragment)) == 0 {
		p := f.queue.at(ev)
		p.edits = append(p.edits, edit{start: s.start, end: s.end, text: emptyString})
		return
	}
	f.rs.log.Warn("argument fragment after a repaired call's end: sent as it came", zap.Int("index", c.key.index))
}

// OpenAI chat completion chunks.

// openAIChunk is what the proxy reads of a chunk; its slices are reused.
type openAIChunk struct {
	choices []openAIChoice
	calls   []openAIToolCall
}

type openAIChoice struct {
	index  int
	finish []byte // nil when null or absent
}

type openAIToolCall struct {
	choice     int // index of the choice
	index      int
	name, args span // end 0 when absent (or not a string)
}

// parse reads a chunk's choices and tool call deltas.
func (c *openAIChunk) parse(data []byte) bool {
	c.choices, c.calls = c.choices[:0], c.calls[:0]
	top := skipSpace(data, 0)
	end := members(data, top, func(key []byte, v int) int {
		if string(key) != "choices" {
			return skipValue(data, v)
		}
		if data[v] == 'n' {
			return skipValue(data, v) // null
		}
		return elements(data, v, func(_, v int) int {
			ch := openAIChoice{}
			first := len(c.calls)
			end := members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "index":
					n, end := intAt(data, v)
					ch.index = n
					return end
				case "finish_reason":
					s, end, ok := stringAt(data, v)
					if ok {
						ch.finish, _ = appendUnquoted(nil, data[s.start:s.end])
					}
					return end
				case "delta":
					return members(data, v, func(key []byte, v int) int {
						if string(key) != "tool_calls" || data[v] == 'n' {
							return skipValue(data, v)
						}
						return elements(data, v, func(_, v int) int {
							tc := openAIToolCall{}
							end := members(data, v, func(key []byte, v int) int {
								switch string(key) {
								case "index":
									n, end := intAt(data, v)
									tc.index = n
									return end
								case "function":
									if data[v] == 'n' {
										return skipValue(data, v)
									}
									return members(data, v, func(key []byte, v int) int {
										switch string(key) {
										case "name":
											s, end, ok := stringAt(data, v)
											if ok {
												tc.name = s
											}
											return end
										case "arguments":
											s, end, ok := stringAt(data, v)
											if ok {
												tc.args = s
											}
											return end
										}
										return skipValue(data, v)
									})
								}
								return skipValue(data, v)
							})
							c.calls = append(c.calls, tc)
							return end
						})
					})
				}
				return skipValue(data, v)
			})
			// The choice's index may come after its delta.
			for i := first; i < len(c.calls); i++ {
				c.calls[i].choice = ch.index
			}
			c.choices = append(c.choices, ch)
			return end
		})
	})
	return end >= 0
}

var (
	markToolCalls    = []byte(`"tool_calls"`)
	markFinishReason = []byte(`"finish_reason"`)
	markDone         = []byte("[DONE]")
)

// openAIFixer follows a chat completions stream.
type openAIFixer struct{ *fixer }

func (f openAIFixer) event(raw []byte) {
	if f.halt {
		return
	}
	data, _, single, ok := eventData(raw)
	if !ok {
		f.pass(raw)
		return
	}
	if bytes.Equal(bytes.TrimSpace(data), markDone) {
		// The end: calls still open are complete (OpenAI marks no call's
		// end), as the stream parser concludes them.
		f.finish(all, never)
		f.pass(raw)
		f.drain()
		return
	}
	chunk := &f.oa
	if sp, ok := f.tmpl.match(data, single); ok {
		// The same chunk as the last one but for its argument fragment.
		chunk.choices = append(chunk.choices[:0], openAIChoice{index: f.tmpl.key.choice})
		chunk.calls = append(chunk.calls[:0], openAIToolCall{choice: f.tmpl.key.choice, index: f.tmpl.key.index, args: sp})
	} else {
		calls := bytes.Contains(data, markToolCalls)
		if !calls && (f.open == 0 || !bytes.Contains(data, markFinishReason)) {
			f.pass(raw)
			return
		}
		if !chunk.parse(data) {
			f.pass(raw)
			return
		}
		f.tmpl.valid = false
		if len(chunk.calls) == 1 && len(chunk.choices) == 1 && chunk.choices[0].finish == nil && single {
			if tc := chunk.calls[0]; tc.name.end == 0 && tc.args.end > 0 {
				f.tmpl.set(data, tc.args, callKey{tc.choice, tc.index})
			}
		}
	}
	ev := f.enqueue(raw)
	for _, tc := range chunk.calls {
		key := callKey{tc.choice, tc.index}
		c := f.calls[key]
		if c == nil {
			c = f.newCall(key)
		}
		switch c.state {
		case statePassing:
			continue
		case stateDone:
			if tc.args.end > 0 {
				frag, _ := appendUnquoted(nil, data[tc.args.start:tc.args.end])
				f.late(c, ev, tc.args, frag)
			}
			continue
		}
		if tc.name.end == 0 && tc.args.end == 0 {
			continue
		}
		if tc.name.end > 0 && c.state == stateDeciding {
			// Some servers repeat the whole name on every fragment.
			if n, _ := appendUnquoted(nil, data[tc.name.start:tc.name.end]); string(n) != string(c.name) {
				c.name = append(c.name, n...)
			}
		}
		fresh := 0
		if tc.args.end > 0 {
			before := len(c.args)
			c.args, _ = appendUnquoted(c.args, data[tc.args.start:tc.args.end])
			fresh = len(c.args) - before
		}
		f.fragment(c, fragment{ev: ev, name: tc.name, args: tc.args})
		if c.state == stateDeciding && fresh > 0 {
			f.decide(c)
		} else {
			f.advance(c)
		}
	}
	for _, ch := range chunk.choices {
		if len(ch.finish) > 0 {
			choice := ch.index
			length := stream.IsLengthLimit(string(ch.finish))
			f.finish(func(k callKey) bool { return k.choice == choice }, func(*streamCall) bool { return length })
		}
	}
	f.drain()
}

// Anthropic messages stream events.

// anthropicEvent is what the proxy reads of an event.
type anthropicEvent struct {
	typ        []byte
	index      int
	blockType  []byte
	name       span // content_block.name
	deltaType  []byte
	partial    span // delta.partial_json
	stopReason []byte
}

func (e *anthropicEvent) parse(data []byte) bool {
	*e = anthropicEvent{}
	str := func(v int, into *[]byte) int {
		s, end, ok := stringAt(data, v)
		if ok {
			*into, _ = appendUnquoted(nil, data[s.start:s.end])
		}
		return end
	}
	end := members(data, skipSpace(data, 0), func(key []byte, v int) int {
		switch string(key) {
		case "type":
			return str(v, &e.typ)
		case "index":
			n, end := intAt(data, v)
			e.index = n
			return end
		case "content_block":
			if data[v] != '{' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "type":
					return str(v, &e.blockType)
				case "name":
					s, end, ok := stringAt(data, v)
					if ok {
						e.name = s
					}
					return end
				}
				return skipValue(data, v)
			})
		case "delta":
			if data[v] != '{' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "type":
					return str(v, &e.deltaType)
				case "partial_json":
					s, end, ok := stringAt(data, v)
					if ok {
						e.partial = s
					}
					return end
				case "stop_reason":
					return str(v, &e.stopReason)
				}
				return skipValue(data, v)
			})
		}
		return skipValue(data, v)
	})
	return end >= 0
}

var (
	markToolUse        = []byte(`"tool_use"`)
	markInputJSONDelta = []byte(`"input_json_delta"`)
	markBlockStop      = []byte(`"content_block_stop"`)
	markMessageDelta   = []byte(`"message_delta"`)
	markMessageStop    = []byte(`"message_stop"`)
	markError          = []byte(`"error"`)
)

var (
	typeBlockDelta     = []byte("content_block_delta")
	typeInputJSONDelta = []byte("input_json_delta")
)

// anthropicFixer follows a messages stream.
type anthropicFixer struct{ *fixer }

func (f anthropicFixer) event(raw []byte) {
	if f.halt {
		return
	}
	data, _, single, ok := eventData(raw)
	if !ok {
		f.pass(raw)
		return
	}
	interesting := f.tmpl.valid || bytes.Contains(data, markToolUse) || bytes.Contains(data, markInputJSONDelta) ||
		f.open > 0 && (bytes.Contains(data, markBlockStop) || bytes.Contains(data, markMessageDelta) ||
			bytes.Contains(data, markMessageStop) || bytes.Contains(data, markError))
	if !interesting {
		f.pass(raw)
		return
	}
	var e anthropicEvent
	if sp, ok := f.tmpl.match(data, single); ok {
		// The same delta as the last one but for its fragment.
		e = anthropicEvent{typ: typeBlockDelta, index: f.tmpl.key.index, deltaType: typeInputJSONDelta, partial: sp}
	} else {
		if !e.parse(data) {
			f.pass(raw)
			return
		}
		f.tmpl.valid = false
		if string(e.typ) == "content_block_delta" && string(e.deltaType) == "input_json_delta" && e.partial.end > 0 &&
			e.name.end == 0 && len(e.stopReason) == 0 && len(e.blockType) == 0 && single {
			f.tmpl.set(data, e.partial, callKey{0, e.index})
		}
	}
	key := callKey{0, e.index}
	switch string(e.typ) {
	case "content_block_start":
		if string(e.blockType) != "tool_use" {
			break
		}
		if old := f.calls[key]; old != nil && old.isOpen() {
			f.complete(old, !old.stopped) // a block restarted
		}
		c := f.newCall(key)
		c.name, _ = appendUnquoted(nil, data[e.name.start:e.name.end])
		f.fragment(c, fragment{ev: f.enqueue(raw), name: e.name})
		f.decide(c)
		f.drain()
		return
	case "content_block_delta":
		c := f.calls[key]
		if c == nil || string(e.deltaType) != "input_json_delta" || e.partial.end == 0 || c.state == statePassing {
			break
		}
		ev := f.enqueue(raw)
		if c.state == stateDone {
			frag, _ := appendUnquoted(nil, data[e.partial.start:e.partial.end])
			f.late(c, ev, e.partial, frag)
			f.drain()
			return
		}
		c.args, _ = appendUnquoted(c.args, data[e.partial.start:e.partial.end])
		f.fragment(c, fragment{ev: ev, args: e.partial})
		f.advance(c)
		f.drain()
		return
	case "content_block_stop":
		c := f.calls[key]
		if c == nil || c.state != stateHeld {
			break
		}
		f.enqueue(raw)
		if len(c.args) == 0 || c.scan.Scan(c.args) {
			f.complete(c, false)
		} else {
			// Its JSON never closed: cut off by the token limit, or a
			// model that forgot a bracket. The message's stop reason,
			// which comes next, tells which.
			c.stopped = true
		}
		f.drain()
		return
	case "message_delta":
		if len(e.stopReason) == 0 {
			break
		}
		f.enqueue(raw)
		length := stream.IsLengthLimit(string(e.stopReason))
		f.finish(all, func(c *streamCall) bool { return length || !c.stopped })
		f.drain()
		return
	case "message_stop", "error":
		// The end, or the stream failed: calls still open were cut off.
		f.enqueue(raw)
		f.finish(all, always)
		f.drain()
		return
	}
	f.pass(raw)
}
