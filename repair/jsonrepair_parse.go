package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// errNothing means the text held no JSON value that could be recovered.
var errNothing = errors.New("no JSON value found")

// errInvalidText means the text holds something no repair should paper
// over: a raw control character such as NUL, or a malformed \u escape.
var errInvalidText = errors.New("invalid control character or \\u escape")

// repairJSON is the tolerant parser behind RepairJSON, for text the strict
// parser rejected. It builds values directly (no intermediate repaired
// text) in one left-to-right pass; the only look-ahead is the bounded scan
// that decides whether a quote ends a string.
func repairJSON(text string, opts JSONOptions) (RepairedJSON, error) {
	if un, ok := unescapeEscapedJSON(text); ok {
		r, err := repairJSON(un, opts)
		if err == nil {
			r.Repairs = append([]Repair{{Code: CodeJSONRepaired, Detail: "decoded JSON that was escaped as a string body"}}, r.Repairs...)
		}
		return r, err
	}
	p := &repairParser{s: text, keys: opts.Keys, tooDeep: -1}
	v, err := p.document()
	if p.tooDeep >= 0 {
		return RepairedJSON{}, fmt.Errorf("at offset %d: %w", p.tooDeep, ErrTooDeep)
	}
	if err != nil {
		return RepairedJSON{}, err
	}
	if p.invalid {
		return RepairedJSON{}, errInvalidText
	}
	return RepairedJSON{Value: v, Repairs: p.repairs(), Truncated: p.truncated}, nil
}

// unescapeEscapedJSON recognises JSON whose quotes all arrive escaped
// ({\"a\": \"b\"}), as when a JSON string body is pasted without its quotes,
// and undoes one level of escaping.
func unescapeEscapedJSON(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !(strings.HasPrefix(t, `{\"`) || strings.HasPrefix(t, `[\"`) || strings.HasPrefix(t, `\"`)) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		if t[i] == '\\' && i+1 < len(t) && (t[i+1] == '"' || t[i+1] == '\\') {
			b.WriteByte(t[i+1])
			i++
			continue
		}
		b.WriteByte(t[i])
	}
	return b.String(), true
}

type repairParser struct {
	s    string
	i    int
	keys map[string]bool
	// found records the kinds of repair made, each once, in order.
	found     []string
	python    []string
	truncated bool
	// invalid marks text that must be refused whatever else parses: a raw
	// NUL or other non-text control character, a malformed \u escape.
	invalid bool
	depth   int
	// tooDeep is the offset where nesting passed MaxJSONDepth, or -1.
	tooDeep int
	// tuples counts the Python tuples being parsed, inside which ')'
	// ends an unquoted value.
	tuples int
	// marks is str's reusable buffer of commas and brackets met.
	marks []strMark
}

func (p *repairParser) note(detail string) {
	for _, f := range p.found {
		if f == detail {
			return
		}
	}
	p.found = append(p.found, detail)
}

func (p *repairParser) notePython(detail string) {
	for _, f := range p.python {
		if f == detail {
			return
		}
	}
	p.python = append(p.python, detail)
}

func (p *repairParser) repairs() []Repair {
	var out []Repair
	if len(p.found) > 0 {
		out = append(out, Repair{Code: CodeJSONRepaired, Detail: strings.Join(p.found, "; ")})
	}
	if len(p.python) > 0 {
		out = append(out, Repair{Code: CodePythonLiteral, Detail: strings.Join(p.python, "; ")})
	}
	if len(out) == 0 {
		// The strict parser rejected the text, so something was changed
		// even if it has no name here (e.g. invalid UTF-8 in a key).
		out = append(out, Repair{Code: CodeJSONRepaired, Detail: "normalised the JSON text"})
	}
	return out
}

func (p *repairParser) eof() bool { return p.i >= len(p.s) }

