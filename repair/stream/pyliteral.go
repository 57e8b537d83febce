package stream

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyLiteral reads one argument's value, a Python literal, as it arrives,
// writing it as JSON: strings (both quotes, triple quotes, escapes, r and
// u prefixes, adjacent strings joined), numbers, True, False, None, and
// lists, tuples (as arrays) and dicts with string keys. It waits whenever
// the bytes so far could go either way, so the split does not change what
// it reads.
type pyLiteral struct {
	state    plState
	stack    []plFrame
	quote    byte // the open string's quote
	triple   bool
	raw      bool
	sign     byte // a '-' or '+' read before a number
	isString bool // the value is a string: shown as it grows
	shown    bool
	outStart int    // where the value starts in pyParser.out
	dec      []byte // scratch: a string's decoded growth
}

type plState uint8

const (
	plExpect      plState = iota // a value
	plString                     // inside a string
	plAfterString                // after a string: another string joins it
	plAfter                      // after an item: ',' or the closing bracket
	plColon                      // after a dict key
)

type plFrame struct {
	kind  byte // '[', '(' or '{'
	n     int  // items read (keys and values in a dict)
	comma bool // the last item was followed by a comma
	key   bool // a dict's next item is a key
}

func (l *pyLiteral) reset() { l.begin(0) }

func (l *pyLiteral) begin(outStart int) {
	l.state, l.stack, l.sign, l.isString, l.shown, l.outStart = plExpect, l.stack[:0], 0, false, false, outStart
}

// pyValue takes one step in the value; false when it needs more input.
// final reads a string's split escape or character at the end as it is.
func (p *textParser) pyValue(final bool) bool {
	l := &p.py.lit
	switch l.state {
	case plString:
		return p.pyString(final)
	case plAfterString:
		return p.pyAfterString()
	}
	if !p.pySpace() {
		return false
	}
	switch l.state {
	case plExpect:
		return p.pyBeginValue()
	case plAfter:
		return p.pyAfterItem()
	default:
		return p.pyColon()
	}
}

// pyValueRefuse refuses the call for what its value holds. The value is
// measured first, as where it ends: whether it grew past the limit must
// not depend on the pieces it came in.
func (p *textParser) pyValueRefuse(what string) {
	p.tooLarge(p.pos - p.call.valStart)
	p.pyRefuse(fmt.Sprintf("cannot be read: the value of %q has %s", p.py.key, what))
}

