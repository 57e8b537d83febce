package jsonrepair

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

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
	// The text stays a slice of the source until something must change;
	// then it is built in the parser's scratch buffer.
	t := strText{s: p.s, start: p.i, close: asciiCloser(closers), closers: closers, single: open == '\'', buf: p.scratch[:0], open: p.i - size}
	// marks are the commas and closing brackets met, where a string whose
	// closing quote was forgotten may end.
	var marks strMarks
	defer func() { p.scratch = t.buf[:0] }()
	runs := newRunStopper(t.close)
	for p.i < len(p.s) {
		// Plain runs, the usual escapes, the marks and non-ASCII text are
		// scan's; what stops it is looked at here: another escape, a
		// control byte, a closing quote or a byte that is not UTF-8.
		if p.i = t.scan(p.i, &marks, runs); p.i == len(p.s) {
			break
		}
		c := p.s[p.i]
		switch {
		case c == '\\':
			t.build(p.i)
			var ok bool
			if t.buf, ok = p.escape(t.buf, open); !ok {
				return t.String(p.i)
			}
			continue
		case c < 0x20:
			p.controlChar(&t)
			continue
		}
		// A closing quote, or a byte that is not UTF-8.
		r, rsize := rune(c), 1
		if c >= utf8.RuneSelf {
			r, rsize = utf8.DecodeRuneInString(p.s[p.i:])
		}
		if c == t.close || c >= utf8.RuneSelf && strings.ContainsRune(closers, r) {
			if out, ok := p.closingQuote(&t, &marks, rsize, ctx); ok {
				return out
			}
		}
		if r == utf8.RuneError && rsize == 1 {
			t.build(p.i)
			t.buf = utf8.AppendRune(t.buf, utf8.RuneError)
		} else {
			t.keep(p.i, p.i+rsize)
		}
		p.i += rsize
	}
	return p.unclosed(&t, &marks, ctx)
}

// plainRunes returns where the run of valid non-ASCII characters from i
// that are not closing quotes ends.
func plainRunes(s string, i int, closers string) int {
	for i < len(s) && s[i] >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || isQuoteRune(r) && strings.ContainsRune(closers, r) {
			break
		}
		i += n
	}
	return i
}

