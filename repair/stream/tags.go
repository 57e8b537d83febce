package stream

import (
	"bytes"
	"fmt"

	"github.com/toolguard/toolguard/repair"
)

// textParser finds calls inside the text, waiting whenever the bytes so far
// could go either way, so the split does not change what it finds.
type textParser struct {
	format Format
	syntax textFormat
	opts   Options
	emit   func(Event)
	// sink and paramSink are the caller's: emit and opts.ParamText route
	// to them through the tail.
	sink      func(Event)
	paramSink func(index int, param, text string)
	// buf holds in prose at most a possible tag or a split character, in a
	// call its whole block.
	buf    []byte
	pos    int // next byte of buf to examine
	state  textState
	next   int // index of the next call
	maxTag int // longest tag name worth waiting for
	call   openCall
	text   []byte    // text found and not yet emitted
	out    []byte    // scratch
	held   int       // bytes of the open call drawn from Options.Budget
	py     *pyParser // Pythonic
	auto   *autoState
	// base is where buf starts in the response, in bytes.
	base int
	// Formats whose tags do not all start with '<'.
	trigger string // the bytes a tag of the format may start with
	list    bool   // inside a Mistral [TOOL_CALLS] array, after Llama's <|python_tag|>
	// layout.go: white space around calls.
	layout    bool
	space     []byte   // the white space of a run of text not yet known to be prose
	runProse  bool     // the current run of text holds more than white space
	afterCall bool     // a call or a wrapper tag came before
	md        markdown // quote.go: the prose's code and quotes
	tail      tail     // tail.go: the calls awaiting the end of the response
	glmHead   glmHead  // glm.go: what GLM-4.5's opener read past the name
	// stripped.go: the start of the response was looked at; the call
	// opening is a header whose tokens a server stripped.
	startDone, stripped bool
}

// textFormat is what one format adds to the tag machine.
type textFormat interface {
	// opener matches at b[0], '<' or one of its triggers, a call's opening
	// tag or a wrapper tag.
	opener(p *textParser, b []byte) (m match, wrapper bool, name string, n int)
	// begin sets up p.call and returns the state its body is read in.
	begin(p *textParser, n int) textState
	// param matches at b[0] == '<' a parameter's opening tag.
	param(p *textParser, b []byte) (m match, name string, n int)
	// valueClose returns the tag that closes a value and whether the
	// follow rule holds: the tag closes it only before another tag.
	valueClose(p *textParser, name string) (closing string, followRule bool)
	// cutsValue matches at b[0] == '<', at a line start inside a value, a
	// tag that ends the value without its closing tag, and names it.
	cutsValue(p *textParser, b []byte) (m match, next string)
	call(p *textParser, block []byte, bodyEnd int) repair.Call
}

// triggered is a format whose tags do not all start with '<'.
type triggered interface {
	// triggers returns every byte a tag of the format may start with.
	triggers() string
}

type textState uint8

const (
	inProse  textState = iota
	inCall             // inside a call, between parameters
	inValue            // inside a parameter value
	inHermes           // inside a JSON body: Hermes's, or arguments after a header
	inPyCall           // inside a pythonic call's parentheses
)

type openCall struct {
	index   int
	start   int    // where the call starts in the response
	inline  bool   // prose stands before it on its line
	id      string // the model's own call id (Kimi K2, Mistral)
	name    string
	closer  string   // the call's closing tag
	follows []string // what may follow a parameter's closing tag that closes it
	tags    ToolTags // XMLTags
	dropped bool
	params  map[string]string // QwenXML, MiniMax: the values read

	param      string
	paramClose string
	valOpen    int // where the value's opening tag starts
	gapStart   int // where the text between parameters starts
	// valuetags.go: the value's opening tag as written, whether its start
	// was looked at for the tag written twice, and whether it was.
	opening               string
	openJudged, openTwice bool
	followRule            bool // its closing tag closes it only before one of follows
	valStart              int
	emitted               int // how far the value has been shown
	layoutDone            bool
	showed                bool
	repeat                bool            // a parameter met before: not shown
	seen                  map[string]bool // the parameters met
	repairs               []repair.Repair // closing tags inferred
	head                  string          // GLM-4.5: a key the name ran into, its <arg_key> left out
	refusal               string          // why the call cannot be read

	// Hermes, and formats that name the call in a header: the JSON body,
	// ended by one of closers (all starting with stop) outside its strings,
	// or by the value's own end when there are none.
	bodyStart int
	closers   []string
	stop      byte
	fenced    bool // DeepSeek V3: the arguments are in a ``` fence
	// stopOptional: the closer may be swallowed as a stop token (harmony's
	// <|call|>), so a body complete at the end is the whole call.
	stopOptional bool
	scan         jsonScanner
	hermes       hermesCall
}

