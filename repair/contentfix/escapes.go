package contentfix

import (
	"strings"
	"unicode/utf16"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// DecodeEscapes decodes literal escape sequences in content evidently
// escaped twice (evidentlyEscaped). Unknown escapes (\d) stay as written.
func DecodeEscapes(content string) (string, bool) {
	if strings.ContainsAny(content, "\n\r") || !strings.Contains(content, `\n`) || !evidentlyEscaped(content) {
		return content, false
	}
	var b strings.Builder
	b.Grow(len(content))
	for i := 0; i < len(content); {
		c := content[i]
		if c != '\\' || i+1 == len(content) {
			b.WriteByte(c)
			i++
			continue
		}
		switch d := content[i+1]; d {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\', '\'', '/':
			b.WriteByte(d)
		case 'u':
			if r, n := jsonesc.Unicode(content[i:]); n > 0 && !utf16.IsSurrogate(r) {
				b.WriteRune(r)
				i += n
				continue
			}
			b.WriteString(`\u`)
		default:
			// Keep the backslash; the next character is copied as it stands.
			b.WriteByte('\\')
			i++
			continue
		}
		i += 2
	}
	return b.String(), true
}

// evidentlyEscaped reports content without a real line break holding two
// structural \n, or one before indentation or the end. A \n inside a quoted
// literal (print('a\nb')) or a drive path (C:\new) is not structural.
// Known limit: a relative Windows path (dir\new\nodes) is decoded.
func evidentlyEscaped(s string) bool {
	var quote byte
	inPath := false
	structural, oneOK := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inPath && endsPath(c) {
			inPath = false
		}
		if !inPath && quote == 0 && driveAt(s, i) {
			inPath = true
		}
		switch {
		case c == '\\' && i+1 < len(s):
			if s[i+1] == 'n' && quote == 0 && !inPath {
				structural++
				j := i + 2
				oneOK = oneOK || j == len(s) || s[j] == ' ' || s[j] == '\t'
			}
			i++
		case c == '`' && strings.HasPrefix(s[i:], "```"):
			// A code fence marker, not a quote.
			for i+1 < len(s) && s[i+1] == '`' {
				i++
			}
		case c == '"' || c == '`' || c == '\'':
			quote = quoteAfter(s, i, quote)
		}
	}
	return structural >= 2 || (structural == 1 && oneOK)
}

// quoteAfter returns the quote left open after s[i]; a ' after a letter is
// an apostrophe.
func quoteAfter(s string, i int, quote byte) byte {
	switch c := s[i]; c {
	case '"', '`':
		if quote == 0 {
			return c
		}
		if quote == c {
			return 0
		}
	case '\'':
		if quote == '\'' {
			return 0
		}
		if quote == 0 && (i == 0 || !isWordByte(s[i-1])) {
			return '\''
		}
	}
	return quote
}

// driveAt reports a Windows drive path at s[i]: a letter starting a word,
// ":\", then two path-name characters, which "if x:\n    y" lacks.
func driveAt(s string, i int) bool {
	if i+4 >= len(s) || !isLetter(s[i]) || s[i+1] != ':' || s[i+2] != '\\' ||
		!isPathByte(s[i+3]) || !isPathByte(s[i+4]) {
		return false
	}
	return i == 0 || !isWordByte(s[i-1])
}

func isPathByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '-' || c == '$' || c == '~'
}

func endsPath(c byte) bool {
	switch c {
	case ' ', '\t', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|':
		return true
	}
	return false
}
