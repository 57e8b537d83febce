package stream

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
)

// textParser finds calls written inside the text: XMLTags, Hermes, QwenXML
// and MiniMax. Every decision is taken on bytes alone, waiting when the
// bytes so far could go either way, so the calls and text found do not
// depend on how the input was split.
type textParser struct {
	format Format
	opts   Options
	emit   func(Event)
	// buf holds what is not yet passed on: in prose, at most a possible
	// tag prefix or a split character; in a call, the call's whole block
	// from its opening '<'.
	buf    []byte
	pos    int // next byte of buf to examine
	state  textState
	next   int // index of the next call
	maxTag int // longest tag name worth waiting for
	call   openCall
	text   []byte // text found and not yet emitted
	out    []byte // scratch
	held   int    // bytes of the open call drawn from Options.Budget
}

type textState uint8

const (
	inProse  textState = iota
	inCall             // inside a call, between parameters
	inValue            // inside a parameter value
	inHermes           // inside a <tool_call> JSON body
)

// openCall is the call being read.
type openCall struct {
	index   int
	name    string
	closer  string   // the call's closing tag
	follows []string // what may follow a parameter's closing tag that closes it
	tags    ToolTags // XMLTags
	dropped bool
	params  map[string]string // QwenXML, MiniMax: the values read

	// The parameter value being read.
	param      string
	paramClose string
	followRule bool // its closing tag closes it only before one of follows
	valStart   int
	emitted    int // how far the value has been shown
	layoutDone bool
	showed     bool
	repeat     bool            // a parameter met before: not shown
	seen       map[string]bool // the parameters met

	// Hermes: the JSON body.
	bodyStart int
	scan      jsonScanner
	hermes    hermesCall
}

// match is the answer to "does this tag start here?".
type match uint8

const (
	noMatch  match = iota
	needMore       // the bytes so far could still be the tag
	matched
)

// Literal tags of the formats.
const (
	hermesOpen     = "<tool_call>"
	hermesClose    = "</tool_call>"
	qwenFunction   = "<function="
	qwenParam      = "<parameter="
	qwenClose      = "</function>"
	paramClose     = "</parameter>"
	minimaxOpen    = "<minimax:tool_call>"
	minimaxClose   = "</minimax:tool_call>"
	minimaxInvoke  = "<invoke name="
	minimaxParam   = "<parameter name="
	minimaxEnd     = "</invoke>"
	defaultMaxTag  = 256
	shrinkCapacity = 1 << 20
)

func newTextParser(format Format, opts Options, emit func(Event)) *textParser {
	p := &textParser{format: format, opts: opts, emit: emit, maxTag: defaultMaxTag}
	for name := range opts.Tools {
		p.maxTag = max(p.maxTag, len(name))
	}
	p.call.scan.h = &p.call.hermes
	p.call.hermes.p = p
	return p
}

func (p *textParser) write(s string) {
	p.buf = appendGrow(p.buf, s)
	p.call.scan.src, p.call.scan.srcOff = s, len(p.buf)-len(s)
	p.run()
	p.call.scan.src = ""
	p.flushText()
	p.compact()
}

// run advances through buf until it needs more input.
func (p *textParser) run() {
	for {
		var more bool
		switch p.state {
		case inProse:
			more = p.prose()
		case inCall:
			more = p.inCall()
		case inValue:
			more = p.inValue()
		case inHermes:
			more = p.inHermes()
		}
		if !more {
			p.checkLimits()
			return
		}
	}
}

// prose passes text through until a call opens (true) or the input ends.
func (p *textParser) prose() bool {
	for p.pos < len(p.buf) {
		k := bytes.IndexByte(p.buf[p.pos:], '<')
		if k < 0 {
			var n int
			p.text, n = appendValid(p.text, p.buf[p.pos:], false)
			p.pos += n
			return false
		}
		p.text, _ = appendValid(p.text, p.buf[p.pos:p.pos+k], true)
		p.pos += k
		m, wrapper, name, n := p.opener(p.buf[p.pos:])
		switch {
		case m == needMore:
			return false
		case m == noMatch:
			p.text = append(p.text, '<')
			p.pos++
		case wrapper:
			p.pos += n
		default:
			p.open(name, n)
			return true
		}
	}
	return false
}