// document parses the whole text: prose and fences around the value are
// dropped, stray closing brackets after it ignored, and several top-level
// values (NDJSON, "{...}, {...}") collected into an array.
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
	var values []any
	for {
		start := p.i
		v, ok := p.value(ctxTop)
		if !ok {
			if len(values) == 0 {
				return nil, errNothing
			}
			break
		}
		values = append(values, v)
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
		if obj, isObj := v.(map[string]any); isObj && len(values) == 1 && p.atQuote() && p.looksLikeMember() {
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
	if len(values) == 1 {
		if values[0] == "" && p.truncated {
			return nil, errNothing // a lone quote
		}
		return values[0], nil
	}
	// Concatenated values: keep the non-empty ones.
	kept := values[:0]
	for _, v := range values {
		if !isEmptyContainer(v) {
			kept = append(kept, v)
		}
	}
	switch len(kept) {
	case 0:
		return values[0], nil
	case 1:
		return kept[0], nil
	}
	p.note("collected concatenated values into an array")
	return kept, nil
}

// fencedValues parses the content of every Markdown code fence in the text
// after p.i; several fenced values come back as an array.
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
		sub := &repairParser{s: block, keys: p.keys, tooDeep: -1}
		v, err := sub.document()
		if sub.tooDeep >= 0 {
			p.tooDeep = p.i
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

// isSpaceRune reports JSON whitespace plus the Unicode spaces models emit
// (NBSP, zero-width space, BOM...).
func isSpaceRune(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\u00a0', '\u180e', '\u200b', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
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

// quote kinds: the runes that open a string and those that may close it.
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

// atValueStart reports whether a JSON value (or something a model meant as
// one) starts here.
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

func (p *repairParser) atLiteralWord() bool {
	for _, w := range []string{"true", "false", "null", "True", "False", "None"} {
		if strings.HasPrefix(p.s[p.i:], w) {
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
	case (c == '{' || c == '[' || c == '(') && p.depth >= MaxJSONDepth:
		// Nothing past here is parsed: a value cut short at the limit would
		// pass for the whole one.
		p.tooDeep, p.i = p.i, len(p.s)
		return nil, false
	case c == '{':
		p.depth++
		defer func() { p.depth-- }()
		return p.object(), true
	case c == '[':
		p.depth++
		defer func() { p.depth-- }()
		return p.array(']'), true
	case c == '(':
		p.depth++
		defer func() { p.depth-- }()
		p.notePython("converted a tuple to an array")
		p.tuples++
		a := p.array(')')
		p.tuples--
		if len(a) == 1 && ctx != ctxArray {
			if _, isArr := a[0].([]any); !isArr {
				return a[0], true // (1) is just 1 in Python
			}
		}
		return a, true
	case c == '-' || c == '.' || isDigit(c):
		return p.number(ctx), true
	}
	if p.atQuote() {
		v := p.str(ctx)
		for {
			// "hello" + " world": Python/JS string concatenation.
			j := skipAllSpace(p.s, p.i)
			if j >= len(p.s) || p.s[j] != '+' {
				return v, true
			}
			k := skipAllSpace(p.s, j+1)
			if k >= len(p.s) || !isQuoteAt(p.s, k) {
				return v, true
			}
			p.i = k
			v += p.str(ctx)
			p.note("joined concatenated strings")
		}
	}
	return p.unquoted(ctx)
}

// object parses an object at '{'.
func (p *repairParser) object() any {
	p.i++ // {
	p.skipSpace()
	if !p.eof() && p.s[p.i] == '{' {
		// {{...}} or {```json {...}```}: an object wrapped in braces.
		innerV := p.object()
		inner, isObj := innerV.(map[string]any)
		if !isObj {
			inner = map[string]any{}
		}
		p.skipSpace()
		for !p.eof() && (p.s[p.i] == ',') {
			p.i++
			p.skipSpace()
		}
		if !p.eof() && p.s[p.i] == '}' {
			p.i++
			p.note("removed braces around an object")
			return inner
		}
		m := map[string]any{}
		for k, v := range inner {
			m[k] = v
		}
		p.note("merged a nested object")
		p.members(m)
		p.closeObject()
		return m
	}
	m := make(map[string]any, 4)
	bare, colons := p.members(m)
	closed := !p.eof() && p.s[p.i] == '}'
	p.closeObject()
	if closed && !colons && len(bare) > 0 {
		// {'a', 'b'}: a Python set, which JSON writes as an array.
		p.notePython("converted a set to an array")
		a := make([]any, len(bare))
		for i, k := range bare {
			a[i] = k
		}
		return a
	}
	return m
}

// closeObject consumes the object's closing brace, or notes that it was
// missing. A ']' closes the object without being consumed: it belongs to the
// enclosing array ({"a": [{"b": 1], ...}).
func (p *repairParser) closeObject() {
	p.skipSpace()
	switch {
	case p.eof():
		p.note("added missing closing brackets")
	case p.s[p.i] == '}':
		p.i++
	default:
		p.note("added missing closing brackets")
	}
}

// members parses "key: value" pairs into m until the object ends. It
// returns the keys given without colon or value, in order, and whether any
// member had a colon: {'a', 'b'} is a Python set.
func (p *repairParser) members(m map[string]any) (bare []string, colons bool) {
	for {
		p.skipSpace()
		// Leading, doubled and trailing commas.
		for !p.eof() && p.s[p.i] == ',' {
			p.i++
			p.note("removed extra commas")
			p.skipSpace()
		}
		if p.eof() {
			return bare, colons
		}
		c := p.s[p.i]
		if c == '}' || c == ']' || c == '{' || c == '[' {
			return bare, colons
		}
		if strings.HasPrefix(p.s[p.i:], "...") {
			p.i += 3
			p.note("removed an ellipsis placeholder")
			continue
		}
		start := p.i
		key, ok := p.key()
		if ok && key == "" && p.eof() && p.truncated {
			return bare, colons // {"  — nothing of the key arrived
		}
		if !ok {
			if p.i == start {
				p.i++ // never stall on a character that starts nothing
			}
			continue
		}
		p.skipSpace()
		switch {
		case !p.eof() && p.s[p.i] == ':':
			p.i++
			colons = true
		case p.eof():
			m[key] = nil
			p.truncated = true
			return bare, colons
		case p.s[p.i] == '}' || p.s[p.i] == ',':
			m[key] = nil
			bare = append(bare, key)
			p.note("added a missing value")
			continue
		default:
			p.note("added a missing colon")
		}
		p.skipSpace()
		if p.eof() {
			m[key] = nil
			p.truncated = true
			return bare, colons
		}
		if c := p.s[p.i]; c == ',' || c == '}' {
			m[key] = nil
			p.note("added a missing value")
			continue
		}
		v, ok := p.value(ctxObjectValue)
		if !ok {
			m[key] = nil
			p.truncated = true
			return bare, colons
		}
		m[key] = v
		p.skipSpace()
		if p.eof() {
			return bare, colons
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
			if !p.eof() && p.s[p.i] == '}' {
				p.note("removed a trailing comma")
			}
		case '}', ']', '{', '[':
			return bare, colons
		default:
			if p.atQuote() || isKeyByte(p.s[p.i]) {
				p.note("added missing commas")
				continue
			}
			// Garbage between members: drop it.
			p.i++
			p.note("removed stray characters")
		}
	}
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= utf8.RuneSelf
}

// key parses an object key: a string in any quote style, or an unquoted
// word up to the colon.
func (p *repairParser) key() (string, bool) {
	if p.atQuote() {
		return p.str(ctxKey), true
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ':' || c == ',' || c == '}' || c == ']' || c == '{' || c == '[' || c == '"' || c == '\'' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		p.i++
	}
	if p.i == start {
		return "", false
	}
	k := toValidUTF8(p.s[start:p.i])
	if !p.eof() && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
		if a := skipInlineSpace(p.s, p.i+1); a < len(p.s) && p.s[a] == ':' {
			p.i++ // a":  — the key's opening quote was forgotten
			p.note("added missing quotes")
			return k, true
		}
	}
	// A bare word followed by another word without a colon is prose
	// (COMMENT "notes": ...): skip it.
	save := p.i
	p.skipSpace()
	if !p.eof() && p.s[p.i] != ':' && (p.atQuote() || isKeyByte(p.s[p.i])) {
		if p.atQuote() && !p.memberFollows(p.i) {
			p.i = save // {a 'b'} — a key whose colon was forgotten
			p.note("quoted unquoted keys")
			return k, true
		}
		p.note("removed stray words")
		return "", false
	}
	p.i = save
	p.note("quoted unquoted keys")
	return k, true
}

// array parses an array at '[' (or a tuple at '('), ending at close.
func (p *repairParser) array(close byte) []any {
	p.i++
	a := make([]any, 0, 4)
	for {
		p.skipSpace()
		for !p.eof() && p.s[p.i] == ',' {
			p.i++
			p.note("removed extra commas")
			p.skipSpace()
		}
		if p.eof() {
			p.note("added missing closing brackets")
			return a
		}
		c := p.s[p.i]
		if c == close {
			p.i++
			return a
		}
		if _, lastIsObject := last(a).(map[string]any); c == '}' && lastIsObject {
			// [{...}},{...}] — a stray closing brace between objects.
			if n := skipAllSpace(p.s, p.i+1); n < len(p.s) && p.s[n] == ',' && strings.HasPrefix(p.s[skipAllSpace(p.s, n+1):], "{") {
				p.i = n
				p.note("removed redundant closing brackets")
				continue
			}
		}
		if c == ']' || c == '}' || c == ')' {
			// Mismatched bracket: it closes this array and whatever
			// encloses it; the enclosing value consumes it.
			p.note("added missing closing brackets")
			return a
		}
		if strings.HasPrefix(p.s[p.i:], "...") {
			p.i += 3
			p.note("removed an ellipsis placeholder")
			continue
		}
		start := p.i
		v, ok := p.value(ctxArray)
		if !ok {
			if p.i == start {
				p.i++
			}
			continue
		}
		if v == "" && p.eof() && p.truncated {
			return a // ["  — nothing of the element arrived
		}
		if k, isKey := v.(string); isKey && !p.eof() && p.s[p.i] == ':' {
			// ["key": "value"] — the model opened an array for an object.
			p.i++
			p.note("turned an array of key: value pairs into an object")
			m := map[string]any{}
			if val, ok := p.value(ctxObjectValue); ok {
				m[k] = val
			} else {
				m[k] = nil
			}
			p.skipSpace()
			if !p.eof() && p.s[p.i] == ',' {
				p.i++
			}
			p.members(m)
			p.skipSpace()
			if !p.eof() && p.s[p.i] == '}' {
				p.i++
			}
			v = m
		}
		a = append(a, v)
		p.skipSpace()
		if p.eof() {
			p.note("added missing closing brackets")
			return a
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
			if !p.eof() && p.s[p.i] == close {
				p.note("removed a trailing comma")
			}
		case close, ']', '}', ')':
		default:
			p.note("added missing commas")
		}
	}
}

// number parses a number; text that starts like one but is not (a date, a
// UUID, 1notanumber, 0.0.1) becomes a string, as the model meant it.
func (p *repairParser) number(ctx parseCtx) any {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	intDigits := p.s[intStart:p.i]
	frac := false
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		frac = true
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		digits := p.i
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
		if p.i == digits && p.i < len(p.s) && !isValueEnd(p.s[p.i]) {
			p.i = save // "1notanumber" style: not an exponent
		}
	}
	raw := p.s[start:p.i]
	if p.i < len(p.s) && !isValueEnd(p.s[p.i]) && !strings.HasPrefix(p.s[p.i:], "//") && !strings.HasPrefix(p.s[p.i:], "/*") {
		// More non-delimiter text follows: it is a word, not a number.
		p.i = start
		v, _ := p.unquoted(ctx)
		return v
	}
	p.skipStrayQuote()
	if len(intDigits) > 1 && intDigits[0] == '0' {
		p.note("quoted a number with a leading zero")
		return raw
	}
	if n, ok := normaliseNumber(raw); ok {
		if n != raw {
			p.note("completed a number")
			if p.eof() {
				p.truncated = true
			}
		}
		_ = frac
		return json.Number(n)
	}
	p.note("quoted an invalid number")
	return raw
}

// normaliseNumber completes a number cut short ("2." → "2.0", "2e" → "2",
// "-" → "0", ".25" → "0.25") and reports whether the result is a JSON number.
func normaliseNumber(raw string) (string, bool) {
	n := raw
	if strings.HasPrefix(n, "-.") {
		n = "-0" + n[1:]
	} else if strings.HasPrefix(n, ".") {
		n = "0" + n
	}
	n = strings.TrimRight(n, "eE+-")
	if strings.HasSuffix(n, ".") {
		n += "0"
	}
	if n == "" || n == "-" {
		n = "0"
	}
	if !isJSONNumber(n) {
		return raw, false
	}
	return n, true
}

func isValueEnd(c byte) bool {
	switch c {
	case ',', '}', ']', ')', '{', '[', '"', '\'', ':', ' ', '\t', '\n', '\r', '#':
		return true
	}
	return false
}

// unquoted parses a bare word or phrase: a literal (true, None, undefined),
// a number, or an unquoted string value.
func (p *repairParser) unquoted(ctx parseCtx) (any, bool) {
	start := p.i
	braces := 0 // words{in braces} keep their braces
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '{' {
			braces++
		}
		if c == '}' && braces > 0 {
			braces--
			p.i++
			continue
		}
		if c == ',' || c == '}' || c == ']' || c == '\n' || c == '\r' || c == '"' {
			break
		}
		if c == ')' && p.tuples > 0 {
			break
		}
		if c == '/' && p.i+1 < len(p.s) && (p.s[p.i+1] == '*' || p.s[p.i+1] == '/') && (p.i == start || p.s[p.i-1] == ' ') {
			break
		}
		p.i++
	}
	word := toValidUTF8(strings.TrimRightFunc(p.s[start:p.i], func(r rune) bool { return isSpaceRune(r) }))
	if word == "" {
		return nil, false
	}
	p.skipStrayQuote()
	switch word {
	case "true", "false", "null":
		return map[string]any{"true": true, "false": false, "null": nil}[word], true
	case "True", "TRUE":
		p.notePython("converted True/False/None")
		return true, true
	case "False", "FALSE":
		p.notePython("converted True/False/None")
		return false, true
	case "None", "Null", "NULL", "undefined", "NaN", "Infinity", "-Infinity":
		p.notePython("converted True/False/None")
		return nil, true
	}
	if p.i >= len(p.s) {
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(lit, word) {
				// A literal cut short at the end of the text.
				p.truncated = true
				return map[string]any{"true": true, "false": false, "null": nil}[lit], true
			}
		}
	}
	if n, ok := normaliseNumber(word); ok && n == word {
		return json.Number(word), true
	}
	p.note("quoted unquoted values")
	return word, true
}

