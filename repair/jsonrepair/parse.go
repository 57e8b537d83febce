package jsonrepair

import (
	"slices"
	"strings"
	"unicode/utf8"
)

type repairParser struct {
	s    string
	i    int
	keys map[string]bool
	// levels are the keys by object depth (Options.Levels); objects is the
	// depth of the object being read.
	levels  []map[string]bool
	objects int
	// found are the kinds of repair made, each once, in order.
	found     []string
	python    []string
	truncated bool
	invalid   bool // errInvalidText, whatever else parses
	depth     int
	tooDeep   int    // where nesting passed MaxDepth, or -1
	keyQuote  int    // where an unknown key lacks its closing quote, or -1
	ambiguous int    // where a string starts whose end the text leaves open, or -1
	openSplit bool   // memberAfterComma found a member where the schema lists no keys
	forCall   bool   // Options.ForCall, or a schema's Levels: guesses a schema must settle are refused
	stray     int    // where text starts that is neither a value nor a separator, or -1
	tuples    int    // open Python tuples, in which ')' ends a bare value
	scratch   []byte // where str builds a string that differs from the source
	boxes     boxes  // the string values' headers
	// arrays has bit d set where the open container at depth d is an
	// array: what a string ended at a closing bracket leaves open.
	arrays [MaxDepth/64 + 1]uint64
}

func newParser(s string, keys map[string]bool, levels []map[string]bool) *repairParser {
	return &repairParser{s: s, keys: keys, levels: levels, tooDeep: -1, keyQuote: -1, ambiguous: -1, stray: -1}
}

// strayText marks text at i that the repair cannot place: a word after a
// value that could be a value as well as junk. The text is refused.
func (p *repairParser) strayText(i int) {
	if p.stray < 0 {
		p.stray = i
	}
}

// note records a kind of repair, once.
func (p *repairParser) note(detail string) { p.found = appendOnce(p.found, detail) }

func (p *repairParser) notePython(detail string) { p.python = appendOnce(p.python, detail) }

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func (p *repairParser) fixes() []Fix {
	out := make([]Fix, 0, 2) // syntax and Python: one allocation
	if len(p.found) > 0 {
		out = append(out, Fix{Kind: Syntax, Detail: strings.Join(p.found, "; ")})
	}
	if len(p.python) > 0 {
		out = append(out, Fix{Kind: Python, Detail: strings.Join(p.python, "; ")})
	}
	if len(out) == 0 {
		// The strict parser rejected the text: something changed (invalid UTF-8).
		out = append(out, Fix{Kind: Syntax, Detail: "normalised the JSON text"})
	}
	return out
}

func (p *repairParser) eof() bool { return p.i >= len(p.s) }

// document parses the whole text: prose and fences around the value are
// dropped, stray brackets after it ignored, several values collected.
func (p *repairParser) document() (any, error) {
	p.skipSpace()
	if p.eof() {
		return nil, errNothing
	}
	if c := p.s[p.i]; c != '{' && c != '[' && strings.Contains(p.s[p.i:], "```") {
		// Prose with fenced JSON: the fences say where the values are.
		if v, ok := p.fencedValues(); ok {
			return v, nil
		}
	}
	if !p.atValueStart() {
		// Prose before the JSON: skip to the first bracket, if any.
		k := strings.IndexAny(p.s[p.i:], "{[")
		if k < 0 {
			return nil, errNothing
		}
		p.i += k
		p.note("removed text around the JSON")
	}
	// values are the n values read, listed once there are two: a list for
	// the one value of nearly every text would be an allocation.
	var first any
	var values []any
	n := 0
	for {
		start := p.i
		v, ok := p.value(ctxTop)
		if !ok {
			if n == 0 {
				return nil, errNothing
			}
			break
		}
		n++
		switch n {
		case 1:
			first = v
		case 2:
			values = []any{first, v}
		default:
			values = append(values, v)
		}
		p.skipSpace()
		for !p.eof() && (p.s[p.i] == '}' || p.s[p.i] == ']' || p.s[p.i] == ',') {
			if p.s[p.i] != ',' {
				p.note("removed redundant closing brackets")
			}
			p.i++
			p.skipSpace()
		}
		if p.eof() {
			break
		}
		if obj, isObj := v.(map[string]any); isObj && n == 1 && p.atQuote() && p.looksLikeMember() {
			// {"a": 1}, "b": 2} — the object was closed too early.
			p.note("merged members written after the object's closing brace")
			p.members(obj)
			continue
		}
		if !p.atValueStart() || p.i == start {
			// Trailing prose after a complete value is not part of it.
			p.note("removed text around the JSON")
			break
		}
	}
	if n == 1 {
		if first == "" && p.truncated {
			return nil, errNothing // a lone quote
		}
		return first, nil
	}
	return p.concatenated(values), nil
}