// opener reports whether a call opening tag (or a wrapper, swallowed)
// starts at b[0] == '<', with the tool name and the tag's length.
func (p *textParser) opener(b []byte) (m match, wrapper bool, name string, n int) {
	switch p.format {
	case XMLTags:
		m, name, n = p.nameTag(b, func(name string) bool { _, ok := p.opts.Tools[name]; return ok }, p.toolPrefix)
		return m, false, name, n
	case Hermes:
		m = literal(b, hermesOpen)
		return m, false, "", len(hermesOpen)
	case QwenXML:
		if m, n := anyLiteral(b, hermesOpen, hermesClose); m != noMatch {
			return m, true, "", n
		}
		m, name, n = p.prefixed(b, qwenFunction, false)
		return m, false, name, n
	default: // MiniMax
		if m, n := anyLiteral(b, minimaxOpen, minimaxClose); m != noMatch {
			return m, true, "", n
		}
		m, name, n = p.prefixed(b, minimaxInvoke, true)
		return m, false, name, n
	}
}

// open starts a call whose opening tag is n bytes at p.pos.
func (p *textParser) open(name string, n int) {
	p.flushText()
	p.buf = p.buf[:copy(p.buf, p.buf[p.pos:])]
	p.pos = n
	c := &p.call
	// The body wraps the arguments: it may nest one level more (0: none).
	scan := jsonScanner{h: &c.hermes, pos: n, maxDepth: p.opts.MaxJSONDepth + min(p.opts.MaxJSONDepth, 1)}
	*c = openCall{index: p.next, name: name, scan: scan, hermes: hermesCall{p: p, argsStart: -1}}
	p.next++
	switch p.format {
	case XMLTags:
		c.tags = p.opts.Tools[name]
		c.closer = "</" + name + ">"
		c.follows = []string{c.closer}
		for param := range c.tags.Params {
			c.follows = append(c.follows, "<"+param+">")
		}
	case QwenXML:
		c.closer, c.follows, c.params = qwenClose, []string{qwenParam, qwenClose}, map[string]string{}
	case MiniMax:
		c.closer, c.follows, c.params = minimaxEnd, []string{minimaxParam, minimaxEnd}, map[string]string{}
	case Hermes:
		c.bodyStart = n
		c.hermes.argsPreview = newArgsPreview(c.hermes.emitStarted, c.index, 2, p.opts.MaxParamBytes)
		p.state = inHermes
		return
	}
	p.emit(Event{Kind: EventCallStarted, Index: c.index, Name: name})
	p.state = inCall
}

// inCall reads between parameters: a parameter opens or the call closes.
func (p *textParser) inCall() bool {
	c := &p.call
	for {
		k := bytes.IndexByte(p.buf[p.pos:], '<')
		if k < 0 {
			p.pos = len(p.buf)
			return false
		}
		p.pos += k
		switch literal(p.buf[p.pos:], c.closer) {
		case matched:
			p.closeCall(p.pos, p.pos+len(c.closer), false)
			return true
		case needMore:
			return false
		}
		m, name, n := p.paramOpener(p.buf[p.pos:])
		switch m {
		case needMore:
			return false
		case matched:
			p.openValue(name, n)
			return true
		}
		p.pos++ // not a tag of ours: layout or stray text between parameters
	}
}

func (p *textParser) paramOpener(b []byte) (match, string, int) {
	switch p.format {
	case XMLTags:
		params := p.call.tags.Params
		return p.nameTag(b, func(name string) bool { _, ok := params[name]; return ok }, func(prefix []byte) bool {
			for name := range params {
				if strings.HasPrefix(name, string(prefix)) {
					return true
				}
			}
			return false
		})
	case QwenXML:
		return p.prefixed(b, qwenParam, false)
	default:
		return p.prefixed(b, minimaxParam, true)
	}
}

func (p *textParser) openValue(name string, n int) {
	c := &p.call
	c.param = name
	c.paramClose = paramClose
	c.followRule = true
	if p.format == XMLTags {
		c.paramClose = "</" + name + ">"
		// Cline's rule: only a content value may hold its own closing tag.
		c.followRule = c.tags.Params[name]
	}
	p.pos += n
	c.valStart, c.emitted, c.layoutDone, c.showed = p.pos, p.pos, false, false
	// A repeated parameter is not shown: the call keeps its first value
	// (as repair does for XML), and showing the second appended to it
	// previewed a value the call does not have.
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.repeat = c.seen[name]
	c.seen[name] = true
	p.state = inValue
}