// skipStrayQuote consumes a quote right after a bare value when structure
// follows it (foo", 12345"}): the value's opening quote was forgotten.
func (p *repairParser) skipStrayQuote() {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		if a := skipInlineSpace(p.s, p.i+1); a >= len(p.s) || strings.IndexByte(",}]\n", p.s[a]) >= 0 {
			p.i++
			p.note("added missing quotes")
		}
	}
}

// str parses a string opened by any quote style. A quote of the closing
// kind ends the string only where what follows fits the structure (see
// endsString); otherwise it is a quote the model forgot to escape.
func (p *repairParser) str(ctx parseCtx) string {
	open, size := p.peekRune()
	closers, _ := openQuote(open)
	switch open {
	case '"':
	case '\'':
		p.notePython("converted single-quoted strings")
	default:
		p.note("replaced typographic quotes")
	}
	p.i += size
	var asciiClose byte // the ASCII quote among the closers (each kind has one)
	for _, r := range closers {
		if r < utf8.RuneSelf {
			asciiClose = byte(r)
		}
	}
	// The text is the source slice itself until something must change
	// (an escape, invalid UTF-8); only then is it copied into a builder.
	t := strText{s: p.s, start: p.i, close: asciiClose}
	// marks remember where in the source (and in the text) each comma and
	// closing bracket of the string stands, so that a string whose closing
	// quote was forgotten can be ended at the right place. The buffer is
	// the parser's, reused from string to string.
	marks := p.marks[:0]
	defer func() { p.marks = marks[:0] }()
	for p.i < len(p.s) {
		// Runs of plain ASCII need no look at all.
		j := p.i
		for j < len(p.s) {
			if c := p.s[j]; c < 0x20 || c >= utf8.RuneSelf || c == '\\' || c == asciiClose || c == ',' || c == '}' || c == ']' {
				break
			}
			j++
		}
		if j > p.i {
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
			if c != '\n' && c != '\r' && c != '\t' && c != '\b' && c != '\f' {
				// NUL and the like are never text a model meant.
				p.invalid = true
			}
			p.note("escaped raw control characters in strings")
			t.keep(p.i, p.i+1)
			p.i++
			continue
		case c == '}' || c == ']' || c == ',':
			marks = append(marks, strMark{src: p.i, n: t.Len(p.i), c: c})
		}
		r, rsize := rune(c), 1
		if c >= utf8.RuneSelf {
			r, rsize = utf8.DecodeRuneInString(p.s[p.i:])
		}
		if c == asciiClose || c >= utf8.RuneSelf && strings.ContainsRune(closers, r) {
			if p.endsString(p.i+rsize, ctx) {
				out := t.String(p.i)
				p.i += rsize
				return out
			}
			if m, ok := p.earlierEnd(marks, ctx); ok {
				return p.endAt(m, t.String(p.i))
			}
			p.note("escaped quotes inside strings")
		}
		if r == utf8.RuneError && rsize == 1 {
			t.builder(p.i).WriteRune(utf8.RuneError)
		} else {
			t.keep(p.i, p.i+rsize)
		}
		p.i += rsize
	}
	// The text ended inside the string.
	text := t.String(p.i)
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
		// {"url":"https://x/} — the quote was forgotten before the
		// closing brackets: end the string there and let them close.
		return p.endAt(m, text)
	}
	p.truncated = true
	p.note("closed a string cut off at the end of the text")
	return strings.TrimRightFunc(text, isSpaceRune)
}