// isQuoteRune reports the non-ASCII quotes openQuote knows, so that other
// characters skip the search of the closers.
func isQuoteRune(r rune) bool {
	return r == '\u00b4' || '\u2018' <= r && r <= '\u201e'
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

// runStopper finds where a string's plain runs end: at a control byte, a
// non-ASCII byte, a backslash, the closing quote or a comma or closing
// bracket (where a string missing its quote may end).
type runStopper struct {
	stop   *[256]bool
	closes uint64 // the closing quote in each byte
}

func newRunStopper(close byte) runStopper {
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
	return runStopper{stop: stop, closes: ones * uint64(close)}
}

// end returns where the run from i ends, testing eight bytes at a time:
// the lowest byte a word's stop mask marks is the first stop byte in it,
// or a '|', which the search passes, so a run of a few bytes, as in
// escaped code, costs one word. The last bytes of the text are looked up
// in the table. (The scan in str finds its stops the same way.)
func (r runStopper) end(s string, i int) int {
	for i+8 <= len(s) {
		m := stopMask(load64(s, i), r.closes)
		if m == 0 {
			i += 8
			continue
		}
		if i += bits.TrailingZeros64(m) >> 3; r.stop[s[i]] {
			return i
		}
		i++ // '|'
	}
	for i < len(s) && !r.stop[s[i]] {
		i++
	}
	return i
}

// stopMask has the high bit set of each byte of w that ends a plain run
// (runStops), closes holding the closing quote in each byte, and of '|'. A
// byte above a marked one may be marked falsely; the lowest mark is exact
// but for '|': a borrow only crosses bytes above one that matched already.
// A byte below 0x20 borrows, one from 0x80 has the bit already; '\\', ']'
// and '}' (with '|') are the bytes 0x7d becomes by setting 0x21. The
// high bits are taken once, at the end.
func stopMask(w, closes uint64) uint64 {
	return (w - 0x20*ones | w | zeroBytes(w^(ones*',')) |
		zeroBytes(w|0x21*ones^(ones*'}')) | zeroBytes(w^closes)) & highs
}

// scan reads the string's text from i while it is plain runs, the usual
// escapes (\n, \", \\, and \' in a single-quoted string), marks and
// non-ASCII text, and returns where a
// byte the general loop of str must look at is, or the text's end. The
// offsets and the buffer stay in registers; while the text is built, a
// run is copied by storing the word it was found in, the buffer having
// room for eight bytes past it (startBuilding sizes it for the rest of the
// text). It is one function on purpose: its cases share those registers.
//
//nolint:gocyclo // the string scan's one loop, its cases listed above
func (t *strText) scan(i int, ms *strMarks, r runStopper) int {
	s := t.s
	buf, n := t.buf[:cap(t.buf)], len(t.buf)
	building, escapedQuote := t.building, false
scan:
	for {
		// A stop a word found is one; the bytes no word covers are looked
		// up in the table.
		found := false
		for i+8 <= len(s) {
			w := load64(s, i)
			m := stopMask(w, r.closes)
			if building {
				if n+8 > len(buf) {
					buf = grown(buf, n, 8)
				}
				store64(buf[n:n+8], w)
			}
			if m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i, n, found = i+k, n+k, true
				break
			}
			i, n = i+8, n+8
		}
		if !found {
			for ; i < len(s) && !r.stop[s[i]]; i, n = i+1, n+1 {
				if building {
					if n >= len(buf) {
						buf = grown(buf, n, 1)
					}
					buf[n] = s[i]
				}
			}
			if i >= len(s) {
				break
			}
		}
		c := s[i]
		if c == '\\' {
			if i+1 >= len(s) {
				break
			}
			e, ok := jsonesc.Simple(s[i+1])
			switch {
			case ok:
				escapedQuote = escapedQuote || e == t.close
			case s[i+1] == '\'' && t.single:
				e = '\'' // Python's escape, as in str
			default:
				break scan
			}
			if !building {
				t.startBuilding(i)
				building, buf, n = true, t.buf[:cap(t.buf)], len(t.buf)
			}
			if n >= len(buf) {
				buf = grown(buf, n, 1)
			}
			buf[n] = e
			i, n = i+2, n+1
			// Escapes come in runs (\\\" in escaped code): the next is
			// decoded without finding it in a word.
			for i+1 < len(s) && s[i] == '\\' {
				e, ok := jsonesc.Simple(s[i+1])
				if !ok {
					break
				}
				escapedQuote = escapedQuote || e == t.close
				if n >= len(buf) {
					buf = grown(buf, n, 1)
				}
				buf[n] = e
				i, n = i+2, n+1
			}
			continue
		}
		if c >= utf8.RuneSelf {
			// Non-ASCII text, up to a closing quote or a byte that is
			// not UTF-8.
			j := plainRunes(s, i, t.closers)
			if j == i {
				break
			}
			if building {
				if n+(j-i) > len(buf) {
					buf = grown(buf, n, j-i)
				}
				copy(buf[n:], s[i:j])
			}
			i, n = j, n+(j-i)
			continue
		}
		if c != ',' && c != '}' && c != ']' {
			if r.stop[c] {
				break
			}
			// '|', which the word marks with '}': plain text, already
			// stored with the word when the text is built.
			i, n = i+1, n+1
			continue
		}
		at := i - t.start
		if building {
			at = n
			if n >= len(buf) {
				buf = grown(buf, n, 1)
			}
			buf[n] = c
		}
		if m := (strMark{src: i, n: at, c: c}); c == ',' && ms.firstComma.c != 0 && ms.afterFirstComma.c != 0 {
			ms.last, ms.lastComma = m, m // add's commonest case, inline
		} else {
			ms.add(s, m)
		}
		i, n = i+1, n+1
	}
	if building {
		t.buf = buf[:n]
	}
	t.escapedQuote = t.escapedQuote || escapedQuote
	return i
}

