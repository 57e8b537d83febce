package stream

import (
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
)

// structuredParser assembles OpenAI and Anthropic calls from their fragments.
type structuredParser struct {
	format Format
	opts   Options
	emit   func(Event)
	text   textPass
	calls  map[int]*deltaCall
	// last is the call fragments went to last: most fragments continue it.
	last *deltaCall
}

type deltaCall struct {
	index int
	id    string
	name  []byte
	// head and args hold the arguments: args what the scanner may still
	// read, head (once a long call forgot them from args) what is before.
	head    keptString
	args    []byte
	started bool
	closed  bool
	dropped bool
	scan    jsonScanner
	build   valueBuilder
	preview argsPreview
	held    int // bytes drawn from Options.Budget
}

func newStructuredParser(format Format, opts Options, emit func(Event)) *structuredParser {
	return &structuredParser{format: format, opts: opts, emit: emit, text: textPass{emit: emit}, calls: map[int]*deltaCall{}}
}

func (p *structuredParser) delta(d ToolDelta) {
	c := p.last
	if c == nil || c.index != d.Index {
		c = p.calls[d.Index]
	}
	if c == nil {
		c = &deltaCall{index: d.Index}
		c.preview = newArgsPreview(p.emit, p.opts.ParamText, d.Index, 1, p.opts.MaxParamBytes)
		c.build.next, c.preview.build = &c.preview, &c.build
		c.scan.h, c.scan.maxDepth = &c.build, p.opts.MaxJSONDepth
		p.calls[d.Index] = c
	}
	if c != p.last {
		p.last = c
	}
	if c.closed {
		if d.Arguments != "" || d.Name != "" {
			p.emit(Event{Kind: EventError, Index: d.Index, Code: CodeCallAlreadyComplete,
				Text: fmt.Sprintf("call %d already completed; the fragment was ignored", d.Index)})
		}
		return
	}
	if c.dropped {
		c.closed = c.closed || d.Done
		return
	}
	if c.id == "" {
		c.id = d.ID
	}
	// Some servers repeat the whole name on every fragment.
	if !c.started && d.Name != string(c.name) {
		c.name = append(c.name, d.Name...)
	}
	if d.Arguments != "" {
		p.start(c)
		c.appendArgs(d.Arguments)
		if p.opts.MaxCallBytes > 0 && c.size() > p.opts.MaxCallBytes {
			p.drop(c, callTooLargeEvent(c.index, p.opts.MaxCallBytes))
			c.closed = d.Done
			return
		}
		if !p.hold(c) {
			p.drop(c, budgetEvent(c.index))
			c.closed = d.Done
			return
		}
		// A kept string shows its own pieces (valueBuilder): the fragment
		// is not needed for them, and not setting it spares two write
		// barriers a fragment while the collector marks.
		src := c.build.off
		if src {
			c.scan.src, c.scan.srcOff = d.Arguments, len(c.args)-len(d.Arguments)
		}
		c.scan.scan(c.args, 0)
		if src {
			c.scan.src = ""
		}
		if c.scan.tooDeep {
			p.drop(c, jsonTooDeepEvent(c.index, p.opts.MaxJSONDepth))
			c.closed = d.Done
			return
		}
		if c.preview.tooLarge(len(c.args)) {
			p.drop(c, paramTooLargeEvent(c.index, c.preview.param, p.opts.MaxParamBytes))
			c.closed = d.Done
			return
		}
	}
	if d.Done {
		p.close(c, false)
	}
}

// size returns the bytes of arguments received.
func (c *deltaCall) size() int { return c.head.Len() + len(c.args) }

// appendArgs appends a fragment to the arguments. A full buffer first
// forgets what will not be read again, so that a long call's buffer stays
// small rather than doubling: doubling allocates twice again what the
// call holds, in fresh memory the system faults in page by page.
func (c *deltaCall) appendArgs(s string) {
	if len(c.args)+len(s) > cap(c.args) {
		c.forget()
	}
	growAppend(&c.args, s)
}

// forget moves to head the bytes of args before the first one the scanner
// or the preview may read again, when they are at least half of it.
func (c *deltaCall) forget() {
	cut := c.scan.pos
	if c.scan.state == stBare {
		cut = min(cut, c.scan.bareStart) // read again whole at its end
	}
	if c.preview.open && !c.preview.isText {
		cut = min(cut, c.preview.start) // shown whole at its end
	}
	if cut == 0 || cut < len(c.args)/2 {
		return
	}
	c.head.write(c.args[:cut])
	c.args = c.args[:copy(c.args, c.args[cut:])]
	c.scan.shift(cut)
	c.preview.start -= cut
}

func (p *structuredParser) start(c *deltaCall) {
	if c.started {
		return
	}
	c.started = true
	p.emit(Event{Kind: EventCallStarted, Index: c.index, ID: c.id, Name: validString(c.name)})
}

func (p *structuredParser) drop(c *deltaCall, e Event) {
	c.dropped = true
	c.head, c.args, c.scan, c.build = keptString{}, nil, jsonScanner{}, valueBuilder{}
	p.unhold(c)
	p.emit(e)
}

func (p *structuredParser) close(c *deltaCall, truncated bool) {
	p.start(c)
	c.closed = true
	c.scan.finish(c.args)
	name := validString(c.name)
	call := repair.Call{Name: name, Form: repair.FormText, Parsed: c.build.value(&c.scan)}
	call.ParsedIntegers = call.Parsed != nil && c.build.integers()
	if c.head.Len() == 0 {
		call.Text = string(c.args)
	} else {
		c.head.write(c.args)
		call.Text = c.head.String()
	}
	if call.Parsed == nil && !utf8.ValidString(call.Text) { // strict JSON is valid UTF-8
		call.Text = validString([]byte(call.Text))
	}
	p.emit(Event{Kind: EventCallClosed, Index: c.index, ID: c.id, Name: name, Truncated: truncated, Call: call})
	c.head, c.args, c.build, c.scan = keptString{}, nil, valueBuilder{}, jsonScanner{}
	p.unhold(c)
}

// end closes the calls still open, in index order: truncated without their
// stop (Anthropic) or at the length limit.
func (p *structuredParser) end(lengthLimit bool) {
	p.text.flush()
	for _, i := range slices.Sorted(maps.Keys(p.calls)) {
		c := p.calls[i]
		if c.closed || c.dropped {
			continue
		}
		p.close(c, lengthLimit || p.format == Anthropic)
	}
}

// textPass passes text through, holding back a character split at the end.
type textPass struct {
	emit    func(Event)
	pending []byte
	out     []byte
}

func (t *textPass) write(s string) {
	b := append(t.pending, s...)
	out, n := appendValid(t.out[:0], b, false)
	t.out = out
	t.pending = append(t.pending[:0], b[n:]...)
	if len(out) > 0 {
		t.emit(Event{Kind: EventText, Index: -1, Text: string(out)})
	}
}

func (t *textPass) flush() {
	if len(t.pending) == 0 {
		return
	}
	out, _ := appendValid(t.out[:0], t.pending, true)
	t.pending = t.pending[:0]
	t.emit(Event{Kind: EventText, Index: -1, Text: string(out)})
}