func (p *textParser) pyBeginValue() bool {
	l := &p.py.lit
	i := p.pos
	c := p.buf[i]
	if l.sign != 0 && !isDigit(c) && c != '.' {
		p.pyValueRefuse(fmt.Sprintf("a sign before %s, which is no number", quoteByte(c)))
		return true
	}
	switch {
	case c == '"' || c == '\'':
		return p.pyOpenString(i, false, false)
	case isIdentStart(c):
		return p.pyWord(false)
	case isDigit(c) || c == '.':
		return p.pyNumber()
	case c == '-' || c == '+':
		l.sign = c
		p.pos++
		return true
	case c == '[' || c == '(' || c == '{':
		return p.pyPush(c)
	case c == ']' || c == ')' || c == '}':
		n := len(l.stack)
		if n > 0 && closes(l.stack[n-1].kind, c) && (l.stack[n-1].n == 0 || l.stack[n-1].comma) && (c != '}' || l.stack[n-1].key) {
			p.pyPop()
			return true
		}
	}
	p.pyValueRefuse(fmt.Sprintf("%s where a value should start", quoteByte(c)))
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func closes(open, c byte) bool {
	return open == '[' && c == ']' || open == '(' && c == ')' || open == '{' && c == '}'
}

// pyWord reads a word: a string's prefix, True, False or None; any other
// name, or a call, is no literal. joining: the word follows a string.
func (p *textParser) pyWord(joining bool) bool {
	b, i := p.buf, p.pos
	j := i
	for j < len(b) && isIdentByte(b[j]) && j-i <= maxKeyBytes {
		j++
	}
	if j == len(b) && j-i <= maxKeyBytes {
		return false
	}
	w := string(b[i:min(j, i+64)])
	if j < len(b) && (b[j] == '"' || b[j] == '\'') {
		switch strings.ToLower(w) {
		case "r", "u":
			return p.pyOpenString(j, w == "r" || w == "R", joining)
		case "b", "br", "rb":
			p.pyValueRefuse(fmt.Sprintf("a bytes literal %s\"...\"; write a plain string", w))
			return true
		case "f", "fr", "rf":
			p.pyValueRefuse(fmt.Sprintf("an f-string %s\"...\", which is evaluated; write the plain string", w))
			return true
		}
	}
	lit, ok := map[string]string{"True": "true", "False": "false", "None": "null"}[w]
	switch {
	case joining:
		p.pyValueRefuse(fmt.Sprintf("%s right after a string", w))
	case ok && p.py.lit.sign == 0:
		p.py.out = append(p.py.out, lit...)
		p.pos = j
		p.pyValueDone(false)
	case j < len(b) && b[j] == '(':
		p.pyValueRefuse(fmt.Sprintf("a call to %s(...), which is not run; write the value itself", w))
	default:
		p.pyValueRefuse(fmt.Sprintf("the name %s, not a literal; quote it if it is text", w))
	}
	return true
}

// pyNumber reads a number and writes it as JSON.
func (p *textParser) pyNumber() bool {
	b, i := p.buf, p.pos
	j := i
	for j < len(b) && j-i <= maxKeyBytes {
		c := b[j]
		exponentSign := (c == '+' || c == '-') && j > i && (b[j-1] == 'e' || b[j-1] == 'E') && !isPrefixedInt(b[i:j])
		if !isIdentByte(c) && c != '.' && !exponentSign {
			break
		}
		j++
	}
	if j == len(b) && j-i <= maxKeyBytes {
		return false
	}
	num, ok := pyNumberJSON(string(b[i:min(j, i+maxKeyBytes)]))
	if !ok || j-i > maxKeyBytes {
		p.pyValueRefuse(fmt.Sprintf("%.40q, which is no number JSON can hold", b[i:min(j, i+maxKeyBytes)]))
		return true
	}
	l := &p.py.lit
	if l.sign == '-' {
		p.py.out = append(p.py.out, '-')
	}
	l.sign = 0
	p.py.out = append(p.py.out, num...)
	p.pos = j
	p.pyValueDone(false)
	return true
}

func isPrefixedInt(b []byte) bool {
	return len(b) > 1 && b[0] == '0' && strings.ContainsRune("xXoObB", rune(b[1]))
}

// pyNumberJSON converts a Python int or float to JSON: underscores go,
// 0x/0o/0b integers are written in decimal, a float keeps a point. Complex
// numbers and octal-looking decimals (017) are refused.
func pyNumberJSON(s string) (string, bool) {
	if isPrefixedInt([]byte(s)) {
		n, ok := new(big.Int).SetString(s, 0)
		if !ok {
			return "", false
		}
		return n.String(), true
	}
	if strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return "", false
	}
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '_' && (!isDigit(s[i-1]) || !isDigit(s[i+1])) {
			return "", false
		}
	}
	s = strings.ReplaceAll(s, "_", "")
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if t := strings.TrimLeft(s, "0"); t != "" && t != s {
			return "", false // 017 is a syntax error in Python 3
		}
		if strings.Trim(s, "0") == "" {
			return "0", true
		}
		return s, true
	}
	if strings.ContainsAny(s, "xXjJ_") || strings.Trim(s, "0123456789.eE+-") != "" {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	out := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(out, ".e") {
		out += ".0"
	}
	return out, true
}

// pyPush opens a list, tuple or dict.
func (p *textParser) pyPush(c byte) bool {
	l := &p.py.lit
	if limit := p.opts.MaxJSONDepth; limit > 0 && len(l.stack)+2 > limit {
		p.drop(jsonTooDeepEvent(p.call.index, limit))
		return true
	}
	l.stack = append(l.stack, plFrame{kind: c, key: c == '{'})
	if c == '{' {
		p.py.out = append(p.py.out, '{')
	} else {
		p.py.out = append(p.py.out, '[')
	}
	p.pos++
	l.state = plExpect
	return true
}

// pyPop closes the innermost container at p.pos.
func (p *textParser) pyPop() {
	l := &p.py.lit
	top := l.stack[len(l.stack)-1]
	if top.kind == '(' && top.n == 1 && !top.comma {
		p.pyValueRefuse("a value in parentheses; drop them, or write (v,) for a tuple")
		return
	}
	if top.comma { // a trailing comma, which JSON has not
		p.py.out = p.py.out[:len(p.py.out)-1]
	}
	if top.kind == '{' {
		p.py.out = append(p.py.out, '}')
	} else {
		p.py.out = append(p.py.out, ']')
	}
	l.stack = l.stack[:len(l.stack)-1]
	p.pos++
	p.pyValueDone(false)
}