// match answers "does this tag start here?".
type match uint8

const (
	noMatch  match = iota
	needMore       // the bytes so far could still be the tag
	matched
)

const (
	defaultMaxTag  = 256
	shrinkCapacity = 1 << 20
)

func newTextParser(format Format, opts Options, emit func(Event)) *textParser {
	p := &textParser{format: format, syntax: formats[format].syntax, opts: opts, sink: emit, paramSink: opts.ParamText,
		maxTag: defaultMaxTag, layout: formats[format].layout, trigger: "<"}
	// Events go through the tail, which holds them while a closed call
	// waits for the end of the response (tail.go).
	p.emit, p.opts.ParamText = p.route, p.routeParam
	if t, ok := p.syntax.(triggered); ok {
		p.trigger = t.triggers()
	}
	for name := range opts.Tools {
		p.maxTag = max(p.maxTag, len(name))
	}
	p.call.scan.h = &p.call.hermes
	p.call.hermes.p = p
	if format == Pythonic {
		p.py = &pyParser{}
	}
	if format == Auto {
		p.auto = &autoState{}
	}
	return p
}

// maxRun bounds the input one run reads. A closing call moves what follows
// it in the buffer to the front, so a large piece is read in parts: the
// move stays short and a response in one piece parses in linear time.
const maxRun = 4 << 10

func (p *textParser) write(s string) {
	for len(s) > 0 {
		part := s[:min(len(s), maxRun)]
		s = s[len(part):]
		if p.tail.on && p.keepTail() {
			growAppend(&p.tail.raw, part)
		}
		growAppend(&p.buf, part)
		p.call.scan.src, p.call.scan.srcOff = part, len(p.buf)-len(part)
		p.run()
		p.call.scan.src = ""
		p.compact()
	}
	p.flushText()
}

func (p *textParser) run() {
	for {
		var more bool
		switch p.state {
		case inProse:
			if p.py != nil {
				more = p.pyProse()
			} else {
				more = p.prose()
			}
		case inCall:
			more = p.inCall()
		case inValue:
			more = p.inValue()
		case inHermes:
			more = p.inHermes()
		case inPyCall:
			more = p.pyArgs()
		}
		if !more {
			p.checkLimits()
			return
		}
	}
}

// prose passes text through until a call opens (true) or the input ends.
func (p *textParser) prose() bool {
	if !p.startDone {
		if m := p.atStart(); m != noMatch {
			return m == matched
		}
	}
	for p.pos < len(p.buf) {
		k := p.indexTrigger(p.buf[p.pos:])
		if k < 0 {
			p.pos += p.addText(p.pos, len(p.buf), false)
			return false
		}
		p.addText(p.pos, p.pos+k, true)
		p.pos += k
		if p.md.quoted() { // an example the response shows: text
			p.addText(p.pos, p.pos+1, true)
			p.pos++
			continue
		}
		m, wrapper, name, n := p.syntax.opener(p, p.buf[p.pos:])
		if m == matched && p.tail.whole && p.tail.waiting {
			// More markup after a call that stands alone: all of it is text.
			p.quoteTail(p.base + p.pos)
			p.space, p.runProse = p.space[:0], true
		}
		switch {
		case m == needMore:
			return false
		case m == noMatch:
			p.addText(p.pos, p.pos+1, true)
			p.pos++
		case wrapper:
			p.startTail()
			p.md.wrapper()
			p.callBoundary()
			p.pos += n
			if p.frames() { // a message ends: its quotes and its line
				p.md = markdown{}
			}
			p.marked(p.base+p.pos, p.frames())
		default:
			p.open(name, n)
			return true
		}
	}
	return false
}

