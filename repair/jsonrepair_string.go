package repair

import (
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// str parses a string opened by any quote style. A quote of the closing
// kind ends the string only where what follows fits the structure (see
// endsString); otherwise it is a quote the model forgot to escape.
func (p *repairParser) str(ctx parseCtx) string {
	open, size := p.peekRune()
	closers, _ := openQuote(open)
	p.noteQuote(open)
	p.i += size
	// The text stays a slice of the source until something must change.
	t := strText{s: p.s, start: p.i, close: asciiCloser(closers)}
	// marks are the commas and closing brackets met, where a string whose
	// closing quote was forgotten may end; the buffer is reused.
	marks := p.marks[:0]
	defer func() { p.marks = marks[:0] }()
	for p.i < len(p.s) {
		if j := plainEnd(p.s, p.i, t.close); j > p.i {
			t.keep(p.i, j)
			p.i = j
			if j == len(p.s) {
				break
			}
		}
		c := p.s[p.i]
		switch {
		case c == '\\':
			if !p.escape(t.builder(p.i), open) {
				return t.String(p.i)
			}
			continue
		case c < 0x20:
			p.controlChar(&t)
			continue
		case c == '}' || c == ']' || c == ',':
			marks = append(marks, strMark{src: p.i, n: t.Len(p.i), c: c})
		}
		r, rsize := rune(c), 1
		if c >= utf8.RuneSelf {
			r, rsize = utf8.DecodeRuneInString(p.s[p.i:])
		}
		if c == t.close || c >= utf8.RuneSelf && strings.ContainsRune(closers, r) {
			if out, ok := p.closingQuote(&t, marks, rsize, ctx); ok {
				return out
			}
		}
		if r == utf8.RuneError && rsize == 1 {
			t.builder(p.i).WriteRune(utf8.RuneError)
		} else {
			t.keep(p.i, p.i+rsize)
		}
		p.i += rsize
	}
	return p.unclosed(t.String(p.i), marks, ctx)
}

func (p *repairParser) noteQuote(open rune) {
	switch open {
	case '"':
	case '\'':
		p.notePython("converted single-quoted strings")
	default:
		p.note("replaced typographic quotes")
	}
}

// asciiCloser returns the ASCII quote among closers (each kind has one).
func asciiCloser(closers string) byte {
	var c byte
	for _, r := range closers {
		if r < utf8.RuneSelf {
			c = byte(r)
		}
	}
	return c
}

// plainEnd returns where the run of plain text from i ends: at a control
// byte, a non-ASCII byte, a backslash, the closing quote or a comma or
// closing bracket (where a string missing its quote may end).
func plainEnd(s string, i int, close byte) int {
	stop := &stopsDouble
	switch close {
	case '"':
	case '\'':
		stop = &stopsSingle
	case '`':
		stop = &stopsBacktick
	default:
		stop = &stopsNone
	}
	for i < len(s) && !stop[s[i]] {
		i++
	}
	return i
}

// The bytes that end a plain run, per closing quote (plainEnd).
var stopsDouble, stopsSingle, stopsBacktick, stopsNone = runStops('"'), runStops('\''), runStops('`'), runStops(0)

func runStops(close byte) (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c >= utf8.RuneSelf || c == '\\' || c == ',' || c == '}' || c == ']'
	}
	t[close] = true // 0 is a control byte already
	return t
}

// controlChar keeps a raw control character; NUL and the like are never
// text a model meant.
func (p *repairParser) controlChar(t *strText) {
	if c := p.s[p.i]; c != '\n' && c != '\r' && c != '\t' && c != '\b' && c != '\f' {
		p.invalid = true
	}
	p.note("escaped raw control characters in strings")
	t.keep(p.i, p.i+1)
	p.i++
}

// closingQuote decides whether the string ends at the quote at p.i or,
// its closing quote forgotten, at an earlier comma.
func (p *repairParser) closingQuote(t *strText, marks []strMark, size int, ctx parseCtx) (string, bool) {
	if p.endsString(p.i+size, ctx) {
		out := t.String(p.i)
		p.i += size
		return out, true
	}
	if m, ok := p.earlierEnd(marks, ctx); ok {
		return p.endAt(m, t.String(p.i)), true
	}
	p.note("escaped quotes inside strings")
	return "", false
}

// unclosed ends a string the text ended inside: where its closing quote was
// evidently forgotten, else at the end, truncated.
func (p *repairParser) unclosed(text string, marks []strMark, ctx parseCtx) string {
	if ctx == ctxArray {
		// ["hello, world] — in an array a comma is the likelier end.
		for _, m := range marks {
			if m.c == ',' {
				return p.endAt(m, text)
			}
		}
	}
	if ctx == ctxObjectValue {
		if m, ok := p.memberAfterComma(marks, len(p.s)); ok {
			return p.endAt(m, text)
		}
	}
	if m, ok := trailingBracket(p.s, marks); ok {
		// {"url":"https://x/} — forgotten before the closing brackets.
		return p.endAt(m, text)
	}
	p.truncated = true
	p.note("closed a string cut off at the end of the text")
	return strings.TrimRightFunc(text, isSpaceRune)
}