// grown returns buf, of which n bytes are used, with room for more at
// its full length.
func grown(buf []byte, n, more int) []byte {
	buf = slices.Grow(buf[:n], more)
	return buf[:cap(buf)]
}

// store64 writes w to the eight bytes of b, little-endian (one store once
// compiled).
func store64(b []byte, w uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	b[4], b[5], b[6], b[7] = byte(w>>32), byte(w>>40), byte(w>>48), byte(w>>56)
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroBytes has the high bit of a byte set when it is zero, exactly for
// the lowest zero byte; its other bits are noise, for the caller to mask
// with highs.
func zeroBytes(x uint64) uint64 { return (x - ones) &^ x }

// load64 reads eight bytes of s from i, little-endian (one load once
// compiled).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// The bytes that end a plain run, per closing quote (runStopper).
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
func (p *repairParser) closingQuote(t *strText, marks *strMarks, size int, ctx parseCtx) (string, bool) {
	if p.endsString(p.i+size, ctx) {
		if t.escapedQuote && t.rawASCII || p.otherEnd(t, size, ctx) || ctx == ctxArray && p.commaThenItem(marks, size) {
			p.settle(t)
		}
		out := t.String(p.i)
		p.i += size
		return out, true
	}
	if m, ok := p.earlierEnd(marks, ctx); ok {
		if ctx == ctxArray && p.itemAfterComma(t.start, m.src) {
			t.inner = true
		}
		text := t.String(p.i)
		p.closedBefore(t, text, m)
		if ctx == ctxObjectValue {
			// A member after an earlier comma too: the string may have
			// ended there as well.
			if first, _ := p.memberCommas(t.start, m.src); first >= 0 {
				t.inner = true
			}
		}
		p.guessedSplit(t)
		p.settledBy(t)
		return p.endAt(m, text), true
	}
	p.note("escaped quotes inside strings")
	t.raw = true
	t.rawASCII = t.rawASCII || p.s[p.i] == t.close
	t.rawQuotes++
	// A quote before a space or a comma could have closed the string, the
	// rest being stray text ("data" AAAA); one before a word opens a
	// quotation ("sic") and could not.
	if j := p.i + size; j < len(p.s) && strings.IndexByte(" \t\r\n,}]", p.s[j]) >= 0 {
		t.inner = true
	}
	// One at a line's end, or before a colon, could have closed it, what
	// follows being stray; otherEnd asks whether words came after it.
	if j := p.i + size; j < len(p.s) {
		if k := skipInlineSpace(p.s, j); k < len(p.s) && strings.IndexByte("\r\n:", p.s[k]) >= 0 {
			t.couldEnd = j
		}
	}
	// One before a word opens a quotation, the string's words from there
	// on its text.
	t.quotation = 0
	if r, _ := utf8.DecodeRuneInString(p.s[p.i+size:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
		t.quotation = p.i + size
	}
	// One before a closing bracket could have closed it with the bracket
	// (a stray "} after the value); the words after it tell.
	if k := skipInlineSpace(p.s, p.i+size); k < len(p.s) && (p.s[k] == '}' || p.s[k] == ']') {
		t.closer = p.i + size
	}
	return "", false
}

// commaThenItem reports an item that ends with a comma at a quote the
// next item follows with no comma (["a,"{b}", 1]): the item's own quote
// may have been forgotten before that comma as much, the quote opening the
// next item ("{b}").
func (p *repairParser) commaThenItem(marks *strMarks, size int) bool {
	if m := marks.last; m.c != ',' || skipAllSpace(p.s, m.src+1) != p.i {
		return false
	}
	k := skipInlineSpace(p.s, p.i+size)
	return k < len(p.s) && strings.IndexByte(",]}):\r\n", p.s[k]) < 0 && !commentAt(p.s, k)
}

// settle records that the string's end is one of two readings.
func (p *repairParser) settle(t *strText) {
	if p.ambiguous < 0 {
		p.ambiguous = t.open
	}
}

// otherEnd reports whether a string ending at the quote at p.i had another
// end the text reads as well as this one:
//   - a quote before a closing bracket inside it, with no words from there
//     to this quote: path"}" is a path and a stray "} as much as a path
//     ending in "};
//   - an item ending where another quote follows with no comma, or a
//     colon, having taken a quote for content: ["say "hi""] is
//     "say \"hi\"" as much as two items;
//   - a value holding the end of its object and the start of a sibling
//     with one of its keys ("done" extra}, {"id": ...): the string may
//     have ended before the brace, the item after it its own;
//   - a quotation left open, this quote before a comma or a bracket:
//     say "hi", and f"Hello, {name}!", — the quotation's end and a
//     forgotten closing quote, as much as the string's end. It is open
//     where the quotes taken for content are odd, the last before a word,
//     or where that last one is followed by several words: an earlier
//     quote may be the content's own escaped one (\\" in code), so the
//     count cannot close it; one word after an even count (v"alu"e) is
//     read as glued to the quote that closed the pair.
func (p *repairParser) otherEnd(t *strText, size int, ctx parseCtx) bool {
	if p.opensAtCut(t, size) {
		return true
	}
	if !t.raw {
		return false
	}
	if t.closer > 0 && !hasWords(p.s[t.closer:p.i]) {
		return true
	}
	if t.couldEnd > 0 && !hasWords(p.s[t.couldEnd:p.i]) {
		// Nothing but space and marks between a quote taken for content
		// and this one: {"a": "hello\n"\n"} is "hello" and a stray quote
		// as much as a line holding a quote; {"a": "{ b": {} }"} is "{ b"
		// and stray marks as much.
		return true
	}
	k := skipInlineSpace(p.s, p.i+size)
	if k >= len(p.s) {
		// The text's last character, containers open: the quote that could
		// have closed the string before it may have, the text cut off in
		// the next key ("x", " or 'x','tags'); so may a quotation left
		// open's end (f"Hi {name}").
		return (t.inner || p.quotationLeftOpen(t)) && p.depth > 0
	}
	if ctx == ctxArray && (isQuoteAt(p.s, k) || p.s[k] == ':') {
		return true
	}
	if ctx == ctxObjectValue && p.holdsSibling(t.start, p.i) {
		return true
	}
	if !p.quotationLeftOpen(t) {
		return false
	}
	// Before a comma or a bracket, or the brackets that end the text, this
	// quote may be the quotation's own end, the string's forgotten: a
	// quotation of one word as much as of several ({"k": "say "hi", ...}
	// is `say "hi` and `say "hi"`).
	return strings.IndexByte(",}]", p.s[k]) >= 0 || onlyBrackets(p.s[k:])
}

// quotationLeftOpen reports a quotation the quotes taken for content left
// open before p.i (see otherEnd).
func (p *repairParser) quotationLeftOpen(t *strText) bool {
	return t.close == '"' && t.quotation > 0 && (p.quotationOpen(t) || strings.ContainsRune(p.s[t.quotation:p.i], ' '))
}

// opensAtCut reports a quote that is the text's last character,
// containers open, where quotes open a string or a quotation rather than
// close one: after a space, an opening bracket, `=`, `,` or `:`, or a
// string prefix (f"…", r"…"). It opens one as much as it ends the string,
// the text cut off after it ({"input": "Body with ", "return f").
func (p *repairParser) opensAtCut(t *strText, size int) bool {
	if p.depth == 0 || p.i <= t.start || skipInlineSpace(p.s, p.i+size) < len(p.s) {
		return false
	}
	return strings.IndexByte(" \t\n([{=,:", p.s[p.i-1]) >= 0 || stringPrefixBefore(p.s, t.start, p.i)
}

// stringPrefixBefore reports a string literal's prefix of one or two
// letters (f, r, b, u, rb, fr...) ending at i, a word of its own.
func stringPrefixBefore(s string, start, i int) bool {
	j := i
	for j > start && i-j < 3 && strings.IndexByte("fFrRbBuU", s[j-1]) >= 0 {
		j--
	}
	if j == i || i-j > 2 {
		return false
	}
	// A word of its own: at the string's start, after a separator, or
	// after an escaped newline or tab (\nf").
	return j == start || !isKeyByte(s[j-1]) ||
		j-2 >= start && s[j-2] == '\\' && (s[j-1] == 'n' || s[j-1] == 't')
}

// quotationOpen reports an odd count of double quotes in a string's text
// before p.i, the typographic ones that only open (“ „) with those taken
// for content: a quotation is left open.
func (p *repairParser) quotationOpen(t *strText) bool {
	src := p.s[t.start:p.i]
	return (t.rawQuotes+strings.Count(src, "\u201c")+strings.Count(src, "\u201e"))%2 == 1
}

// holdsSibling reports whether s[from:to] holds an object's closing
// brace, a comma and an opening one, then a member whose key the object
// being read knows: the next item of a list.
func (p *repairParser) holdsSibling(from, to int) bool {
	if p.keys == nil {
		return false
	}
	for i := from; i < to; i++ {
		j := strings.IndexByte(p.s[i:to], '}')
		if j < 0 {
			return false
		}
		i += j
		n := skipAllSpace(p.s, i+1)
		if n >= to || p.s[n] != ',' {
			continue
		}
		n = skipAllSpace(p.s, n+1)
		if n >= to || p.s[n] != '{' {
			continue
		}
		n = skipAllSpace(p.s, n+1)
		if key, _, ok := p.memberAt(n); ok && n < to && p.keys[key] {
			return true
		}
	}
	return false
}

func hasWords(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// guessedSplit makes a string ended before a member only the schema
// leaves open (memberAfterComma) one the text leaves two readings of.
func (p *repairParser) guessedSplit(t *strText) {
	if p.openSplit {
		t.inner, p.openSplit = true, false
	}
}

// settledBy records a string ended where its own closing quote is not: if
// a quote inside it was taken for content, that quote could have ended it
// as well, and the text leaves two readings.
func (p *repairParser) settledBy(t *strText) {
	if t.inner && p.ambiguous < 0 {
		p.ambiguous = t.open
	}
}

// strText is a string's text: a slice of the source while the text equals
// it, built in a buffer once something had to change.
type strText struct {
	s        string
	start    int
	close    byte   // the ASCII closing quote
	closers  string // all the closing quotes (openQuote)
	single   bool   // opened by ', where \' is the usual escape
	buf      []byte
	building bool
	open     int  // the opening quote's offset
	inner    bool // a quote that could have closed it was taken for content
	// rawQuotes counts the closing quotes taken for content; closer is
	// where the text after the last one before a closing bracket starts,
	// quotation where the last one opened a quotation (0 if it did not).
	rawQuotes, closer, quotation int
	// couldEnd is past the last quote taken for content at a line's end
	// or before a colon.
	couldEnd int
	// escapedQuote: the string escapes its closing quote somewhere (\");
	// raw: it holds one unescaped.
	escapedQuote, raw bool
	// rawASCII: a quote taken for content is the string's own ASCII one,
	// not a typographic one, which JSON never escapes.
	rawASCII bool
}

func (t *strText) keep(from, to int) {
	if t.building {
		t.buf = append(t.buf, t.s[from:to]...)
	}
}

// build switches to building, copying the source up to at.
func (t *strText) build(at int) {
	if !t.building {
		t.startBuilding(at)
	}
}

// startBuilding sizes the buffer for the rest of the text when it could
// be shorter: one allocation instead of doubling through a large string.
func (t *strText) startBuilding(at int) {
	t.building = true
	if rest := len(t.s) - t.start; cap(t.buf) < rest {
		t.buf = uncleared(rest)
	}
	t.buf = append(t.buf[:0], t.s[t.start:at]...)
}

// uncleared returns an empty buffer of at least n bytes, its memory not
// cleared first as make's is: the text is written over it, and clearing a
// large one was 3 % of the repair of a 1 MB text. strings.Builder is the
// standard library's one way to such memory; its first byte shows where.
func uncleared(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(b.String()), b.Cap())[:0]
}

func (t *strText) Len(at int) int {
	if t.building {
		return len(t.buf)
	}
	return at - t.start
}

func (t *strText) String(at int) string {
	if !t.building {
		return t.s[t.start:at]
	}
	if n := len(t.buf); n > maxPooledScratch && 2*n >= cap(t.buf) {
		// A large string filling most of its buffer becomes the string
		// itself rather than be copied: a file's content is the largest
		// thing a call holds. The buffer is dropped, so nothing writes to
		// it again; one the string fills less stays for the next strings,
		// which would otherwise each size a new one to the text's end.
		s := unsafe.String(unsafe.SliceData(t.buf), len(t.buf))
		t.buf = nil
		return s
	}
	return string(t.buf)
}

// strMark is a comma or closing bracket met inside a string: its offset,
// the text's length before it, the character (0 for no mark).
type strMark struct {
	src, n int
	c      byte
}

// strMarks keeps of the marks met only those where a string may be ended:
// the last, the last comma, the first comma and the mark after it, and the
// first bracket of the last run of brackets. A string of code holds a mark
// every few bytes, and a list of them all would cost more than the text.
type strMarks struct {
	last, lastComma, firstComma, afterFirstComma strMark
	// bracket is the first bracket of a run of brackets, space and
	// backticks reaching lastBracket, the last bracket met.
	bracket, lastBracket strMark
}

func (ms *strMarks) add(s string, m strMark) {
	ms.last = m
	if ms.firstComma.c != 0 && ms.afterFirstComma.c == 0 {
		ms.afterFirstComma = m
	}
	if m.c == ',' {
		ms.lastComma = m
		if ms.firstComma.c == 0 {
			ms.firstComma = m
		}
		return
	}
	// The text since the last bracket is checked once: a run of brackets
	// goes on from it, or starts here.
	if ms.bracket.c == 0 || !onlyBrackets(s[ms.lastBracket.src:m.src]) {
		ms.bracket = m
	}
	ms.lastBracket = m
}

// trailingBracket returns the first bracket of the run that ends the text.
func (ms *strMarks) trailingBracket(s string) (strMark, bool) {
	if ms.bracket.c == 0 || !onlyBrackets(s[ms.lastBracket.src:]) {
		return strMark{}, false
	}
	return ms.bracket, true
}

// escape decodes one escape at p.i onto b; false when the text ends inside it.
func (p *repairParser) escape(b []byte, open rune) ([]byte, bool) {
	if p.i+1 >= len(p.s) {
		b = append(b, '\\')
		p.i = len(p.s)
		p.truncated = true
		p.note("closed a string cut off at the end of the text")
		return b, false
	}
	e := p.s[p.i+1]
	if c, ok := jsonesc.Simple(e); ok {
		b = append(b, c)
		p.i += 2
		return b, true
	}
	switch e {
	case '\'':
		b = append(b, '\'')
		if open != '\'' {
			p.note("fixed invalid escapes")
		}
	case '\n':
		b = append(b, '\n') // a line continuation
		p.note("fixed invalid escapes")
	case 'u':
		if jsonesc.Partial(p.s[p.i:]) {
			p.i = len(p.s)
			p.truncated = true
			p.note("closed a string cut off at the end of the text")
			return b, false
		}
		r, n := jsonesc.Unicode(p.s[p.i:])
		if n == 0 {
			p.invalid = true
			b = append(b, `\u`...)
			break
		}
		b = utf8.AppendRune(b, r) // a lone surrogate becomes U+FFFD
		p.i += n
		return b, true
	default:
		// \d in a regex, \p in a Windows path: the model meant the backslash.
		b = append(b, '\\')
		p.i++
		p.note("fixed invalid escapes")
		return b, true
	}
	p.i += 2
	return b, true
}