// earlierEnd reports, for a quote at p.i that does not end the string,
// whether the string should have ended at an earlier comma: ["abc,\n"def"]
// in an array; "a": "New York, "b": ... or "a": "first, b: "second" in an
// object.
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

// endAt ends the string at mark m (whose quote was forgotten) and moves the
// parser there, so the comma or bracket is parsed as structure.
func (p *repairParser) endAt(m strMark, text string) string {
	p.i = m.src
	p.note("added missing quotes")
	return strings.TrimRightFunc(text[:m.n], isSpaceRune)
}

// strText accumulates a string's text: a slice of the source while the text
// equals it, a builder once something had to change.
type strText struct {
	s        string
	start    int
	close    byte // the ASCII closing quote, to size the builder
	b        strings.Builder
	building bool
}

// keep appends the source bytes s[from:to], which directly follow what was
// consumed so far.
func (t *strText) keep(from, to int) {
	if t.building {
		t.b.WriteString(t.s[from:to])
	}
}

// builder switches to building (copying the source up to at) and returns
// the builder to append changed text to.
func (t *strText) builder(at int) *strings.Builder {
	if !t.building {
		t.building = true
		// Size for the text up to the next unescaped closing quote: one
		// allocation for the usual string, doubling only for broken ones.
		end := nextUnescaped(t.s, at, t.close)
		t.b.Grow(end - t.start + 16)
		t.b.WriteString(t.s[t.start:at])
	}
	return &t.b
}

