package stream

// mdSpecial are the bytes that change anything inside a line of prose.
var mdSpecial = [256]bool{'\n': true, '`': true, '~': true}

// Markup that a response only quotes is text, not a call: a call inside a
// Markdown code fence, an inline code span or a blockquote is an example
// the model shows, whatever its format. markdown follows the prose around
// calls byte by byte, so the answer does not depend on the split.
//
// It reads CommonMark's block and inline structure as far as quoting
// goes: a fence is three or more backticks or tildes at a line's start
// (at most three spaces in) and ends at a line of at least as many of the
// same character and nothing else; a code span opens at a run of backticks
// and closes at a run of the same length, or at a blank line (the end of
// its paragraph); a blockquote is a line starting with '>' and the lines
// that continue its paragraph.
type markdown struct {
	fence    byte // '`' or '~' inside a fenced block
	fenceLen int
	span     int // backticks that opened the open code span
	quote    bool

	// The line so far.
	indent  int  // columns of white space before its first other byte
	started bool // a byte other than white space came
	prose   bool // prose came: a call opening now stands inside a sentence
	info    bool // the rest of a fence's opening line (its info string)
	closing bool // the line so far may close the open fence
	lineQ   bool // the line starts with '>'

	// group: an opening wrapper stood after prose on its line, so the call
	// it wraps does too, on whatever line it opens. closed: a call closed
	// on this line, so a wrapper now closes it rather than opening one.
	group, closed bool

	// A run of backticks or tildes not yet ended, and where it began.
	run     int
	runChar byte
	runBOL  bool // the run is the first thing on its line
}

// feed follows the prose b.
func (m *markdown) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		// Inside a line of prose only newlines and runs of backticks or
		// tildes change anything: skip to the next.
		if m.run == 0 && m.prose && !m.closing {
			for i < len(b) && !mdSpecial[b[i]] {
				i++
			}
			if i == len(b) {
				return
			}
		}
		c := b[i]
		if m.run > 0 && c != m.runChar {
			m.endRun()
		}
		switch c {
		case '\n':
			m.newline()
		case ' ', '\t', '\r':
			if !m.started {
				m.indent += 1 + 3*btoi(c == '\t')
			}
		case '`', '~':
			if m.run == 0 {
				m.runChar, m.runBOL = c, !m.started && m.indent <= 3
			}
			m.run++
			m.started, m.prose = true, true
		case '>':
			if !m.started && m.indent <= 3 && m.fence == 0 {
				m.lineQ, m.quote = true, true
			}
			m.other()
		default:
			m.other()
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *markdown) other() {
	m.started, m.prose, m.closing = true, true, false
}

// endRun ends a run of backticks or tildes: a fence opens or closes, or a
// code span does.
func (m *markdown) endRun() {
	n, c, bol := m.run, m.runChar, m.runBOL
	m.run = 0
	switch {
	case m.info && c == '`' && m.fence == '`':
		// A backtick in a backtick fence's info string: no fence after
		// all, but a code span its opening run began.
		m.fence, m.info, m.span = 0, false, m.fenceLen
		m.closeSpan(n)
	case m.fence != 0:
		m.closing = bol && c == m.fence && n >= m.fenceLen
	case bol && n >= 3:
		m.fence, m.fenceLen, m.info, m.span = c, n, true, 0
	case c != '`':
	case m.span > 0:
		m.closeSpan(n)
	default:
		m.span = n
	}
}

// closeSpan closes the open code span at a run of as many backticks.
func (m *markdown) closeSpan(n int) {
	if n == m.span {
		m.span = 0
	}
}

// newline ends a line: a fence closes, a blank line ends the paragraph
// (its code span and blockquote).
func (m *markdown) newline() {
	if m.run > 0 {
		m.endRun()
	}
	switch {
	case m.fence != 0 && m.closing:
		m.fence, m.fenceLen = 0, 0
	case m.fence == 0 && !m.started:
		m.span, m.quote = 0, false
	}
	m.indent, m.started, m.prose, m.info, m.closing, m.lineQ, m.closed = 0, false, false, false, false, false, false
}

// quoted reports whether markup starting at the next byte, which is not a
// backtick, a tilde or white space, is quoted.
func (m *markdown) quoted() bool {
	if m.run > 0 {
		m.endRun()
	}
	return m.fence != 0 || m.span > 0 || m.quote
}

// wrapper notes a wrapper token.
func (m *markdown) wrapper() {
	if !m.closed {
		m.group = m.group || m.prose
	}
	m.markup()
}

// opened notes a call opening and reports whether prose stands before it
// on its line, or before the wrapper that opened its group on its own.
func (m *markdown) opened() bool {
	inline := m.prose || m.group
	m.markup()
	return inline
}

// callClosed notes a call closing.
func (m *markdown) callClosed() { m.group, m.closed = false, true }

// markup notes that markup (a call, a wrapper) took the line so far: what
// follows on the line is no fence or blockquote marker.
func (m *markdown) markup() {
	if m.run > 0 {
		m.endRun()
	}
	m.started, m.closing = true, false
}
