package stream

import (
	"bytes"
	"fmt"

	"github.com/toolguard/toolguard/repair"
)

// pythonic is the Python call list of Llama 4 (and vLLM's pythonic
// parser): [get_weather(city="Paris", unit='c'), other()]. The list starts
// the response, after white space and an optional <|python_start|>; a
// response that starts otherwise is text, and text after the list's ']'
// (past an optional <|python_end|>) is text. Arguments are keywords whose
// values are Python literals (pyliteral.go); the parser converts them to a
// JSON object as they arrive, so a closed call is plain JSON for the
// pipeline and records no repair: Python syntax is this format's own, not
// a mistake. A value that is no literal (a name, a call, an expression) or
// a positional argument refuses the call as UNPARSEABLE, saying why.
type pythonic struct{}

const (
	pyStartToken = "<|python_start|>"
	pyEndToken   = "<|python_end|>"
)

// pyPhase is where the parser stands outside calls.
type pyPhase uint8

const (
	pyStart   pyPhase = iota // before the list
	pyBetween                // after a call: ',' or ']'
	pyNext                   // after a ',': the next call or ']'
	pyEnd                    // after ']': an optional <|python_end|>
	pyAfter                  // text to the end
)

// pyArgState is where the parser stands inside a call's parentheses.
type pyArgState uint8

const (
	paKey      pyArgState = iota // a keyword, or ')'
	paEquals                     // '=' after the keyword
	paValue                      // the keyword's value
	paAfterArg                   // ',' or ')'
	paSkip                       // refused or dropped: only the call's end is looked for
)

// pyParser is the pythonic state of a textParser.
type pyParser struct {
	phase     pyPhase
	arg       pyArgState
	nameStart int             // where the call's name starts in the buffer
	keys      map[string]bool // keywords given
	key       string          // the keyword whose value is read
	out       []byte          // the arguments so far, as compact JSON
	refusal   string          // why the call cannot be read
	lit       pyLiteral       // the value being read
	skip      pySkipper
}

func (pythonic) opener(*textParser, []byte) (match, bool, string, int) {
	return noMatch, false, "", 0
}

// begin starts reading the arguments; the opener matched up to '('.
func (pythonic) begin(p *textParser, _ int) textState {
	py := p.py
	py.arg, py.keys, py.refusal = paKey, map[string]bool{}, ""
	if cap(py.out) > shrinkCapacity { // a large call's JSON is not kept for the next
		py.out, py.lit.dec = nil, nil
	}
	py.out = append(py.out[:0], '{')
	py.lit.reset()
	p.emit(Event{Kind: EventCallStarted, Index: p.call.index, Name: p.call.name, Offset: p.call.start, Inline: p.call.inline})
	return inPyCall
}

// param, valueClose and cutsValue are never asked: a pythonic call has no tags.
func (pythonic) param(*textParser, []byte) (match, string, int) { return noMatch, "", 0 }

func (pythonic) valueClose(*textParser, string) (string, bool) { return "", false }

func (pythonic) cutsValue(*textParser, []byte) (match, string) { return noMatch, "" }

// call is the closed call: its arguments as a JSON object, or, refused,
// the call as written and why.
func (pythonic) call(p *textParser, block []byte, _ int) repair.Call {
	py := p.py
	if py.refusal != "" {
		return repair.Call{Name: p.call.name, Form: repair.FormText, Text: validString(block[min(py.nameStart, len(block)):]), Unparseable: py.refusal}
	}
	return repair.Call{Name: p.call.name, Form: repair.FormText, Text: string(py.out)}
}

// pyProse reads outside calls: the list's start, separators and end, or text.
func (p *textParser) pyProse() bool {
	py := p.py
	for p.pos < len(p.buf) {
		b := p.buf[p.pos:]
		if py.phase == pyAfter {
			if !p.pyTokenAfterProse(b) {
				return false
			}
			continue
		}
		i := 0
		for i < len(b) && isJSONSpace(b[i]) && py.phase != pyEnd {
			i++
		}
		if py.phase == pyStart {
			p.addText(p.pos, p.pos+i, true)
		}
		p.pos += i
		if i == len(b) {
			return false
		}
		m, more := p.pyStep(b[i:])
		if m == needMore {
			return false
		}
		if more {
			return true
		}
	}
	return false
}