// nextUnescaped returns the offset of the first c at or after i that no
// backslash escapes, or len(s). It uses the vectorised byte search and
// counts the backslashes before each candidate.
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

// Len returns the text's length when the parser is at source offset at.
func (t *strText) Len(at int) int {
	if t.building {
		return t.b.Len()
	}
	return at - t.start
}

// String returns the text when the parser is at source offset at.
func (t *strText) String(at int) string {
	if t.building {
		return t.b.String()
	}
	return t.s[t.start:at]
}

// strMark is a comma or closing bracket met inside a string: its source
// offset, the decoded length before it, and the character.
type strMark struct {
	src, n int
	c      byte
}

// trailingBracket returns the first closing bracket of the run of brackets
// and whitespace that ends the text, if the string holds one.
func trailingBracket(s string, marks []strMark) (strMark, bool) {
	for _, m := range marks {
		if m.c != ',' && trimBrackets(s[m.src:]) == "" {
			return m, true
		}
	}
	return strMark{}, false
}

// commaBeforeQuotedMember reports whether the quote at p.i, which did not
// end the string, starts a member ("b": ...) right after a comma of the
// string: then the string should have ended at that comma.
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

// memberAfterComma finds the last comma of the string after which, up to
// end, stands the start of an object member ("b: ", "b": ) — the sign that
// the string should have ended at that comma.
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

