package proxy

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"unsafe"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// fixer follows one streamed answer and decides when each event goes out:
// at once, as it came, unless it carries part of a target tool's call not
// complete yet, or comes after such an event. A complete call's events go
// out rewritten when it was repaired; a call cut off goes as it came, then
// a comment saying so. A new index does not end a call: some servers
// interleave calls by index.
type fixer struct {
	p     *Proxy
	rs    *request
	out   *[]byte
	calls map[callKey]*streamCall // an Anthropic call's choice is 0
	last  *streamCall             // the call found last: most events continue it
	open  int                     // calls deciding or held
	// The events not sent yet, from head; their bytes are in the arena.
	queue queue
	head  int
	arena arena
	halt  bool // a call was refused: nothing after its error event goes out
	oa    openAIChunk
	ae    anthropicEvent
	tmpl  template
	hint  frameHint // the event frame recognised, for event
	// runs: no processor reads the events before the fixer, so frame may
	// take a run of them as one; runEnds are the run's events' ends.
	runs    bool
	runEnds []int32
	slab    []edit // where events' first edits are cut from
	// argsHeld is the capacity of the open calls' arguments; with the
	// arena's bytes it is what the fixer holds of the budget.
	argsHeld int
	hold     hold
}

type callKey struct{ choice, index int }

type callState uint8

const (
	stateDeciding callState = iota // name not known yet: events held
	stateHeld                      // a target tool's call: events held
	statePassing                   // not a target, or given up on: events go out
	stateDone                      // concluded and sent
)

type streamCall struct {
	key     callKey
	name    []byte
	args    []byte
	state   callState
	tool    *repair.Tool
	scan    stream.ValueScanner
	frags   fragList
	edited  bool // sent with its arguments rewritten
	stopped bool // its block stopped with the JSON open: the stop reason decides
}

// appendArgs appends a fragment, a JSON string, to the arguments and
// returns how many bytes it added. The arguments double when full: append
// grows a large slice by a quarter, which for a call of a megabyte in
// 16-byte fragments allocates five times its size.
// The fixer counts the capacity among the bytes it holds.
func (f *fixer) appendArgs(c *streamCall, q []byte) int {
	before, held := len(c.args), cap(c.args)
	if len(c.args)+len(q) > cap(c.args) {
		c.args = slices.Grow(c.args, max(len(q), cap(c.args)))
	}
	c.args, _ = appendUnquoted(c.args, q)
	f.argsHeld += cap(c.args) - held
	return len(c.args) - before
}

// dropArgs forgets a call's arguments.
func (f *fixer) dropArgs(c *streamCall) {
	f.argsHeld -= cap(c.args)
	c.frags, c.args = fragList{}, nil
}

// isOpen reports a call whose events are held.
func (c *streamCall) isOpen() bool { return c.state == stateDeciding || c.state == stateHeld }

// fragment is an event holding part of a call, and the spans of the
// call's name and arguments in its data (end 0 when absent).
type fragment struct {
	ev         int // in the queue
	name, args span
	// run counts the events of a run queued as one (runEvent); args is
	// then the template's head and tail lengths, each event's fragment
	// found between them.
	run int32
}

func newFixer(p *Proxy, rs *request, out *[]byte) *fixer {
	return &fixer{p: p, rs: rs, out: out, calls: map[callKey]*streamCall{}, hold: hold{b: p.budget}}
}

func (f *fixer) stopped() bool { return f.halt }

// letGoOpen lets every open call but except go as it came and returns
// how many; a reason (why) counts the target tools' calls as too large.
func (f *fixer) letGoOpen(except *streamCall, why tooLargeReason) int {
	n := 0
	for _, c := range f.calls {
		if c == except || !c.isOpen() {
			continue
		}
		if why != "" && c.state == stateHeld {
			f.p.tooLarge(f.rs, c.key.index, c.tool, true, why)
		}
		f.letGo(c)
		n++
	}
	return n
}