// pyTokenAfterProse passes text on up to a <|python_start|> that opens a
// list after prose (Llama 4 writes one after a sentence), outside quotes:
// true when the token starts at p.pos and the list is to be read.
func (p *textParser) pyTokenAfterProse(b []byte) bool {
	for {
		k := bytes.IndexByte(b, '<')
		if k < 0 {
			p.pos += p.addText(p.pos, p.pos+len(b), false)
			return false
		}
		p.addText(p.pos, p.pos+k, true)
		p.pos += k
		b = b[k:]
		m := literal(b, pyStartToken)
		switch {
		case m == needMore:
			return false
		case m == matched && !p.md.quoted():
			p.py.phase = pyStart
			return true
		}
		p.addText(p.pos, p.pos+1, true)
		p.pos++
		b = b[1:]
	}
}

// pyStep reads at b, past white space, what the phase expects: true when a
// call opened.
func (p *textParser) pyStep(b []byte) (match, bool) {
	py := p.py
	switch py.phase {
	case pyStart:
		if m := literal(b, pyStartToken); m != noMatch {
			if m == matched {
				p.pos += len(pyStartToken)
			}
			return m, false
		}
		if b[0] != '[' {
			py.phase = pyAfter
			return matched, false
		}
		return p.pyOpen(b, 1)
	case pyBetween:
		switch b[0] {
		case ',':
			py.phase = pyNext
			p.pos++
			p.marked(p.base+p.pos, false)
		case ']':
			py.phase = pyEnd
			p.pos++
			p.marked(p.base+p.pos, false)
		default: // the list went wrong: the rest is text
			py.phase = pyAfter
		}
		return matched, false
	case pyNext:
		if b[0] == ']' {
			py.phase = pyEnd
			p.pos++
			p.marked(p.base+p.pos, false)
			return matched, false
		}
		return p.pyOpen(b, 0)
	default: // pyEnd
		m := literal(b, pyEndToken)
		if m == matched {
			p.pos += len(pyEndToken)
			p.marked(p.base+p.pos, false)
		}
		if m != needMore {
			py.phase = pyAfter
		}
		return m, false
	}
}

// pyOpen opens the call whose name starts at b[from]: name, white space
// and '('. What is not a call ends the list: the rest is text.
func (p *textParser) pyOpen(b []byte, from int) (match, bool) {
	m, name, start, n := p.pyCallName(b, from)
	switch m {
	case needMore:
		return needMore, false
	case noMatch:
		p.py.phase = pyAfter
		return matched, false
	}
	p.py.nameStart = start
	p.open(name, n)
	return matched, true
}

// pyCallName matches, from b[from], white space, a dotted name, white
// space and '(': the name, where it starts and the bytes used.
func (p *textParser) pyCallName(b []byte, from int) (match, string, int, int) {
	i := from
	skipSpace := func() {
		for i < len(b) && isJSONSpace(b[i]) && i <= 2*p.maxTag {
			i++
		}
	}
	skipSpace()
	start := i
	for i < len(b) && (isIdentByte(b[i]) || b[i] == '.' && i > start) && i-start <= p.maxTag {
		i++
	}
	end := i
	skipSpace()
	switch {
	case i == len(b) && i <= 2*p.maxTag:
		return needMore, "", 0, 0
	case end == start || !isIdentStart(b[start]) || b[end-1] == '.' || i == len(b) || b[i] != '(':
		return noMatch, "", 0, 0
	}
	return matched, string(b[start:end]), start, i + 1
}

func isIdentStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// pyArgs reads the open call's arguments: true once the call closed.
func (p *textParser) pyArgs() bool {
	py := p.py
	for p.pos < len(p.buf) {
		if p.call.dropped && py.arg != paSkip {
			p.pySkipFrom(len(py.lit.stack) + 1)
			py.out = py.out[:0]
		}
		var ok bool
		switch py.arg {
		case paKey:
			ok = p.pyKey()
		case paEquals:
			ok = p.pyEquals()
		case paValue:
			ok = p.pyValue(false)
		case paAfterArg:
			ok = p.pyAfterArg()
		default:
			ok = p.pySkip()
		}
		if p.state != inPyCall {
			return true
		}
		if !ok {
			return false
		}
	}
	return false
}

// pySpace passes white space; false at the end of the buffer.
func (p *textParser) pySpace() bool {
	for p.pos < len(p.buf) && isJSONSpace(p.buf[p.pos]) {
		p.pos++
	}
	return p.pos < len(p.buf)
}

func (p *textParser) pyKey() bool {
	if !p.pySpace() {
		return false
	}
	b, i := p.buf, p.pos
	switch c := b[i]; {
	case c == ')':
		p.pyCloseCall(i + 1)
		return true
	case c == '*':
		p.pyRefuse("unpacks arguments with * or **; write each argument as name=value")
		return true
	case !isIdentStart(c):
		p.pyRefuse("passes an argument without a name; write each argument as name=value")
		return true
	}
	j := i
	for j < len(b) && isIdentByte(b[j]) && j-i <= maxKeyBytes {
		j++
	}
	switch key := string(b[i:j]); {
	case j-i > maxKeyBytes:
		p.pyRefuse(fmt.Sprintf("has an argument name longer than %d bytes", maxKeyBytes))
	case j == len(b):
		return false
	case p.py.keys[key]:
		p.pyRefuse(fmt.Sprintf("gives argument %q twice; give each argument once", key))
	default:
		p.py.key, p.pos, p.py.arg = key, j, paEquals
	}
	return true
}