// earlierEnd reports whether the string should have ended at an earlier
// comma: ["abc,\n"def"], "a": "New York, "b": ..., "a": "first, b: "second".
func (p *repairParser) earlierEnd(marks []strMark, ctx parseCtx) (strMark, bool) {
	switch ctx {
	case ctxArray:
		if n := len(marks); n > 0 && marks[n-1].c == ',' && skipAllSpace(p.s, marks[n-1].src+1) == p.i {
			return marks[n-1], true
		}
	case ctxObjectValue:
		if m, ok := p.commaBeforeQuotedMember(marks); ok {
			return m, true
		}
		return p.memberAfterComma(marks, p.i)
	}
	return strMark{}, false
}

// endAt ends the string at mark m and moves the parser there, so the comma
// or bracket is read as structure.
func (p *repairParser) endAt(m strMark, text string) string {
	p.i = m.src
	p.note("added missing quotes")
	return strings.TrimRightFunc(text[:m.n], isSpaceRune)
}

// strText is a string's text: a slice of the source while the text equals
// it, a builder once something had to change.
type strText struct {
	s        string
	start    int
	close    byte // the ASCII closing quote, to size the builder
	b        strings.Builder
	building bool
}

func (t *strText) keep(from, to int) {
	if t.building {
		t.b.WriteString(t.s[from:to])
	}
}

// builder switches to building, copying the source up to at.
func (t *strText) builder(at int) *strings.Builder {
	if !t.building {
		t.building = true
		// Sized to the next unescaped quote: one allocation for the usual string.
		end := nextUnescaped(t.s, at, t.close)
		t.b.Grow(end - t.start + 16)
		t.b.WriteString(t.s[t.start:at])
	}
	return &t.b
}

// nextUnescaped returns the offset of the first c at or after i that no
// backslash escapes, or len(s).
func nextUnescaped(s string, i int, c byte) int {
	for i < len(s) {
		k := strings.IndexByte(s[i:], c)
		if k < 0 {
			return len(s)
		}
		k += i
		n := 0
		for j := k - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return k
		}
		i = k + 1
	}
	return len(s)
}

func (t *strText) Len(at int) int {
	if t.building {
		return t.b.Len()
	}
	return at - t.start
}

func (t *strText) String(at int) string {
	if t.building {
		return t.b.String()
	}
	return t.s[t.start:at]
}

// strMark is a comma or closing bracket met inside a string: its offset,
// the text's length before it, the character.
type strMark struct {
	src, n int
	c      byte
}

// trailingBracket returns the first bracket of the run that ends the text.
func trailingBracket(s string, marks []strMark) (strMark, bool) {
	for _, m := range marks {
		if m.c != ',' && trimBrackets(s[m.src:]) == "" {
			return m, true
		}
	}
	return strMark{}, false
}

// commaBeforeQuotedMember reports a quote at p.i starting a member ("b":)
// right after a comma of the string, which should have ended there.
func (p *repairParser) commaBeforeQuotedMember(marks []strMark) (strMark, bool) {
	if len(marks) == 0 {
		return strMark{}, false
	}
	m := marks[len(marks)-1]
	if m.c != ',' || skipAllSpace(p.s, m.src+1) != p.i || !p.memberFollows(p.i) {
		return strMark{}, false
	}
	return m, true
}

// memberAfterComma finds the last comma of the string followed by a
// member's start ("b: ", "b": ), where the string should have ended.
func (p *repairParser) memberAfterComma(marks []strMark, end int) (strMark, bool) {
	for k := len(marks) - 1; k >= 0; k-- {
		m := marks[k]
		if m.c != ',' {
			continue
		}
		n := skipAllSpace(p.s, m.src+1)
		q := n
		for q < end && (isKeyByte(p.s[q]) || p.s[q] == '-') {
			q++
		}
		if q == n {
			return strMark{}, false
		}
		a := skipInlineSpace(p.s, q)
		if a >= end || p.s[a] != ':' {
			return strMark{}, false
		}
		if p.keys != nil && !p.keys[p.s[n:q]] {
			return strMark{}, false
		}
		if strings.TrimSpace(p.s[a+1:end]) != "" && end != len(p.s) {
			return strMark{}, false // the quote must follow the colon directly
		}
		return m, true
	}
	return strMark{}, false
}

func trimBrackets(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return isSpaceRune(r) || r == '}' || r == ']' || r == '`' })
}

// escape decodes one escape at p.i into b; false when the text ends inside it.
func (p *repairParser) escape(b *strings.Builder, open rune) bool {
	if p.i+1 >= len(p.s) {
		b.WriteByte('\\')
		p.i = len(p.s)
		p.truncated = true
		p.note("closed a string cut off at the end of the text")
		return false
	}
	e := p.s[p.i+1]
	if c, ok := jsonesc.Simple(e); ok {
		b.WriteByte(c)
		p.i += 2
		return true
	}
	switch e {
	case '\'':
		b.WriteByte('\'')
		if open != '\'' {
			p.note("fixed invalid escapes")
		}
	case '\n':
		b.WriteByte('\n') // a line continuation
		p.note("fixed invalid escapes")
	case 'u':
		if jsonesc.Partial(p.s[p.i:]) {
			p.i = len(p.s)
			p.truncated = true
			p.note("closed a string cut off at the end of the text")
			return false
		}
		r, n := jsonesc.Unicode(p.s[p.i:])
		if n == 0 {
			p.invalid = true
			b.WriteString(`\u`)
			break
		}
		b.WriteRune(r) // a lone surrogate becomes U+FFFD
		p.i += n
		return true
	default:
		// \d in a regex, \p in a Windows path: the model meant the backslash.
		b.WriteByte('\\')
		p.i++
		p.note("fixed invalid escapes")
		return true
	}
	p.i += 2
	return true
}