func (p *textParser) indexTrigger(b []byte) int {
	if len(p.trigger) == 1 {
		return bytes.IndexByte(b, p.trigger[0])
	}
	return bytes.IndexAny(b, p.trigger)
}

func (p *textParser) open(name string, n int) {
	p.confirmTail()
	p.gap()
	p.startTail()
	inline := p.md.opened()
	p.callBoundary()
	p.flushText()
	p.base += p.pos
	p.buf = p.buf[:copy(p.buf, p.buf[p.pos:])]
	p.pos = n
	// The body wraps the arguments: it may nest one level more (0: none).
	scan := jsonScanner{h: &p.call.hermes, pos: n, maxDepth: p.opts.MaxJSONDepth + min(p.opts.MaxJSONDepth, 1)}
	p.call = openCall{index: p.next, name: name, scan: scan, hermes: hermesCall{p: p, argsStart: -1}, start: p.base, inline: inline}
	p.next++
	p.state = p.syntax.begin(p, n)
	p.call.gapStart = p.pos
	if p.state == inCall {
		p.emit(Event{Kind: EventCallStarted, Index: p.call.index, Name: name, Offset: p.call.start, Inline: inline})
	}
}

func (p *textParser) inCall() bool {
	c := &p.call
	for p.nextTag() {
		switch literal(p.buf[p.pos:], c.closer) {
		case matched:
			p.closeCall(p.pos, p.pos+len(c.closer), false)
			return true
		case needMore:
			return false
		}
		m, name, n := p.syntax.param(p, p.buf[p.pos:])
		switch m {
		case needMore:
			return false
		case matched:
			p.openValue(name, n)
			return true
		}
		switch m, n := p.strayClosing(p.buf[p.pos:]); m {
		case needMore:
			return false
		case matched:
			p.pos += n
			continue
		}
		p.pos++ // not a tag of ours: layout or stray text between parameters
	}
	return false
}

func (p *textParser) nextTag() bool {
	k := bytes.IndexByte(p.buf[p.pos:], '<')
	if k < 0 {
		p.pos = len(p.buf)
		return false
	}
	p.pos += k
	return true
}

func (p *textParser) openValue(name string, n int) {
	c := &p.call
	c.param = name
	c.paramClose, c.followRule = p.syntax.valueClose(p, name)
	c.valOpen = p.pos
	p.pos += n
	c.valStart, c.emitted, c.layoutDone, c.showed = p.pos, p.pos, false, false
	c.opening, c.openJudged, c.openTwice = p.valueOpening(), false, false
	// A repeated parameter is not shown: the call keeps its first value.
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.repeat = c.seen[name]
	c.seen[name] = true
	p.state = inValue
}

// inValue reads a value up to its closing tag.
func (p *textParser) inValue() bool {
	c := &p.call
	if !c.openJudged && !p.judgeOpening() {
		return false
	}
	for p.nextTag() {
		if p.pos > 0 && p.buf[p.pos-1] == '\n' {
			switch m, next := p.syntax.cutsValue(p, p.buf[p.pos:]); m {
			case needMore:
				p.showValue(p.pos, false)
				return false
			case matched:
				p.cutValue(next)
				return true
			}
		}
		m := literal(p.buf[p.pos:], c.paramClose)
		end, next := p.pos, p.pos+len(c.paramClose)
		if m == matched && c.followRule {
			m, end, next = p.closesValue(p.pos)
		}
		if m == needMore {
			break
		}
		if m == noMatch {
			p.pos++
			continue
		}
		p.closeValue(end)
		p.pos = next
		p.state, c.gapStart = inCall, p.pos
		return true
	}
	p.showValue(p.pos, false)
	return false
}

// cutValue ends the value at p.pos, where the tag of parameter next
// starts, and says so: the closing tag was inferred.
func (p *textParser) cutValue(next string) {
	c := &p.call
	p.closeValue(p.pos)
	p.state, c.gapStart = inCall, p.pos
	if !c.dropped && !c.repeat {
		where := fmt.Sprintf("where parameter %q opened on the next line", next)
		if next == "" {
			where = "where the call closed on the next line"
		}
		c.repairs = append(c.repairs, repair.Repair{Code: repair.CodeXMLRepaired, Param: c.param,
			Detail: fmt.Sprintf("the value of %q had no closing tag %s; it ended %s", c.param, c.paramClose, where)})
	}
}