// fragment records that the event holds part of c.
func (f *fixer) fragment(c *streamCall, fr fragment) {
	c.frags.add(fr)
	f.queue.at(fr.ev).waits++
}

// call returns the call of key, nil when none came: a stream has an
// event per fragment, and a map look-up for each shows in its profile.
func (f *fixer) call(key callKey) *streamCall {
	if f.last != nil && f.last.key == key {
		return f.last
	}
	c := f.calls[key]
	if c != nil {
		f.last = c
	}
	return c
}

func (f *fixer) newCall(key callKey) *streamCall {
	c := &streamCall{key: key}
	f.calls[key] = c
	f.last = c
	f.open++
	return c
}

// decide holds a target tool's call once its name is known; others go.
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
		f.p.tooLarge(f.rs, c.key.index, c.tool, true, tooLargeCall)
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
		f.release(c) // no arguments: nothing to judge
		return
	}
	d := f.p.conclude(f.rs, callInfo{index: c.key.index, name: string(c.name), text: frozenString(c.args),
		tool: c.tool, truncated: truncated, streamed: true})
	switch d.action {
	case actionRepaired:
		f.rewrite(c, d)
	case actionTruncated:
		if c.frags.n > 0 {
			ev := c.frags.last().ev
			last := f.extraOf(ev)
			// The stream may have ended inside that event (not in a run,
			// all of whose events are whole).
			if !f.queue.at(ev).run {
				last.after = append(last.after, unfinished(f.raw(ev))...)
			}
			last.after = append(last.after, fmt.Sprintf(": toolguard: call %d truncated, not repaired\n\n", c.key.index)...)
		}
	case actionRefused:
		f.refuse(c, d.message)
		return
	}
	f.release(c)
}

// frozenString is the text of a call's arguments once it is done: nothing
// appends to them after (a late fragment is not added), and they are
// dropped, not reused, so the string may share their bytes. A copy was a
// megabyte allocated and copied for a call of that size.
func frozenString(args []byte) string { return unsafe.String(unsafe.SliceData(args), len(args)) }

func (f *fixer) release(c *streamCall) {
	c.frags.each(func(_ int, fr fragment) { f.queue.at(fr.ev).waits-- })
	f.dropArgs(c)
}

// rewrite edits a call's fragments into the repaired arguments and name.
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
	// A name repeated on every fragment is replaced on every fragment.
	repeated := len(names) > 1 && !slices.ContainsFunc(names, func(n string) bool { return n != names[0] })
	empty := emptyString
	c.frags.each(func(i int, fr fragment) {
		ev := f.queue.at(fr.ev)
		if d.args != nil && fr.run > 0 {
			f.extraOf(fr.ev).run = runText{head: fr.args.start, tail: fr.args.end, events: int(fr.run),
				first: i == argsAt, args: d.args}
		} else if d.args != nil && fr.args.end > 0 {
			e := edit{start: fr.args.start, end: fr.args.end, text: empty}
			if i == argsAt {
				e.text, e.quote = d.args, true
			}
			f.addEdit(ev, e)
		}
		if d.name != "" && fr.name.end > 0 {
			text := empty
			if i == nameAt || repeated {
				text = jsonString(d.name)
			}
			f.addEdit(ev, edit{start: fr.name.start, end: fr.name.end, text: text})
		}
	})
	c.edited = d.args != nil
}

var emptyString = []byte(`""`)

func (f *fixer) text(ev int, s span) string {
	data, _, _, ok := eventData(f.raw(ev))
	if !ok || s.end > len(data) {
		return ""
	}
	b, _ := appendUnquoted(nil, data[s.start:s.end])
	return string(b)
}

// refuse ends the stream with an error event in place of a call that could
// not be repaired (fallback off); held calls before it go as they came.
func (f *fixer) refuse(c *streamCall, message string) {
	c.frags.each(func(_ int, fr fragment) { f.extraOf(fr.ev).drop = true })
	f.extraOf(c.frags.first().ev).before = errorEvent(f.rs.api, message)
	f.letGoOpen(c, "")
	// Nothing after the error event goes out, so nothing waits.
	for i := f.head; i < f.queue.len(); i++ {
		f.queue.at(i).waits = 0
	}
	f.dropArgs(c)
	f.halt = true
}