func (p *textParser) pyEquals() bool {
	if !p.pySpace() {
		return false
	}
	b, i := p.buf, p.pos
	if b[i] != '=' {
		p.pyRefuse(fmt.Sprintf("passes %s without a name (or a name without '='); write each argument as name=value", p.py.key))
		return true
	}
	if i+1 == len(b) {
		return false // '==' is no argument
	}
	if b[i+1] == '=' {
		p.pyRefuse(fmt.Sprintf("compares %s with '=='; write each argument as name=value", p.py.key))
		return true
	}
	py := p.py
	py.keys[py.key] = true
	if len(py.out) > 1 {
		py.out = append(py.out, ',')
	}
	py.out = appendJSONString(append(py.out, '"'), []byte(py.key))
	py.out = append(py.out, '"', ':')
	p.pos = i + 1
	c := &p.call
	c.param, c.valStart = py.key, p.pos
	py.lit.begin(len(py.out))
	py.arg = paValue
	return true
}

func (p *textParser) pyAfterArg() bool {
	if !p.pySpace() {
		return false
	}
	switch c := p.buf[p.pos]; c {
	case ',':
		p.pos++
		p.py.arg = paKey
	case ')':
		p.pyCloseCall(p.pos + 1)
	default:
		p.pyRefuse(fmt.Sprintf("has %s after argument %q, where ',' or ')' should be", quoteByte(c), p.py.key))
	}
	return true
}

// pyArgDone ends the value of the argument read: previews and the limit.
func (p *textParser) pyArgDone() {
	py := p.py
	c := &p.call
	if p.tooLarge(p.pos - c.valStart) {
		return
	}
	if py.lit.isString {
		if !py.lit.shown {
			p.opts.ParamText(c.index, py.key, "")
		}
	} else {
		p.emit(Event{Kind: EventParam, Index: c.index, Param: py.key, JSON: string(py.out[py.lit.outStart:])})
	}
	py.arg = paAfterArg
}

func (p *textParser) pyCloseCall(end int) {
	p.py.out = append(p.py.out, '}')
	p.py.phase = pyBetween
	p.closeCall(end, end, false)
}

// pyRefuse refuses the call, saying why, and looks for its end from p.pos.
func (p *textParser) pyRefuse(why string) {
	py := p.py
	if py.refusal == "" {
		py.refusal = fmt.Sprintf("The call %s(...) %s. Arguments must be Python literals: strings, numbers, True, False, None, and lists, tuples and dicts of them.", p.call.name, why)
	}
	depth := 1
	if py.arg == paValue {
		depth += len(py.lit.stack)
	}
	p.pySkipFrom(depth)
}

func (p *textParser) pySkipFrom(depth int) {
	py := p.py
	py.skip = pySkipper{depth: depth}
	if py.arg == paValue && py.lit.state == plString {
		py.skip.quote, py.skip.triple = py.lit.quote, py.lit.triple
	}
	py.arg = paSkip
}

// pySkip passes over the rest of a call to its closing ')', following
// strings and brackets.
func (p *textParser) pySkip() bool {
	end, ok := p.py.skip.scan(p.buf, p.pos)
	p.pos = end
	if !ok {
		return false
	}
	p.py.phase = pyBetween
	p.closeCall(end, end, false)
	return true
}

// pyCutCall ends the input after a ',' of the list: a name held there is
// a call cut off before its '(', closed truncated with no arguments.
func (p *textParser) pyCutCall() {
	if p.py.phase != pyNext {
		return
	}
	b := p.buf[p.pos:]
	i := 0
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	start := i
	for i < len(b) && (isIdentByte(b[i]) || b[i] == '.' && i > start) {
		i++
	}
	if i == start || i < len(b) && !isJSONSpace(b[i]) || !isIdentStart(b[start]) {
		return
	}
	p.py.nameStart = start
	p.open(string(b[start:i]), len(b))
	p.closeCall(len(p.buf), len(p.buf), true)
}

// pyEndCall ends the input inside a call: what the value holds is shown.
func (p *textParser) pyEndCall() {
	if p.py.arg == paValue && p.py.lit.state == plString && !p.call.dropped {
		p.pyString(true)
	}
	p.py.phase = pyAfter
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", string(c))
}
