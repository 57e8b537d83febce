package jsonrepair

import (
	"strings"
	"unicode/utf8"
)

// A string the text ended inside, or whose closing quote a comma or a
// bracket suggests was forgotten: where it ends, on what evidence, and when
// the text reads two ways and the call is refused instead.

// unclosed ends a string the text ended inside: where its closing quote was
// evidently forgotten, else at the end, truncated.
func (p *repairParser) unclosed(t *strText, marks *strMarks, ctx parseCtx) string {
	text := t.String(p.i)
	if ctx == ctxArray && marks.firstComma.c != 0 {
		// ["hello, world] — in an array a comma is the likelier end; not
		// before words and a colon (["x, y: z]), a member no array holds:
		// there the comma is the text's as much.
		m, next := marks.firstComma, len(p.s)
		if marks.afterFirstComma.c != 0 {
			next = marks.afterFirstComma.src
		}
		if strings.IndexByte(p.s[m.src:next], ':') >= 0 && !valueStartAt(p.s, skipAllSpace(p.s, m.src+1)) {
			t.inner = true
		}
		p.closedBefore(t, text, m)
		p.settledBy(t)
		return p.endAt(m, text)
	}
	if ctx == ctxObjectValue {
		if m, ok := p.memberEnd(t, marks); ok {
			p.closedBefore(t, text, m)
			p.guessedSplit(t)
			p.settledBy(t)
			return p.endAt(m, text)
		}
	}
	if m, ok := marks.trailingBracket(p.s); ok {
		if ctx == ctxKey && p.keyQuote < 0 {
			// {"a": 1}"}} — a key with no colon nor value before the
			// closing brackets is a stray quote as much as a key.
			p.keyQuote = t.open
		}
		// {"url":"https://x/} — forgotten before the closing brackets. Only
		// where the text before them balances its own brackets, in every
		// reading of its strings and comments: one it left open means the
		// bracket is content and the text was cut off after it; one it
		// closed unopened means it may have ended there instead. An empty
		// text shows nothing ended: the bracket may be the content's first
		// character, cut off after it ({"content": "}).
		raw, some := bracketBalance(text[:m.n])
		switch {
		case raw.unclosed, strings.TrimFunc(text[:m.n], isSpaceRune) == "":
		case some.unopened, p.closersPastDepth(m):
			t.inner = true
			p.settledBy(t)
			return p.endAt(m, text)
		case some.unclosed:
		default:
			p.settledBy(t)
			return p.endAt(m, text)
		}
	}
	p.truncated = true
	p.note("closed a string cut off at the end of the text")
	return strings.TrimRightFunc(text, isSpaceRune)
}

// closedBefore makes a string ended at the comma m, its closing quote
// forgotten, one of two readings where its text closes a bracket it never
// opened before m, in some reading of its quotes, and a closing bracket
// before m is one the string could have ended at (closesAt): the bracket
// may close the container, the quote forgotten before it (["a & b]],
// null], ['run `make test`], 'x']).
func (p *repairParser) closedBefore(t *strText, text string, m strMark) {
	if _, some := bracketBalance(text[:m.n]); !some.unopened {
		return
	}
	for k := t.start; k < m.src; k++ {
		j := strings.IndexAny(p.s[k:m.src], "}])")
		if j < 0 {
			return
		}
		if k += j; p.closesAt(k) {
			t.inner = true
			return
		}
	}
}

// closesAt reports whether the string being read could have ended at the
// closing bracket at k: the brackets from k close its container and those
// around it, each by its own kind, leaving one open, and a comma then
// goes on as the one left open expects: an item in an array, a member in
// an object, of a key it knows if its keys are known. A bracket that
// would close the whole document before a comma is content (`{"content":
// "}, "path": …`), as is one that leaves an item object with a member
// after it (`[{"content": "…}, "status": …`).
func (p *repairParser) closesAt(k int) bool {
	level, n := p.depth, k
	for ; n < len(p.s) && strings.IndexByte("}])", p.s[n]) >= 0; n = skipAllSpace(p.s, n+1) {
		if level <= 1 || (p.s[n] == '}') == p.isArray(level) {
			return false
		}
		level--
	}
	if n >= len(p.s) || p.s[n] != ',' {
		return false
	}
	n = skipAllSpace(p.s, n+1)
	key, _, member := p.memberAt(n)
	if p.isArray(level) {
		return !member && valueStartAt(p.s, n)
	}
	keys := p.keys
	if p.levels != nil {
		keys = p.levelKeys(p.objectsTo(level) - 1)
	}
	return member && (keys == nil || keys[key])
}