// concatenated returns the non-empty values, an array when more than one.
func (p *repairParser) concatenated(values []any) any {
	kept := values[:0]
	for _, v := range values {
		if !isEmptyContainer(v) {
			kept = append(kept, v)
		}
	}
	switch len(kept) {
	case 0:
		return values[0]
	case 1:
		return kept[0]
	}
	p.note("collected concatenated values into an array")
	return kept
}

// fencedValues parses every code fence after p.i; several come back as an array.
func (p *repairParser) fencedValues() (any, bool) {
	var values []any
	rest := p.s[p.i:]
	for {
		k := strings.Index(rest, "```")
		if k < 0 {
			break
		}
		body := strings.TrimLeft(rest[k:], "`")
		for len(body) > 0 && isWordByte(body[0]) {
			body = body[1:]
		}
		end := strings.Index(body, "```")
		block := body
		if end >= 0 {
			block, rest = body[:end], body[end:]
			rest = strings.TrimLeft(rest, "`")
		} else {
			rest = ""
		}
		if v, err := Decode(block); err == nil {
			// The usual fence holds valid JSON: the strict parser's value,
			// as Repair gives for the same text unfenced.
			values = append(values, v)
			if rest == "" {
				break
			}
			continue
		}
		sub := newParser(block, p.keys, p.levels)
		sub.scratch, sub.forCall = p.scratch, p.forCall
		v, err := sub.document()
		p.scratch = sub.scratch
		if sub.tooDeep >= 0 {
			p.tooDeep = p.i
		}
		if sub.keyQuote >= 0 && p.keyQuote < 0 {
			p.keyQuote = sub.keyQuote + len(p.s) - len(body)
		}
		if sub.stray >= 0 && p.stray < 0 {
			p.stray = sub.stray + len(p.s) - len(body)
		}
		if sub.stray >= 0 && p.stray < 0 {
			p.stray = sub.stray + len(p.s) - len(body)
		}
		if sub.ambiguous >= 0 && p.ambiguous < 0 {
			p.ambiguous = sub.ambiguous + len(p.s) - len(body)
		}
		if err == nil {
			values = append(values, v)
			p.truncated = p.truncated || sub.truncated
			p.invalid = p.invalid || sub.invalid
			for _, f := range sub.found {
				p.note(f)
			}
			for _, f := range sub.python {
				p.notePython(f)
			}
		}
		if rest == "" {
			break
		}
	}
	p.i = len(p.s)
	switch len(values) {
	case 0:
		return nil, false
	case 1:
		p.note("removed text and code fences around the JSON")
		return values[0], true
	}
	p.note("collected the values of several code fences into an array")
	return values, true
}

func last(a []any) any {
	if len(a) == 0 {
		return nil
	}
	return a[len(a)-1]
}

func isEmptyContainer(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// Parse contexts decide where a string or unquoted value may end.
type parseCtx int

const (
	ctxTop parseCtx = iota
	ctxKey
	ctxObjectValue
	ctxArray
)

// isSpaceRune reports JSON whitespace and the Unicode spaces models emit.
func isSpaceRune(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\u00a0', '\u180e', '\u200b', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// commentToEnd marks, under a schema, a line comment at p.i (end bytes
// long, or to the end) on the text's last line, with containers open, and holds their structure
// (`"a": "x" // note, "b": 1}`): a comment as both libraries read it, or
// a note the model wrote inside the call, dropping members with the
// closing brackets. Without a schema it is read as a comment.
func (p *repairParser) commentToEnd(end int) {
	text := p.s[p.i:]
	if end >= 0 {
		text = text[:end]
	}
	if p.forCall && p.depth > 0 && p.stray < 0 && strings.ContainsAny(text, "\"'}]:") {
		p.stray = p.i
	}
}

// lastLine reports whether rest, from a line end, holds only space and a
// closing code fence: the line before it was the text's last.
func lastLine(rest string) bool {
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.Trim(rest, "`") == ""
}

// skipSpace skips whitespace, comments and Markdown code fences.
func (p *repairParser) skipSpace() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			if !isSpaceRune(r) {
				return
			}
			p.i += size
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '*':
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				p.i = len(p.s)
			} else {
				p.i += 2 + end + 2
			}
			p.note("removed comments")
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '/', c == '#':
			end := strings.IndexByte(p.s[p.i:], '\n')
			if end < 0 || lastLine(p.s[p.i+end:]) {
				p.commentToEnd(end)
			}
			if end < 0 {
				p.i = len(p.s)
			} else {
				p.i += end
			}
			p.note("removed comments")
		case c == '`' && strings.HasPrefix(p.s[p.i:], "```"):
			for p.i < len(p.s) && p.s[p.i] == '`' {
				p.i++
			}
			for p.i < len(p.s) && isWordByte(p.s[p.i]) { // language tag
				p.i++
			}
			p.note("removed a code fence")
		default:
			return
		}
	}
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '+'
}

