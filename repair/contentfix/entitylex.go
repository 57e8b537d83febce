package contentfix

import "strings"

// hasCodeEntity reports whether an entity of v stands where code uses the
// character, outside a string literal: an operator (a &lt; b, =&gt;,
// &amp;&amp;, &amp;x) or a quote pair (&quot;a|b&quot;). Literals are
// followed lightly, with the encoded quotes acting as quotes: "&lt;" in a
// literal is what escaping code writes, and "&lt; less than" at the start
// of a line is a table row. An unclosed quote (an apostrophe in a comment)
// ends at the line's end.
func hasCodeEntity(v string) bool {
	var closer string // the literal's closing text; "" in code
	for i := 0; i < len(v); i++ {
		c := v[i]
		if closer != "" {
			switch {
			case c == '\n' && len(closer) == 1 && closer != "`" || c == '\n' && closer[0] == '&':
				closer = ""
			case c == '\\' && closer[0] != '&':
				i++
			case strings.HasPrefix(v[i:], closer) || closer[0] == '&' && c == '&' && sameQuote(v[i:], closer):
				_, n := entityAt(v[i:])
				i += max(n, len(closer)) - 1
				closer = ""
			}
			continue
		}
		switch c {
		case '"', '\'':
			closer = string(c)
			if strings.HasPrefix(v[i:], strings.Repeat(closer, 3)) {
				closer = strings.Repeat(closer, 3)
				i += 2
			}
		case '`':
			closer = "`"
		case '&':
			r, n := entityAt(v[i:])
			if n == 0 {
				continue
			}
			if r == '"' || r == '\'' {
				if quotePairOnLine(v[i+n:], r) {
					return true
				}
				closer = v[i : i+n]
			} else if codeOperator(v[:i], v[i+n:], r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// sameQuote reports whether s starts with an entity for closer's quote
// (&quot; closes what &#34; opened).
func sameQuote(s, closer string) bool {
	r, n := entityAt(s)
	c, _ := entityAt(closer)
	return n > 0 && r == c
}

// quotePairOnLine reports whether rest holds, before its line ends, an
// entity for quote q closing the literal it opens.
func quotePairOnLine(rest string, q byte) bool {
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	for j := strings.IndexByte(rest, '&'); j >= 0; {
		if r, _ := entityAt(rest[j:]); r == q {
			return true
		}
		k := strings.IndexByte(rest[j+1:], '&')
		if k < 0 {
			break
		}
		j += 1 + k
	}
	return false
}

// codeOperator reports whether the entity for r, between before and after,
// is used as an operator: part of a compound (&amp;&amp;, &lt;=, =&gt;,
// &lt;-), between two operands on its line (a &lt; b, Vec&lt;T&gt;,
// cmd &gt; out), an address-of (f(&amp;x), = &amp;mut v), or a trailing
// background & (sleep 1 &amp;).
func codeOperator(before, after string, r byte) bool {
	if nr, n := entityAt(after); n > 0 && nr != '"' && nr != '\'' {
		return true
	}
	switch {
	case strings.HasPrefix(after, "="),
		r == '<' && strings.HasPrefix(after, "-"),
		r == '>' && (strings.HasSuffix(before, "=") || strings.HasSuffix(before, "-")):
		return true
	}
	prev, next := lastOnLine(before), firstOnLine(after)
	switch {
	case operandEnd(prev) && operandStart(next):
		return true
	case r == '&' && after != "" && isAddressed(after[0]) && strings.IndexByte("(,=[{:!|", prev) >= 0 && prev != 0:
		return true
	case r == '&' && next == 0 && operandEnd(prev):
		return true
	}
	return false
}

// lastOnLine returns the last byte of s before spaces, 0 at a line start.
func lastOnLine(s string) byte {
	s = strings.TrimRight(s, " \t")
	if s == "" || s[len(s)-1] == '\n' || s[len(s)-1] == '\r' {
		return 0
	}
	return s[len(s)-1]
}

// firstOnLine returns the first byte of s after spaces, 0 at a line end.
func firstOnLine(s string) byte {
	s = strings.TrimLeft(s, " \t")
	if s == "" || s[0] == '\n' || s[0] == '\r' {
		return 0
	}
	return s[0]
}

func isASCIIWord(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

func operandEnd(c byte) bool {
	return isASCIIWord(c) || c != 0 && strings.IndexByte(")]}\"'`", c) >= 0
}

func operandStart(c byte) bool {
	return isASCIIWord(c) || c != 0 && strings.IndexByte("([{$-!*./~@\"'`&:", c) >= 0
}

func isAddressed(c byte) bool {
	return isLetter(c) || c == '_' || c == '(' || c == '[' || c == '*'
}