// objectsTo counts the open objects at depths 1 to d.
func (p *repairParser) objectsTo(d int) int {
	n := 0
	for i := 1; i <= d; i++ {
		if !p.isArray(i) {
			n++
		}
	}
	return n
}

// valueStartAt reports a value starting at n: a quote, a number, a
// bracket or a literal.
func valueStartAt(s string, n int) bool {
	if n >= len(s) {
		return false
	}
	c := s[n]
	return isQuoteAt(s, n) || isDigit(c) || c == '-' || c == '[' || c == '{' || startsLiteral(s[n:])
}

// closersPastDepth reports more closing brackets from m than containers
// are open: the first ones may be the content's ("}\n}}" ending code) or
// one too many, and the balance of the text before them cannot tell, a
// bracket in a string of the code counting as much as one of its blocks.
func (p *repairParser) closersPastDepth(m strMark) bool {
	return strings.Count(p.s[m.src:], "}")+strings.Count(p.s[m.src:], "]") > p.depth
}

// earlierEnd reports whether the string should have ended at an earlier
// comma: ["abc,\n"def"], "a": "New York, "b": ..., "a": "first, b: "second".
func (p *repairParser) earlierEnd(marks *strMarks, ctx parseCtx) (strMark, bool) {
	switch ctx {
	case ctxArray:
		if m := marks.last; m.c == ',' && skipAllSpace(p.s, m.src+1) == p.i {
			return m, true
		}
	case ctxObjectValue:
		if m, ok := p.commaBeforeQuotedMember(marks); ok {
			return m, true
		}
		return p.memberAfterComma(marks, p.i)
	}
	return strMark{}, false
}

// itemAfterComma reports a comma in s[from:to] followed by what starts an
// item of a list (a quote, a bracket, or a number or literal that ends as
// an item does): an item whose quote was forgotten may have ended there as
// much as at the last comma (["100% sure,false,[1,2,"x"]]).
func (p *repairParser) itemAfterComma(from, to int) bool {
	for i := from; i < to; i++ {
		j := strings.IndexByte(p.s[i:to], ',')
		if j < 0 {
			return false
		}
		i += j
		n := skipAllSpace(p.s, i+1)
		if n >= to {
			return false
		}
		switch c := p.s[n]; {
		case c == '[' || c == '{' || isQuoteAt(p.s, n):
			return true
		case isDigit(c) || c == '-' || startsLiteral(p.s[n:]):
			if scalarEnds(p.s, n) {
				return true
			}
		}
	}
	return false
}

// endAt ends the string at mark m and moves the parser there, so the comma
// or bracket is read as structure.
func (p *repairParser) endAt(m strMark, text string) string {
	p.i = m.src
	p.note("added missing quotes")
	return strings.TrimRightFunc(text[:m.n], isSpaceRune)
}

// commaBeforeQuotedMember reports a quote at p.i starting a member ("b":)
// right after a comma of the string, which should have ended there.
func (p *repairParser) commaBeforeQuotedMember(marks *strMarks) (strMark, bool) {
	m := marks.last
	if m.c != ',' || skipAllSpace(p.s, m.src+1) != p.i || !p.memberFollows(p.i) {
		return strMark{}, false
	}
	return m, true
}

// memberAfterComma reports the string's last comma followed by a
// member's start ("b: ", "b": ), where the string should have ended.
func (p *repairParser) memberAfterComma(marks *strMarks, end int) (strMark, bool) {
	if m := marks.lastComma; m.c != 0 {
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
		// Under a schema that lists no keys here (an untyped item, a
		// wrapper's object), `, y: z` is a member only by guess: the text
		// reads as well as one value ("x, y: z"). Without a schema it is
		// read as both libraries read it.
		p.openSplit = p.keys == nil && p.forCall
		return m, true
	}
	return strMark{}, false
}