// errorEvent ends a stream whose call was refused, in the API's shape.
func errorEvent(a api, message string) []byte {
	body := errorBody(a, "toolguard_error", message)
	if a == apiAnthropic {
		return append(append([]byte("event: error\ndata: "), body...), "\n\n"...)
	}
	return append(append([]byte("data: "), body...), "\n\n"...)
}

// finish concludes the open calls that match, in index order.
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

// end: the body ended, so calls still open were cut off. When it broke off,
// nothing is concluded: what was held goes as it came, unchecked.
func (f *fixer) end(cut bool) {
	if !cut {
		f.finish(all, always)
	} else if f.open > 0 {
		n := f.letGoOpen(nil, "")
		f.rs.log.Info("stream broken off: calls still open sent as they came, unchecked", zap.Int("calls", n))
	}
	f.drain()
}

func (f *fixer) close() {
	f.queue.reset()
	f.arena.release()
	f.hold.free()
}

// late handles a fragment, at s in the data of event ev, of a call already
// sent. After rewritten arguments, white space is emptied; anything else
// goes as it came, and is logged.
func (f *fixer) late(c *streamCall, ev int, data []byte, s span) {
	if !c.edited {
		return
	}
	fragment, _ := appendUnquoted(nil, data[s.start:s.end])
	if len(fragment) == 0 {
		return
	}
	if len(bytes.TrimSpace(fragment)) == 0 {
		p := f.queue.at(ev)
		f.addEdit(p, edit{start: s.start, end: s.end, text: emptyString})
		return
	}
	f.rs.log.Warn("argument fragment after a repaired call's end: sent as it came", zap.Int("index", c.key.index))
}

// dialect is what differs between the APIs' streams.
type dialect interface {
	read(data []byte) reading
	// readFragment stands for read on an event that matched the template.
	readFragment(s span, key callKey)
	// fragmentOnly returns the argument fragment of the event read when
	// it carries nothing else: the next template.
	fragmentOnly() (s span, key callKey, ok bool)
	// handle acts on the event read; false: it goes as it came.
	handle(raw, data []byte) bool
}

type reading uint8

const (
	readNone   reading = iota // it concerns no call
	readJSON                  // read into the fixer's scratch
	readMarker                // not JSON: OpenAI's [DONE]
)

// event follows one event in the API's dialect d.
func (f *fixer) event(raw []byte, d dialect) {
	h := f.hint
	f.hint = frameHint{}
	if f.halt {
		return
	}
	if h.run && h.n == len(raw) && &raw[0] == h.at {
		f.runEvent(raw, f.call(f.tmpl.key), d)
		return
	}
	if h.n > 0 && h.n == len(raw) && &raw[0] == h.at {
		// frame found it to be the template around a fragment.
		f.fragmentEvent(raw, raw[f.tmpl.off:len(raw)-f.tmpl.rest], h.s, d)
		return
	}
	data, off, single, ok := eventData(raw)
	if !ok {
		f.pass(raw)
		return
	}
	if s, ok := f.tmpl.match(data, single); ok {
		d.readFragment(s, f.tmpl.key)
	} else {
		switch d.read(data) {
		case readNone:
			f.pass(raw)
			return
		case readJSON:
			f.tmpl.valid = false
			if s, key, ok := d.fragmentOnly(); ok && single {
				f.tmpl.set(raw, off, len(data), s, key)
			}
		}
	}
	if !d.handle(raw, data) {
		f.pass(raw)
		return
	}
	f.drain()
}

// fragmentEvent handles an event whose data is the template around the
// fragment at s.
func (f *fixer) fragmentEvent(raw, data []byte, s span, d dialect) {
	d.readFragment(s, f.tmpl.key)
	if !d.handle(raw, data) {
		f.pass(raw)
		return
	}
	f.drain()
}