// showValue emits the value's growth up to end. A newline after the
// opening tag and one before the closing tag are layout, so a trailing
// newline waits until the value goes on or closes.
func (p *textParser) showValue(end int, final bool) {
	c := &p.call
	if c.dropped || c.repeat {
		return
	}
	if !c.layoutDone {
		switch v := p.buf[c.valStart:end]; {
		case len(v) == 0 && !final, len(v) == 1 && v[0] == '\r' && !final:
			return
		case bytes.HasPrefix(v, []byte("\r\n")):
			c.emitted = c.valStart + 2
		case bytes.HasPrefix(v, []byte("\n")):
			c.emitted = c.valStart + 1
		}
		c.layoutDone = true
	}
	stop := end
	switch v := p.buf[c.emitted:end]; {
	case bytes.HasSuffix(v, []byte("\r\n")):
		stop -= 2
	case bytes.HasSuffix(v, []byte("\n")), !final && bytes.HasSuffix(v, []byte("\r")):
		stop--
	}
	var chunk []byte
	if stop > c.emitted {
		var n int
		p.out, n = appendValid(p.out[:0], p.buf[c.emitted:stop], final)
		c.emitted += n
		chunk = p.out
	}
	if len(chunk) > 0 || final && !c.showed {
		p.opts.ParamText(c.index, c.param, string(chunk))
		c.showed = true
	}
}

func (p *textParser) closeValue(end int) {
	c := &p.call
	if p.tooLarge(end - c.valStart) {
		return
	}
	p.showValue(end, true)
	if c.params != nil && !c.dropped {
		if _, dup := c.params[c.param]; !dup {
			c.params[c.param] = repair.TrimLayout(p.judgeValue(validString(p.buf[c.valStart:end])))
		}
	}
}

func (p *textParser) closeCall(bodyEnd, end int, truncated bool) {
	c := &p.call
	p.flushText()
	if p.state == inHermes && !c.dropped && c.hermes.tooLarge(bodyEnd) {
		p.dropHermesParam()
	}
	// Drawn here too: a call read in one piece is held to it as in many.
	if !c.dropped && !p.tooLargeCall(end) && !p.overBudget(end) {
		call := p.syntax.call(p, p.buf[:end], bodyEnd)
		p.emit(Event{Kind: EventCallClosed, Index: c.index, ID: c.id, Name: call.Name, Call: call, Truncated: truncated,
			Offset: c.start, End: p.base + end, Inline: c.inline})
	}
	p.unhold() // before the tail draws what waits
	p.md.callClosed()
	p.tail.closed = p.base + end
	p.marked(p.base+end, false)
	p.base += end
	p.buf = p.buf[:copy(p.buf, p.buf[end:])]
	if cap(p.buf) > shrinkCapacity && len(p.buf) < shrinkCapacity/4 {
		p.buf = append([]byte(nil), p.buf...)
	}
	p.pos = 0
	p.state = inProse
	p.callBoundary()
}

// end closes the input: held text is text, and an open call truncated.
func (p *textParser) end() {
	switch p.state {
	case inProse:
		if p.py != nil {
			p.pyCutCall()
		}
		p.addText(p.pos, len(p.buf), true)
		p.base += len(p.buf)
		p.buf, p.pos = p.buf[:0], 0
		p.endText()
	case inValue:
		p.closeValue(len(p.buf))
		p.closeCall(len(p.buf), len(p.buf), true)
	case inHermes:
		c := &p.call
		c.scan.finish(p.buf)
		// A value that ends a call by itself may end with the input, as may
		// one whose closer a server may swallow as a stop token.
		complete := (len(c.closers) == 0 || c.stopOptional) && c.scan.state == stDone
		p.closeCall(len(p.buf), len(p.buf), !complete)
	case inPyCall:
		p.pyEndCall()
		p.closeCall(len(p.buf), len(p.buf), true)
	default:
		p.closeCall(len(p.buf), len(p.buf), true)
	}
	p.releaseTail(false)
	p.flushText()
}