// inValue reads a parameter value up to its closing tag: the first one, or
// for values under the follow rule the first one followed (after white
// space) by another parameter or the call's closing tag.
func (p *textParser) inValue() bool {
	c := &p.call
	for {
		k := bytes.IndexByte(p.buf[p.pos:], '<')
		if k < 0 {
			p.pos = len(p.buf)
			break
		}
		p.pos += k
		m := literal(p.buf[p.pos:], c.paramClose)
		if m == matched && c.followRule {
			m = anyFollows(p.buf[p.pos+len(c.paramClose):], c.follows)
		}
		if m == needMore {
			break
		}
		if m == noMatch {
			p.pos++
			continue
		}
		p.closeValue(p.pos)
		p.pos += len(c.paramClose)
		p.state = inCall
		return true
	}
	p.showValue(p.pos, false)
	return false
}

// showValue emits the value's growth up to end. One newline after the
// opening tag and one before the closing tag are layout, not value, so a
// trailing newline waits until the value goes on or closes.
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
		p.emit(Event{Kind: EventParam, Index: c.index, Param: c.param, Text: string(chunk)})
		c.showed = true
	}
}

// closeValue ends the value being read at end (its closing tag).
func (p *textParser) closeValue(end int) {
	c := &p.call
	if p.tooLarge(end - c.valStart) {
		return
	}
	p.showValue(end, true)
	if c.params != nil && !c.dropped {
		if _, dup := c.params[c.param]; !dup {
			c.params[c.param] = repair.TrimLayout(validString(p.buf[c.valStart:end]))
		}
	}
}

// inHermes reads a Hermes JSON body up to </tool_call> outside its strings.
func (p *textParser) inHermes() bool {
	c := &p.call
	for {
		c.scan.pos = p.pos
		stopped := c.scan.scan(p.buf, '<')
		p.pos = c.scan.pos
		if c.scan.tooDeep && !c.dropped {
			p.drop(jsonTooDeepEvent(c.index, p.opts.MaxJSONDepth))
		}
		if !stopped {
			return false
		}
		switch literal(p.buf[p.pos:], hermesClose) {
		case matched:
			p.closeCall(p.pos, p.pos+len(hermesClose), false)
			return true
		case needMore:
			return false
		}
		c.scan.skip()
		p.pos = c.scan.pos
	}
}

// closeCall ends the call: its body ends at bodyEnd, its block at end.
func (p *textParser) closeCall(bodyEnd, end int, truncated bool) {
	c := &p.call
	p.flushText()
	if p.format == Hermes && !c.dropped && c.hermes.tooLarge(bodyEnd) {
		p.dropHermesParam()
	}
	// The budget is drawn on here too, so that a call read in one piece
	// is held to it as one read in many.
	if !c.dropped && !p.tooLargeCall(end) && !p.overBudget(end) {
		var call repair.Call
		switch p.format {
		case XMLTags:
			call = repair.Call{Name: c.name, Form: repair.FormXML, Text: validString(p.buf[:end])}
		case QwenXML, MiniMax:
			call = repair.Call{Name: c.name, Form: repair.FormParams, Params: c.params}
		case Hermes:
			call = c.hermes.call(p.buf[:bodyEnd])
		}
		p.emit(Event{Kind: EventCallClosed, Index: c.index, Name: call.Name, Call: call, Truncated: truncated})
	}
	p.buf = p.buf[:copy(p.buf, p.buf[end:])]
	if cap(p.buf) > shrinkCapacity && len(p.buf) < shrinkCapacity/4 {
		p.buf = append([]byte(nil), p.buf...)
	}
	p.pos = 0
	p.state = inProse
	p.unhold()
}

// end closes the input: held text is text after all, and a call still
// open is truncated.
func (p *textParser) end() {
	switch p.state {
	case inProse:
		p.text, _ = appendValid(p.text, p.buf[p.pos:], true)
		p.buf, p.pos = p.buf[:0], 0
	case inValue:
		p.closeValue(len(p.buf))
		p.closeCall(len(p.buf), len(p.buf), true)
	case inHermes:
		p.call.scan.finish(p.buf)
		p.closeCall(len(p.buf), len(p.buf), true)
	default:
		p.closeCall(len(p.buf), len(p.buf), true)
	}
	p.flushText()
}

func (p *textParser) flushText() {
	if len(p.text) > 0 {
		p.emit(Event{Kind: EventText, Index: -1, Text: string(p.text)})
		p.text = p.text[:0]
	}
}

