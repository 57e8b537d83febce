package jsonrepair

import (
	"encoding/json"
	"strings"
)

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
	if p.eof() && p.depth > 0 {
		// A number's last digit does not show: 12 may be the start of 1204.
		p.truncated = true
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

// normaliseNumber completes a number cut short ("2." → "2.0", ".25" → "0.25").
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

// isJSONNumber reports whether json.Unmarshal reads s into a json.Number.
// Text of number characters only, what the parser passes, is matched to
// JSON's number grammar here, without Unmarshal's allocations; other text
// is left to Unmarshal (which also reads null and quoted numbers).
func isJSONNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isDigit(c) && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			var n json.Number
			return json.Unmarshal([]byte(s), &n) == nil
		}
	}
	return numberGrammar(s)
}

// numberGrammar reports whether s is exactly a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberGrammar(s string) bool {
	i := 0
	if s[0] == '-' {
		i++
	}
	switch j := skipDigits(s, i); {
	case i < len(s) && s[i] == '0':
		i++
	case j == i:
		return false
	default:
		i = j
	}
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isValueEnd(c byte) bool {
	switch c {
	case ',', '}', ']', ')', '{', '[', '"', '\'', ':', ' ', '\t', '\n', '\r', '#':
		return true
	}
	return false
}

// unquoted parses a bare word: a literal (None, undefined), a number or a string.
func (p *repairParser) unquoted(ctx parseCtx) (any, bool) {
	start := p.i
	p.scanBareWord(start)
	word := ToValidUTF8(strings.TrimRightFunc(p.s[start:p.i], func(r rune) bool { return isSpaceRune(r) }))
	if word == "" {
		return nil, false
	}
	p.skipStrayQuote()
	if first, rest, spaced := strings.Cut(word, " "); spaced && rest != "" && isLiteralWord(first) {
		// [true oops], {"x": null extra}: a literal and a stray word, or
		// words that start like one; neither reading is sure.
		p.strayText(start + len(first) + 1)
	}
	return p.bareWord(word)
}

// scanBareWord moves p.i to the end of the bare word at start.
func (p *repairParser) scanBareWord(start int) {
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
}

// bareWord reads a bare word as a literal, a number or a string; at the
// end of the text, one that shows no end is truncated.
func (p *repairParser) bareWord(word string) (any, bool) {
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
	if p.i >= len(p.s) && p.depth > 0 {
		// A bare word at the end of the text inside a container (a
		// literal or a value cut short: Fal, tru, hel) shows no end.
		p.truncated = true
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

// skipStrayQuote consumes a quote after a bare value whose opening quote
// was forgotten (foo", 12345"}).
func (p *repairParser) skipStrayQuote() {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		if a := skipInlineSpace(p.s, p.i+1); a >= len(p.s) || strings.IndexByte(",}]\n", p.s[a]) >= 0 {
			p.i++
			p.note("added missing quotes")
		}
	}
}

// isLiteralWord reports the words unquoted reads as a literal.
func isLiteralWord(w string) bool {
	switch w {
	case "true", "false", "null", "True", "TRUE", "False", "FALSE", "None", "Null", "NULL", "undefined", "NaN", "Infinity", "-Infinity":
		return true
	}
	return false
}