// pyValueDone follows a complete value: the argument's, or an item's.
func (p *textParser) pyValueDone(isString bool) {
	l := &p.py.lit
	if len(l.stack) == 0 {
		p.pyArgDone()
		return
	}
	top := &l.stack[len(l.stack)-1]
	top.n++
	top.comma = false
	switch {
	case top.kind == '{' && top.key && !isString:
		p.pyValueRefuse("a dict key that is not a string; JSON objects have string keys")
	case top.kind == '{' && top.key:
		l.state = plColon
	default:
		l.state = plAfter
	}
}

func (p *textParser) pyAfterItem() bool {
	l := &p.py.lit
	top := &l.stack[len(l.stack)-1]
	switch c := p.buf[p.pos]; {
	case c == ',':
		p.py.out = append(p.py.out, ',')
		top.comma, top.key = true, top.kind == '{'
		l.state = plExpect
		p.pos++
	case closes(top.kind, c):
		p.pyPop()
	default:
		p.pyValueRefuse(fmt.Sprintf("%s where ',' or the closing bracket should be", quoteByte(c)))
	}
	return true
}

func (p *textParser) pyColon() bool {
	l := &p.py.lit
	switch c := p.buf[p.pos]; c {
	case ':':
		p.py.out = append(p.py.out, ':')
		l.stack[len(l.stack)-1].key = false
		l.state = plExpect
		p.pos++
	case ',', '}':
		p.pyValueRefuse("a set; write a list [...] instead")
	default:
		p.pyValueRefuse(fmt.Sprintf("%s after a dict key, where ':' should be", quoteByte(c)))
	}
	return true
}

// pyOpenString opens the string whose quote is at b[i]; joining continues
// the string before it.
func (p *textParser) pyOpenString(i int, raw, joining bool) bool {
	b := p.buf
	q := b[i]
	// Three quotes open a triple-quoted string; two may be an empty one.
	if i+1 == len(b) || i+2 == len(b) && b[i+1] == q {
		return false
	}
	l := &p.py.lit
	l.quote, l.raw = q, raw
	l.triple = i+2 < len(b) && b[i+1] == q && b[i+2] == q
	if !joining {
		l.isString = l.isString || len(l.stack) == 0
		p.py.out = append(p.py.out, '"')
	}
	p.pos = i + 1
	if l.triple {
		p.pos += 2
	}
	l.state = plString
	return true
}

// pyString reads a string up to its closing quote, showing the growth of
// an argument that is a string.
func (p *textParser) pyString(final bool) bool {
	l := &p.py.lit
	b, i := p.buf, p.pos
	dec := l.dec[:0]
	closed, why := false, ""
loop:
	for i < len(b) {
		c := b[i]
		switch {
		case c == l.quote && !l.triple:
			i, closed = i+1, true
			break loop
		case c == l.quote && i+2 >= len(b) && !final:
			break loop
		case c == l.quote && i+2 < len(b) && b[i+1] == c && b[i+2] == c:
			i, closed = i+3, true
			break loop
		case c == '\\':
			var n int
			dec, n, why = appendPyEscape(dec, b[i:], l.raw, l.quote)
			switch {
			case why != "":
				break loop
			case n == 0 && !final:
				break loop
			case n == 0:
				dec, n = append(dec, '\\'), 1
			}
			i += n
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(b) && b[j] < utf8.RuneSelf && b[j] != l.quote && b[j] != '\\' {
				j++
			}
			dec, i = append(dec, b[i:j]...), j
		default:
			j := i + 1
			for j < len(b) && b[j] >= utf8.RuneSelf {
				j++
			}
			var n int
			dec, n = appendValid(dec, b[i:j], final || j < len(b))
			if i += n; i < j {
				break loop
			}
		}
	}
	l.dec = dec
	p.pos = i
	p.showString(dec)
	if why != "" {
		p.pyValueRefuse(why)
		return true
	}
	if closed {
		l.state = plAfterString
	}
	return closed
}

// showString writes a string's decoded growth, and shows it when the
// string is the argument's value.
func (p *textParser) showString(dec []byte) {
	l := &p.py.lit
	if len(dec) == 0 {
		return
	}
	p.py.out = appendJSONString(p.py.out, dec)
	if len(l.stack) == 0 && l.isString {
		p.opts.ParamText(p.call.index, p.py.key, string(dec))
		l.shown = true
	}
}