func (p *textParser) flushText() {
	if len(p.text) > 0 {
		p.emit(Event{Kind: EventText, Index: -1, Text: string(p.text)})
		p.text = p.text[:0]
	}
}

// checkLimits drops the open call when it or its value has grown too large.
func (p *textParser) checkLimits() {
	c := &p.call
	switch {
	case p.state == inProse || c.dropped:
	case p.tooLargeCall(len(p.buf)):
	case p.overBudget(len(p.buf)):
	// A value is measured up to p.pos: counting the undecided bytes after
	// it would make the drop depend on the split.
	case p.state == inValue, p.state == inPyCall && p.py.arg == paValue:
		p.tooLarge(p.pos - c.valStart)
	case p.state == inHermes && c.hermes.tooLarge(p.pos):
		p.dropHermesParam()
	}
}

func (p *textParser) tooLargeCall(n int) bool {
	if p.call.dropped || p.opts.MaxCallBytes <= 0 || n <= p.opts.MaxCallBytes {
		return p.call.dropped
	}
	p.drop(callTooLargeEvent(p.call.index, p.opts.MaxCallBytes))
	return true
}

func (p *textParser) tooLarge(n int) bool {
	if p.call.dropped || p.opts.MaxParamBytes <= 0 || n <= p.opts.MaxParamBytes {
		return p.call.dropped
	}
	p.drop(paramTooLargeEvent(p.call.index, p.call.param, p.opts.MaxParamBytes))
	return true
}

func (p *textParser) drop(e Event) {
	p.call.dropped = true
	p.dropInTail()
	p.unhold()
	// The scanner goes on following a Hermes call's strings, silently.
	p.call.scan.mute()
	p.emit(e)
}

// compact forgets prose already passed on and what was read of a dropped call.
func (p *textParser) compact() {
	if p.state != inProse && !p.call.dropped {
		return
	}
	n := p.pos
	if p.state == inValue && n > 0 {
		n-- // the byte before the next tag says whether it starts a line
	}
	p.base += n
	p.buf = p.buf[:copy(p.buf, p.buf[n:])]
	p.pos -= n
	if p.state == inValue && p.call.followRule {
		kept := p.pos + len(collapseFollowSpace(p.buf[p.pos:], p.call.paramClose))
		// The offsets reported later all lie past the space taken out.
		p.base += len(p.buf) - kept
		p.buf = p.buf[:kept]
	}
	if p.state != inProse {
		c := &p.call
		c.valStart, c.emitted, c.valOpen, c.gapStart = 0, 0, 0, 0
		if p.state == inHermes { // the scanner, muted, moves with the buffer
			c.scan.pos -= n
			c.scan.bareStart -= n
		}
	}
}

// collapseFollowSpace shortens a dropped call's closing tag and the space
// after it, which anyFollows waits on, to the tag and one space: the
// decision is the same, and a long run of space does not pile up.
func collapseFollowSpace(b []byte, closing string) []byte {
	if literal(b, closing) != matched {
		return b
	}
	i := len(closing)
	j := i
	for j < len(b) && isJSONSpace(b[j]) {
		j++
	}
	if j-i <= 1 {
		return b
	}
	return append(b[:i+1], b[j:]...)
}

func literal(b []byte, lit string) match {
	if len(b) >= len(lit) {
		if string(b[:len(lit)]) == lit {
			return matched
		}
		return noMatch
	}
	if string(b) == lit[:len(b)] {
		return needMore
	}
	return noMatch
}

// anyLiteral matches the first of lits that b starts with, and its length.
func anyLiteral(b []byte, lits ...string) (match, int) {
	best := noMatch
	for _, lit := range lits {
		switch literal(b, lit) {
		case matched:
			return matched, len(lit)
		case needMore:
			best = needMore
		}
	}
	return best, 0
}

// anyFollows reports whether b, after white space, starts with one of lits.
func anyFollows(b []byte, lits []string) match {
	i := 0
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return needMore
	}
	m, _ := anyLiteral(b[i:], lits...)
	return m
}