// trimBrackets returns s without whitespace and closing brackets; it is
// empty when s holds nothing else.
func trimBrackets(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return isSpaceRune(r) || r == '}' || r == ']' || r == '`' })
}

// escape decodes one escape at p.i into b. It returns false when the text
// ends inside the escape (the string is then cut off there).
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
		// An escape JSON does not have (\d in a regex, \p in a Windows
		// path): the model meant the backslash.
		b.WriteByte('\\')
		p.i++
		p.note("fixed invalid escapes")
		return true
	}
	p.i += 2
	return true
}

// endsString decides whether the quote just before position j ends the
// string being parsed in context ctx, by looking at what follows it.
func (p *repairParser) endsString(j int, ctx parseCtx) bool {
	k := skipInlineSpace(p.s, j)
	if k >= len(p.s) || strings.HasPrefix(p.s[k:], "```") {
		return true
	}
	c := p.s[k]
	if c == '+' {
		// "hello" + "world": the string ends; value() joins the next one.
		if n := skipAllSpace(p.s, k+1); n < len(p.s) && isQuoteAt(p.s, n) {
			return true
		}
	}
	switch ctx {
	case ctxKey:
		// A value right after the key means the colon was forgotten.
		return c == ':' || c == '}' || c == ',' || c == '\n' || c == '\r' || isQuoteAt(p.s, k) ||
			isDigit(c) || c == '{' || c == '[' || startsLiteral(p.s[k:])
	case ctxArray:
		switch c {
		case ']', '}', ')':
			return p.continuesStructure(k, 4)
		case '\n', '\r', ',', ':':
			return true
		}
		if strings.HasPrefix(p.s[k:], "```") || c == '/' && k+1 < len(p.s) && (p.s[k+1] == '/' || p.s[k+1] == '*') {
			return true
		}
		// Missing comma before another value: "a" "b", "a" 2.
		return isQuoteAt(p.s, k) || isDigit(c) || c == '[' || c == '{'
	case ctxObjectValue:
		switch c {
		case '}', ']':
			return p.continuesStructure(k, 4)
		case ',':
			return p.memberFollows(k+1) || p.closesAfter(k+1)
		case '\n', '\r':
			n := skipAllSpace(p.s, k)
			return n >= len(p.s) || p.s[n] == '}' || p.s[n] == ']' || p.s[n] == ',' || p.memberFollows(n)
		}
		if isQuoteAt(p.s, k) {
			return p.memberFollows(k)
		}
		if c == '/' && k+1 < len(p.s) && (p.s[k+1] == '/' || p.s[k+1] == '*') || strings.HasPrefix(p.s[k:], "```") {
			return true
		}
		return false
	default: // top level
		switch c {
		case ',', ':', '\n', '\r':
			return true
		case ']', '}':
			return skipAllSpace(p.s, k+1) >= len(p.s)
		}
		return strings.HasPrefix(p.s[k:], "```")
	}
}

