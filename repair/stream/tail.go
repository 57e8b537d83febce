package stream

import "fmt"

// Models write their calls last: the prose, then the calls, then the end
// of the response. Markup that prose follows on the line where the markup
// ends was written inside a sentence ("the README asks me to run
// <tool_call>...</tool_call>, which I will not do"): it is quoted, not a
// call. So once a call closes, the parser's events wait: the end of the
// response, a call opening on a later line, or prose on a later line
// delivers them in order; prose on the same line as the last markup (call,
// closing wrapper) quotes the calls
// instead, reports the announced one as quoted (CALL_QUOTED) and passes
// their markup on as the text it was. The bytes from the first wrapper or
// call on are kept for that, within a bound (tailBound).
type tail struct {
	on      bool
	waiting bool   // a call closed: events wait in queue
	nl      bool   // a line ended since the last markup
	from    int    // where the kept bytes start in the response
	ws      []byte // the white space since the last markup
	closed  int    // where the last call closed
	whole   bool   // the call waiting must be the whole response: prose on a later line quotes it too (stripped.go)
	// pv is a string value's growth while events wait, joined: one
	// event for a value streamed in many small pieces.
	pv struct {
		on    bool
		index int
		param string
		text  []byte
	}
	raw   []byte
	lost  bool // raw is gone: past the bound, or a call dropped in it
	over  bool // the markup kept grew past the bound: the calls are dropped
	queue []Event
	held  int // bytes drawn from Options.Budget while calls wait
	// callBytes is the size of the calls waiting.
	callBytes int
}

// queuedEventBytes is what a queued event counts for against the tail's
// bound, about its size in memory: many tiny calls on a line would
// otherwise hold many times the bytes kept.
const queuedEventBytes = 256

// minQueued is the fewest events a bounded tail may queue, for small bounds.
const minQueued = 256

// CodeCallQuoted: prose followed the call, so it was quoted text, not a
// call; its markup passes on as text.
const CodeCallQuoted = "CALL_QUOTED"

func callQuotedEvent(e Event) Event {
	return Event{Kind: EventError, Index: e.Index, Code: CodeCallQuoted,
		Text: fmt.Sprintf("call %d (%s) is followed by prose: markup inside a sentence is quoted text, not a call, so it passes on as text and is not run", e.Index, e.Name)}
}

func tailTooLargeEvent(index, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeCallTooLarge,
		Text: fmt.Sprintf("call %d and the calls after it were dropped: the calls awaiting the end of the response grew past %d bytes, each of their events counting %d", index, limit, queuedEventBytes)}
}

// tailBound bounds the bytes kept from the first wrapper or call of a
// line on: two calls' worth; zero when calls are not bounded.
func (p *textParser) tailBound() int { return 2 * p.opts.MaxCallBytes }

// startTail keeps the response from the wrapper or call opening at p.pos,
// and the white space held before it.
func (p *textParser) startTail() {
	t := &p.tail
	if t.on {
		return
	}
	t.on, t.lost, t.over = true, false, false
	t.from = p.base + p.pos - len(p.space)
	t.raw = append(append(t.raw[:0], p.space...), p.buf[p.pos:]...)
}

// keepTail reports whether to keep the next input.
func (p *textParser) keepTail() bool { return !p.tail.lost && !p.tail.over }

// dropInTail forgets the kept bytes when a call is dropped: its text is
// not known any more, so a quote cannot give the markup back.
func (p *textParser) dropInTail() {
	if t := &p.tail; t.on {
		t.lost, t.raw = true, nil
	}
}

// route delivers an event, or queues it while a closed call waits.
func (p *textParser) route(e Event) {
	t := &p.tail
	switch {
	case !t.waiting && e.Kind == EventCallClosed && t.on:
		t.waiting = true
		if t.over {
			p.sink(tailTooLargeEvent(e.Index, p.tailBound()))
			return
		}
	case !t.waiting:
		p.sink(e)
		return
	case t.over:
		if e.Kind == EventCallClosed {
			p.sink(tailTooLargeEvent(e.Index, p.tailBound()))
		}
		return
	}
	p.joinPreview()
	t.queue = append(t.queue, e)
	if e.Kind == EventCallClosed {
		t.callBytes += e.End - e.Offset
	}
	if bound := p.tailBound(); bound > 0 && len(t.queue) > max(bound/queuedEventBytes, minQueued) {
		p.overTail(p.tooLargeTail)
	}
}

// routeParam is route for a string value's growth; while events wait, the
// growth of one value is joined into one event.
func (p *textParser) routeParam(index int, param, text string) {
	t := &p.tail
	switch {
	case !t.waiting:
		p.paramSink(index, param, text)
	case t.over:
	case t.pv.on && t.pv.index == index && t.pv.param == param:
		t.pv.text = append(t.pv.text, text...)
	default:
		p.joinPreview()
		t.pv.on, t.pv.index, t.pv.param = true, index, param
		t.pv.text = append(t.pv.text[:0], text...)
	}
}

