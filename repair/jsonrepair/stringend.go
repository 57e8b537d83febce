package jsonrepair

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// endsString decides, by what follows, whether the quote before j ends the string.
func (p *repairParser) endsString(j int, ctx parseCtx) bool {
	k := skipInlineSpace(p.s, j)
	if k >= len(p.s) || strings.HasPrefix(p.s[k:], "```") {
		return true
	}
	if p.s[k] == '+' {
		// "hello" + "world": the string ends; value() joins the next one.
		if n := skipAllSpace(p.s, k+1); n < len(p.s) && isQuoteAt(p.s, n) {
			return true
		}
	}
	switch ctx {
	case ctxKey:
		return p.endsKey(k)
	case ctxArray:
		return p.endsElement(k)
	case ctxObjectValue:
		return p.endsMemberValue(k)
	}
	switch p.s[k] {
	case ',', ':', '\n', '\r':
		return true
	case ']', '}':
		return skipAllSpace(p.s, k+1) >= len(p.s)
	}
	return false
}

// endsKey: a value right after a key means its colon was forgotten.
func (p *repairParser) endsKey(k int) bool {
	c := p.s[k]
	return c == ':' || c == '}' || c == ',' || c == '\n' || c == '\r' || isQuoteAt(p.s, k) ||
		isDigit(c) || c == '{' || c == '[' || startsLiteral(p.s[k:])
}

func (p *repairParser) endsElement(k int) bool {
	switch c := p.s[k]; c {
	case ']', '}', ')':
		return p.continuesStructure(k, 4)
	case '\n', '\r', ',', ':':
		return true
	}
	if commentAt(p.s, k) {
		return true
	}
	// A missing comma before another value: "a" "b", "a" 2; not before
	// words that start with a digit ("50 items,"100% sure"]).
	c := p.s[k]
	return isQuoteAt(p.s, k) || isDigit(c) && scalarEnds(p.s, k) || c == '[' || c == '{'
}