// continuesStructure reports whether the text at n (a closing bracket, a
// comma, the end) carries on as JSON structure rather than as prose: a quote
// followed by "]" closes a string only if what comes after the bracket fits
// too, so a regex such as ['"]([^'"]+) stays one string.
func (p *repairParser) continuesStructure(n, budget int) bool {
	return p.continuesAfterClosing(n, budget, 0)
}

// continuesAfterClosing is continuesStructure having passed closed closing
// brackets. Once they close every open container, the document is over and
// whatever follows is prose or another value.
func (p *repairParser) continuesAfterClosing(n, budget, closed int) bool {
	n = skipAllSpace(p.s, n)
	if n >= len(p.s) || budget == 0 || strings.HasPrefix(p.s[n:], "```") || closed >= p.depth && closed > 0 {
		return true
	}
	switch p.s[n] {
	case '}', ']', ')':
		return p.continuesAfterClosing(n+1, budget-1, closed+1)
	case '{', '[':
		return closed > 0 // }{ or ][: concatenated values
	case ',':
		m := skipAllSpace(p.s, n+1)
		return m >= len(p.s) || p.memberFollows(m) || isQuoteAt(p.s, m) || isDigit(p.s[m]) ||
			strings.IndexByte("{[]}-", p.s[m]) >= 0 || startsLiteral(p.s[m:])
	}
	return false
}

func startsLiteral(s string) bool {
	for _, w := range []string{"true", "false", "null", "True", "False", "None"} {
		if strings.HasPrefix(s, w) && (len(s) == len(w) || !isKeyByte(s[len(w)])) {
			return true
		}
	}
	return false
}

// closesAfter reports whether, after a comma at j-1, only a closing bracket
// or the end of the text follows (a trailing comma).
func (p *repairParser) closesAfter(j int) bool {
	n := skipAllSpace(p.s, j)
	return n >= len(p.s) || p.s[n] == '}' || p.s[n] == ']'
}

// memberFollows reports whether an object member ("key": or key:) starts at
// or after j, skipping whitespace. With known keys, the key must be one of
// them: a quote inside a file's content followed by `, "b"` is then not
// mistaken for the end of the content. An unknown key still counts when
// nothing but simple members closing the object follow it: the model added
// a parameter the tool does not have (`'append': True}`), which validation
// must see rather than the content swallow.
func (p *repairParser) memberFollows(j int) bool {
	n := skipAllSpace(p.s, j)
	if n >= len(p.s) {
		return true
	}
	key, _, ok := p.memberAt(n)
	if !ok {
		return false
	}
	return p.keys == nil || p.keys[key] || p.lastMembers(n)
}