// memberEnd reports where a string the text ended inside ends before a
// member: at the one comma a member follows, its key bare or quoted
// ({'a': "it's done, 'b': False}). Where more than one does, the string
// may end at any of them, and the text leaves two readings.
func (p *repairParser) memberEnd(t *strText, marks *strMarks) (strMark, bool) {
	m, ok := p.memberAfterComma(marks, len(p.s))
	first, more := p.memberCommas(t.start, len(p.s))
	switch {
	case first < 0:
		return m, ok
	case ok && first == m.src && !more:
		return m, true
	case ok:
		t.inner = true // memberAfterComma's and another
		return m, true
	case more:
		t.inner = true
		return marks.lastComma, true
	}
	p.openSplit = p.keys == nil && p.forCall
	for _, c := range [...]strMark{marks.lastComma, marks.firstComma} {
		if c.c != 0 && c.src == first {
			return c, true
		}
	}
	t.inner = true // a comma no mark was kept for
	return marks.lastComma, true
}

// memberCommas returns the first comma in s[from:to] that a member
// follows (memberItemAt, its key bare or quoted), or -1, and whether
// another comma does too.
func (p *repairParser) memberCommas(from, to int) (first int, more bool) {
	first = -1
	for i := from; i < to; i++ {
		j := strings.IndexByte(p.s[i:to], ',')
		if j < 0 {
			break
		}
		i += j
		if p.memberItemAt(skipAllSpace(p.s, i+1)) {
			if first >= 0 {
				return first, true
			}
			first = i
		}
	}
	return first, false
}

// memberItemAt reports a member at n the object may hold: a key it may
// hold and its colon, then a simple value (simpleValueEnd) that a comma or
// the text's end follows, or the object's end closing the containers to
// the end (closesToEnd). Code such as `{x: 2, y: "two"};` or
// `{'b': None}\nprint(x)` holds no member a string could have ended
// before.
func (p *repairParser) memberItemAt(n int) bool {
	key, v, ok := p.memberAt(n)
	if !ok || p.keys != nil && !p.keys[key] {
		return false
	}
	end, ok := simpleValueEnd(p.s, skipAllSpace(p.s, v))
	if !ok {
		return false
	}
	end = skipAllSpace(p.s, end)
	return end >= len(p.s) || p.s[end] == ',' || p.s[end] == '}' && p.closesToEnd(end+1)
}

// balance is what a count of a text's brackets found: one left open, or
// one closed that was never opened.
type balance struct{ unclosed, unopened bool }

// bracketBalance counts text's brackets raw, and reports in some what any
// reading of it finds. A bracket inside the content's own string literal
// or comment is no block's (`"brace } x"`, `// }` in code), yet the text
// does not settle which quotes open strings (' is an apostrophe in prose
// as much) nor what starts a comment. So the brackets are counted with
// each kind of span skipped too, and the text balances only where every
// reading says so.
func bracketBalance(text string) (raw, some balance) {
	raw = bracketCount(text, "")
	some = raw
	for _, open := range [...]string{`"`, "'", "`", "//", "#"} {
		if strings.Contains(text, open) {
			b := bracketCount(text, open)
			some.unclosed, some.unopened = some.unclosed || b.unclosed, some.unopened || b.unopened
		}
	}
	return raw, some
}

// bracketCount is bracketBalance in one reading: the spans open starts
// (spanEnd) skipped; open "" skips none.
func bracketCount(text, open string) (b balance) {
	var curly, square int
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '{':
			curly++
		case c == '}':
			curly--
		case c == '[':
			square++
		case c == ']':
			square--
		case open != "" && c == open[0] && strings.HasPrefix(text[i:], open):
			i = spanEnd(text, i+len(open), open)
		}
		b.unopened = b.unopened || curly < 0 || square < 0
	}
	b.unclosed = curly > 0 || square > 0
	return b
}

// spanEnd returns where a span opened before i ends: a quote's at its
// closing quote (backslash escapes kept) or, left open, at the line's end;
// a comment's at the line's end.
func spanEnd(text string, i int, open string) int {
	quote := open == `"` || open == "'" || open == "`"
	for ; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			return i
		case !quote:
		case c == '\\':
			i++
		case c == open[0]:
			return i
		}
	}
	return i
}

// onlyBrackets reports whether s holds nothing but closing brackets,
// backticks and space (isSpaceRune). A string marks every closing bracket
// in it (strMarks.add), so the usual text, code, is turned away at its
// first byte.
func onlyBrackets(s string) bool {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '}' || c == ']' || c == '`' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c < utf8.RuneSelf:
			return false
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isSpaceRune(r) {
				return false
			}
			i += n
		}
	}
	return true
}