// checkLimits drops the open call when it or its value has grown too
// large.
func (p *textParser) checkLimits() {
	c := &p.call
	switch {
	case p.state == inProse || c.dropped:
	case p.tooLargeCall(len(p.buf)):
	case p.overBudget(len(p.buf)):
	// A value is measured up to p.pos, not len(p.buf): the bytes after
	// p.pos are still undecided (a closing tag arriving, a split escape)
	// and may not be value at all, so counting them would drop a value
	// that fits or not depending on where the input was split. Every
	// buffered byte is the call's, so the call's measure is exact.
	case p.state == inValue:
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

func (p *textParser) dropHermesParam() {
	c := &p.call
	p.drop(paramTooLargeEvent(c.index, c.hermes.param, p.opts.MaxParamBytes))
}

func (p *textParser) drop(e Event) {
	p.call.dropped = true
	p.unhold()
	// A Hermes call's closing tag counts only outside its strings, so the
	// scanner goes on following them, silently. (Losing it made a dropped
	// call end at the first "</tool_call>" inside a string when it was
	// dropped early, and at the real one when the input came in one
	// piece: the text after it depended on the split.)
	p.call.scan.mute()
	p.emit(e)
}

// compact forgets what is no longer needed: prose already passed on, and
// everything read of a dropped call.
func (p *textParser) compact() {
	if p.state != inProse && !p.call.dropped {
		return
	}
	n := p.pos
	p.buf = p.buf[:copy(p.buf, p.buf[n:])]
	p.pos = 0
	if p.state == inValue && p.call.followRule {
		p.buf = collapseFollowSpace(p.buf, p.call.paramClose)
	}
	if p.state != inProse {
		c := &p.call
		c.valStart, c.emitted = 0, 0
		if p.state == inHermes { // the scanner, muted, moves with the buffer
			c.scan.pos -= n
			c.scan.bareStart -= n
		}
	}
}

// collapseFollowSpace shortens what a dropped call's value waits on, a
// closing tag and the white space after it (anyFollows needs what comes
// after the space to decide), to the tag and one space: the decision is
// the same, and a long run of space no longer piles up in memory. The
// value's bytes are not needed: the call is dropped.
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

// nameTag matches "<name>" where known accepts the name; prefix says
// whether a partial name could still become one.
func (p *textParser) nameTag(b []byte, known func(string) bool, prefix func([]byte) bool) (match, string, int) {
	j := 1
	for j < len(b) && repair.IsTagNameByte(b[j], j == 1) {
		j++
	}
	if j == len(b) {
		if j-1 <= p.maxTag && prefix(b[1:j]) {
			return needMore, "", 0
		}
		return noMatch, "", 0
	}
	if j == 1 || b[j] != '>' || !known(string(b[1:j])) {
		return noMatch, "", 0
	}
	return matched, string(b[1:j]), j + 1
}

func (p *textParser) toolPrefix(prefix []byte) bool {
	for name := range p.opts.Tools {
		if strings.HasPrefix(name, string(prefix)) {
			return true
		}
	}
	return false
}

// prefixed matches lit followed by a name and '>': <function=name>, or with
// quoted set, <invoke name="name"> (quotes optional).
func (p *textParser) prefixed(b []byte, lit string, quoted bool) (match, string, int) {
	if m := literal(b, lit); m != matched {
		return m, "", 0
	}
	i := len(lit)
	var q byte
	if quoted && i < len(b) && (b[i] == '"' || b[i] == '\'') {
		q = b[i]
		i++
	}
	start := i
	for ; i < len(b); i++ {
		c := b[i]
		if c == '<' || c == '\n' || i-start > p.maxTag {
			return noMatch, "", 0
		}
		if q != 0 && c == q || q == 0 && c == '>' {
			break
		}
	}
	end := i
	if q != 0 && i < len(b) {
		i++ // the closing quote
		for i < len(b) && b[i] == ' ' {
			// The spaces count in the tag's bound, as the name does: a
			// tag the parser waits for is held in memory, prose included.
			if i-start > p.maxTag {
				return noMatch, "", 0
			}
			i++
		}
	}
	if i >= len(b) {
		return needMore, "", 0
	}
	// Names go out in events and calls as they are, so as valid UTF-8
	// (the whole tag has arrived: no character is split here).
	name := strings.TrimSpace(validString(b[start:end]))
	if b[i] != '>' || name == "" {
		return noMatch, "", 0
	}
	return matched, name, i + 1
}

// literal reports whether b starts with lit.
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

// anyFollows reports whether b, after white space, starts with one of
// lits.
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

// hermesCall follows a Hermes body: the tool name, where the arguments
// are, and previews of their members.
type hermesCall struct {
	p *textParser
	argsPreview
	name      []byte
	nameDone  bool
	nameFull  bool // name holds all it may of a longer one
	started   bool
	argsStart int // -1 until the arguments value starts
	argsEnd   int
}

func (h *hermesCall) valueStart(s *jsonScanner, start int) {
	if len(s.stack) == 1 && s.stack[0].obj && isArgumentsKey(s.stack[0].key) && h.argsStart < 0 {
		h.argsStart = start
	}
	if h.inArgs(s) {
		h.argsPreview.valueStart(s, start)
	}
}

// inArgs reports whether a value is not inside another arguments-like
// member than the one the call takes ("arguments" and then "args"): the
// previews show only the arguments the closed call has.
func (h *hermesCall) inArgs(s *jsonScanner) bool {
	return len(s.stack) < 2 || s.stack[1].start == h.argsStart
}

func (h *hermesCall) stringGrew(s *jsonScanner, chunk []byte, end bool) {
	if len(s.stack) == 1 && s.stack[0].key == "name" && !h.nameDone && !h.nameFull {
		// A name is kept up to maxKeyBytes, cut at the last whole
		// character that fits, and never appended to after a cut: the
		// name kept does not depend on how the growth was chunked.
		// (Appending whole chunks while shorter than the bound kept more
		// of a long name the larger its last chunk.)
		part := chunk
		if room := maxKeyBytes - len(h.name); len(part) > room {
			for room > 0 && !utf8.RuneStart(part[room]) {
				room--
			}
			part, h.nameFull = part[:room], true
		}
		h.name = append(h.name, part...)
	}
	if h.inArgs(s) {
		h.argsPreview.stringGrew(s, chunk, end)
	}
}

func (h *hermesCall) valueEnd(s *jsonScanner, start, end int) {
	if len(s.stack) == 1 {
		switch key := s.stack[0].key; {
		case key == "name" && !h.nameDone && (s.buf[start] == '"' || s.buf[start] == '\''):
			h.nameDone = true
			h.start(string(h.name))
		case isArgumentsKey(key) && start == h.argsStart:
			h.argsEnd = end
		}
	}
	if h.inArgs(s) {
		h.argsPreview.valueEnd(s, start, end)
	}
}

// emitStarted passes on the previews of a started call only: arguments
// written before the name are not shown (the call starts with its name),
// though still measured against the limits.
func (h *hermesCall) emitStarted(e Event) {
	if h.started {
		h.p.emit(e)
	}
}

func (h *hermesCall) start(name string) {
	if h.started {
		return
	}
	h.started = true
	h.p.flushText()
	h.p.emit(Event{Kind: EventCallStarted, Index: h.index, Name: name})
}

// call builds the closed call from body (the block up to its closing tag):
// the arguments exactly as written when the scanner found them, else what
// the repair pipeline makes of the whole body.
func (h *hermesCall) call(block []byte) repair.Call {
	body := block[h.p.call.bodyStart:]
	name, args := string(h.name), ""
	switch {
	case h.nameDone && h.argsStart >= 0 && h.argsEnd > h.argsStart:
		args = validString(block[h.argsStart:h.argsEnd])
	case h.nameDone && h.argsStart >= 0:
		args = validString(block[h.argsStart:])
	case h.nameDone && h.p.call.scan.state == stDone:
		// No arguments: a call without parameters.
	default:
		var found string
		found, args = hermesFallback(validString(body))
		// A name already announced (EventCallStarted) is the call's: the
		// repair may find another one in a nested "function" object, and
		// a call must not close under a name other than its start's.
		if !h.nameDone {
			name = found
		}
	}
	h.start(name)
	return repair.Call{Name: name, Form: repair.FormText, Text: args}
}

// hermesFallback reads a body the scanner could not follow (a Python
// dict, a nested "function" object) through the repair pipeline's JSON
// repair.
func hermesFallback(body string) (name, args string) {
	r, err := repair.RepairJSON(body, repair.JSONOptions{})
	if err != nil {
		return "", body
	}
	m, ok := r.Value.(map[string]any)
	if !ok {
		return "", body
	}
	if f, ok := m["function"].(map[string]any); ok {
		m = f
	}
	name, _ = m["name"].(string)
	for _, k := range []string{"arguments", "parameters", "args", "input"} {
		switch v := m[k].(type) {
		case nil:
			continue
		case string:
			return name, v
		default:
			out, err := repair.EncodeJSON(v)
			if err != nil {
				return name, ""
			}
			return name, string(out)
		}
	}
	return name, ""
}