// pyAfterString joins a string that follows, or ends the string.
func (p *textParser) pyAfterString() bool {
	if !p.pySpace() {
		return false
	}
	switch c := p.buf[p.pos]; {
	case c == '"' || c == '\'':
		return p.pyOpenString(p.pos, false, true)
	case isIdentStart(c):
		return p.pyWord(true)
	}
	p.py.out = append(p.py.out, '"')
	p.pyValueDone(true)
	return true
}

// appendPyEscape decodes the escape at the start of b (a backslash) onto
// dst: the bytes used, 0 when b ends before the escape is whole, or why it
// is not read. An unknown escape keeps its backslash, as in Python.
func appendPyEscape(dst, b []byte, raw bool, quote byte) ([]byte, int, string) {
	if len(b) < 2 {
		return dst, 0, ""
	}
	c := b[1]
	if raw {
		if c == quote || c == '\\' {
			return append(dst, b[:2]...), 2, ""
		}
		return append(dst, '\\'), 1, ""
	}
	if s, ok := pySimpleEscapes[c]; ok {
		return append(dst, s...), 2, ""
	}
	switch {
	case c == '\r' && len(b) < 3:
		return dst, 0, ""
	case c == '\r' && b[2] == '\n':
		return dst, 3, "" // a line continuation
	case c == '\r':
		return dst, 2, ""
	case c == 'x':
		return appendHexEscape(dst, b, 2)
	case c == 'u':
		return appendHexEscape(dst, b, 4)
	case c == 'U':
		return appendHexEscape(dst, b, 8)
	case c == 'N':
		return dst, 0, `a \N{...} escape; write the character itself or a \u escape`
	case '0' <= c && c <= '7':
		n, v := 1, rune(c-'0')
		for ; n < 3 && 1+n < len(b) && '0' <= b[1+n] && b[1+n] <= '7'; n++ {
			v = v*8 + rune(b[1+n]-'0')
		}
		if n < 3 && 1+n == len(b) {
			return dst, 0, ""
		}
		return utf8.AppendRune(dst, v), 1 + n, ""
	}
	return append(dst, '\\'), 1, ""
}

var pySimpleEscapes = map[byte]string{
	'\n': "", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f",
	'n': "\n", 'r': "\r", 't': "\t", 'v': "\v",
}

func appendHexEscape(dst, b []byte, digits int) ([]byte, int, string) {
	var v rune
	for k := range digits {
		if 2+k == len(b) {
			return dst, 0, ""
		}
		d, ok := hexValue(b[2+k])
		if !ok {
			return dst, 0, fmt.Sprintf(`a \%c escape without its %d hex digits`, b[1], digits)
		}
		v = v<<4 | rune(d)
	}
	if v > utf8.MaxRune || 0xD800 <= v && v <= 0xDFFF {
		return dst, 0, fmt.Sprintf(`the escape %s, which is no character`, b[:2+digits])
	}
	return utf8.AppendRune(dst, v), 2 + digits, ""
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// appendJSONString appends s, valid UTF-8, escaped for a JSON string.
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// pySkipper follows a call it does not read to its closing ')': strings,
// with their escapes and triple quotes, and brackets.
type pySkipper struct {
	depth  int
	quote  byte
	triple bool
}

// scan reads b from i: the end of the call and true, or where it stopped.
func (s *pySkipper) scan(b []byte, i int) (int, bool) {
	for i < len(b) {
		c := b[i]
		if s.quote != 0 {
			switch {
			case c == '\\' && i+1 == len(b):
				return i, false
			case c == '\\':
				i += 2
			case c != s.quote:
				i++
			case !s.triple:
				s.quote = 0
				i++
			case i+2 >= len(b):
				return i, false
			case b[i+1] == c && b[i+2] == c:
				s.quote = 0
				i += 3
			default:
				i++
			}
			continue
		}
		switch c {
		case '"', '\'':
			if i+1 == len(b) || i+2 == len(b) && b[i+1] == c {
				return i, false
			}
			s.quote, s.triple = c, i+2 < len(b) && b[i+1] == c && b[i+2] == c
			i++
			if s.triple {
				i += 2
			}
			continue
		case '(', '[', '{':
			s.depth++
		case ')', ']', '}':
			if s.depth--; s.depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return i, false
}
