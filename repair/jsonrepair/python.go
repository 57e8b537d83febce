package jsonrepair

import (
	"strings"
)

// Python string literals JSON has no form for: triple-quoted strings,
// which may hold newlines and lone quotes, and r-prefixed raw strings,
// whose backslashes are text.

// pythonString reads a Python string literal at p.i, with an optional
// r/u prefix and one or three quotes, to the end of the text when that
// comes first (truncated); false (p.i unchanged) when none is there, or its
// closing quote is not on its line, or what follows it does not fit
// the structure (a JSON string opening with an unescaped docstring), for
// the other readings to try.
func (p *repairParser) pythonString(ctx parseCtx) (string, bool) {
	i, raw := p.i, false
	if i < len(p.s) && strings.IndexByte("rRuU", p.s[i]) >= 0 {
		raw = p.s[i] == 'r' || p.s[i] == 'R'
		i++
	}
	if i >= len(p.s) || p.s[i] != '\'' && p.s[i] != '"' {
		return "", false
	}
	q := p.s[i]
	delim := p.s[i : i+1] // the quote, or three of them: slices of the text
	if i+3 <= len(p.s) && p.s[i+1] == q && p.s[i+2] == q {
		delim = p.s[i : i+3]
	} else if i == p.i {
		return "", false // a plain string: str reads it
	}
	triple, closing := len(delim) == 3, len(delim)
	body := i + len(delim)
	end := pythonStringEnd(p.s, body, delim)
	switch {
	case end < 0 && (triple || !strings.ContainsAny(p.s[body:], "\n\r")):
		// The text ends inside the string: cut off.
		end, closing = len(p.s), 0
		p.truncated = true
		p.note("closed a string cut off at the end of the text")
	case end < 0 || !p.endsString(end+closing, ctx):
		return "", false
	}
	if raw {
		p.notePython("converted raw strings")
	}
	if triple {
		p.notePython("converted triple-quoted strings")
	} else if q == '\'' {
		p.notePython("converted single-quoted strings")
	}
	var out string
	if raw {
		out = p.s[body:end]
		p.checkControl(out)
	} else {
		out = p.decodePython(body, end, rune(q))
	}
	p.i = end + closing
	return out, true
}

// pythonStringEnd returns where the first delim at or after i that no
// backslash escapes starts; a one-quote string ends on its line. -1 when
// there is none.
func pythonStringEnd(s string, i int, delim string) int {
	for i < len(s) {
		k := strings.Index(s[i:], delim)
		if k < 0 {
			return -1
		}
		k += i
		if len(delim) == 1 && strings.ContainsAny(s[i:k], "\n\r") {
			return -1
		}
		n := 0
		for j := k - 1; j >= i && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return k
		}
		i = k + 1
	}
	return -1
}

// decodePython decodes the escapes of s[from:to] as Python does for the
// ones JSON shares; a backslash before a newline joins the lines.
func (p *repairParser) decodePython(from, to int, open rune) string {
	b := p.scratch[:0]
	defer func() { p.scratch = b[:0] }()
	p.i = from
	for p.i < to {
		k := strings.IndexByte(p.s[p.i:to], '\\')
		if k < 0 {
			b = append(b, p.s[p.i:to]...)
			break
		}
		b = append(b, p.s[p.i:p.i+k]...)
		p.i += k
		switch {
		case strings.HasPrefix(p.s[p.i:], "\\\r\n"):
			p.i += 3
		case strings.HasPrefix(p.s[p.i:], "\\\n"):
			p.i += 2
		default:
			b, _ = p.escape(b, open)
		}
	}
	out := string(b)
	p.checkControl(out)
	return out
}

// checkControl marks text holding control characters no model means (NUL
// and the like) invalid, as str does.
func (p *repairParser) checkControl(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\b' && c != '\f' {
			p.invalid = true
			return
		}
	}
}
