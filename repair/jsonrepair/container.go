package jsonrepair

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// closeObject consumes the closing brace. A ']' closes the object but
// belongs to the enclosing array ({"a": [{"b": 1], ...}).
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

// members parses pairs into m until the object ends. It returns the keys
// without colon or value, and whether any had a colon: {'a', 'b'} is a set.
func (p *repairParser) members(m map[string]any) (bare []string, colons bool) {
	for {
		p.skipCommas()
		if p.eof() {
			p.cutAfterSeparator()
			return bare, colons
		}
		if c := p.s[p.i]; c == '}' || c == ']' || c == '{' || c == '[' {
			return bare, colons
		}
		if p.skipEllipsis() {
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
		colon, next := p.memberValue(m, key)
		colons = colons || colon
		switch next {
		case bareKey:
			bare = append(bare, key)
		case objectEnds:
			return bare, colons
		}
	}
}

// What follows a member.
type memberNext uint8

const (
	nextMember memberNext = iota
	bareKey               // the key had neither colon nor value
	objectEnds            // the object or the text ends
)

// memberValue reads the colon and the value after key into m.
func (p *repairParser) memberValue(m map[string]any, key string) (colon bool, next memberNext) {
	p.skipSpace()
	switch {
	case !p.eof() && p.s[p.i] == ':':
		p.i++
		colon = true
	case p.eof():
		m[key] = nil
		p.truncated = true
		return false, objectEnds
	case p.s[p.i] == '}' || p.s[p.i] == ',':
		m[key] = nil
		p.note("added a missing value")
		return false, bareKey
	default:
		p.note("added a missing colon")
	}
	p.skipSpace()
	if p.eof() {
		m[key] = nil
		p.truncated = true
		return colon, objectEnds
	}
	if c := p.s[p.i]; c == ',' || c == '}' {
		m[key] = nil
		p.note("added a missing value")
		return colon, nextMember
	}
	v, ok := p.value(ctxObjectValue)
	if !ok {
		m[key] = nil
		p.truncated = true
		return colon, objectEnds
	}
	m[key] = v
	return colon, p.afterMember()
}

// afterMember reads the separator after a member's value.
func (p *repairParser) afterMember() memberNext {
	p.skipSpace()
	if p.eof() {
		p.cutAfterValue()
		return objectEnds
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		p.skipSpace()
		if !p.eof() && p.s[p.i] == '}' {
			p.note("removed a trailing comma")
		}
	case '}', ']', '{', '[':
		return objectEnds
	default:
		if p.atQuote() || isKeyByte(p.s[p.i]) {
			if !p.atQuote() {
				if _, _, member := p.memberAt(p.i); !member {
					// {"limit": 1454 oops}: a word, not a key.
					p.strayText(p.i)
				}
			}
			p.note("added missing commas")
		} else {
			if p.s[p.i] == '(' {
				// {"n": 1708 (see above)}: words in parentheses.
				p.strayText(p.i)
			}
			p.i++ // garbage between members
			p.note("removed stray characters")
		}
	}
	return nextMember
}

// skipCommas skips leading, doubled and trailing commas.
func (p *repairParser) skipCommas() {
	p.skipSpace()
	for !p.eof() && p.s[p.i] == ',' {
		p.i++
		p.note("removed extra commas")
		p.skipSpace()
	}
}

func (p *repairParser) skipEllipsis() bool {
	if !strings.HasPrefix(p.s[p.i:], "...") {
		return false
	}
	p.i += 3
	p.note("removed an ellipsis placeholder")
	return true
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= utf8.RuneSelf
}

// key parses a key in any quote style, or a bare word.
func (p *repairParser) key() (string, bool) {
	if p.atQuote() {
		if k, ok := p.keyWithoutClosingQuote(); ok {
			return k, true
		}
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
	k := ToValidUTF8(p.s[start:p.i])
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

// keyWithoutClosingQuote reads a key whose closing quote was forgotten
// before its colon ({"selected: ["A"]}). Read as a string, the key would
// swallow the value and the text would look cut off. A key the tool
// declares is closed, as is any key when no keys are known; any other is
// refused (keyQuote): the schema says it is no parameter, so the reading
// is unsure.
func (p *repairParser) keyWithoutClosingQuote() (string, bool) {
	key, end, ok := p.unclosedKeyAt(p.i)
	if !ok {
		return "", false
	}
	if p.keys != nil && !p.keys[key] {
		if p.keyQuote < 0 {
			p.keyQuote = p.i
		}
		return "", false
	}
	p.i = end
	p.note(fmt.Sprintf("closed the quote of key %q", key))
	return key, true
}

// unclosedKeyAt reads, at the quote at n, a name, a colon and the start of
// a value, where the next quote is not followed by a colon (which would
// close a key holding a colon, "time: 12:00": 1). It returns the name and
// where it ends.
func (p *repairParser) unclosedKeyAt(n int) (key string, end int, ok bool) {
	open, size := utf8.DecodeRuneInString(p.s[n:])
	closers, isQuote := openQuote(open)
	if !isQuote {
		return "", 0, false
	}
	start := n + size
	q := start
	for q < len(p.s) {
		if c := p.s[q]; c < utf8.RuneSelf {
			// ASCII, as unicode's tests below read it, without their calls.
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c == '-' || c == '.') {
				break
			}
			q++
			continue
		}
		r, w := utf8.DecodeRuneInString(p.s[q:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_$-.", r)) {
			break
		}
		q += w
	}
	a := skipInlineSpace(p.s, q)
	if q == start || a >= len(p.s) || p.s[a] != ':' {
		return "", 0, false
	}
	v := skipInlineSpace(p.s, a+1)
	if v >= len(p.s) {
		return "", 0, false
	}
	j := indexAnyRune(p.s, v, closers)
	if j >= 0 {
		_, w := utf8.DecodeRuneInString(p.s[j:])
		if c := skipInlineSpace(p.s, j+w); c < len(p.s) && p.s[c] == ':' {
			return "", 0, false
		}
	}
	// A bare word after the colon is prose as likely as a value, unless no
	// quote closes the key before the end of the text, which closes the
	// object ({"name: Bob}): read as a string, the key would be cut off.
	if !p.valueStartsAt(v) && (j >= 0 || !isKeyByte(p.s[v]) || !strings.HasSuffix(strings.TrimRightFunc(p.s, isSpaceRune), "}")) {
		return "", 0, false
	}
	return p.s[start:q], q, true
}

// valueStartsAt reports whether a value starts at v (not a bare word,
// which prose after a colon would be too).
func (p *repairParser) valueStartsAt(v int) bool {
	c := p.s[v]
	return c == '{' || c == '[' || c == '-' || isDigit(c) || isQuoteAt(p.s, v) || startsLiteral(p.s[v:])
}

// indexAnyRune returns the offset of the first rune of chars at or after
// i, or -1.
func indexAnyRune(s string, i int, chars string) int {
	if k := strings.IndexAny(s[i:], chars); k >= 0 {
		return i + k
	}
	return -1
}

// array parses an array at '[' (or a tuple at '('), ending at close.
func (p *repairParser) array(close byte) []any {
	p.i++
	a := make([]any, 0, 4)
	for {
		p.skipCommas()
		if p.eof() {
			p.note("added missing closing brackets")
			p.cutAfterSeparator()
			return a
		}
		c := p.s[p.i]
		if c == close {
			p.i++
			return a
		}
		if c == '}' && p.skipStrayBrace(a) {
			continue
		}
		if c == ']' || c == '}' || c == ')' {
			// Mismatched: it closes this array and what encloses it.
			p.note("added missing closing brackets")
			return a
		}
		if p.skipEllipsis() {
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
			v = p.pairsObject(k)
		}
		a = append(a, v)
		if !p.afterElement(close, !p.bareWordAt(start)) {
			return a
		}
	}
}

// skipStrayBrace skips a closing brace between objects: [{...}},{...}].
func (p *repairParser) skipStrayBrace(a []any) bool {
	if _, lastIsObject := last(a).(map[string]any); !lastIsObject {
		return false
	}
	n := skipAllSpace(p.s, p.i+1)
	if n < len(p.s) && p.s[n] == ',' && strings.HasPrefix(p.s[skipAllSpace(p.s, n+1):], "{") {
		p.i = n
		p.note("removed redundant closing brackets")
		return true
	}
	return false
}

// pairsObject reads ["key": "value", ...], an array opened for an object.
func (p *repairParser) pairsObject(k string) map[string]any {
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
	return m
}

// bareWordAt reports an unquoted word at i that is no number or literal.
func (p *repairParser) bareWordAt(i int) bool {
	c := p.s[i]
	return c == '(' || isKeyByte(c) && !isDigit(c) && !isQuoteAt(p.s, i) && !p.atLiteralAt(i)
}

// afterElement reads the separator after an element; false at the end.
// After a JSON value (quoted, a number, a literal, a container), a bare
// word with no comma before it is no item but a stray word; in a list of
// bare words ([a\nb]) it is the next one.
func (p *repairParser) afterElement(close byte, jsonValue bool) bool {
	p.skipSpace()
	if p.eof() {
		p.note("added missing closing brackets")
		p.cutAfterValue()
		return false
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
		if c := p.s[p.i]; jsonValue && (c == '(' || !p.atValueStart()) {
			// ["x"\nDone.], [1600 extra]: a word, not an item.
			p.strayText(p.i)
		}
		p.note("added missing commas")
	}
	return true
}

// The text ends with containers open: it was cut off (a length limit, a
// stream that stopped early) or its closing brackets were forgotten. Only
// the last is a repair, and only where the end shows a complete call:
//
//   - after an opener, a comma or a colon, inside a key, a number or a
//     literal (number, unquoted), or inside a string, the next character
//     was still to come: cut off;
//   - after a complete value with only the outermost container open, the
//     forgotten final brace models often leave out: repaired;
//   - after a complete value inside a nested container ({"command": ["a"),
//     the items or members after it are as likely as the brackets: cut off.

// cutAfterSeparator marks the text cut off where it ends after an opener
// or a comma.
func (p *repairParser) cutAfterSeparator() { p.truncated = true }

// cutAfterValue marks the text cut off where it ends after a complete
// value in a nested container.
func (p *repairParser) cutAfterValue() {
	if p.depth > 1 {
		p.truncated = true
	}
}