func (p *repairParser) endsMemberValue(k int) bool {
	switch p.s[k] {
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
	return commentAt(p.s, k)
}

func commentAt(s string, k int) bool {
	return s[k] == '/' && k+1 < len(s) && (s[k+1] == '/' || s[k+1] == '*')
}

// continuesStructure reports whether the text at n carries on as JSON
// rather than prose, so a regex such as ['"]([^'"]+) stays one string.
func (p *repairParser) continuesStructure(n, budget int) bool {
	return p.continuesAfterClosing(n, budget, 0)
}

// continuesAfterClosing is continuesStructure past closed brackets; once
// they close every container, the document is over.
func (p *repairParser) continuesAfterClosing(n, budget, closed int) bool {
	n = skipAllSpace(p.s, n)
	if n >= len(p.s) || budget == 0 || strings.HasPrefix(p.s[n:], "```") {
		return true
	}
	if closed >= p.depth && closed > 0 {
		return !p.closesLikeString(n, closed)
	}
	switch p.s[n] {
	case '}', ']', ')':
		return p.continuesAfterClosing(n+1, budget-1, closed+1)
	case '{', '[':
		return closed > 0 // }{ or ][: concatenated values
	case ',':
		m := skipAllSpace(p.s, n+1)
		if m < len(p.s) && (isDigit(p.s[m]) || p.s[m] == '-' || startsLiteral(p.s[m:])) {
			return scalarEnds(p.s, m)
		}
		return m >= len(p.s) || p.memberFollows(m) || isQuoteAt(p.s, m) || strings.IndexByte("{[]}", p.s[m]) >= 0
	}
	return false
}

// scalarEnds reports whether the number or literal at m is followed by a
// comma, a closing bracket or the end, as an item of a list is: `}, 1]`
// goes on as JSON, `}, 1)` is code inside a string.
func scalarEnds(s string, m int) bool {
	q := m
	for q < len(s) && (isKeyByte(s[q]) || strings.IndexByte("-+.", s[q]) >= 0) {
		q++
	}
	q = skipAllSpace(s, q)
	return q >= len(s) || strings.IndexByte(",]}", s[q]) >= 0
}

// closesLikeString reports whether the text after a document that closed
// with a string is itself the string's rest: words that open nothing, then
// the quote that ends the string where structure follows (a member, or the
// same closing brackets to the end). Then the quote that seemed to close
// the document was one inside the string: {"x": "is {"a": "b"}, not a
// string"}, {"content": "d = {"a": "x"} + y", "path": "p"}.
func (p *repairParser) closesLikeString(n, closed int) bool {
	rest := p.s[n:]
	words := false
	for i, r := range rest {
		if r == '{' || r == '[' {
			return false
		}
		if _, ok := openQuote(r); !ok {
			words = words || unicode.IsLetter(r) || unicode.IsDigit(r)
			continue
		}
		if !words {
			return false // "} at the end, or "}", "b": — a stray quote, not a rest
		}
		j := n + i + utf8.RuneLen(r)
		k := skipAllSpace(p.s, j)
		if k < len(p.s) && p.s[k] == ',' {
			return p.memberFollows(k + 1)
		}
		after := p.s[k:]
		body := strings.TrimLeftFunc(after, func(r rune) bool { return r == '}' || r == ']' || isSpaceRune(r) })
		return body == "" && strings.Count(after, "}")+strings.Count(after, "]") == closed
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

// closesAfter reports a trailing comma at j-1.
func (p *repairParser) closesAfter(j int) bool {
	n := skipAllSpace(p.s, j)
	return n >= len(p.s) || p.s[n] == '}' || p.s[n] == ']'
}

// memberFollows reports whether a member ("key": or key:) starts at j. With
// known keys it must be one, so `, "b"` in a file's content is not taken
// for the content's end; an unknown key counts when only simple members
// closing the object follow (`'append': True}`), for validation to see.
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

// memberAt reads a member's key, quoted on one line or bare, and the colon
// at n; value is the index past the colon.
func (p *repairParser) memberAt(n int) (key string, value int, ok bool) {
	r, size := utf8.DecodeRuneInString(p.s[n:])
	var after int
	if closers, ok := openQuote(r); ok {
		end := -1
		ascii := asciiCloser(closers) // the one ASCII byte among closers
		for q := n + size; q < len(p.s); {
			if c := p.s[q]; c < utf8.RuneSelf {
				if c == '\n' {
					break
				}
				if c == ascii {
					end, after = q, q+1
					break
				}
				q++
				continue
			}
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
		// "selected: [ — a declared key whose closing quote was forgotten;
		// unknown keys are not guessed, lest text in a string pass for one.
		if k, e, ok := p.unclosedKeyAt(n); ok && p.keys[k] && (end < 0 || !colonAt(p.s, after)) {
			return k, colonAfter(p.s, e), true
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

// lastMembers reports whether the text from n is only a few simple members
// closing the object at the end of the text.
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
			return p.closesToEnd(m + 1)
		}
		return false
	}
	return false
}

// closesToEnd reports whether the text from n, after an object's closing
// brace, only closes the containers around it to the end of the text, or
// goes on to a sibling object ({'id': '1', 'extra': 'x'}, {'id': '2'}]}):
// a list of items, not code inside a string, which goes on otherwise.
func (p *repairParser) closesToEnd(n int) bool {
	for range p.depth + 1 {
		n = skipAllSpace(p.s, n)
		if n >= len(p.s) || strings.HasPrefix(p.s[n:], "```") {
			return true
		}
		switch p.s[n] {
		case '}', ']':
			n++
		case ',':
			m := skipAllSpace(p.s, n+1)
			return p.depth > 1 && m < len(p.s) && p.s[m] == '{'
		default:
			return false
		}
	}
	return false
}

// maxSimpleValue bounds the bracketed values lastMembers looks through.
const maxSimpleValue = 4096

// simpleValueEnd returns where the value at v ends: a string on one line, a
// bare word, or a bracketed group of bounded size.
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
			case quote != 0 && c == '\\':
				q++
			case quote != 0:
				if c == quote {
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

// colonAt reports a colon at i, after inline space.
func colonAt(s string, i int) bool {
	a := skipInlineSpace(s, i)
	return a < len(s) && s[a] == ':'
}

// colonAfter returns the index past the colon that follows i.
func colonAfter(s string, i int) int { return skipInlineSpace(s, i) + 1 }

func (p *repairParser) looksLikeMember() bool { return p.memberFollows(p.i) }

func isQuoteAt(s string, k int) bool {
	r, _ := utf8.DecodeRuneInString(s[k:])
	_, ok := openQuote(r)
	return ok
}

// SkipInlineSpace skips from j the spaces of one line, Unicode spaces
// included, as the repair reads them.
func SkipInlineSpace(s string, j int) int { return skipInlineSpace(s, j) }

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