// openQuote returns the runes that may close a string r opens.
func openQuote(r rune) (closers string, ok bool) {
	switch r {
	case '"':
		return "\"\u201d", true
	case '\'':
		return "'\u2019", true
	case '\u201c', '\u201d', '\u201e':
		return "\u201d\u201c\"", true
	case '\u2018', '\u2019':
		return "\u2019\u2018'", true
	case '`':
		return "`\u00b4", true
	}
	return "", false
}

func (p *repairParser) peekRune() (rune, int) {
	if p.i >= len(p.s) {
		return utf8.RuneError, 0
	}
	if c := p.s[p.i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(p.s[p.i:])
}

func (p *repairParser) atQuote() bool {
	r, _ := p.peekRune()
	_, ok := openQuote(r)
	return ok
}

// atValueStart reports whether a value, or what a model meant as one, starts here.
func (p *repairParser) atValueStart() bool {
	if p.eof() {
		return false
	}
	c := p.s[p.i]
	switch {
	case c == '{' || c == '[' || c == '(':
		return true
	case c == '-':
		return p.i+1 < len(p.s) && (isDigit(p.s[p.i+1]) || p.s[p.i+1] == '.')
	case isDigit(c) || c == '.':
		return true
	case p.atQuote():
		return true
	}
	return p.atLiteralWord()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *repairParser) atLiteralWord() bool { return p.atLiteralAt(p.i) }

func (p *repairParser) atLiteralAt(i int) bool {
	for _, w := range []string{"true", "false", "null", "True", "False", "None"} {
		if strings.HasPrefix(p.s[i:], w) {
			return true
		}
	}
	return false
}

func (p *repairParser) value(ctx parseCtx) (any, bool) {
	p.skipSpace()
	if p.eof() {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case (c == '{' || c == '[' || c == '(') && p.depth >= MaxDepth:
		// Nothing more is parsed: a value cut short would pass for the whole.
		p.tooDeep, p.i = p.i, len(p.s)
		return nil, false
	case c == '{' || c == '[' || c == '(':
		// The depth is restored on return, not by defer: a value is read
		// at every member, and this function has too many returns for
		// its defers to be inlined.
		p.depth++
		v := p.container(c, ctx)
		p.depth--
		return v, true
	case c == '-' || c == '.' || isDigit(c):
		return p.number(ctx), true
	}
	v, python := p.pythonString(ctx)
	if python || p.atQuote() {
		if !python {
			v = p.str(ctx)
		}
		for {
			// "hello" + " world": Python/JS string concatenation.
			j := skipAllSpace(p.s, p.i)
			if j >= len(p.s) || p.s[j] != '+' {
				return p.boxes.box(v), true
			}
			k := skipAllSpace(p.s, j+1)
			if k >= len(p.s) || !isQuoteAt(p.s, k) {
				return p.boxes.box(v), true
			}
			p.i = k
			if w, ok := p.pythonString(ctx); ok {
				v += w
			} else {
				v += p.str(ctx)
			}
			p.note("joined concatenated strings")
		}
	}
	return p.unquoted(ctx)
}

// container reads the object, array or tuple that c opens, p.depth
// counting it.
func (p *repairParser) container(c byte, ctx parseCtx) any {
	switch c {
	case '{':
		p.markArray(false)
		if p.levels == nil {
			return p.object()
		}
		outer := p.keys
		p.keys = p.levelKeys(p.objects)
		p.objects++
		v := p.object()
		p.objects--
		p.keys = outer
		return v
	case '[':
		p.markArray(true)
		return p.array(']')
	}
	p.markArray(true)
	p.notePython("converted a tuple to an array")
	p.tuples++
	a := p.array(')')
	p.tuples--
	if len(a) == 1 && ctx != ctxArray {
		if _, isArr := a[0].([]any); !isArr {
			return a[0] // (1) is just 1 in Python
		}
	}
	return a
}

// markArray records whether the container just opened is an array.
func (p *repairParser) markArray(array bool) {
	w, bit := p.depth/64, uint64(1)<<(p.depth%64)
	if array {
		p.arrays[w] |= bit
	} else {
		p.arrays[w] &^= bit
	}
}

// isArray reports whether the open container at depth d is an array.
func (p *repairParser) isArray(d int) bool { return p.arrays[d/64]&(1<<(d%64)) != 0 }

// levelKeys are the keys expected in an object at depth d (0: outermost).
func (p *repairParser) levelKeys(d int) map[string]bool {
	if d < len(p.levels) {
		return p.levels[d]
	}
	return nil
}