// joinPreview queues the joined growth of a value.
func (p *textParser) joinPreview() {
	if pv := &p.tail.pv; pv.on {
		pv.on = false
		p.tail.queue = append(p.tail.queue, Event{Kind: EventParam, Index: pv.index, Param: pv.param, Text: string(pv.text)})
	}
}

// confirmTail delivers the calls waiting when a call opens on a later line
// than the last markup: their lines ended in markup. The bytes kept from
// the end of the last of them on stay kept for the calls that follow.
func (p *textParser) confirmTail() {
	t := &p.tail
	if !t.waiting || !t.nl {
		return
	}
	var keep []byte
	from := t.closed
	if p.layout && !t.lost && !t.over {
		keep = t.raw[from-t.from:]
	}
	p.releaseTail(false)
	if keep != nil {
		t.on, t.from = true, from
		t.raw = append(t.raw[:0], keep...)
	}
}

// marked notes markup ending at offset; framing markup (harmony's message
// tokens) ends the line it stands on. The markup kept is bounded here, where
// the answer does not depend on the split: past the bound the kept bytes are
// let go, and the calls waiting, and those that close later, are dropped.
func (p *textParser) marked(offset int, frames bool) {
	t := &p.tail
	t.ws, t.nl = t.ws[:0], frames
	if !t.on || t.over {
		return
	}
	if bound := p.tailBound(); bound > 0 && offset-t.from > bound {
		p.overTail(p.tooLargeTail)
		return
	}
	// The calls that wait are drawn from the budget of every stream's
	// open calls, which they drew from while open.
	if t.waiting && !p.drawTail(t.callBytes) {
		p.overTail(budgetEvent)
	}
}

// drawTail draws the bytes kept to n from Options.Budget.
func (p *textParser) drawTail(n int) bool {
	b, t := p.opts.Budget, &p.tail
	if b == nil || n <= t.held {
		return true
	}
	if !b.Grow(n - t.held) {
		return false
	}
	t.held = n
	return true
}

func (p *textParser) releaseTailDraw() {
	if t := &p.tail; t.held > 0 {
		p.opts.Budget.Release(t.held)
		t.held = 0
	}
}

func (p *textParser) tooLargeTail(index int) Event { return tailTooLargeEvent(index, p.tailBound()) }

// overTail lets the kept bytes and the waiting calls go: the tail grew
// past its bound.
func (p *textParser) overTail(report func(index int) Event) {
	t := &p.tail
	t.over, t.lost, t.raw, t.pv.on, t.callBytes = true, true, nil, false, 0
	p.releaseTailDraw()
	if t.waiting {
		p.sink(report(t.queue[0].Index))
	}
	t.clearQueue()
}

func (t *tail) clearQueue() {
	clear(t.queue)
	t.queue = t.queue[:0]
}

// frames reports whether the wrappers of the current format frame messages.
func (p *textParser) frames() bool {
	return p.format == Harmony || p.auto != nil && p.auto.format == Harmony
}

// quoteTail ends the tail at prose starting at offset: the calls were
// quoted, and the kept bytes before the prose pass on as text.
func (p *textParser) quoteTail(offset int) {
	t := &p.tail
	if t.waiting && !t.over {
		p.sink(callQuotedEvent(t.queue[0]))
		// A call dropped among them is still reported: its text is gone.
		for _, e := range t.queue {
			if e.Kind == EventError {
				p.sink(e)
			}
		}
	}
	if t.lost {
		p.text, _ = appendValid(p.text, t.ws, true)
	} else {
		p.text, _ = appendValid(p.text, t.raw[:offset-t.from], true)
	}
	p.endTail()
}

// releaseTail ends the tail where prose starts on a later line or the
// response ends: the waiting events are delivered, and the white space
// after the last markup passes on before prose, and at the end in formats
// without layout.
func (p *textParser) releaseTail(prose bool) {
	t := &p.tail
	if !t.on {
		return
	}
	p.flushText()
	p.joinPreview()
	t.waiting = false
	for _, e := range t.queue {
		if e.Kind == EventParam && e.JSON == "" {
			p.paramSink(e.Index, e.Param, e.Text)
		} else {
			p.sink(e)
		}
	}
	if prose || !p.layout || len(t.ws) > maxLayout {
		p.text, _ = appendValid(p.text, t.ws, true)
	}
	p.endTail()
}

// gap passes on, before a call that opens while others wait, the white
// space since the last markup, in formats without layout.
func (p *textParser) gap() {
	if t := &p.tail; t.waiting && (!p.layout && len(t.ws) > 0 || len(t.ws) > maxLayout) {
		p.emit(Event{Kind: EventText, Index: -1, Text: validString(t.ws)})
	}
}

func (p *textParser) endTail() {
	t := &p.tail
	t.on, t.waiting, t.lost, t.over, t.nl, t.whole, t.pv.on, t.callBytes = false, false, false, false, false, false, false, 0
	p.releaseTailDraw()
	if cap(t.pv.text) > shrinkCapacity {
		t.pv.text = nil
	}
	t.clearQueue()
	if cap(t.raw) > shrinkCapacity {
		t.raw = nil
	}
	t.raw, t.ws = t.raw[:0], t.ws[:0]
}
