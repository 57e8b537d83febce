package stream

// White space around calls in the formats with layout (formats.go) is layout, not
// prose: the newlines inside a <tool_call> wrapper, between two calls, and
// before the first call or after the last when nothing else stands there
// pass on as no text at all. A run of text between two calls (or a call
// and the start or end of the response) that holds anything else is prose
// and passes on exactly, its white space included. A response without
// calls passes on whole. The white space of a run is held until the run
// shows which it is, so the text does not depend on the split.

// maxLayout is the longest run of white space held as possible layout; a
// longer one is not layout and passes on as text.
const maxLayout = 4 << 10

// addText takes p.buf[from:to], prose, and returns the bytes used: a
// character split at the end waits unless final. After a call, white space
// waits for the end of the response, and anything else quotes the calls
// before it (tail.go).
func (p *textParser) addText(from, to int, final bool) int {
	b, used := p.buf[from:to], 0
	if p.tail.on {
		i := 0
		for ; i < len(b) && isJSONSpace(b[i]); i++ {
			p.tail.nl = p.tail.nl || b[i] == '\n'
		}
		p.md.feed(b[:i])
		p.tail.ws = append(p.tail.ws, b[:i]...)
		switch {
		case len(p.tail.ws) > maxLayout:
			// Not layout, and no sentence goes on past it: the calls stand.
			p.releaseTail(true)
		case i == len(b):
			return i
		case p.tail.nl && !p.tail.whole:
			p.releaseTail(true)
		default:
			p.quoteTail(p.base + from + i)
		}
		p.space, p.runProse = p.space[:0], true
		b, used = b[i:], i
	}
	n := p.addProse(b, final)
	p.md.feed(b[:n])
	return used + n
}

// addProse takes b, prose, and returns the bytes used.
func (p *textParser) addProse(b []byte, final bool) int {
	if !p.layout || p.runProse {
		var n int
		p.text, n = appendValid(p.text, b, final)
		return n
	}
	i := 0
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	p.space = append(p.space, b[:i]...)
	if i == len(b) && len(p.space) <= maxLayout {
		return i
	}
	p.text = append(p.text, p.space...)
	p.space, p.runProse = p.space[:0], true
	var n int
	p.text, n = appendValid(p.text, b[i:], final)
	return i + n
}

// callBoundary ends the run of text before a call or a wrapper tag: white
// space only, it was layout.
func (p *textParser) callBoundary() {
	p.space, p.runProse, p.afterCall = p.space[:0], false, true
}

// endText ends the last run of text: white space only, it is layout after
// a call, and the whole response when there was none.
func (p *textParser) endText() {
	if !p.runProse && !p.afterCall {
		p.text = append(p.text, p.space...)
	}
	p.space = p.space[:0]
}