// memberAt reads a member's key and colon at n: a key in any quote style on
// one line, or a bare word. It returns the key and the index past the colon.
func (p *repairParser) memberAt(n int) (key string, value int, ok bool) {
	r, size := utf8.DecodeRuneInString(p.s[n:])
	var after int
	if closers, ok := openQuote(r); ok {
		end := -1
		for q := n + size; q < len(p.s); {
			r2, s2 := utf8.DecodeRuneInString(p.s[q:])
			if r2 == '\n' {
				break
			}
			if strings.ContainsRune(closers, r2) {
				end = q
				after = q + s2
				break
			}
			q += s2
		}
		if end < 0 {
			return "", 0, false
		}
		key = p.s[n+size : end]
	} else {
		q := n
		for q < len(p.s) && (isKeyByte(p.s[q]) || p.s[q] == '-' || p.s[q] == '.') {
			q++
		}
		if q == n {
			return "", 0, false
		}
		key, after = p.s[n:q], q
		if after < len(p.s) && (p.s[after] == '"' || p.s[after] == '\'') {
			after++ // b": — an unquoted key with a stray closing quote
		}
	}
	a := skipInlineSpace(p.s, after)
	if a >= len(p.s) || p.s[a] != ':' {
		return "", 0, false
	}
	return key, a + 1, true
}

// lastMembers reports whether the text from n on is nothing but a few
// members with simple values closing the object at the end of the text
// (or where the text was cut off).
func (p *repairParser) lastMembers(n int) bool {
	for range 16 {
		_, v, ok := p.memberAt(n)
		if !ok {
			return false
		}
		end, ok := simpleValueEnd(p.s, skipAllSpace(p.s, v))
		if !ok {
			return false
		}
		m := skipAllSpace(p.s, end)
		if m >= len(p.s) {
			return true
		}
		switch p.s[m] {
		case ',':
			if n = skipAllSpace(p.s, m+1); n >= len(p.s) {
				return true
			}
			continue
		case '}':
			rest := skipAllSpace(p.s, m+1)
			return rest >= len(p.s) || strings.HasPrefix(p.s[rest:], "```")
		}
		return false
	}
	return false
}

// maxSimpleValue bounds the bracketed values lastMembers looks through.
const maxSimpleValue = 4096

// simpleValueEnd returns where the value at v ends: a string on one line,
// a bare word or number, or a bracketed group of bounded size.
func simpleValueEnd(s string, v int) (int, bool) {
	if v >= len(s) {
		return v, true
	}
	r, size := utf8.DecodeRuneInString(s[v:])
	if closers, ok := openQuote(r); ok {
		for q := v + size; q < len(s); {
			r2, s2 := utf8.DecodeRuneInString(s[q:])
			switch {
			case r2 == '\n':
				return 0, false
			case r2 == '\\':
				q += s2 + 1
			case strings.ContainsRune(closers, r2):
				return q + s2, true
			default:
				q += s2
			}
		}
		return len(s), true
	}
	if s[v] == '[' || s[v] == '{' {
		depth := 0
		var quote byte
		for q := v; q < len(s) && q-v < maxSimpleValue; q++ {
			c := s[q]
			switch {
			case quote != 0:
				if c == '\\' {
					q++
				} else if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				if depth--; depth == 0 {
					return q + 1, true
				}
			}
		}
		return 0, false
	}
	q := v
	for q < len(s) && (isKeyByte(s[q]) || s[q] == '-' || s[q] == '.' || s[q] == '+') {
		q++
	}
	return q, q > v
}

// looksLikeMember reports whether an object member starts at p.i.
func (p *repairParser) looksLikeMember() bool { return p.memberFollows(p.i) }

func isQuoteAt(s string, k int) bool {
	r, _ := utf8.DecodeRuneInString(s[k:])
	_, ok := openQuote(r)
	return ok
}

func skipInlineSpace(s string, j int) int {
	for j < len(s) {
		if s[j] == ' ' || s[j] == '\t' {
			j++
			continue
		}
		if s[j] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[j:])
			if isSpaceRune(r) && r != '\n' {
				j += size
				continue
			}
		}
		break
	}
	return j
}

// skipAllSpace skips whitespace (any, with newlines) and comments.
func skipAllSpace(s string, j int) int {
	for j < len(s) {
		if s[j] == '/' && j+1 < len(s) && s[j+1] == '*' {
			end := strings.Index(s[j+2:], "*/")
			if end < 0 {
				return len(s)
			}
			j += 2 + end + 2
			continue
		}
		if s[j] == '/' && j+1 < len(s) && s[j+1] == '/' {
			end := strings.IndexByte(s[j:], '\n')
			if end < 0 {
				return len(s)
			}
			j += end
			continue
		}
		r, size := rune(s[j]), 1
		if s[j] >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[j:])
		}
		if !isSpaceRune(r) {
			break
		}
		j += size
	}
	return j
}
